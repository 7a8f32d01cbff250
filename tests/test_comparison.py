"""Lesson 09's comparison (sse_course.classroom.comparison): the package's parser passes it,
with its later DecodeError allowed, and it rejects a parser wrong in each thing it compares:
the feed an event comes from, last_event_id, retry, the error's class, a DecodeError that comes
too early or never, and the events an error carries."""

from __future__ import annotations

from typing import Any

import pytest

from sse_course import DecodeError, LayeredSSEParser, SSEError, SSEParser
from sse_course.classroom.comparison import compare, differences, first_difference, layered_trace, same
from sse_course.classroom.fixtures import load_fixtures
from sse_course.decoding import Chunk


class HoldsEventsToClose(LayeredSSEParser):
    """Wrong: every event comes from close(), the same events in total."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.held: list[Any] = []

    def feed(self, chunk: Chunk) -> list[Any]:
        self.held += super().feed(chunk)
        return []

    def close(self) -> list[Any]:
        return self.held + super().close()


class StaleRetry(SSEParser):
    """Wrong: retry is read from a second parser that sees only whole blocks."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.blocks_only = SSEParser(*args, **kwargs)
        self.pending = b""

    def feed(self, chunk: Chunk) -> Any:
        self.pending += bytes(chunk)
        end = self.pending.rfind(b"\n\n") + 2
        if end > 1:
            self.blocks_only.feed(self.pending[:end])
            self.pending = self.pending[end:]
        return super().feed(chunk)

    @property
    def retry(self) -> int | None:
        return self.blocks_only.retry


class EagerLastEventId(SSEParser):
    """Wrong: last_event_id is the last id line read, not the one committed by a blank line."""

    @property
    def last_event_id(self) -> str:
        return "eager"


class LosesCarriedEvents(LayeredSSEParser):
    """Wrong: an error carries no events."""

    def feed(self, chunk: Chunk) -> list[Any]:
        try:
            return super().feed(chunk)
        except SSEError as err:
            err.events = []
            raise


class NeverRaises(LayeredSSEParser):
    """Wrong: a DecodeError is swallowed, the events it carried returned."""

    def feed(self, chunk: Chunk) -> list[Any]:
        try:
            return super().feed(chunk)
        except DecodeError as err:
            return err.events


class RaisesValueError(LayeredSSEParser):
    """Wrong: every SSE error becomes a plain ValueError."""

    def close(self) -> list[Any]:
        try:
            return super().close()
        except SSEError as err:
            raise ValueError(str(err)) from None


def test_the_packages_parser_is_the_same_on_every_fixture_under_the_cheap_strategies() -> None:
    runs, found = differences(SSEParser, load_fixtures(), ("whole", "interesting"))
    assert runs > 300 and found == []


def test_a_later_decode_error_is_allowed_an_earlier_or_missing_one_is_not() -> None:
    raw, cuts = b"data: caf\xe9 \nok\n\n", (5, 12)  # LayeredSSEParser raises from the second read
    assert layered_trace(raw, cuts, "strict", {}).error == ("DecodeError", 9)
    assert compare(SSEParser, raw, cuts, "strict", {}) is None  # SSEParser raises from the third
    later = layered_trace(raw, (5, 12), "strict", {})
    earlier = layered_trace(raw, (12,), "strict", {})  # raised from read 1: earlier than read 2
    assert same(earlier, earlier) and not same(later, earlier)
    assert compare(NeverRaises, raw, cuts, "strict", {}) is not None


@pytest.mark.parametrize(
    "wrong, raw",
    [
        (HoldsEventsToClose, b"data: a\r\rdata: b\r\r"),
        (StaleRetry, b"retry: 5\ndata: a\n\n"),
        (EagerLastEventId, b"id: 1\ndata: a\n\n"),
        (LosesCarriedEvents, b"data: a\n\ndata: \xff\n\n"),
        (RaisesValueError, b"data: a\n\ndata: b"),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_each_wrong_parser_is_caught(wrong: type, raw: bytes) -> None:
    assert all(compare(SSEParser, raw, (cut,), "strict", {}) is None for cut in range(1, len(raw)))
    assert any(compare(wrong, raw, (cut,), "strict", {}) is not None for cut in range(1, len(raw)))


def test_the_first_difference_names_the_fixture_the_split_and_both_runs() -> None:
    found = first_difference(HoldsEventsToClose, load_fixtures("line_ends"))
    assert found is not None
    shown = str(found)
    assert shown.startswith("line_ends/") and "LayeredSSEParser: [" in shown and "this parser:" in shown
