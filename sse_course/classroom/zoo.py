"""The buggy-parser zoo: realistic mistakes, one per member, for lesson 07 and the checks.

Each member of :data:`ZOO` is the package's :class:`~sse_course.LayeredSSEParser` with
ONE layer replaced by a subclass that holds one mistake, as a developer would
write it. A member is built like the real parser, ``ZOO[name](profile, **limits)``,
has ``feed(bytes) -> list[Event]`` and ``close() -> list[Event]``, and says
where it goes wrong in three class attributes:

* ``layer``: the layer holding the mistake (``decoding``, ``lines``, ``events``,
  ``limits``, ``performance``); ``part`` is that buggy layer class itself;
* ``wrong_in``: the profiles (``strict``, ``browser``) in which some fixture
  shows the mistake; empty for ``quadratic-rebuild``, which is right but slow.

:data:`PAYLOAD_ZOO` holds the payload layer's mistakes. They return payloads,
not events: adapters built like ``JSONPayloads(**config)`` with ``feed(events)``,
except ``per-chunk-json``, which reads bytes itself (``feed(chunk)``).

    from sse_course.classroom.zoo import ZOO, members
    members(layer="lines")              # the names of the line splitters' mistakes
    ZOO["decode-each-chunk"]("browser").feed(b"data: \\xc3")

Importing this module loads only the package's parser (no widgets, no plots).
"""

from __future__ import annotations

import json
import re
from abc import ABCMeta, abstractmethod
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ..decoding import BOM, Utf8Decoder
from ..errors import DEFAULT_MAX_EVENT_CHARS, DEFAULT_MAX_LINE_CHARS, DecodeError, LineTooLong, SSEError
from ..events import Comment, Event, EventAssembler, split_field
from ..feeding import as_chunk
from ..layered import LayeredSSEParser
from ..lines import LineSplitter
from ..payloads import JSONPayloads
from ..profiles import DEFAULT_PROFILE, get_profile
from ..profiles import PROFILES as PROFILE_RULES

#: Every profile: a member that is wrong whatever the policy is wrong in all of them.
PROFILES = frozenset(PROFILE_RULES)
#: The profiles where invalid UTF-8 raises (a decoder that hides it is wrong there).
DECODE_ERRORS_RAISE = frozenset(name for name, rules in PROFILE_RULES.items() if rules.decode_errors == "strict")
#: The profiles where an unfinished event is dropped silently at the end of the stream.
END_DROPS_EVENT = frozenset(name for name, rules in PROFILE_RULES.items() if not rules.incomplete_is_error)


def compose(
    profile: str = DEFAULT_PROFILE,
    options: dict[str, Any] | None = None,
    *,
    decoder: Any = None,
    splitter: Any = None,
    assembler: Any = None,
) -> LayeredSSEParser:
    """The layered parser with any of its three layers replaced by the given objects.

    The checks use this to run a learner's layer inside the real parser, so
    the learner's decoder meets every fixture under every split.
    """
    return LayeredParser(profile, **(options or {}), decoder=decoder, splitter=splitter, assembler=assembler)


class LayeredParser(LayeredSSEParser):
    """LayeredSSEParser that also passes empty reads down its layers, as hand-written
    read loops do: a layer must cope with ``feed(b"")`` and ``feed("")``."""

    def feed(self, chunk: bytes) -> list[Event]:
        if chunk:
            return super().feed(chunk)
        self._refuse_if_spent()
        try:
            return self._push(0, as_chunk(chunk))
        except SSEError as err:
            self._fail(err, [])
            raise


class BuggyParser(LayeredParser):
    """The package's parser with its layers built from the class attributes below."""

    Decoder: type = Utf8Decoder
    Splitter: type = LineSplitter
    Assembler: type = EventAssembler
    layer = ""
    part: type | None = None
    wrong_in: frozenset[str] = PROFILES

    def __init__(self, profile: str = DEFAULT_PROFILE, **limits: int) -> None:
        rules = get_profile(profile)
        super().__init__(
            profile,
            decoder=self.Decoder(rules.decode_errors),
            splitter=self.Splitter(limits.get("max_line_chars", DEFAULT_MAX_LINE_CHARS), rules.incomplete_is_error),
            assembler=self.Assembler(limits.get("max_event_chars", DEFAULT_MAX_EVENT_CHARS), rules.incomplete_is_error),
        )


