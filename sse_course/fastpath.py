"""FastSSEParser: the same contract and outcomes as SSEParser, with less work per chunk.

The layered :class:`~sse_course.parser.SSEParser` shows every step: each chunk
travels through three stage objects, and the line layer finds line ends one
regular-expression match at a time. FastSSEParser *is* an SSEParser, with the
same stage objects and state (the stream's :class:`Utf8Decoder`, the partial
line, limits and messages of :class:`LineSplitter`, the field rules and block
state of :class:`EventAssembler`), and changes only how much Python runs per
chunk and per line:

* the common chunk is decoded in one call of the UTF-8 codec, continuing the
  stream decoder's own state (a split character's bytes, the byte count), and
  skips the generic stage pipeline; CR and LF are ASCII, so no line end hides
  inside a character. A chunk that might need more (the stream's first, for
  the BOM; one with an invalid byte; one in which a line might pass its limit)
  goes through SSEParser's own ``feed`` unchanged, and so does ``close()``;
* a whole text is cut into lines by one C-level ``split``, and one comparison
  (unfinished line + text length against ``max_line_chars``) tells whether any
  line in it can be too long, since a character takes at least one byte;
* data and blank lines, nearly all lines of a real stream, take a short inline
  path; every other line goes through ``EventAssembler.feed_line``.

A partial line is still kept as a list of fragments, so a long line that
arrives in tiny chunks costs linear time, and a line is joined once, when it
ends. tests/test_fastpath.py proves on every fixture, every partition strategy
and generated streams that both parsers give the same events and the same errors.
"""

from __future__ import annotations

from codecs import utf_8_decode

from .errors import (
    DEFAULT_MAX_EVENT_CHARS,
    DEFAULT_MAX_LINE_CHARS,
    EventTooLarge,
    LineTooLong,
    SSEError,
)
from .events import Event, EventAssembler
from .lines import LINE_END, LineSplitter
from .parser import SLICE_BYTES, Profile, SSEParser, as_chunk


class BulkLineSplitter(LineSplitter):
    """LineSplitter whose ``feed`` cuts a whole text at once instead of match by match."""

    def feed(self, text: str) -> list[str]:
        """Return the lines this text completes, without their line ends."""
        if "\n" not in text and "\r" not in text:
            if text:
                self.extend(text)
            return []
        if "\r" in text:  # one C-level replace, unless a lone CR needs the regular expression
            normalized = text.replace("\r\n", "\n")
            lines = LINE_END.split(text) if "\r" in normalized else normalized.split("\n")
        else:
            lines = text.split("\n")
        if self.skip_lf and text[0] == "\n":
            del lines[0]  # the LF of a CRLF whose CR ended the previous text
        self.skip_lf = text[-1] == "\r"
        partial = lines.pop()
        may_be_too_long = self._partial_chars + len(text) > self.max_line_chars
        if lines and self._fragments:
            self._fragments.append(lines[0])
            lines[0] = "".join(self._fragments)
            self._fragments.clear()
            self._partial_chars = 0
        if may_be_too_long:
            self._check_limit(lines, partial)
        if partial:
            self._fragments.append(partial)
            self._partial_chars += len(partial)
        return lines

    def extend(self, text: str) -> None:
        """Add non-empty text without a line end to the partial line (the common tiny chunk)."""
        self.skip_lf = False
        chars = self._partial_chars + len(text)
        if chars > self.max_line_chars:
            raise LineTooLong(self.max_line_chars, [])
        self._fragments.append(text)
        self._partial_chars = chars

    def _check_limit(self, lines: list[str], partial: str) -> None:
        """Raise LineTooLong, with the lines before it, for the first line over the limit."""
        sizes = [len(line) for line in lines] + [self._partial_chars + len(partial)]
        for i, size in enumerate(sizes):
            if size > self.max_line_chars:
                raise LineTooLong(self.max_line_chars, lines[:i])


_new = object.__new__


def new_event(type: str, data: str, last_event_id: str, retry: int | None) -> Event:
    """``Event(...)`` without the frozen dataclass's four ``object.__setattr__``
    calls, which cost more than the rest of an event's parsing."""
    event = _new(Event)
    fields = event.__dict__
    fields["type"] = type
    fields["data"] = data
    fields["last_event_id"] = last_event_id
    fields["retry"] = retry
    return event


