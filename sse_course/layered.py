"""LayeredSSEParser: the layers composed, every step visible (lesson 05 builds it).

    chunk (bytes) -> Utf8Decoder -> text -> LineSplitter -> lines -> EventAssembler -> events

The package's :class:`~sse_course.parser.SSEParser` is a second, independent
road to the same events (bytes first, all state its own, no stage inside); the
two share only the standard's rules, as functions, and tests/test_fastpath.py
proves both give the same events and the same errors on every fixture,
partition and generated stream (docs/architecture.md).

The profiles (``sse_course.profiles``) share this one code path and differ
only in policy: ``strict`` (default) raises ``DecodeError`` for invalid UTF-8
and ``IncompleteStream`` for a stream that ends inside a line or an event;
``browser`` is the WHATWG standard's behaviour (U+FFFD, an unfinished event
discarded).

Nothing is lost on error: an error raised by ``feed()`` or ``close()`` carries
in ``err.events`` every event completed before the failure that the call had
not returned yet. After an error or ``close()`` the parser is spent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, Literal, NoReturn, Protocol, cast, overload

from .decoding import Chunk, Utf8Decoder
from .errors import DEFAULT_MAX_EVENT_CHARS, DEFAULT_MAX_LINE_CHARS, SSEError
from .events import Comment, Event, EventAssembler, Item
from .feeding import Lifecycle, as_chunk
from .lines import LineSplitter
from .profiles import DEFAULT_PROFILE, PROFILES, get_profile

__all__ = ["PROFILES", "Assembler", "Decoder", "LayeredSSEParser", "Splitter"]

#: A huge chunk is fed to the layers in slices of this many bytes, so a limit
#: fires before the rest of the chunk is decoded and buffered.
SLICE_BYTES = 64 * 1024


class Decoder(Protocol):
    """The first stage, bytes -> text (:class:`~sse_course.decoding.Utf8Decoder`)."""

    def feed(self, chunk: bytes) -> str: ...

    def close(self) -> str: ...


class Splitter(Protocol):
    """The second stage, text -> lines (:class:`~sse_course.lines.LineSplitter`)."""

    def feed(self, text: str) -> list[str]: ...

    def close(self) -> list[str]: ...


class Assembler(Protocol):
    """The third stage, lines -> events (:class:`~sse_course.events.EventAssembler`),
    and the stream state the parser reports from it."""

    @property
    def last_event_id(self) -> str: ...

    @property
    def retry(self) -> int | None: ...

    def feed(self, lines: list[str]) -> Sequence[Event | Comment]: ...

    def close(self) -> Sequence[Event | Comment]: ...


class LayeredSSEParser(Generic[Item]):
    """Sans-I/O Server-Sent Events parser: ``feed(chunk) -> list[Event]``, through
    three stage objects (``decoder``, ``splitter``, ``assembler``) one step at a time.

    ``LayeredSSEParser[Event]`` unless built with ``comments=True`` or an
    ``assembler`` of the caller's: then its events may include ``Comment`` items.
    """

    @overload
    def __init__(
        self: LayeredSSEParser[Event],
        profile: str = DEFAULT_PROFILE,
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        last_event_id: str = "",
        comments: Literal[False] = False,
        decoder: Decoder | None = None,
        splitter: Splitter | None = None,
        assembler: None = None,
    ) -> None: ...

    @overload
    def __init__(
        self: LayeredSSEParser[Event | Comment],
        profile: str = DEFAULT_PROFILE,
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        last_event_id: str = "",
        comments: bool = False,
        decoder: Decoder | None = None,
        splitter: Splitter | None = None,
        assembler: Assembler | None = None,
    ) -> None: ...

    def __init__(
        self,
        profile: str = DEFAULT_PROFILE,
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        last_event_id: str = "",
        comments: bool = False,
        decoder: Decoder | None = None,
        splitter: Splitter | None = None,
        assembler: Assembler | None = None,
    ) -> None:
        """``last_event_id``: the ID the stream starts with (a resumed stream's);
        ``comments``: report comment lines as :class:`~sse_course.events.Comment`;
        ``decoder``, ``splitter``, ``assembler``: stage objects to use instead of
        the package's (profile, limits and the two options above then apply
        only to the stages built here)."""
        rules = get_profile(profile)
        self.profile = profile
        self.decoder: Decoder = decoder or Utf8Decoder(rules.decode_errors)
        self.splitter: Splitter = splitter or LineSplitter(max_line_chars, rules.incomplete_is_error)
        self.assembler: Assembler = assembler or EventAssembler(
            max_event_chars, rules.incomplete_is_error, last_event_id=last_event_id, comments=comments
        )
        self._stages: tuple[Decoder, Splitter, Assembler] = (self.decoder, self.splitter, self.assembler)
        self._life = Lifecycle()

    @property
    def spent(self) -> bool:
        """True once ``close()`` was called or an error was raised."""
        return self._life.spent

    @property
    def last_event_id(self) -> str:
        """The ID a reconnecting client sends as ``Last-Event-ID``."""
        return self.assembler.last_event_id

    @property
    def retry(self) -> int | None:
        """The reconnection time (ms) the stream asked for, if it did."""
        return self.assembler.retry

    def feed(self, chunk: Chunk) -> list[Item]:
        """Return the events this chunk completes (possibly none), and its comments
        if asked for."""
        chunk = as_chunk(chunk)
        self._refuse_if_spent()
        events: list[Item] = []
        try:
            for start in range(0, len(chunk), SLICE_BYTES):
                events += self._push(0, chunk[start : start + SLICE_BYTES])
        except SSEError as err:
            self._fail(err, events)
        return events

    def close(self) -> list[Item]:
        """End of stream: return what the end completes; the parser is then spent."""
        self._refuse_if_spent()
        self._life.close()
        events: list[Item] = []
        try:
            for level, close in enumerate((self.decoder.close, self.splitter.close, self.assembler.close)):
                events += self._through(level, close)
        except SSEError as err:
            self._fail(err, events)
        return events

    def _push(self, level: int, value: Any) -> list[Item]:
        """Feed ``value`` to the stage at ``level`` and its output on down; return events.

        ``value`` is what the stage above produced (bytes, text, lines, or at the
        bottom the events), so its type is the level's: ``Any`` here.
        """
        if level == len(self._stages):
            return cast("list[Item]", value)
        stage: Any = self._stages[level]
        return self._through(level, lambda: stage.feed(value))

    def _through(self, level: int, produce: Callable[[], Any]) -> list[Item]:
        """Run one step of the stage at ``level``; push its output down the rest.

        When the step fails, what the stage completed before the failure still
        goes down the rest of the layers; if that raises, its error wins, since
        it comes from earlier in the stream.
        """
        try:
            output = produce()
        except SSEError as err:
            if err.completed is not None:
                err.carry(self._push(level + 1, err.completed))
            raise
        return self._push(level + 1, output)

    def _fail(self, err: SSEError, events: list[Item]) -> NoReturn:
        self._life.fail(err, events)

    def _refuse_if_spent(self) -> None:
        self._life.refuse_if_spent()
