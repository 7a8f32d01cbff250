"""SSEParser, the package's parser, and the two I/O edges iter_events / aiter_events.

:class:`~sse_course.layered.LayeredSSEParser` shows every step: each chunk
travels through three stage objects, and the line layer finds line ends one
regular-expression match at a time. SSEParser composes a LayeredSSEParser and
works bytes-first in front of it, holding input back while nothing observable
depends on it:

* a chunk is appended to the held bytes (:class:`HeldBytes`, one C-level copy)
  unless it may complete a blank line, the only line that dispatches an event
  or commits an ID: CR and LF are ASCII and never occur inside a UTF-8
  sequence, so a blank line shows in the bytes as two line ends in a row
  (``\\n\\n``, ``\\r\\r``, ``\\n\\r``);
* then the held bytes, through their last line end, are cut into blocks at
  blank lines on the bytes (at ``\\n\\n``, or at CRLF CRLF when a CR is held);
  a block of one ``data:`` line, every event of an LLM token stream, is decoded
  once and handed to the assembler's ``dispatch_data``; any other block is
  decoded, split into lines and handed to the assembler's ``feed``;
* a long line (held bytes past PIECE_BYTES, 16 KiB, without a line end) is
  decoded as it comes and handed to the line splitter's ``extend``, so it is
  held once, as text, not as bytes and again as text; a first line held that
  is longer than LONG_LINE_BYTES is cut off where ``memchr`` finds its end,
  never scanned by the block search;
* every hand-over goes through the stages' public methods, so the stages'
  state is always the stream's, and their limit checks stay in force; the
  room the held bytes may take is computed from the stages after each
  hand-over (a character takes at least one byte, so while the held bytes fit
  it, no line and no event can pass its limit before the next hand-over);
* anything else (the first character, a split character, a chunk that does
  not fit the room, an invalid byte, a non-bytes chunk, a spent parser,
  ``close()``) goes through the LayeredSSEParser, held bytes first.

The one difference: in the ``strict`` profile an invalid byte raises DecodeError
(the same error, with the same events in total) from a later feed, at the
latest the one that brings the next blank line, or from ``close()``, instead of
from its own feed. tests/test_fastpath.py proves on every fixture, every
partition strategy and generated streams that both parsers give the same events
and the same errors, feed by feed.
"""

from __future__ import annotations

from codecs import utf_8_decode
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import Any

from .decoding import BOM_BYTES
from .errors import DEFAULT_MAX_EVENT_CHARS, DEFAULT_MAX_LINE_CHARS, SSEError
from .events import Comment, Event
from .layered import LayeredSSEParser, Lifecycle, Profile, as_chunk
from .lines import LINE_END

#: The bytes that end a line (as ints: ``in`` on bytes compares ints).
LF, CR = 10, 13
LF_END, CRLF_END = b"\n", b"\r\n"
LF_BLANK, CRLF_BLANK = (LF_END, LF_END * 2), (CRLF_END, CRLF_END * 2)  # a line end, and a blank line after it

#: A first line held longer than this is cut off on its own (the block search
#: looks at every byte; ``memchr`` finds a line end many times faster).
LONG_LINE_BYTES = 4096

#: Held bytes past this size get a look: without a line end they are a long line,
#: decoded as they come and handed to the line splitter.
PIECE_BYTES = 16 * 1024


def _lines(text: str) -> list[str]:
    """``text`` cut at every line end (CR, LF, CRLF), like ``str.split`` cuts at a separator."""
    return LINE_END.split(text) if "\r" in text else text.split("\n")


def first_line_end(buffer: bytes | bytearray) -> int:
    """Where the first line ends: the first CR or LF (by ``memchr``; -1 if none)."""
    lf, cr = buffer.find(LF), buffer.find(CR)
    return lf if cr < 0 or 0 <= lf < cr else cr


def lines_end(buffer: bytes | bytearray) -> int:
    """Where the complete lines end: just after the last CR or LF (0 if none)."""
    return max(buffer.rfind(b"\n"), buffer.rfind(b"\r")) + 1


class HeldBytes(bytearray):
    """The bytes a bytes-first parser holds back: no blank line among them, and
    they start where the stages stopped (h11's ``ReceiveBuffer`` is the model).

    A bytearray, so that appending a chunk and taking the length stay C-level.
    """

    def blank_across(self, first: int) -> bool:
        """Whether a chunk starting with the line end ``first`` completes a blank line
        with the last byte held (CR then LF is one line end, not two)."""
        last = self[-1]
        return last == LF or (last == CR and first == CR)


