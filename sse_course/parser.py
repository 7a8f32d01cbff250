"""SSEParser, the package's parser, and the two I/O edges iter_events / aiter_events.

:class:`~sse_course.layered.LayeredSSEParser` shows every step: each chunk
travels through three stage objects, and the line layer finds line ends one
regular-expression match at a time. SSEParser *is* a LayeredSSEParser, with the
same stage objects, and works bytes-first, holding input back while nothing
observable depends on it:

* a chunk is appended to the held bytes (one C-level copy) unless it may
  complete a blank line, the only line that dispatches an event or commits an
  ID: CR and LF are ASCII and never occur inside a UTF-8 sequence, so a blank
  line shows in the bytes as two line ends in a row (``\\n\\n``, ``\\r\\r``,
  ``\\n\\r``), and the held bytes always start at the start of a line;
* then the held bytes, through their last line end, are cut at blank lines on
  the bytes (``split(b"\\n\\n")``, or at CRLF CRLF when a CR is held), and only
  values and lines are decoded: a block of one ``data:`` line, every event of
  an LLM token stream, becomes an event with one decode; a run of ``data:``
  lines, the body of a multi-line event, becomes one value with one
  ``replace``; other lines follow the assembler's rules one by one;
* a long line (a large chunk without a line end, or held bytes past 64 KiB) is
  decoded in pieces of about 64 KiB as it comes, so that it is held once, not as
  bytes and again as text;
* a character takes at least one byte, so while the held bytes stay within both
  limits no line or event can pass its limit, and no check is needed; anything
  else (a first chunk too short to tell whether a BOM starts the stream, a chunk
  that could pass a limit, an invalid byte, a non-bytes chunk, a spent parser,
  ``close()``) goes through LayeredSSEParser's ``feed`` and ``close``, with what
  was held in front.

The one difference: in the ``strict`` profile an invalid byte raises DecodeError
(the same error, with the same events in total) from the feed that brings the
next blank line, or from ``close()``, instead of from its own feed.
tests/test_fastpath.py proves on every fixture, every partition strategy and
generated streams that both parsers give the same events and the same errors.
"""

from __future__ import annotations

from codecs import utf_8_decode
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from .errors import DEFAULT_MAX_EVENT_CHARS, DEFAULT_MAX_LINE_CHARS, SSEError
from .events import Event
from .layered import LayeredSSEParser, Profile, as_chunk
from .decoding import BOM
from .lines import LINE_END

#: The bytes that end a line (as ints: ``in`` on bytes compares ints).
LINE_END_BYTES = (10, 13)

BOM_BYTES = BOM.encode()

#: Held bytes past this size are a long line: they are decoded as a piece of it.
PIECE_BYTES = 64 * 1024

#: A chunk over this size without a line end is part of a long line.
SMALL = 512


def _lines(text: str) -> list[str]:
    """``text`` cut at every line end (CR, LF, CRLF), like ``str.split`` cuts at a separator."""
    return LINE_END.split(text) if "\r" in text else text.split("\n")


_new = object.__new__  # builds an Event without the frozen dataclass's __init__


