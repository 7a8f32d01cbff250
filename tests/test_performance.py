"""Linear whatever the chunking, and memory within a small multiple of a long line:
LayeredSSEParser, the parser the lessons build (tests/test_fastpath.py checks
SSEParser's fast path the same way).

CPU time (process_time) is measured, not wall time: it is steadier on a busy
machine. Each check also runs on a line splitter that rebuilds its partial
line on every read, to show the check rejects quadratic code.
"""

from __future__ import annotations

import time
import tracemalloc

from timing import median_of_three

from sse_course import Event, LayeredSSEParser
from sse_course.lines import LineSplitter


class RebuildingSplitter(LineSplitter):
    """The quadratic mistake: the partial line is re-joined on every read."""

    def _extend(self, text: str, start: int, end: int, lines: list[str]) -> None:
        if start < end:
            self._fragments[:] = ["".join(self._fragments) + text[start:end]]
            self._partial_chars += end - start


def parser(quadratic: bool = False) -> tuple[LayeredSSEParser[Event], LineSplitter]:
    """A parser, and its splitter (the package's, or one that rebuilds its line each time)."""
    splitter = RebuildingSplitter(16 << 20) if quadratic else LineSplitter(16 << 20)
    return LayeredSSEParser(max_line_chars=16 << 20, max_event_chars=16 << 20, splitter=splitter), splitter


def one_byte_feed_seconds(chars: int) -> float:
    raw = b"data: " + b"x" * chars + b"\n\n"
    (target, splitter), start = parser(), time.process_time()
    for i in range(len(raw)):
        target.feed(raw[i : i + 1])
    assert target.last_event_id == "" and splitter.partial == ""
    return time.process_time() - start


def late_over_early(quadratic: bool, chars: int = 200_000, window: int = 20_000) -> float:
    """CPU time of the last one-byte reads of a long line over that of the first."""
    target, _ = parser(quadratic)
    target.feed(b"data: ")

    def span(reads: int) -> float:
        start = time.process_time()
        for _ in range(reads):
            target.feed(b"x")
        return time.process_time() - start

    early = span(window)
    target.feed(b"x" * (chars - 2 * window))  # the line grows in one read: only the reads at its ends are timed
    return span(window) / early


def test_one_byte_feed_of_8x_longer_line_takes_about_8x() -> None:
    ratio = median_of_three(lambda: one_byte_feed_seconds(200_000) / one_byte_feed_seconds(25_000), 12)
    assert ratio < 12  # linear: about 8; quadratic: about 64


def test_late_reads_cost_what_early_reads_cost() -> None:
    assert median_of_three(lambda: late_over_early(quadratic=False), 1.5) < 1.5


def test_the_cost_check_rejects_a_rebuilding_splitter() -> None:
    # A long line, so that re-joining it costs far more than a read's fixed cost even on a
    # loaded machine (at 200,000 characters the two were close: a ratio of 1.08 was seen in CI).
    assert median_of_three(lambda: late_over_early(quadratic=True, chars=1_000_000, window=5_000), 1.5) > 1.5


def test_peak_memory_for_one_long_line_is_a_small_multiple() -> None:
    raw = b"data: " + b"y" * (8 << 20) + b"\n\n"
    tracemalloc.start()
    try:
        target, _ = parser()
        events = [e for i in range(0, len(raw), 1 << 16) for e in target.feed(raw[i : i + (1 << 16)])]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(events[0].data) == 8 << 20
    assert peak < 2.5 * len(raw), peak / len(raw)