# --- bytes -> text ----------------------------------------------------------


class DecodeEachChunk(Utf8Decoder):
    """``chunk.decode("utf-8")`` on every read: a character split between two
    reads is invalid in each half (DecodeError, or two U+FFFD in a browser)."""

    def feed(self, chunk: bytes) -> str:
        errors = self._decoder.errors
        try:
            text = chunk.decode("utf-8", errors)
        except UnicodeDecodeError as err:
            valid = self._drop_bom(chunk[: err.start].decode("utf-8"))
            raise DecodeError(self._consumed + err.start, chunk[err.start : err.end], err.reason, valid) from None
        finally:
            self._consumed += len(chunk)
        return self._drop_bom(text)


class IgnoreErrors(Utf8Decoder):
    """``errors="ignore"`` "to be robust": invalid bytes vanish silently, so
    corrupt data is neither reported (strict) nor marked with U+FFFD (browser)."""

    def __init__(self, errors: str = "strict") -> None:
        super().__init__(errors)
        self._decoder = type(self._decoder)("ignore")


class BomKept(Utf8Decoder):
    """No BOM handling: U+FEFF stays glued to the first field name, so
    ``\\ufeffdata`` is an unknown field and the first event is lost."""

    def _drop_bom(self, text: str) -> str:
        return text


class BomDroppedPerChunk(Utf8Decoder):
    """``text.removeprefix("\\ufeff")`` on every read, not only at stream start:
    a U+FEFF that begins a later read is dropped too."""

    def _drop_bom(self, text: str) -> str:
        return text.removeprefix(BOM)


class OffsetWithoutPending(Utf8Decoder):
    """The error's offset is "bytes fed before this chunk plus the codec's
    position", but that position counts from the bytes held back from earlier
    chunks: ``b'data: \\xf0\\x9f' | b'x'`` reports byte 8, where 6 is right."""

    def _decode(self, chunk: bytes, final: bool) -> str:
        held = len(self.pending)
        try:
            return super()._decode(chunk, final)
        except DecodeError as err:
            raise DecodeError(err.offset + held, err.bad_bytes, err.reason, err.completed) from None


class NeverFinal(Utf8Decoder):
    """``close()`` never calls the decoder with ``final=True``: bytes of a
    character cut off by the end of the stream vanish, with no error and no U+FFFD."""

    def close(self) -> str:
        return self.feed(b"")


# --- text -> lines ----------------------------------------------------------


class BufferSplitter(LineSplitter, metaclass=ABCMeta):
    """A buffer-and-split splitter, as many are first written; subclasses say how
    they split. Limits and the end of stream are handled as the package does,
    so the splitting rule is the only mistake."""

    def __init__(self, max_line_chars: int = DEFAULT_MAX_LINE_CHARS, strict: bool = True) -> None:
        super().__init__(max_line_chars, strict)
        self.buffer = ""

    @property
    def partial(self) -> str:
        return self.buffer

    def feed(self, text: str) -> list[str]:
        lines, self.buffer = self.split(self.buffer + text)
        check_lines([*lines, self.buffer], self.max_line_chars)
        return lines

    def close(self) -> list[str]:
        self._fragments, self._partial_chars = [self.buffer], len(self.buffer)
        self.buffer = ""
        return super().close() if self._partial_chars else []

    @abstractmethod
    def split(self, buffer: str) -> tuple[list[str], str]:
        """Return the complete lines in ``buffer`` and what is left."""


class LfOnly(BufferSplitter):
    """``buffer.split("\\n")`` then ``line.rstrip("\\r")``: fine for LF and CRLF,
    but a lone CR never ends a line."""

    def split(self, buffer: str) -> tuple[list[str], str]:
        *lines, rest = buffer.split("\n")
        return [line.removesuffix("\r") for line in lines], rest


class Splitlines(BufferSplitter):
    """``str.splitlines()``: it also ends lines at U+2028, U+0085, VT, FF and
    U+001C-U+001E, and sees a CR and an LF in different reads as two line ends."""

    def split(self, buffer: str) -> tuple[list[str], str]:
        pieces = buffer.splitlines(keepends=True)
        lines = [piece.splitlines()[0] for piece in pieces]
        if pieces and lines[-1] == pieces[-1]:  # no line end yet
            return lines[:-1], pieces[-1]
        return lines, ""