class SSEParser(LayeredSSEParser):
    """Sans-I/O Server-Sent Events parser: ``feed(chunk) -> list[Event]``, exact and fast.

    It is a LayeredSSEParser (same constructor, properties, errors, refusal after an
    error or ``close()``); ``feed`` holds the bytes back until they may complete
    a blank line, then assembles them in a few C-level calls. It has the same
    stage objects too, but their state is current only where the layered feed
    ran: what the fast path holds is bytes. A chunk that could pass a limit, an
    invalid byte, a non-bytes chunk, a spent parser and ``close()`` go through
    LayeredSSEParser's ``feed`` and ``close``, with what was held in front.

    One difference, pinned down by tests/test_fastpath.py: in the ``strict``
    profile an invalid byte raises DecodeError (the same error, with the same
    events in total) from the feed that brings the next blank line, or from
    ``close()``, instead of from its own feed.
    """

    def __init__(
        self,
        profile: Profile = "strict",
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        last_event_id: str = "",
        comments: bool = False,
    ) -> None:
        super().__init__(
            profile,
            max_line_chars=max_line_chars,
            max_event_chars=max_event_chars,
            last_event_id=last_event_id,
            comments=comments,
        )
        self._errors = "strict" if self.profile == "strict" else "replace"
        self._most = min(max_line_chars, max_event_chars)  # the budget while no data is assembled
        self._pieces: list[str] = []  # a long line's start, decoded as its large chunks came
        self._raw = bytearray()  # then the held bytes: no blank line among them
        self._parts: list[bytes] = []  # in a long line: its large chunks, not joined yet
        self._parts_bytes = 0
        self._long_room = 0  # in a long line, the budget (``_room`` is -1 there)
        self._room = -1  # bytes that may still be held; -1: the layered feed only, as for the first character

    @property
    def retry(self) -> int | None:
        """The reconnection time (ms) the stream asked for, if it did; complete
        lines held back are assembled first, so it is never stale."""
        self._catch_up()
        return self.assembler.retry

    def feed(self, chunk: bytes) -> list[Event]:
        """Return the events this chunk completes (possibly none).

        In one function: a call costs as much as a small chunk's work.
        """
        room = self._room - len(chunk) if chunk.__class__ is bytes else -1
        if room < 0:
            return self._feed_long(chunk) if self._parts else self._feed_layered(chunk)
        self._room = room
        raw = self._raw
        if 10 in chunk or 13 in chunk:  # ``in`` is fast for an int; for bytes, ``find`` is
            if (
                chunk.find(b"\n\n") >= 0
                or (13 in chunk and (chunk.find(b"\r\r") >= 0 or chunk.find(b"\n\r") >= 0))
                or (chunk[0] in LINE_END_BYTES and self._blank_across(chunk[0]))
            ):  # it may complete a blank line
                raw += chunk
                return self._cut()
        elif len(chunk) > SMALL:  # a large chunk without a line end: a long line
            return self._start_long(chunk)
        raw += chunk  # bytearray: a long line fed one byte at a time stays linear
        if len(raw) > PIECE_BYTES:
            return self._piece()
        return []

    def _blank_across(self, first: int) -> bool:
        """Whether a chunk starting with the line end ``first`` may complete a blank
        line with what is held (CR then LF is one line end)."""
        raw = self._raw
        if not raw:
            return not self._pieces and not (first == 10 and self.splitter.skip_lf)
        return raw[-1] == 10 or (raw[-1] == 13 and first == 13)

    def _start_long(self, chunk: bytes) -> list[Event]:
        """A large chunk without a line end: hold it, and the large chunks of the same
        line after it, in a list, joined and decoded every PIECE_BYTES. Growing a
        bytearray from empty on every piece reallocates it again and again, which
        costs three times as much once the heap is fragmented."""
        raw = self._raw
        if not self._partial_line_only():
            return self._feed_layered(chunk)
        self._parts = [bytes(raw), chunk] if raw else [chunk]
        self._parts_bytes = len(raw) + len(chunk)
        raw.clear()
        self._long_room, self._room = self._room, -1  # every feed now goes to _feed_long
        return self._feed_long(b"")

    def _feed_long(self, chunk: bytes) -> list[Event]:
        """The next chunk of a long line; a chunk with a line end, or one that could
        pass a limit, ends the long line's mode and goes the usual way."""
        room = self._long_room - len(chunk) if chunk.__class__ is bytes else -1
        if room < 0 or 10 in chunk or 13 in chunk:
            self._end_long()
            return self.feed(chunk)
        self._long_room = room
        self._parts.append(chunk)
        self._parts_bytes += len(chunk)
        if self._parts_bytes <= PIECE_BYTES:
            return []
        held = b"".join(self._parts)
        try:
            text, used = utf_8_decode(held, self._errors, False)
        except UnicodeDecodeError:
            self._end_long()
            return self._feed_layered(b"")
        self.decoder._consumed += used
        self._pieces.append(text)  # not empty: more than PIECE_BYTES bytes were decoded
        self._parts = [held[used:]]  # a character the chunk's end cut, or b""
        self._parts_bytes = len(held) - used
        return []

    def _end_long(self) -> None:
        """Leave the long line's mode: its parts become held bytes again."""
        self._raw += b"".join(self._parts)
        self._parts, self._parts_bytes = [], 0
        self._room = self._long_room

    def _partial_line_only(self) -> bool:
        """Assemble the complete lines held, so that only the partial line is left;
        False if the line of an invalid byte is left too (the layered feed's turn)."""
        raw = self._raw
        if 10 in raw or 13 in raw:
            self._catch_up()
        return 10 not in raw and 13 not in raw

    def _piece(self) -> list[Event]:
        """The held bytes passed PIECE_BYTES: a long line. Its complete lines are
        assembled, and the rest is decoded now as a piece of the partial line, so
        that a long line is never held twice, as bytes and as text."""
        raw, decoder = self._raw, self.decoder
        if not self._partial_line_only():
            return self._feed_layered(b"")
        try:
            text, used = utf_8_decode(raw, self._errors, False)
        except UnicodeDecodeError:
            return self._feed_layered(b"")
        del raw[:used]  # keeps a character the last chunk's end cut
        decoder._consumed += used
        if text:  # a piece is never empty: pieces held mean a partial line
            self._pieces.append(text)
        return []

    def _cut(self) -> list[Event]:
        """Assemble the held lines through the last line end and return the events
        they dispatch; a partial line stays held.

        Blocks are cut on the bytes and only values and lines are decoded: text
        with one emoji in it takes four bytes a character, and each copy counts.
        """
        if self._pieces:  # the end of a long line: the layered feed joins the pieces once
            return self._feed_layered(b"")
        raw = self._raw
        splitter = self.splitter
        if splitter.skip_lf:  # the last lines cut ended with a CR: an LF now is its CRLF's
            splitter.skip_lf = False
            if raw[0] == 10:
                del raw[:1]
                self.decoder._consumed += 1
        crlf = 13 in raw
        blocks = raw.split(b"\r\n\r\n" if crlf else b"\n\n")  # each a block of lines, then a blank line
        rest = blocks.pop()  # complete lines after the last blank line, then the partial line
        whole = max(rest.rfind(b"\n"), rest.rfind(b"\r")) + 1 if crlf else rest.rfind(b"\n") + 1
        end = len(raw) - len(rest) + whole
        del rest[whole:]  # the partial line stays held
        events: list[Event] = []
        if blocks:
            assembler = self.assembler
            in_block, last_event_id, retry = assembler.in_block, assembler.last_event_id, assembler.retry
            try:
                for block in blocks:
                    if not in_block and 10 not in block and 13 not in block and block.startswith(b"data: "):
                        # One data line, and no field line since the last dispatch (any
                        # would have opened a block): type "message", the ID committed.
                        del block[:6]  # in place: a huge value is not copied
                        event = _new(Event)  # Event(...) without four object.__setattr__ calls
                        fields = event.__dict__
                        fields["type"] = "message"
                        fields["data"] = block.decode("utf-8", self._errors)
                        fields["last_event_id"] = last_event_id
                        fields["retry"] = retry
                        events.append(event)
                    else:
                        events += self._block(block, b"\r\n" if crlf else b"\n")
                        in_block, last_event_id, retry = False, assembler.last_event_id, assembler.retry
            except UnicodeDecodeError:  # in a block not assembled yet: the layered feed takes over there
                return self._layered_after(events, [other is block for other in blocks].index(True), crlf)
        if rest:
            try:
                lines = _lines(rest.decode("utf-8", self._errors))
            except UnicodeDecodeError:
                return self._layered_after(events, len(blocks), crlf)
            del lines[-1]  # rest ends with its last line's line end
            events += self._assemble(lines)
        if crlf and end:
            splitter.skip_lf = raw[end - 1] == 13
        del raw[:end]
        self.decoder._consumed += end
        self._room = (self._budget() if self.assembler._data_chars else self._most) - len(raw)
        return events

    def _layered_after(self, events: list[Event], blocks: int, crlf: bool) -> list[Event]:
        """The layered feed takes over after the first ``blocks`` held blocks, which gave ``events``."""
        raw, blank = self._raw, b"\r\n\r\n" if crlf else b"\n\n"
        assembled = 0
        for _ in range(blocks):  # where ``split`` cut
            assembled = raw.find(blank, assembled) + len(blank)
        del raw[:assembled]
        self.decoder._consumed += assembled
        try:
            return events + self._feed_layered(b"")
        except SSEError as err:
            err.events = events + err.events
            raise

    def _block(self, block: bytearray, line_end: bytes) -> list[Event]:
        """Assemble a block's lines, then dispatch. A run of ``data: `` lines that
        ends the block, all ending in ``line_end``, becomes one data value in one
        C-level ``replace``. Everything is decoded before anything is assembled."""
        next_data = line_end + b"data: "
        start = -1 if block.startswith(b"data: ") else block.find(next_data)
        run = block[start + len(line_end) :] if start >= 0 else block
        value = run[6:].replace(next_data, b"\n")
        line_ends = run.count(10)
        if (  # every line of the run is a data line, and every line end in it is ``line_end``
            run.startswith(b"data: ")
            and len(run) - 6 - len(value) == line_ends * (len(next_data) - 1)
            and run.count(13) == (line_ends if len(line_end) == 2 else 0)
        ):
            text = value.decode("utf-8", self._errors)
            head = _lines(block[:start].decode("utf-8", self._errors)) if start >= 0 else []
            events = self._assemble(head)  # the lines before the run
            assembler = self.assembler
            assembler.data_lines.append(text)
            assembler.in_block = True  # _data_chars stays behind: the budget covers the limit, dispatch resets it
            return events + self._assemble([""])
        lines = _lines(block.decode("utf-8", self._errors))
        lines.append("")
        return self._assemble(lines)

    def _assemble(self, lines: list[str]) -> list[Event]:
        """Assemble lines; return the events their blank lines dispatch.

        Data and blank lines follow the rules of the assembler's ``_add_data``
        and ``_dispatch`` here, without a call or an attribute write per line,
        and without the limit check: the budget leaves no room to pass a limit.
        Every other line goes through ``feed_line``.
        """
        assembler = self.assembler
        events: list[Event] = []
        data_lines, size, in_block = assembler.data_lines, assembler._data_chars, assembler.in_block
        for line in lines:  # the block state lives in locals until the loop ends
            if not line:  # dispatch
                assembler.last_event_id = assembler.id_buffer
                if data_lines:
                    event = _new(Event)
                    fields = event.__dict__
                    fields["type"] = assembler.event_type or "message"
                    fields["data"] = "\n".join(data_lines)
                    fields["last_event_id"] = assembler.id_buffer
                    fields["retry"] = assembler.retry
                    events.append(event)
                    data_lines, size = [], 0
                assembler.event_type, in_block = "", False
            elif line.startswith("data:"):
                value = line[6:] if line[5:6] == " " else line[5:]
                size += len(value) + 1 if data_lines else len(value)
                data_lines.append(value)
                in_block = True
            else:
                assembler.data_lines, assembler._data_chars, assembler.in_block = data_lines, size, in_block
                comment = assembler.feed_line(line)  # never dispatches: the line is not blank
                if comment is not None:
                    events.append(comment)
                size, in_block = assembler._data_chars, assembler.in_block
        assembler.data_lines, assembler._data_chars, assembler.in_block = data_lines, size, in_block
        return events

    def _budget(self) -> int:
        """How many characters may be held before a line or the event could pass its limit."""
        assembler, line = self.assembler, self.splitter.max_line_chars
        event = assembler.max_event_chars - assembler._data_chars
        return line if line < event else event

    def _catch_up(self) -> None:
        """Assemble the complete lines held (they hold no blank line, so no event and,
        within the budget, no error), up to the line of an invalid byte."""
        raw = self._raw
        end = max(raw.rfind(b"\n"), raw.rfind(b"\r")) + 1
        if not end or self._spent_because is not None:
            return
        try:
            raw[:end].decode("utf-8", self._errors)
        except UnicodeDecodeError as err:
            end = max(raw.rfind(b"\n", 0, err.start), raw.rfind(b"\r", 0, err.start)) + 1
            if not end:  # the first line held has the invalid byte
                return
        rest = raw[end:]
        del raw[end:]
        self._cut()
        raw += rest
        self._room -= len(rest)

    def _feed_layered(self, chunk: bytes) -> list[Event]:
        """LayeredSSEParser's feed, given what was held first; back to the fast path
        once the stream's first character is seen and no character is split."""
        chunk = self._held_and(as_chunk(chunk))
        decoder = self.decoder
        if decoder._at_start and not decoder.pending and self._spent_because is None:
            if len(chunk) >= len(BOM_BYTES) or not BOM_BYTES.startswith(chunk):  # the first character is known
                return self._start(chunk)
        events = super().feed(chunk)
        if not decoder._at_start and not decoder.pending:
            self._hold_partial_line()
        return events

    def _start(self, chunk: bytes) -> list[Event]:
        """The stream's first chunk: drop a BOM that starts it, then the fast path."""
        decoder = self.decoder
        decoder._at_start = False
        if chunk.startswith(BOM_BYTES):
            chunk = chunk[len(BOM_BYTES) :]
            decoder._consumed += len(BOM_BYTES)
        self._room = self._most
        return self.feed(chunk)

    def _hold_partial_line(self) -> None:
        """Take the line splitter's partial line back: a short one as bytes again
        (valid text encodes back to the bytes it came from; in the ``browser``
        profile no offset is ever reported), a long one as pieces."""
        splitter, chars = self.splitter, self.splitter._partial_chars
        if chars > PIECE_BYTES:
            self._pieces += splitter._fragments
        elif chars:
            held = "".join(splitter._fragments).encode()
            self._raw += held
            self.decoder._consumed -= len(held)
            chars = len(held)
        splitter._fragments.clear()
        splitter._partial_chars = 0
        self._room = self._budget() - chars

    def _held_and(self, chunk: bytes) -> bytes:
        """Hand the pieces held to the line splitter; return the held bytes and ``chunk``."""
        self._room = -1
        pieces, splitter = self._pieces, self.splitter
        if pieces and self._spent_because is None:
            splitter._fragments += pieces
            splitter._partial_chars = sum(map(len, pieces))
            pieces.clear()
        if self._parts:
            self._end_long()
        if self._raw:
            chunk = bytes(self._raw) + chunk
            self._raw.clear()
        self._room = -1
        return chunk

    def close(self) -> list[Event]:
        """End of stream: what was held goes to the layered feed first."""
        events = []
        if (self._raw or self._pieces or self._parts) and self._spent_because is None:
            events = super().feed(self._held_and(b""))
        self._room = -1
        return events + super().close()


def iter_events(chunks: Iterable[bytes], **options: Any) -> Iterator[Event]:
    """Parse an iterable of byte chunks (e.g. ``response.iter_raw()``).

    On error, the events it carries are yielded first, then the error is raised.
    """
    parser = SSEParser(**options)
    try:
        for chunk in chunks:
            yield from parser.feed(chunk)
        yield from parser.close()
    except SSEError as err:
        yield from err.events
        raise


async def aiter_events(chunks: AsyncIterable[bytes], **options: Any) -> AsyncIterator[Event]:
    """Async twin of :func:`iter_events` (e.g. ``response.aiter_raw()``)."""
    parser = SSEParser(**options)
    try:
        async for chunk in chunks:
            for event in parser.feed(chunk):
                yield event
        for event in parser.close():
            yield event
    except SSEError as err:
        for event in err.events:
            yield event
        raise
