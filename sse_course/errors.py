"""The error taxonomy, and the limits.

Every SSE error is a ``ValueError`` (bad input, not a bug in the caller), and
every error that a layer raises carries what that layer had completed before
the failure in ``completed``, so the parser can push it on and nothing is lost.
The composed :class:`~sse_course.layered.LayeredSSEParser` puts the events it finished
before the failure in ``events``.
"""

from __future__ import annotations

from typing import Any

#: Defaults sized for LLM token streams: a token event is a few hundred
#: characters, a tool call or a final message may be a few hundred kilobytes.
DEFAULT_MAX_LINE_CHARS = 1 << 20
DEFAULT_MAX_EVENT_CHARS = 8 << 20


class SSEError(ValueError):
    """Base of every error the SSE layers raise for a bad stream.

    ``completed`` is what the raising layer finished before the failure (text,
    lines or events); ``events`` is what the whole parser finished before it.
    """

    def __init__(self, message: str, completed: Any = None) -> None:
        super().__init__(message)
        self.completed = completed
        self.events: list = []

    def carry_first(self, events: list) -> None:
        """Carry ``events``, completed earlier in the stream, before the ones this error carries."""
        self.events = events + self.events


class DecodeError(SSEError):
    """The bytes are not UTF-8 (``strict`` profile only).

    ``offset`` is the absolute byte offset in the stream of the first offending
    byte, ``bad_bytes`` the offending bytes, ``reason`` the codec's reason.
    """

    def __init__(self, offset: int, bad_bytes: bytes, reason: str, completed: str = "") -> None:
        super().__init__(f"invalid UTF-8 at byte {offset}: {bad_bytes!r} ({reason})", completed)
        self.offset = offset
        self.bad_bytes = bad_bytes
        self.reason = reason


class ParseLimitError(SSEError):
    """A line or an event grew past its limit; raised as soon as it is crossed."""

    def __init__(self, message: str, limit: int, completed: Any = None) -> None:
        super().__init__(message, completed)
        self.limit = limit


class LineTooLong(ParseLimitError):
    """A line has more than ``max_line_chars`` characters (line end not counted)."""

    def __init__(self, limit: int, completed: list[str] | None = None) -> None:
        super().__init__(f"line longer than max_line_chars={limit}", limit, completed or [])


class EventTooLarge(ParseLimitError):
    """An event's data has more than ``max_event_chars`` characters."""

    def __init__(self, limit: int, completed: list | None = None) -> None:
        super().__init__(f"event data longer than max_event_chars={limit}", limit, completed or [])


class IncompleteStream(SSEError):
    """The stream ended inside a line or an event (``strict`` profile only).

    The ``browser`` profile follows the standard instead and silently discards
    the unfinished event.
    """

    @classmethod
    def inside_line(cls, chars: int) -> IncompleteStream:
        """The stream ended ``chars`` characters after the last line end."""
        return cls(f"stream ended inside a line ({chars} characters after the last line end)", [])

    @classmethod
    def inside_event(cls) -> IncompleteStream:
        """The stream ended after a field line with no blank line after it."""
        return cls("stream ended inside an event (no blank line after its last field)", [])


class ParserClosed(SSEError):
    """The parser was closed, or failed earlier; it takes no more input."""


def check_limit(name: str, value: int) -> int:
    """Refuse a limit that is not a positive int, naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value
