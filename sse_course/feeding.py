"""What a parser's ``feed`` takes, and until when: the chunk types it accepts
(:func:`as_chunk`) and whether it still takes input (:class:`Lifecycle`).

Both parsers, :class:`~sse_course.layered.LayeredSSEParser` and
:class:`~sse_course.parser.SSEParser`, use these two, so that a chunk is
accepted or refused, and a spent parser says why, in one way only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

from .errors import ParserClosed, SSEError

__all__ = ["Lifecycle", "as_chunk"]


def as_chunk(chunk: object) -> bytes:
    """Accept bytes-like chunks as exact ``bytes`` (a subclass is copied, so no
    overridden method runs); refuse text and anything else by type name."""
    if type(chunk) is bytes:
        return chunk
    if isinstance(chunk, (bytes, bytearray, memoryview)):
        return bytes(chunk)
    raise TypeError(f"a chunk must be bytes, got {type(chunk).__name__}")


class Lifecycle:
    """Whether a parser still takes input, and why not: after ``close()`` or an
    error it is spent, and says so instead of parsing on from a broken state."""

    def __init__(self) -> None:
        self.spent_because: str | None = None

    @property
    def spent(self) -> bool:
        """True once the parser was closed or raised."""
        return self.spent_because is not None

    def refuse_if_spent(self) -> None:
        if self.spent_because is not None:
            raise ParserClosed(f"this parser takes no more input: {self.spent_because}; create a new one")

    def close(self) -> None:
        """Spend the parser on ``close()`` (after :meth:`refuse_if_spent`: a second close is refused)."""
        self.spent_because = "close() was called"

    def fail(self, err: SSEError, events: Sequence[object]) -> NoReturn:
        """Spend the parser on ``err``, which carries ``events`` (completed before it) first."""
        self.spent_because = f"it raised {type(err).__name__}: {err}"
        err.carry_first(list(events))
        raise err