class InlineEventAssembler(EventAssembler):
    """EventAssembler with an inline path for data and blank lines."""

    def feed_into(self, lines: list[str], events: list[Event]) -> None:
        """Append the events these lines dispatch to ``events`` (kept on error).

        Data and blank lines, nearly every line of a real stream, follow the
        rules of ``_add_data`` and ``_dispatch`` here without a call per line;
        every other line goes through ``feed_line``.
        """
        limit = self.max_event_chars
        for line in lines:
            if not line:
                if self.data_lines:
                    self.last_event_id = self.id_buffer
                    data = "\n".join(self.data_lines)
                    events.append(new_event(self.event_type or "message", data, self.id_buffer, self.retry))
                    self._reset_block()
                else:
                    self._dispatch()
            elif line.startswith("data:"):
                value = line[6:] if line.startswith(" ", 5) else line[5:]
                size = self._data_chars + len(value) + (1 if self.data_lines else 0)
                if size > limit:
                    raise EventTooLarge(limit)
                self.data_lines.append(value)
                self._data_chars = size
                self.in_block = True
            else:
                self.feed_line(line)  # never dispatches: the line is not blank

    def feed(self, lines: list[str]) -> list[Event]:
        """Return the events these lines dispatch (EventAssembler's contract)."""
        events: list[Event] = []
        try:
            self.feed_into(lines, events)
        except EventTooLarge as err:
            err.completed = events
            raise
        return events


class FastSSEParser(SSEParser):
    """Sans-I/O Server-Sent Events parser with SSEParser's exact contract, faster.

    It is an SSEParser (same constructor, properties, errors, refusal after an
    error or ``close()``, and the same stage objects) with two changes: the
    bulk line splitter and the inline event assembler replace the layered
    ones, and the common chunk skips the generic stage pipeline. Every other
    chunk (the stream's first, one that may hold a line over its limit or an
    invalid byte) and ``close()`` go through SSEParser's own code.
    """

    def __init__(
        self,
        profile: Profile = "strict",
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    ) -> None:
        super().__init__(profile, max_line_chars=max_line_chars, max_event_chars=max_event_chars)
        strict = self.profile == "strict"
        self.splitter = BulkLineSplitter(max_line_chars, strict)
        self.assembler = InlineEventAssembler(max_event_chars, strict)
        self._stages = (self.decoder, self.splitter, self.assembler)
        self._errors = "strict" if strict else "replace"
        self._codec = self.decoder._decoder  # its ``buffer`` holds a split character's bytes

    def feed(self, chunk: bytes) -> list[Event]:
        """Return the events this chunk completes (possibly none).

        The common chunk is decoded, split and assembled here, in one function
        (a call costs as much as the rest of a one-byte chunk's work). Any chunk
        that may need a check this path leaves out goes to SSEParser.feed, with
        nothing changed: the stream's start (BOM), an invalid byte, a line that
        may pass its limit (a character takes at least one byte), a spent parser.
        """
        if chunk.__class__ is not bytes:
            chunk = as_chunk(chunk)
        size = len(chunk)
        if size > SLICE_BYTES:
            return self._feed_slices(chunk)
        decoder, splitter, codec = self.decoder, self.splitter, self._codec
        if not size or decoder._at_start or self._spent_because is not None:
            return super().feed(chunk)
        data = codec.buffer + chunk if codec.buffer else chunk
        if splitter._partial_chars + len(data) > splitter.max_line_chars:
            return super().feed(chunk)
        try:
            text, used = utf_8_decode(data, self._errors, False)
        except UnicodeDecodeError:
            return super().feed(chunk)
        codec.buffer = data[used:]
        decoder._consumed += size
        if "\n" not in text and "\r" not in text:
            if text:  # a piece of a line: BulkLineSplitter.extend, without the limit
                splitter.skip_lf = False
                splitter._fragments.append(text)
                splitter._partial_chars += len(text)
            return []
        events: list[Event] = []
        try:
            self.assembler.feed_into(splitter.feed(text), events)
        except SSEError as err:
            self._fail(err, events)
        return events

    def _feed_slices(self, chunk: bytes) -> list[Event]:
        """A huge chunk in slices, so a limit fires before the rest is decoded."""
        events: list[Event] = []
        try:
            for start in range(0, len(chunk), SLICE_BYTES):
                events += self.feed(chunk[start : start + SLICE_BYTES])
        except SSEError as err:
            err.events = events + err.events
            raise
        return events
