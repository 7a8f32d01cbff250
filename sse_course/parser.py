"""SSEParser, the package's parser, and the two I/O edges iter_events / aiter_events.

How SSEParser works is told once, in its class docstring (the lessons show it).

The standard's rules are functions it shares with the stages that lessons 02-04
build (``split_field``, ``parse_retry``, ``id_accepted``, ``data_size``,
``make_event``, ``bom_length``, ``get_profile``, the limits and the errors), and
``sse_course.feeding`` says which chunks a parser takes and until when. One part
is written twice, on purpose: the dispatch on field names (``data``, ``event``,
``id``, ``retry``, a comment), in ``EventAssembler.feed_line`` for the lessons and
here in ``SSEParser._field_line`` (with the ``data: `` prefix also matched on the
bytes, for runs of data lines). Here it writes this parser's own state, one call a
line; shared, it would cost a call into another object for every field line.
tests/test_fastpath.py compares both parsers feed by feed on every fixture,
partition and generated stream, and shows that comparison rejecting a copy of
SSEParser with any one field rule broken.

A second part is written twice: ``feed``'s common case, a chunk only added to the
held bytes, is also ``SSEParser.events_from``'s, the loop under ``iter_events``,
which so spares a call per chunk, a large part of a one-byte chunk's cost.
tests/test_fastpath.py compares iter_events with a ``feed`` loop on the same
streams, down to the chunk an error comes from, and shows that comparison
rejecting the loop without any one of its guards.
"""

from __future__ import annotations

from codecs import utf_8_decode
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any, Generic, Literal, NoReturn, overload

from .decoding import Chunk, bom_length
from .errors import (
    DEFAULT_MAX_EVENT_CHARS,
    DEFAULT_MAX_LINE_CHARS,
    DecodeError,
    EventTooLarge,
    IncompleteStream,
    LineTooLong,
    SSEError,
    check_limit,
)
from .events import (
    Comment,
    Event,
    Item,
    check_event_id,
    data_size,
    id_accepted,
    make_event,
    parse_retry,
    split_field,
)
from .feeding import Lifecycle, as_chunk
from .lines import LINE_END
from .profiles import DEFAULT_PROFILE, get_profile

#: The bytes that end a line, as ints (``in`` and indexing on bytes give ints).
LF, CR = 10, 13

#: The most bytes of an unfinished line held undecoded: past this many (or past
#: what the limits leave), they are decoded onto the line's text and the line's
#: length is counted in characters.
PIECE_BYTES = 64 * 1024

#: A line longer than this is found by its line end (``find`` of one byte, which
#: runs at memory speed), never by a search for a blank line (two bytes, over ten
#: times slower a byte): a chunk longer than this that holds a line end is cut at
#: once, and a block whose first line is longer has that line taken alone.
LONG_LINE_BYTES = 4096


