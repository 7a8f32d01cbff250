"""FastSSEParser: the same contract and outcomes as SSEParser, with less work per chunk.

The layered :class:`~sse_course.parser.SSEParser` shows every step: each chunk
travels through three stage objects, and the line layer finds line ends one
regular-expression match at a time. FastSSEParser *is* an SSEParser, with the
same stage objects, and does less Python per chunk by holding input back while
nothing observable depends on it:

* a small chunk without CR or LF (most small chunks) costs one append to the
  raw bytes of the partial line; it is decoded with the next chunk that has a
  line end, in one call of the UTF-8 codec (CR and LF are ASCII, so no line end
  hides inside a character, and the bytes are contiguous, so a long line fed
  one byte at a time stays linear); a long line's large pieces are decoded as
  they come and joined once, when the line ends;
* decoded text is cut into lines (one C-level ``split``) and assembled only
  when it may hold a blank line, the only line that dispatches an event or
  commits an ID, or when ``retry`` is read;
* a character takes at least one byte, so while the held bytes stay within both
  limits no line or event can pass its limit, and no check is needed; anything
  else (a chunk that could pass a limit, an invalid byte, a non-bytes chunk, a
  spent parser, ``close()``) goes through SSEParser's own ``feed`` and ``close``.

The one difference: in the ``strict`` profile an invalid byte in a chunk
without a line end raises DecodeError (the same error, with the same events in
total) from the feed that brings its line end, or from ``close()``.
tests/test_fastpath.py proves on every fixture, every partition strategy and
generated streams that both parsers give the same events and the same errors.
"""

from __future__ import annotations

from codecs import utf_8_decode

from .errors import DEFAULT_MAX_EVENT_CHARS, DEFAULT_MAX_LINE_CHARS, LineTooLong
from .events import Event
from .lines import LINE_END, LineSplitter
from .parser import Profile, SSEParser, as_chunk


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


_new = object.__new__  # builds an Event without the frozen dataclass's __init__

#: A chunk or a text up to this size is held back. A longer chunk is decoded at
#: once, so a long line's bytes are decoded piece by piece, never copied whole;
#: a longer text is cut into lines at once: it holds many lines anyway, and
#: looking for a blank line in it would cost a scan of its own.
SMALL = 256