class CrWaits(BufferSplitter):
    """A CR at the end of a read waits for the next read to see if an LF follows:
    the event is delayed, and lost if the stream ends there."""

    def split(self, buffer: str) -> tuple[list[str], str]:
        keep_cr = buffer.endswith("\r")
        *lines, rest = _split_line_ends(buffer.removesuffix("\r") if keep_cr else buffer)
        return lines, (rest + "\r" if keep_cr else rest)


def check_lines(lines: list[str], limit: int) -> None:
    """Raise LineTooLong at the first line over ``limit``, carrying the lines before it."""
    for i, line in enumerate(lines):
        if len(line) > limit:
            raise LineTooLong(limit, lines[:i])


def _split_line_ends(text: str) -> list[str]:
    """Split at CRLF, CR and LF (the whole of ``text`` is seen at once)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


class NoCrThenLf(LineSplitter):
    """CR, LF and CRLF found right within one read, but nothing remembers a CR
    that ended the previous read: the LF that completes its CRLF, arriving in
    the next read, becomes a blank line and dispatches the event early."""

    def feed(self, text: str) -> list[str]:
        lines = super().feed(text)
        self.skip_lf = False
        return lines


class RegexOrderWrong(BufferSplitter):
    """``re.split(r"\\r|\\n|\\r\\n", buffer)``: the alternatives are tried in order,
    so the CR of a CRLF matches alone and the LF ends a second, empty line:
    every CRLF dispatches the event early."""

    def split(self, buffer: str) -> tuple[list[str], str]:
        *lines, rest = re.split("\r|\n|\r\n", buffer)
        return lines, rest


class SkipLfLostOnEmptyRead(LineSplitter):
    """The "skip one LF after a CR" flag is cleared at the start of every
    ``feed``, even an empty one: CR, empty read, LF gives a spurious blank line."""

    def feed(self, text: str) -> list[str]:
        if not text:
            self.skip_lf = False
            return []
        return super().feed(text)


# --- lines -> events --------------------------------------------------------


class LstripValue(EventAssembler):
    """``value.lstrip()`` instead of dropping one space: ``data:  x`` and
    ``data:\\tx`` lose whitespace that belongs to the value."""

    def feed_line(self, line: str) -> Event | Comment | None:
        name, colon, value = line.partition(":")
        return super().feed_line(f"{name}:{value.lstrip()}" if colon and name else line)


class SplitEveryColon(EventAssembler):
    """``name, value = line.split(":")[:2]``: the value ends at its first colon,
    so ``data: a:b`` becomes ``a``."""

    def feed_line(self, line: str) -> Event | Comment | None:
        name, *values = line.split(":")
        return super().feed_line(f"{name}:{values[0]}" if values and name else line)


class EventTypeStripped(EventAssembler):
    """``event_type = value.strip()`` to tidy the name: `` add `` is not ``add``
    for the standard. No shipped fixture shows this one: the harness is only
    as good as its fixtures."""

    def feed_line(self, line: str) -> Event | Comment | None:
        event = super().feed_line(line)
        self.event_type = self.event_type.strip()
        return event


class StickyEventType(EventAssembler):
    """The event type is not reset after dispatch: the next event without an
    ``event`` field inherits the previous type instead of "message"."""

    def _reset_block(self) -> None:
        event_type = self.event_type
        super()._reset_block()
        self.event_type = event_type


class DispatchWithoutData(EventAssembler):
    """Dispatches every block that had a field, data or not: ``event: ping``
    then a blank line becomes an event with empty data."""

    def dispatch(self) -> Event | None:
        if self.in_block and not self.data_lines:
            self.data_lines = [""]
        return super().dispatch()


class TrailingLfKept(EventAssembler):
    """``data += value + "\\n"`` and the final LF never removed: every event's
    data ends with a newline."""

    def dispatch(self) -> Event | None:
        event = super().dispatch()
        return event and replace(event, data=event.data + "\n")


class DispatchAtEof(EventAssembler):
    """ "Flush what is left" at the end of the stream: the unfinished event is
    dispatched, where a browser discards it (strict still raises)."""

    def close(self) -> list[Event]:
        if self.strict or not self.data_lines:
            return super().close()
        event = self.dispatch()
        return [event] if event else []


class RetryInt(EventAssembler):
    """``int(value)`` (or ``isdigit()``) for retry: accepts ``+5``, `` 5``,
    ``1_000`` and non-ASCII digits, which the standard ignores."""

    def feed_line(self, line: str) -> Event | Comment | None:
        name, value = split_field(line)
        if name != "retry":
            return super().feed_line(line)
        self.in_block = True
        try:
            self.retry = int(value)
        except ValueError:
            pass
        return None


class IdWithNul(EventAssembler):
    """Every ``id`` value is taken, even one containing U+0000, which the
    standard ignores (such an ID could not be sent back in a header)."""

    def feed_line(self, line: str) -> Event | Comment | None:
        name, value = split_field(line)
        if name != "id":
            return super().feed_line(line)
        self.in_block = True
        self.id_buffer = value
        return None


class EagerLastEventId(EventAssembler):
    """``self.last_event_id = value`` as soon as the ``id`` line is read, not at
    dispatch: the events are right, but after ``id: 1``, an event, then
    ``id: 2`` and a block the stream never finishes, the parser says ``'2'``,
    and a reconnecting client skips an event it never received."""

    def feed_line(self, line: str) -> Event | Comment | None:
        event = super().feed_line(line)
        self.last_event_id = self.id_buffer
        return event


class RetryResetPerEvent(EventAssembler):
    """``retry`` treated like the event type and reset at every dispatch: the
    next event reports ``None``, though the reconnection time belongs to the stream."""

    def dispatch(self) -> Event | None:
        event = super().dispatch()
        self.retry = None
        return event


class IdResetPerEvent(EventAssembler):
    """The ID is treated as per-event: after dispatch it is cleared, so an event
    without an ``id`` field reports "" instead of the stream's last event ID."""

    def dispatch(self) -> Event | None:
        event = super().dispatch()
        self.id_buffer = ""
        return event