class SSEParser(Generic[Item]):
    """Sans-I/O Server-Sent Events parser: ``feed(chunk)`` returns the events the chunk
    completes, exactly, however the stream is cut into chunks.

    It keeps :class:`~sse_course.layered.LayeredSSEParser`'s contract feed by feed (the
    same events from the same feed, the same errors carrying the same events, no input
    taken after an error or ``close()``), with the one difference below. It gets there
    another way: it works on the bytes first, and keeps all of its state itself.
    ``SSEParser[Event]``, or with ``comments=True`` ``SSEParser[Event | Comment]``:
    the type says whether ``feed`` and ``close`` may return ``Comment`` items.

    **What it holds.** The bytes that came since the last line it took, as they came;
    for a long unfinished line, the text decoded so far; the event being built (its
    data, type and ID); and what lasts across events: the last event ID and ``retry``.

    **When it decodes.** CR and LF are bytes that never occur inside a UTF-8
    character, so line ends are found on the bytes. A chunk that cannot complete a
    blank line (no two line ends in a row, counting the held bytes' last) is only
    added to the held bytes, unless it ends a line and is over 4 KiB, or ends a long
    line, or comments are asked for. Otherwise the chunk is taken with the held
    bytes up to its last line end, as one block: CR and CRLF become LF, the block is
    cut at blank lines, and each part is decoded in one call. Whole lines decode to
    the same text, and the same U+FFFD, as the stream would. An unfinished line whose
    bytes pass what the limits leave, or 64 KiB, is decoded onto its text as it grows
    and counted in characters, so a limit fails the feed that passes it.

    **When it dispatches.** A part that is a single ``data:`` line is an event at once
    (when the held bytes and a chunk make just that, the token stream's case, in one
    step, with no block cut);
    a run of ``data:`` lines is one value, joined by LF in one call; any other line
    goes through the field rules one at a time; the blank line after a part
    dispatches. Reading ``retry`` first takes the complete lines held, so every complete
    line fed so far counts (in ``strict``, except the lines from an invalid byte on,
    until its DecodeError comes); ``last_event_id`` changes only at a blank line, as the standard says.

    **Why a DecodeError can come a feed later.** Held bytes are decoded only once a
    blank line may be complete, so in the ``strict`` profile invalid UTF-8 is found,
    and raised, by the feed that brings the next blank line at the latest, or by
    ``close()``: the same error, and the same events in all, as LayeredSSEParser,
    which raises it in the feed that brought the bad byte. Decoding every chunk as it
    came would cost up to twice the time on small reads of non-ASCII text.
    """

    __slots__ = (
        "profile",
        "_decode_errors",
        "_incomplete_is_error",
        "_max_line_chars",
        "_max_event_chars",
        "_comments",
        "_lifecycle",
        # the unfinished line: its text so far (a long line), then its bytes not yet decoded
        "_long_line_text",
        "_long_line_chars",
        "_long_line_is_data",
        "_held_bytes",
        "_lines_held",
        "_plain_chunk_type",
        "_max_held",
        "_max_held_between_events",
        "_held_offset",
        "_after_cr",
        "_bom_possible",
        # the event being built, and what lives across events
        "_data_values",
        "_data_chars",
        "_event_type",
        "_id_buffer",
        "_last_event_id",
        "_retry",
        "_in_block",
    )

    @overload
    def __init__(
        self: SSEParser[Event],
        profile: str = DEFAULT_PROFILE,
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        last_event_id: str = "",
        comments: Literal[False] = False,
    ) -> None: ...

    @overload
    def __init__(
        self: SSEParser[Event | Comment],
        profile: str = DEFAULT_PROFILE,
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        last_event_id: str = "",
        comments: bool,
    ) -> None: ...

    def __init__(
        self,
        profile: str = DEFAULT_PROFILE,
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        last_event_id: str = "",
        comments: bool = False,
    ) -> None:
        """``last_event_id``: the ID the stream starts with (a resumed stream's);
        ``comments``: report comment lines as :class:`~sse_course.events.Comment`."""
        rules = get_profile(profile)
        self.profile = profile
        self._decode_errors = rules.decode_errors
        self._incomplete_is_error = rules.incomplete_is_error
        self._max_line_chars = check_limit("max_line_chars", max_line_chars)
        self._max_event_chars = check_limit("max_event_chars", max_event_chars)
        self._id_buffer = self._last_event_id = check_event_id(last_event_id)
        self._comments = comments
        self._lifecycle = Lifecycle()
        self._long_line_text = ""  # a long unfinished line's text so far (its value if a data line)
        self._long_line_chars = 0  # the characters of the unfinished line in _long_line_text ("data: " counted)
        self._long_line_is_data = False  # _long_line_text is a data line's value
        self._held_bytes = bytearray()  # the bytes since the last line taken, not yet decoded
        self._lines_held = False  # a chunk with a line end was held whole: complete lines may be held
        self._max_held_between_events = self._max_held = min(
            self._max_line_chars, self._max_event_chars, PIECE_BYTES
        )  # held bytes allowed before they are decoded
        self._held_offset = 0  # the stream offset of the first held byte
        self._after_cr = False  # the last line end was a CR: an LF that starts the next chunk is its CRLF's
        self._bom_possible = True  # a BOM may still come
        # the chunk type feed()'s common case takes: bytes, or None while the next feed takes the
        # careful road (at the stream's start, after a CR that ended the held bytes, once spent)
        self._plain_chunk_type: type[bytes] | None = None
        self._data_values: list[str] = []  # the event's data values (a value may hold several lines)
        self._data_chars = 0
        self._event_type = ""
        self._retry: int | None = None
        self._in_block = False  # a field line came since the last blank line

    @property
    def last_event_id(self) -> str:
        """The ID a reconnecting client sends as ``Last-Event-ID`` (committed at dispatch)."""
        return self._last_event_id

    @property
    def retry(self) -> int | None:
        """The reconnection time (ms) the stream asked for, if it did: the complete
        lines held go through the field rules first, so every complete line fed so far
        counts, except, where invalid UTF-8 is an error, the lines from a bad byte on
        until the DecodeError comes (by the next blank line, or ``close()``)."""
        if self._lines_held and not self._lifecycle.spent:
            self._take_held_lines([], quiet=True)  # no blank line is held, so no event comes of it
        return self._retry

    @overload
    def feed(self: SSEParser[Event], chunk: Chunk) -> list[Event]: ...

    @overload
    def feed(self, chunk: Chunk) -> list[Event | Comment]: ...

    def feed(self, chunk: Chunk) -> list[Any]:  # the overloads say what comes; the body builds Event | Comment
        """Return the events this chunk completes (possibly none), and its comments
        if asked for.

        The common case in one function, a call costing about as much as a small
        chunk's work: the chunk is held unless it may complete a blank line (the
        only line that dispatches an event): two line ends in a row, on the bytes.
        """
        if chunk.__class__ is not self._plain_chunk_type:
            return self._feed_carefully(chunk)
        held = self._held_bytes
        if LF in chunk or CR in chunk:  # ``in`` of an int: one memchr
            if len(chunk) > LONG_LINE_BYTES:  # not searched for a blank line: it may hold a long line
                return self._feed_in_pieces(chunk) if len(chunk) > PIECE_BYTES else self._take_complete_lines(chunk)
            if (
                # a blank line that the held bytes' last line end and the chunk's first make
                (chunk[0] in (LF, CR) and (not held or held[-1] == LF or held[-1] == chunk[0]))
                or (  # an empty line inside the chunk (its first may only end the held line)
                    chunk.splitlines().count(b"") > (chunk[0] == LF or chunk[0] == CR)  # one pass, all three line ends
                    if CR in chunk
                    else chunk.find(b"\n\n") >= 0  # not ``in``: that first tries the bytes as an int, and fails slowly
                )
                or self._comments  # a comment is reported by the feed that ends its line
                or self._long_line_chars  # a long line ends
            ):
                return self._take_complete_lines(chunk)
            self._lines_held = True
        if len(held) + len(chunk) > self._max_held:  # a huge chunk is never copied whole
            return self._hold_past_max(chunk)
        held += chunk  # a bytearray: a long line fed a byte at a time stays linear
        return []

    @overload
    def events_from(self: SSEParser[Event], chunks: Iterable[Chunk]) -> Iterator[Event]: ...

    @overload
    def events_from(self, chunks: Iterable[Chunk]) -> Iterator[Event | Comment]: ...

    def events_from(self, chunks: Iterable[Chunk]) -> Iterator[Any]:  # as for feed
        """The events of every chunk, then ``close()``'s, so a parser read to the end is
        spent; on error, the events it carries, then the error. :func:`iter_events` is
        this loop; on your own parser, ``last_event_id`` and ``retry`` can be read between
        events. A chunk that ``feed`` would only add to the held bytes (exactly
        ``bytes``, no line end, room for it) is added here, without the call (a subclass
        that overrides ``feed`` does not see it); every other chunk goes to ``feed``."""
        try:
            for chunk in chunks:
                if chunk.__class__ is self._plain_chunk_type and not (LF in chunk or CR in chunk):
                    held = self._held_bytes
                    if len(held) + len(chunk) <= self._max_held:
                        held += chunk
                        continue
                yield from self.feed(chunk)
            yield from self.close()
        except SSEError as err:
            yield from err.events
            raise

    def _hold_past_max(self, chunk: bytes) -> list[Event | Comment]:
        """The chunk takes the held bytes past what may be held: a huge one goes in
        slices, so a limit fires before the rest is copied; otherwise the complete
        lines held go through the field rules and the unfinished line is decoded."""
        if len(chunk) > PIECE_BYTES:
            return self._feed_in_pieces(chunk)
        self._held_bytes += chunk
        events: list[Event | Comment] = []
        try:
            self._held_passed_max(events)
        except SSEError as err:
            self._fail(err, events)
        return events

    @overload
    def close(self: SSEParser[Event]) -> list[Event]: ...

    @overload
    def close(self) -> list[Event | Comment]: ...

    def close(self) -> list[Any]:  # as for feed
        """End of stream: an unfinished line or event is an error (strict) or
        dropped; the parser is then spent."""
        self._lifecycle.refuse_if_spent()
        self._plain_chunk_type = None
        self._lifecycle.close()
        events: list[Event | Comment] = []
        try:
            self._end_of_stream(events)
        except SSEError as err:
            self._lifecycle.fail(err, events)
        return events

    def _fail(self, err: SSEError, events: list[Event | Comment]) -> NoReturn:
        self._plain_chunk_type = None
        self._lifecycle.fail(err, events)

    def _feed_carefully(self, chunk: Any) -> list[Event | Comment]:
        """What the common case does not take: a chunk that is not exactly ``bytes``
        (a subclass is copied), a spent parser, a huge chunk, the stream's first bytes,
        a chunk after a CR that ended the held bytes."""
        chunk = as_chunk(chunk)
        self._lifecycle.refuse_if_spent()
        if len(chunk) > PIECE_BYTES:
            return self._feed_in_pieces(chunk)
        if self._bom_possible:
            return self._stream_start(chunk)
        if self._after_cr:
            if not chunk:
                return []
            self._after_cr, self._plain_chunk_type = False, bytes
            if chunk[0] == LF:  # the LF of a CRLF split between chunks
                chunk = chunk[1:]
                self._held_offset += 1
        return self.feed(chunk)

    def _feed_in_pieces(self, chunk: bytes) -> list[Event | Comment]:
        """A huge chunk, fed in slices of PIECE_BYTES: a limit fires before the rest
        of the chunk is copied and decoded."""
        events: list[Event | Comment] = []
        for start in range(0, len(chunk), PIECE_BYTES):
            try:
                events += self.feed(chunk[start : start + PIECE_BYTES])
            except SSEError as err:
                err.carry(events)
                raise
        return events

    def _stream_start(self, chunk: bytes) -> list[Event | Comment]:
        """The stream's first bytes: a BOM there is dropped, however it was split."""
        held = self._held_bytes
        held += chunk
        skip = bom_length(held)
        if skip is None:  # two bytes or fewer, a BOM's start: nothing can be decoded yet
            return []
        self._bom_possible, self._plain_chunk_type = False, bytes
        self._held_offset = skip
        first = bytes(held[skip:])
        held.clear()
        return self.feed(first)

    def _take_complete_lines(self, chunk: bytes) -> list[Event | Comment]:
        """The held bytes and ``chunk``, through its last line end, go through the field
        rules; the unfinished line after it is held."""
        held = self._held_bytes
        end = (
            max(chunk.rfind(b"\n"), chunk.rfind(b"\r")) if CR in chunk else chunk.rfind(b"\n")
        ) + 1  # after the last line end
        rest = len(chunk) - end
        events: list[Event | Comment] = []
        try:
            if held:
                held += chunk
                if held.find(b"\n") + 2 + rest == len(held) and self._one_data_event(held, rest, events):
                    return events  # one line and a blank line: the token stream's case
                self._held_bytes = held[-rest:] if rest else bytearray()
                if rest:
                    del held[-rest:]
                block: bytes | bytearray = held
            else:
                block = chunk[:end] if rest else chunk
                if rest:
                    held += chunk[end:]
            if not rest and chunk[-1] == CR:
                self._after_cr, self._plain_chunk_type = True, None
            self._lines_held = False
            self._complete_lines(block, events)
            if rest > self._max_held:
                self._decode_unfinished_line()
        except SSEError as err:
            self._fail(err, events)
        return events

    def _one_data_event(self, held: bytearray, rest: int, events: list[Event | Comment]) -> bool:
        """The token stream's case in one step, if it is that: the held bytes but the
        last ``rest`` (an unfinished line) are one line and the blank line after it
        (the caller found its first LF there); if that line is a ``data:`` line with
        nothing pending before it, the event is built here, and those bytes are
        dropped from the front of ``held``. False, having changed nothing, for
        anything else, or for invalid UTF-8 in ``strict``."""
        end = len(held) - rest
        first = end - 2
        if (
            rest > self._max_held
            or CR in held
            or self._data_values
            or self._long_line_chars
            or not held.startswith(b"data: ")
            or first > self._max_line_chars
            or first - 6 > self._max_event_chars
        ):
            return False
        try:
            value = held[6:first].decode("utf-8", self._decode_errors)
        except UnicodeDecodeError:
            return False
        del held[:end]  # from the front of a bytearray: no bytes move
        self._held_offset += end
        self._lines_held = False
        self._dispatch_value(value, events)
        return True

    def _take_held_lines(self, events: list[Event | Comment], *, quiet: bool = False) -> None:
        """The complete lines held (no blank line among them) go through the field rules;
        ``quiet``: only those before a line with invalid UTF-8, which a later feed reports."""
        held = self._held_bytes
        end = max(held.rfind(b"\n"), held.rfind(b"\r")) + 1
        if quiet and end:
            try:
                held[:end].decode("utf-8", self._decode_errors)
            except UnicodeDecodeError as err:
                end = max(held.rfind(b"\n", 0, err.start), held.rfind(b"\r", 0, err.start)) + 1
        self._lines_held = False  # those after an invalid byte give nothing new until more lines come
        if end:
            block = held[:end]
            del held[:end]
            if not held and block[-1] == CR:
                self._after_cr, self._plain_chunk_type = True, None
            self._complete_lines(block, events)

    # --- the unfinished line -------------------------------------------------------

    def _held_passed_max(self, events: list[Event | Comment]) -> None:
        """The held bytes passed what may be held: the complete lines held go through
        the field rules (they may pass a limit), and the unfinished line is decoded."""
        self._take_held_lines(events)
        if len(self._held_bytes) > self._max_held:
            self._decode_unfinished_line()

    def _decode_unfinished_line(self) -> None:
        """Decode the held bytes (an unfinished line) onto the line's text (a split
        character waits), then count the line in characters against its limit. A
        data line's text is its value, so a long value is never sliced from a copy."""
        held = self._held_bytes
        try:
            text, used = utf_8_decode(held, self._decode_errors, False)
        except UnicodeDecodeError as err:
            self._invalid_in_held(err, err.start)
        if not self._long_line_chars and text.startswith("data: "):
            self._long_line_text, self._long_line_is_data = text[6:], True
        else:
            self._extend_long_line(text)
        self._long_line_chars += len(text)
        del held[:used]
        self._held_offset += used
        if self._long_line_chars > self._max_line_chars:
            raise LineTooLong(self._max_line_chars)
        self._set_max_held()

    def _set_max_held(self) -> int:
        """How many bytes may be held before they are decoded: a character takes at least
        one byte, so while they fit, no line and no event can pass its limit. For a long
        line it grows with the line's text (an eighth of it), so the text grows in
        steps of at least 1.125x: a few copies of the line in all, even where
        ``realloc`` copies each time, and at most an eighth more held beside it."""
        self._max_held = min(
            self._max_line_chars - self._long_line_chars,
            self._max_event_chars - self._data_chars,
            max(PIECE_BYTES, self._long_line_chars >> 3),
        )
        return self._max_held

    def _extend_long_line(self, text: str) -> None:
        """Append ``text`` to the line's text in place: with no other reference to it,
        ``+=`` resizes the string instead of copying it (CPython), so a long line is
        held once. Every append goes through this one ``+=``, which runs often
        enough for the interpreter to specialise it."""
        head = self._long_line_text
        self._long_line_text = ""
        head += text
        self._long_line_text = head

    def _invalid_in_held(self, err: UnicodeDecodeError, at: int) -> NoReturn:
        """Invalid UTF-8 ``at`` bytes into the held ones (see _raise_invalid)."""
        self._raise_invalid(err, at - err.start, self._held_bytes[:at].decode("utf-8"))

    def _raise_invalid(self, err: UnicodeDecodeError, at: int, partial: str) -> NoReturn:
        """Invalid UTF-8 ``at`` + ``err.start`` bytes after the offset, inside a line that
        begins with ``partial`` (after the text held): that text still counts against
        the line's limit, since it comes first in the stream; then DecodeError."""
        if self._long_line_chars + len(partial) > self._max_line_chars:
            raise LineTooLong(self._max_line_chars)
        bad = bytes(err.object[err.start : err.end])
        raise DecodeError(self._held_offset + at + err.start, bad, err.reason, partial)

    def _end_of_stream(self, events: list[Event | Comment]) -> None:
        """close(): the unfinished line's last bytes are decoded as the stream's last;
        then the profile says whether an unfinished line or event is an error."""
        self._take_held_lines(events)
        try:
            text = self._held_bytes.decode("utf-8", self._decode_errors)
        except UnicodeDecodeError as err:
            self._invalid_in_held(err, err.start)
        chars = self._long_line_chars + len(text)
        if chars > self._max_line_chars:
            raise LineTooLong(self._max_line_chars)
        if self._incomplete_is_error and chars:
            raise IncompleteStream.inside_line(chars)
        if self._incomplete_is_error and self._in_block:
            raise IncompleteStream.inside_event()

    # --- complete lines ------------------------------------------------------------

    def _complete_lines(self, block: bytes | bytearray, events: list[Event | Comment]) -> None:
        """The lines of ``block``, which ends with a line end, onto ``events``: cut into
        blocks at blank lines on the bytes, each decoded once."""
        size = len(block)
        if self._long_line_chars or size > LONG_LINE_BYTES:
            block = self._long_lines(block, events)
            size = len(block)
        if size > self._max_line_chars:  # a line may pass the limit: counted one by one
            return self._line_by_line(block, events, 0)
        normal = block if CR not in block else b"\n".join([*block.splitlines(), b""])  # one pass, not two ``replace``
        blocks = normal.split(b"\n\n")  # each: lines, then a blank line
        rest = blocks.pop()  # lines after the last blank line, each ending in LF
        errors, done = self._decode_errors, 0
        try:
            for lines in blocks:
                if (
                    lines.startswith(b"data: ")
                    and LF not in lines
                    and not self._data_values
                    and len(lines) - 6 <= self._max_event_chars
                ):
                    self._dispatch_value(lines[6:].decode("utf-8", errors), events)
                else:
                    self._take_block(lines, events)
                    self._dispatch(events)
                done += 1
            if rest:
                self._take_block(rest[:-1], events)
        except UnicodeDecodeError:  # in the block ``done``, before it changed anything
            return self._line_by_line(block, events, sum(lines.count(b"\n") + 2 for lines in blocks[:done]))
        self._held_offset += size
        self._max_held = self._set_max_held() if self._data_chars else self._max_held_between_events

    def _take_block(self, lines: bytes | bytearray, events: list[Event | Comment]) -> None:
        """Lines joined by LF: a run of ``data: `` lines that ends them is one value,
        joined by LF in one C-level ``replace``; other lines one by one. Everything
        is decoded before anything changes."""
        errors = self._decode_errors
        if lines.startswith(b"data: "):
            start = 0
        elif not (start := lines.find(b"\ndata: ") + 1):
            return self._field_lines(lines.decode("utf-8", errors), events)
        run = lines[start:] if start else lines
        value = run[6:].replace(b"\ndata: ", b"\n")
        if len(run) - 6 - len(value) != 6 * run.count(b"\n"):  # a line of the run is not a data line
            return self._field_lines(lines.decode("utf-8", errors), events)
        before, text = lines[: max(start - 1, 0)].decode("utf-8", errors), value.decode("utf-8", errors)
        if start:
            self._field_lines(before, events)
        self._in_block = True
        self._add_data(text)

    def _field_lines(self, lines: str, events: list[Event | Comment]) -> None:
        for line in lines.split("\n"):
            self._field_line(line, events)

    def _field_line(self, line: str, events: list[Event | Comment]) -> None:
        """One line, by the standard's rules (``EventAssembler.feed_line`` on this parser's state)."""
        if not line:
            return self._dispatch(events)
        name, value = split_field(line)
        if line[0] == ":":
            if self._comments:
                events.append(Comment(value))
            return
        self._in_block = True
        if name == "data":
            self._add_data(value)
        elif name == "event":
            self._event_type = value
        elif name == "id":
            if id_accepted(value):
                self._id_buffer = value
        elif name == "retry":
            retry = parse_retry(value)
            if retry is not None:
                self._retry = retry

    def _add_data(self, value: str) -> None:
        size = data_size(self._data_chars, bool(self._data_values), value)
        if size > self._max_event_chars:
            raise EventTooLarge(self._max_event_chars)
        self._data_values.append(value)
        self._data_chars = size

    def _dispatch_value(self, value: str, events: list[Event | Comment]) -> None:
        """One ``data:`` line's value, then a blank line: the standard's dispatch, with no
        list of data values built."""
        self._last_event_id = self._id_buffer
        events.append(make_event(self._event_type, value, self._id_buffer, self._retry))
        if self._in_block:  # else no field came since the last blank line: nothing to reset
            self._event_type, self._in_block = "", False

    def _dispatch(self, events: list[Event | Comment]) -> None:
        """A blank line: commit the ID; an event if there is data."""
        self._last_event_id = self._id_buffer
        if self._data_values:
            data = self._data_values[0] if len(self._data_values) == 1 else "\n".join(self._data_values)
            events.append(make_event(self._event_type, data, self._id_buffer, self._retry))
            self._data_values, self._data_chars = [], 0
        self._event_type, self._in_block = "", False

    def _long_lines(self, block: bytes | bytearray, events: list[Event | Comment]) -> bytes | bytearray:
        """The long lines that start ``block`` (the first may end one whose text is
        held), each taken alone; returns the rest of the block."""
        start = 0
        while self._long_line_chars or (
            len(block) - start > LONG_LINE_BYTES and line_end(block, start) - start > LONG_LINE_BYTES
        ):
            start = self._end_long_line(block, start, events)
        return block[start:] if start else block

    def _end_long_line(self, block: bytes | bytearray, start: int, events: list[Event | Comment]) -> int:
        """The line at ``start`` in ``block`` ends the long line whose text is held (if
        any): the rest of its text, then the field rules. Returns where the next line starts."""
        end = line_end(block, start)
        after = end + 2 if block[end] == CR and block[end + 1 : end + 2] == b"\n" else end + 1
        try:
            text = block[start:after].decode("utf-8", self._decode_errors)  # with the line end: as the stream decodes
        except UnicodeDecodeError as err:
            self._raise_invalid(err, 0, bytes(block[start : start + err.start]).decode("utf-8"))
        self._held_offset += after - start
        text = text[: end - after]
        if self._long_line_chars + len(text) > self._max_line_chars:
            raise LineTooLong(self._max_line_chars)
        self._extend_long_line(text)
        line, self._long_line_text = self._long_line_text, ""
        if self._long_line_is_data:
            self._in_block = True
            self._add_data(line)
        else:
            self._field_line(line, events)
        self._long_line_chars, self._long_line_is_data = 0, False
        return after

    def _line_by_line(self, block: bytes | bytearray, events: list[Event | Comment], skip: int) -> None:
        """The slow road, for a block with invalid UTF-8 or a line that may pass the
        limit: one line at a time (after the first ``skip``, already done), so that
        the first failure in the stream is the one raised."""
        try:
            text, bad = block.decode("utf-8", self._decode_errors), None
        except UnicodeDecodeError as err:
            text, bad = bytes(block[: err.start]).decode("utf-8"), err
        *lines, partial = LINE_END.split(text)
        for line in lines[skip:]:
            if len(line) > self._max_line_chars:
                raise LineTooLong(self._max_line_chars)
            self._field_line(line, events)
        if bad is not None:
            self._raise_invalid(bad, 0, partial)
        self._held_offset += len(block)
        self._set_max_held()