class SSEParser:
    """Sans-I/O Server-Sent Events parser: ``feed(chunk) -> list[Event]``, exact and fast.

    The same contract as LayeredSSEParser (constructor, ``feed``, ``close``,
    ``profile``, ``last_event_id``, ``retry``, the errors, refusal after an
    error or ``close()``), which it composes: ``feed`` holds the bytes back
    until they may complete a blank line, then hands them to the layered
    parser's stages in a few C-level calls.

    One difference, pinned down by tests/test_fastpath.py: in the ``strict``
    profile an invalid byte raises DecodeError (the same error, with the same
    events in total) from a later feed, at the latest the one that brings the
    next blank line, or from ``close()``, instead of from its own feed.
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
        """``last_event_id``: the ID the stream starts with (a resumed stream's);
        ``comments``: report comment lines as :class:`~sse_course.events.Comment`."""
        layers = LayeredSSEParser(
            profile,
            max_line_chars=max_line_chars,
            max_event_chars=max_event_chars,
            last_event_id=last_event_id,
            comments=comments,
        )
        self._layers = layers
        self._decoder, self._splitter, self._assembler = layers.decoder, layers.splitter, layers.assembler
        self._errors = layers.decoder.errors
        self._comments = comments
        self._held = HeldBytes()
        self._life = Lifecycle()
        self._room = -1  # bytes that may be held; -1 while only the layered parser may go on
        self._continued = False  # the line splitter holds a partial line, which the held bytes continue
        self._max_line_chars = max_line_chars
        self._at_rest = min(max_line_chars, max_event_chars, PIECE_BYTES)  # the room with no partial line and no data
        self._handed = 0  # bytes handed over since the decoder was last told (before the layers decode)

    @property
    def profile(self) -> str:
        return self._layers.profile

    @property
    def last_event_id(self) -> str:
        """The ID a reconnecting client sends as ``Last-Event-ID`` (committed at dispatch)."""
        return self._layers.last_event_id

    @property
    def retry(self) -> int | None:
        """The reconnection time (ms) the stream asked for, if it did; complete
        lines held back are handed over first, so it is never stale."""
        self._catch_up()
        return self._layers.retry

    def feed(self, chunk: bytes) -> list[Event | Comment]:
        """Return the events this chunk completes (possibly none).

        In one function: a call costs as much as a small chunk's work.
        """
        held = self._held
        if chunk.__class__ is not bytes or len(held) + len(chunk) > self._room:
            return self._feed_other(chunk)
        if LF in chunk or CR in chunk:  # ``in`` is fast for an int; for bytes, ``find`` is
            if (
                chunk.find(b"\n\n") >= 0
                or (CR in chunk and (chunk.find(b"\r\r") >= 0 or chunk.find(b"\n\r") >= 0))
                or (chunk[0] in (LF, CR) and self._blank_across(chunk[0]))
            ):  # it may complete a blank line
                held += chunk
                return self._cut()
            held += chunk
            return self._cut() if self._comments else []  # a comment is reported when its line ends
        held += chunk  # bytearray: a long line fed one byte at a time stays linear
        return []

    def close(self) -> list[Event | Comment]:
        """End of stream: what was held goes to the layered parser, then its ``close()``."""
        self._life.refuse_if_spent()
        self._life.spent_because = "close() was called"
        self._room = -1
        events = []
        self._account()
        try:
            if self._held:
                events = self._layers.feed(self._take_held())
            return events + self._layers.close()
        except SSEError as err:
            self._life.fail(err, events)

    def _blank_across(self, first: int) -> bool:
        """Whether a chunk starting with the line end ``first`` may complete a blank line
        with what came before it."""
        if self._held:
            return self._held.blank_across(first)
        # nothing held: the stages stopped at a line end, or inside a line
        return not self._continued and not (first == LF and self._splitter.skip_lf)

    def _cut(self) -> list[Event | Comment]:
        """Hand the held lines, through the last line end, to the stages and return
        the events they dispatch; a partial line stays held.

        Blocks are cut on the bytes and only blocks are decoded: text with one
        emoji in it takes four bytes a character, and each copy counts.
        """
        held, splitter, assembler, errors = self._held, self._splitter, self._assembler, self._errors
        skipped = 0
        if splitter.skip_lf:  # the last hand-over ended with a CR: an LF now is its CRLF's
            splitter.lines_cut(False)  # now, not at the end: the layered parser may take over below
            if held[0] == LF:
                del held[:1]
                skipped = 1
        events: list[Event | Comment] = []
        if (end := first_line_end(held)) > LONG_LINE_BYTES:
            try:
                events = self._long_first_line(end)
            except UnicodeDecodeError:
                return self._layered_after(events, skipped, 0)
            except SSEError as err:
                self._life.fail(err, list(err.completed or []))
            if LF not in held and CR not in held:
                self._handed += skipped
                self._room = self._room_left()
                return events
        line_end, blank = CRLF_BLANK if CR in held else LF_BLANK
        blocks = held.split(blank)  # each a block of lines, then a blank line
        tail = blocks.pop()  # complete lines after the last blank line, then the partial line
        whole = lines_end(tail) if CR in line_end else tail.rfind(b"\n") + 1
        continued = self._continued  # the first line held continues a partial one
        done = 0  # bytes handed over
        try:
            for block in blocks:
                size = len(block) + len(blank)
                if not continued and block.startswith(b"data: ") and LF not in block and CR not in block:
                    del block[:6]  # one data line; in place: a huge value is not copied
                    events.append(assembler.dispatch_data(block.decode("utf-8", errors)))
                else:
                    self._block(block, line_end, continued, events)
                    continued = False
                done += size
            if whole:
                del tail[whole:]
                lines = self._block_lines(tail, continued)
                del lines[-1]  # the tail ends with its last line's line end
                events += assembler.feed(lines)
                done += whole
        except UnicodeDecodeError:  # in a block not handed over yet: the layered parser takes it from there
            return self._layered_after(events, skipped, done)
        except SSEError as err:
            self._life.fail(err, events + list(err.completed or []))
        if line_end is not LF_END:
            splitter.lines_cut(done > 0 and held[done - 1] == CR)
        self._handed += skipped + done
        del held[:done]
        if whole or not done:
            self._room = self._room_left()
        else:  # the last line handed over was blank: no partial line, no data in the stages
            self._room, self._continued = self._at_rest, False
        return events

    def _long_first_line(self, end: int) -> list[Event | Comment]:
        """Hand over the first line held, which is long, up to its line end at ``end``:
        cut off where ``memchr`` found it, so that the block search (a byte at a time)
        never scans it; a data line's value is sliced before it is decoded or joined."""
        held, splitter, assembler, errors = self._held, self._splitter, self._assembler, self._errors
        size = 2 if held[end] == CR and held[end + 1 : end + 2] == b"\n" else 1
        events: list[Event | Comment] = []
        if not self._continued and held.startswith(b"data: "):
            assembler.add_data(held[6:end].decode("utf-8", errors))
        else:
            text = held[:end].decode("utf-8", errors)
            if self._continued and splitter.starts_with("data: "):
                assembler.add_data(splitter.take_partial(text, 6))
            elif (item := assembler.feed_line(splitter.take_partial(text) if self._continued else text)) is not None:
                events.append(item)  # a comment: the line is not blank, so it dispatches nothing
        splitter.lines_cut(held[end + size - 1] == CR)
        self._handed += end + size
        del held[: end + size]
        self._continued = False
        return events

    def _block(self, block: bytearray, line_end: bytes, continued: bool, events: list) -> None:
        """A block of lines, then its blank line, onto ``events``. A run of ``data: `` lines
        that ends the block, all ending in ``line_end``, becomes one value in one C-level
        ``replace``; everything is decoded before anything is handed over."""
        assembler, errors = self._assembler, self._errors
        if continued:  # its first line is the end of a long one
            if LF not in block and CR not in block and self._splitter.starts_with("data: "):
                events.append(assembler.dispatch_data(self._splitter.take_partial(block.decode("utf-8", errors), 6)))
            else:
                events += assembler.feed(self._block_lines(block, continued) + [""])
            return
        next_data = line_end + b"data: "
        found = -1 if block.startswith(b"data: ") else block.find(next_data)
        run = block[found + len(line_end) :] if found >= 0 else block
        value = run[6:].replace(next_data, b"\n")
        ends = run.count(LF)
        if (  # every line of the run is a data line, and every line end in it is ``line_end``
            run.startswith(b"data: ")
            and len(run) - 6 - len(value) == ends * (len(next_data) - 1)
            and run.count(CR) == (ends if len(line_end) == 2 else 0)
        ):
            head = _lines(block[:found].decode("utf-8", errors)) if found >= 0 else []
            text = value.decode("utf-8", errors)
            events += assembler.feed(head)  # the lines before the run
            events.append(assembler.dispatch_data(text))
        else:
            events += assembler.feed(self._block_lines(block, False) + [""])

    def _block_lines(self, block: bytearray, continued: bool) -> list[str]:
        """A block's lines, decoded; the first one joined to the partial line it continues."""
        lines = _lines(block.decode("utf-8", self._errors))
        if continued:
            lines[0] = self._splitter.take_partial(lines[0])
        return lines

    def _layered_after(self, events: list[Event | Comment], skipped: int, done: int) -> list[Event | Comment]:
        """The layered parser takes over ``done`` bytes into the held bytes, after ``events``."""
        self._handed += skipped + done
        del self._held[:done]
        return self._after(events, lambda: self._through_layers(b""))

    @staticmethod
    def _after(events: list[Event | Comment], more: Callable[[], list]) -> list[Event | Comment]:
        """``events``, then what ``more`` returns; if it raises, its error carries ``events`` first."""
        try:
            return events + more()
        except SSEError as err:
            err.events = events + err.events
            raise

    def _piece(self, chunk: bytes) -> None:
        """The held bytes and ``chunk``, which has no line end, pass PIECE_BYTES: a long
        line. The complete lines held are handed over, and the rest is decoded now
        as a piece of the partial line, so that a long line is never held twice."""
        held = self._held
        if LF in held or CR in held:
            self._cut()  # no blank line is held, so no event comes of it
        if held:
            held += chunk
        data = held if held else chunk  # a large chunk alone is decoded where it is
        try:
            text, used = utf_8_decode(data, self._errors, False)
        except UnicodeDecodeError:
            self._through_layers(b"" if held else chunk)  # the layered parser reports it
            return
        try:
            self._splitter.extend(text)
        except SSEError as err:
            self._life.fail(err, [])
        self._handed += used
        if data is held:
            del held[:used]  # keeps a character the chunk's end cut
        else:
            held += chunk[used:]
        self._room = self._room_left()

    def _catch_up(self) -> None:
        """Hand over the complete lines held (no blank line among them, so no event),
        up to the line of an invalid byte, which the layered parser will report."""
        held = self._held
        end = lines_end(held)
        if not end or self._room < 0:
            return
        try:
            held[:end].decode("utf-8", self._errors)
        except UnicodeDecodeError as err:
            end = lines_end(held[: err.start])
            if not end:
                return
        rest = held[end:]
        del held[end:]
        self._cut()  # recomputes the room from the stages; the rest held does not change it
        held += rest

    def _refresh(self) -> None:
        """The room the held bytes may take, from the stages' own limits: while the
        held bytes fit it, no line and no event can pass its limit."""
        decoder, layers = self._decoder, self._layers
        spent = layers.spent or self._life.spent_because
        self._room = -1 if spent or decoder.at_start or decoder.pending else self._room_left()

    def _room_left(self) -> int:
        """The room while the fast path goes on: held bytes past PIECE_BYTES get a look."""
        room = self._stage_room()
        return room if room < PIECE_BYTES else PIECE_BYTES

    def _stage_room(self) -> int:
        """The room the stages leave, less the partial line they hold (it may be a data
        line): while the held bytes fit it, no limit can be passed. Notes whether there is one."""
        line_room = self._splitter.room
        partial = self._max_line_chars - line_room
        self._continued = partial > 0
        event_room = self._assembler.room - partial
        return line_room if line_room < event_room else event_room

    def _account(self) -> None:
        """Tell the decoder how many bytes were decoded here, before it decodes more:
        its offsets (a DecodeError's) count the whole stream."""
        if self._handed:
            self._decoder.advance(self._handed)
            self._handed = 0

    def _take_held(self) -> bytes:
        held = bytes(self._held)
        self._held.clear()
        return held

    def _feed_other(self, chunk: Any) -> list[Event | Comment]:
        """A chunk the fast path does not take as it is: a non-bytes chunk, held bytes
        past PIECE_BYTES, a chunk that does not fit the room, the stream's first
        character, a spent parser."""
        chunk = as_chunk(chunk)
        self._life.refuse_if_spent()
        held = self._held
        if self._room >= 0 and len(held) + len(chunk) <= self._room:
            return self.feed(chunk)  # a bytearray or memoryview that fits
        if self._room >= 0 and len(held) + len(chunk) <= self._stage_room():  # past PIECE_BYTES
            if LF in chunk or CR in chunk:
                held += chunk
                return self._cut()  # complete lines are handed over, blank or not
            self._piece(chunk)
            return []
        decoder = self._decoder
        if decoder.at_start and not decoder.pending and (skip := decoder.begin(chunk)) is not None:
            self._refresh()  # the stream has started: the decoder dropped a BOM, or saw none
            return self.feed(chunk[skip:] if skip else chunk)
        return self._through_layers(chunk)

    def _through_layers(self, chunk: bytes) -> list[Event | Comment]:
        """The layered parser's feed, held bytes first; the fast path resumes after it
        once the stream's first character is seen and no character is split."""
        self._account()
        try:
            return self._layers.feed(self._take_held() + chunk)
        except SSEError as err:
            self._life.fail(err, [])
        finally:
            self._refresh()


def iter_events(chunks: Iterable[bytes], **options: Any) -> Iterator[Event]:
    """Parse an iterable of byte chunks (e.g. ``response.iter_bytes()``).

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
    """Async twin of :func:`iter_events` (e.g. ``response.aiter_bytes()``)."""
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