class CaseInsensitiveNames(EventAssembler):
    """``name.lower()``: ``Data`` and ``EVENT`` are read as fields, but field
    names are case-sensitive, so they are unknown and ignored."""

    def feed_line(self, line: str) -> Event | Comment | None:
        name, colon, value = line.partition(":")
        return super().feed_line(name.lower() + colon + value if name else line)


# --- limits -----------------------------------------------------------------


class LineLimitAtLineEnd(LineSplitter):
    """The line length is checked when a line ends: a stream that never sends a
    line end grows the buffer without bound."""

    def feed(self, text: str) -> list[str]:
        lines = super().feed(text)
        check_lines(lines, self.max_line_chars)
        return lines

    def _extend(self, text: str, start: int, end: int, lines: list[str]) -> None:
        if start == end:
            return
        self._fragments.append(text[start:end])  # no check: the line may grow forever
        self._partial_chars += end - start


class LineLimitInBytes(LineSplitter):
    """The limit counts UTF-8 bytes where it promises characters: a line of
    non-ASCII text hits it early."""

    def _extend(self, text: str, start: int, end: int, lines: list[str]) -> None:
        size = len(text[start:end].encode("utf-8"))
        if size and self._partial_chars + size > self.max_line_chars:
            raise LineTooLong(self.max_line_chars, lines)
        if size:
            self._fragments.append(text[start:end])
            self._partial_chars += size


# --- performance ------------------------------------------------------------


class RebuildingSplitter(LineSplitter):
    """Right, but slow: the unfinished line is re-joined with each read's text
    and the whole of it re-scanned, so a long line arriving in n small reads
    costs time quadratic in n (lesson 09 counts the same growth in a block cutter)."""

    def feed(self, text: str) -> list[str]:
        if not text:
            return []
        rebuilt = "".join([*self._fragments, text])
        self._fragments.clear()
        self._partial_chars = 0
        return super().feed(rebuilt)


def _member(name: str, layer: str, part: type, wrong_in: frozenset[str] = PROFILES) -> type:
    """A parser class with ``part`` in place of the package's layer of its kind."""
    slot = next(
        s
        for s, base in (("Decoder", Utf8Decoder), ("Splitter", LineSplitter), ("Assembler", EventAssembler))
        if issubclass(part, base)
    )
    attrs = {slot: part, "layer": layer, "part": part, "wrong_in": wrong_in, "__doc__": part.__doc__}
    return type(part.__name__ + "Parser", (BuggyParser,), attrs | {"__module__": __name__, "zoo_name": name})