class FastSSEParser(SSEParser):
    """Sans-I/O Server-Sent Events parser with SSEParser's exact contract, faster.

    It is an SSEParser (same constructor, properties, errors, refusal after an
    error or ``close()``, and the same stage objects); ``feed`` does less work
    per chunk by holding input back while nothing observable depends on it:

    * a small chunk without CR or LF is kept as raw bytes (one append),
      decoded with the next chunk that has a line end; a larger one, a piece
      of a long line, is decoded at once and kept as text;
    * decoded text is cut into lines and assembled only when it may hold a
      blank line (the only line that dispatches an event or commits an ID),
      or when ``retry`` is read; other fields change nothing observable.

    Characters are never more than bytes, so while the held bytes stay within
    both limits no line or event can pass its limit; a chunk that could pass
    one, a non-bytes chunk, a spent parser and ``close()`` go through
    SSEParser's own ``feed`` and ``close``, with what was held in front.

    One difference, pinned down by tests/test_fastpath.py: in the ``strict``
    profile an invalid byte in a chunk without a line end raises DecodeError
    (the same error, with the same events in total) from the feed that brings
    the next line end, or from ``close()``, instead of from its own feed.
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
        self._stages = (self.decoder, self.splitter, self.assembler)
        self._errors = "strict" if strict else "replace"
        self._texts: list[str] = []  # decoded text not cut into lines yet
        self._raw = bytearray()  # then bytes not decoded yet (contiguous: one-byte chunks stay cheap)
        self._at_line_start = True  # the held text is empty or ends with CR or LF
        self._held_lines = False  # the held text has a line end
        self._room = self._budget()  # bytes that may still be held; -1: SSEParser's feed only

    @property
    def retry(self) -> int | None:
        """The reconnection time (ms) the stream asked for, if it did; lines
        held back are assembled first, so it is never stale."""
        self._catch_up()
        return self.assembler.retry

    def feed(self, chunk: bytes) -> list[Event]:
        """Return the events this chunk completes (possibly none).

        In one function: a call costs as much as a small chunk's work.
        """
        room = self._room - len(chunk) if chunk.__class__ is bytes else -1
        if room < 0:
            return self._feed_layered(chunk)
        self._room = room
        if 10 not in chunk and 13 not in chunk:  # ints: no buffer lookup, unlike b"\n"
            if len(chunk) <= SMALL:
                self._raw += chunk
                return []
            ends_line = False
        else:
            ends_line = True
        raw = self._raw
        if raw:
            raw += chunk
            chunk = raw  # decoded where it is: a long line's bytes are not copied
        try:
            text, used = utf_8_decode(chunk, self._errors, False)
        except UnicodeDecodeError:
            return self._feed_layered(b"" if chunk is raw else chunk)
        if chunk is raw:
            del raw[:used]  # keeps a character the chunk's end cut; frees a long line's bytes
        elif used < len(chunk):
            raw += chunk[used:]  # a character the chunk's end cut
        decoder = self.decoder
        if decoder._at_start:
            text = decoder._drop_bom(text)
        decoder._consumed += used
        self._texts.append(text)
        if not ends_line:
            self._at_line_start = False
            return []
        if (
            len(text) > SMALL
            or "\n\n" in text
            or ("\r" in text and ("\r\r" in text or "\n\r" in text))
            or (self._at_line_start and text[0] in "\r\n")
        ):  # it may hold a blank line (or the LF of a CRLF)
            del text
            return self._cut_and_assemble(len(raw))
        self._at_line_start = text[-1] in "\r\n"
        self._held_lines = True
        return []

    def _cut_and_assemble(self, raw_bytes: int) -> list[Event]:
        """Cut the held text into lines (one C-level ``split``) and assemble them;
        ``raw_bytes`` are held undecoded.

        Data and blank lines, nearly every line of a real stream, follow the
        rules of ``_add_data`` and ``_dispatch`` here, without a call or an
        attribute write per line, and without the limit check: the budget
        leaves no room to pass a limit. Every other line goes through
        ``feed_line``.
        """
        texts = self._texts
        if self._held_lines:  # cut all the held text at once
            texts[:] = ["".join(texts)]
            self._held_lines = False
        text = texts.pop()  # any text left is the start of its first line
        if "\r" in text:  # one C-level replace, unless a lone CR needs the regular expression
            normalized = text.replace("\r\n", "\n")
            lines = LINE_END.split(text) if "\r" in normalized else normalized.split("\n")
        else:
            lines = text.split("\n")
        splitter, assembler = self.splitter, self.assembler
        if splitter.skip_lf and not texts and text[0] == "\n":
            del lines[0]  # the LF of a CRLF whose CR ended the last text cut
        splitter.skip_lf = text[-1] == "\r"
        del text
        if texts:  # a long line's pieces, joined once
            texts.append(lines[0])
            lines[0] = "".join(texts)
            texts.clear()
        partial = lines.pop()
        events: list[Event] = []
        data_lines, size, in_block = assembler.data_lines, assembler._data_chars, assembler.in_block
        for line in lines:  # the block state lives in locals until the loop ends
            if not line:  # dispatch
                assembler.last_event_id = assembler.id_buffer
                if data_lines:  # Event(...) without the frozen dataclass's four object.__setattr__ calls
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
                assembler.feed_line(line)  # never dispatches: the line is not blank
                size, in_block = assembler._data_chars, assembler.in_block
        assembler.data_lines, assembler._data_chars, assembler.in_block = data_lines, size, in_block
        if partial:
            texts.append(partial)
        self._at_line_start = not partial
        self._room = self._budget() - len(partial) - raw_bytes
        return events

    def _budget(self) -> int:
        """How many characters may be held before a line or the event could pass its limit."""
        assembler, line = self.assembler, self.splitter.max_line_chars
        event = assembler.max_event_chars - assembler._data_chars
        return line if line < event else event

    def _catch_up(self) -> None:
        """Assemble the held lines; they hold no blank line, so no event and, within
        the budget, no error."""
        if self._held_lines:
            self._cut_and_assemble(len(self._raw))

    def _feed_layered(self, chunk: bytes) -> list[Event]:
        """SSEParser's own feed, given what was held first; back to the fast path
        once no partial line or split character is left."""
        chunk = as_chunk(chunk)
        splitter = self.splitter
        if self._spent_because is None:
            self._catch_up()
            if self._texts:
                splitter._fragments.append("".join(self._texts))
                splitter._partial_chars = len(splitter._fragments[0])
                self._texts.clear()
        if self._raw:
            chunk = bytes(self._raw) + chunk
            self._raw.clear()
        self._room = -1
        events = super().feed(chunk)
        if not splitter._fragments and not self.decoder.pending:
            self._at_line_start = True
            self._room = self._budget()
        return events

    def close(self) -> list[Event]:
        """End of stream: what was held goes to SSEParser first."""
        if (self._raw or self._texts) and self._spent_because is None:
            self._feed_layered(b"")
        self._room = -1
        return super().close()