def line_end(block: bytes | bytearray, start: int) -> int:
    """Where the first line end at or after ``start`` is (``block`` holds one): two
    one-byte ``find``s."""
    lf, cr = block.find(b"\n", start), block.find(b"\r", start)
    return lf if cr < 0 or 0 <= lf < cr else cr


@overload
def iter_events(
    chunks: Iterable[Chunk],
    profile: str = DEFAULT_PROFILE,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    last_event_id: str = "",
    comments: Literal[False] = False,
) -> Iterator[Event]: ...


@overload
def iter_events(
    chunks: Iterable[Chunk],
    profile: str = DEFAULT_PROFILE,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    last_event_id: str = "",
    comments: bool,
) -> Iterator[Event | Comment]: ...


def iter_events(
    chunks: Iterable[Chunk],
    profile: str = DEFAULT_PROFILE,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    last_event_id: str = "",
    comments: bool = False,
) -> Iterator[Event | Comment]:
    """Parse an iterable of byte chunks (e.g. ``response.iter_bytes()``), with
    :class:`SSEParser`'s options; ``Comment`` items come only with ``comments=True``.

    The options are checked at the call, before any chunk is read. On a stream
    error, the events it carries are yielded first, then the error is raised.
    """
    parser = SSEParser(
        profile=profile,
        max_line_chars=max_line_chars,
        max_event_chars=max_event_chars,
        last_event_id=last_event_id,
        comments=comments,
    )
    return parser.events_from(chunks)  # one generator: each event is handed on once