_MEMBERS: list[tuple[str, str, type, frozenset[str]]] = [
    ("decode-each-chunk", "decoding", DecodeEachChunk, PROFILES),
    ("errors-ignore", "decoding", IgnoreErrors, PROFILES),
    ("bom-kept", "decoding", BomKept, PROFILES),
    ("bom-dropped-per-chunk", "decoding", BomDroppedPerChunk, PROFILES),
    ("offset-without-pending", "decoding", OffsetWithoutPending, DECODE_ERRORS_RAISE),
    ("never-final", "decoding", NeverFinal, DECODE_ERRORS_RAISE),
    ("lf-only", "lines", LfOnly, PROFILES),
    ("splitlines", "lines", Splitlines, PROFILES),
    ("cr-waits", "lines", CrWaits, PROFILES),
    ("no-cr-then-lf", "lines", NoCrThenLf, PROFILES),
    ("regex-order-wrong", "lines", RegexOrderWrong, PROFILES),
    ("skip-lf-lost-on-empty-read", "lines", SkipLfLostOnEmptyRead, PROFILES),
    ("lstrip-value", "events", LstripValue, PROFILES),
    ("split-every-colon", "events", SplitEveryColon, PROFILES),
    ("sticky-event-type", "events", StickyEventType, PROFILES),
    ("event-type-stripped", "events", EventTypeStripped, PROFILES),
    ("dispatch-without-data", "events", DispatchWithoutData, PROFILES),
    ("trailing-lf-kept", "events", TrailingLfKept, PROFILES),
    ("dispatch-at-eof", "events", DispatchAtEof, END_DROPS_EVENT),
    ("retry-int", "events", RetryInt, PROFILES),
    ("id-with-nul", "events", IdWithNul, PROFILES),
    ("id-reset-per-event", "events", IdResetPerEvent, PROFILES),
    ("eager-last-event-id", "events", EagerLastEventId, PROFILES),
    ("retry-reset-per-event", "events", RetryResetPerEvent, PROFILES),
    ("case-insensitive-names", "events", CaseInsensitiveNames, PROFILES),
    ("line-limit-at-line-end", "limits", LineLimitAtLineEnd, PROFILES),
    ("line-limit-in-bytes", "limits", LineLimitInBytes, PROFILES),
    ("quadratic-rebuild", "performance", RebuildingSplitter, frozenset()),
]

#: name -> parser class with one mistake; see the module docstring.
ZOO: dict[str, Any] = {name: _member(name, layer, part, wrong) for name, layer, part, wrong in _MEMBERS}


def members(layer: str | None = None, profile: str | None = None) -> list[str]:
    """Names of the members wrong for ``layer`` (any) in ``profile`` (any)."""
    return [
        name
        for name, cls in ZOO.items()
        if (layer is None or cls.layer == layer) and (cls.wrong_in if profile is None else profile in cls.wrong_in)
    ]


# --- events -> payloads -----------------------------------------------------


class JsonErrorLeaks(JSONPayloads):
    """``json.loads(event.data)`` with no wrapping: a bad payload surfaces as a
    bare ``JSONDecodeError`` that names neither the event nor its position."""

    def _payload(self, event: Event, index: int) -> Any:
        if event.data and not self.ended:
            json.loads(event.data)
        return super()._payload(event, index)


class EmptyDataSkipped(JSONPayloads):
    """``if not event.data: continue``: an empty event is skipped silently
    instead of reported as a broken payload."""

    def feed(self, events: Iterable[Event]) -> list[Any]:
        return super().feed(event for event in events if event.data)


class PerChunkJson:
    """``json.loads`` on the ``data:`` lines of each chunk as it arrives, as if
    every read held whole events: a read that ends inside a JSON value fails."""

    def __init__(self, **config: Any) -> None:
        self.adapter = JSONPayloads(**config)

    def feed(self, chunk: bytes) -> list[Any]:
        text = as_chunk(chunk).decode("utf-8", "replace")
        events = [Event("message", line[5:].removeprefix(" ")) for line in text.split("\n") if line.startswith("data:")]
        return self.adapter.feed(events)

    def close(self) -> list[Any]:
        return self.adapter.close()


#: name -> payload-layer class with one mistake (returns payloads, not events).
PAYLOAD_ZOO: dict[str, Any] = {
    "json-error-leaks": JsonErrorLeaks,
    "empty-data-skipped": EmptyDataSkipped,
    "per-chunk-json": PerChunkJson,
}