@overload
def aiter_events(
    chunks: AsyncIterable[Chunk],
    profile: str = DEFAULT_PROFILE,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    last_event_id: str = "",
    comments: Literal[False] = False,
) -> AsyncIterator[Event]: ...


@overload
def aiter_events(
    chunks: AsyncIterable[Chunk],
    profile: str = DEFAULT_PROFILE,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    last_event_id: str = "",
    comments: bool,
) -> AsyncIterator[Event | Comment]: ...


def aiter_events(
    chunks: AsyncIterable[Chunk],
    profile: str = DEFAULT_PROFILE,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    last_event_id: str = "",
    comments: bool = False,
) -> AsyncIterator[Event | Comment]:
    """Async twin of :func:`iter_events` (e.g. ``response.aiter_bytes()``): the options
    are checked at the call too."""
    parser = SSEParser(
        profile=profile,
        max_line_chars=max_line_chars,
        max_event_chars=max_event_chars,
        last_event_id=last_event_id,
        comments=comments,
    )
    return _aevents_from(parser, chunks)


async def _aevents_from(parser: SSEParser[Any], chunks: AsyncIterable[Chunk]) -> AsyncIterator[Event | Comment]:
    """aiter_events' loop: every chunk to ``feed``, then ``close()``; on error, the
    events it carries, then the error. The hold ``SSEParser.events_from`` does without
    a call is not written a third time here, where every chunk is awaited anyway."""
    try:
        async for chunk in chunks:
            for event in parser.feed(chunk):
                yield event
        for event in parser.close():
            yield event
    except SSEError as err:
        for carried in err.events:
            yield carried
        raise
