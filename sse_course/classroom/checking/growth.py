"""Growth: how the work grows when the input grows, measured as lesson 09 measures it.

A part whose task implies linear time (a splitter, a cutter, a limit, a reader
that keeps an unfinished line) is fed one long line in small reads, at ``n``
bytes and at ``4n``. Linear work takes about 4 times as long at ``4n``; work
that copies or searches everything held on each read takes about 16 times as
long. Times are CPU seconds of this process (another process on the machine
does not count), garbage collection paused; the small size is timed three times
and the best kept, and the large one up to three times, stopping as soon as it
is within the limit, so that a slow moment of the machine cannot fail a linear part.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .verdict import Kind, failed

#: time(4n) / time(n) above this is not linear (linear: about 4, up to 8 where the buffers outgrow
#: the CPU's caches; quadratic: about 16, or more).
GROWTH_LIMIT = 10.0
#: Timings of the small size: the best of these many; of the large size, at most LARGE_TRIES.
TRIES = 3
LARGE_TRIES = 3
#: A part may grow this many times as fast as the reference does on the same input, measured alongside.
REFERENCE_FACTOR = 2.0
#: The reference's growth is measured this many times and the smallest taken: one noisy measurement
#: could otherwise raise the limit past a quadratic part's growth (10 to 15 for many lines in one read).
REFERENCE_TRIES = 2
#: The limit for many short lines in one read: there a search that reads to the end of the read again for
#: every line costs little per byte (memchr), so it grows by 10 to 15, not 16; linear work grows by 3 to 6.
MANY_LINES_LIMIT = 8.0
#: The size of each read of the long line.
GROWTH_READ_BYTES = 512
#: A run at the small size is repeated until it takes this many CPU seconds (at most MAX_REPEATS times).
TIMED_SECONDS = 0.01
MAX_REPEATS = 50


@dataclass(frozen=True)
class Growth:
    """Two sizes of one input shape, and the CPU seconds each took."""

    n: int
    small: float
    large: float

    @property
    def ratio(self) -> float:
        return self.large / max(self.small, 1e-9)


def cpu_seconds(run: Callable[[], Any]) -> float:
    """CPU seconds one run takes, garbage collection paused."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.process_time()
        run()
        return time.process_time() - start
    finally:
        if enabled:
            gc.enable()


def repeated(run: Callable[[], Any], times: int) -> Callable[[], None]:
    def runs() -> None:
        for _ in range(times):
            run()

    return runs


def measure(run_of: Callable[[int], Callable[[], Any]], n: int, limit: float = GROWTH_LIMIT) -> Growth:
    """The best time at ``n``, and at ``4n`` (tried again only while it looks too slow), then at
    ``n`` again: noise only adds time, and a burst of it during the first runs at ``n`` would
    otherwise make quadratic work look linear.

    A run too short to time well is repeated until the small size takes :data:`TIMED_SECONDS`,
    and the large size is repeated as often."""
    small_run = run_of(n)
    once = cpu_seconds(small_run)
    times = max(1, min(MAX_REPEATS, int(TIMED_SECONDS / max(once, 1e-6))))
    small_runs = repeated(small_run, times)
    small = min(cpu_seconds(small_runs) for _ in range(TRIES))
    large_run = repeated(run_of(4 * n), times)
    large = float("inf")
    for _ in range(LARGE_TRIES):
        large = min(large, cpu_seconds(large_run))
        if large <= limit * small:
            break
    small = min(small, *(cpu_seconds(small_runs) for _ in range(TRIES)))
    return Growth(n, small / times, large / times)


def check_growth(
    what: str,
    run_of: Callable[[int], Callable[[], Any]],
    reference_of: Callable[[int], Callable[[], Any]],
    n: int,
    shape: str,
    hint: str,
    limit: float = GROWTH_LIMIT,
) -> str:
    """Raise TOO SLOW (grows) if the work at ``4n`` is more than ``limit`` times the work at ``n``,
    and more than :data:`REFERENCE_FACTOR` times the reference's growth on the same input, measured
    alongside (so that a machine whose caches make linear work grow by 6 or 8 fails no linear part).

    ``run_of(size)`` makes the run to time (its set-up is not timed); ``shape`` says
    what the input is, ``hint`` where such growth usually comes from.
    """
    found = measure(run_of, n, limit)
    if found.ratio > limit:  # the reference twice: noise only adds time, so its smaller growth is nearer the truth
        reference = min(measure(reference_of, n, limit).ratio for _ in range(REFERENCE_TRIES))
        limit = max(limit, REFERENCE_FACTOR * reference)
    if found.ratio > limit:
        raise failed(
            what,
            Kind.TOO_SLOW,
            f"4 times the input takes {found.ratio:.0f} times as long: the work grows faster than the input.",
            f"{shape}, {found.n:,} bytes: {found.small * 1000:.1f} ms of CPU; {4 * found.n:,} bytes: "
            f"{found.large * 1000:.1f} ms (linear work takes about 4 times as long; here at most {limit:.0f}).\n"
            f"{hint}",
            direction="grows",
        )
    return "and its work grows linearly (a line 4 times as long takes about 4 times as long, not 16)"


def reads_of(data: Any, size: int = GROWTH_READ_BYTES) -> list[Any]:
    """``data`` (bytes or text) in reads of ``size``."""
    return [data[i : i + size] for i in range(0, len(data), size)]


def feeding(make: Callable[[], Any], reads: list[Any]) -> Callable[[], None]:
    """A run: a fresh object fed every read, then closed."""

    def run() -> None:
        fed = make()
        for chunk in reads:
            fed.feed(chunk)
        fed.close()

    return run


def long_line_growth(
    what: str,
    make: Callable[[], Any],
    reference: Callable[[], Any],
    line: Callable[[int], Any],
    n: int,
    hint: str,
) -> str:
    """:func:`check_growth` on one long line (``line(n)``, n bytes or characters) fed to fresh
    objects in small reads. ``n`` is chosen per part: large enough that work which searches or
    copies everything held on each read takes most of the time at ``4n``."""
    return check_growth(
        what,
        lambda size: feeding(make, reads_of(line(size))),
        lambda size: feeding(reference, reads_of(line(size))),
        n,
        f"one long line in reads of {GROWTH_READ_BYTES}",
        hint,
    )


#: Where work on a read that holds many lines usually stops being linear.
MANY_LINES_HINT = (
    "When one read holds many lines, search for the next CR and the next LF from where the last line "
    "ended, and keep a search's answer until you pass it: a search that found no CR (or no LF) read to "
    "the end of the chunk, and doing it again for every line reads the rest of the chunk once per line."
)


def many_lines_growth(what: str, make: Callable[[], Any], reference: Callable[[], Any], line: bytes, n: int) -> str:
    """:func:`check_growth` on many copies of ``line`` (about ``n`` bytes in all) fed to fresh objects
    in ONE read: work that searches the rest of the read again for every line grows quadratically."""

    def whole(size: int) -> list[bytes]:
        return [line * (size // len(line))]

    return check_growth(
        what,
        lambda size: feeding(make, whole(size)),
        lambda size: feeding(reference, whole(size)),
        n,
        f"{line!r} many times in one read",
        MANY_LINES_HINT,
        MANY_LINES_LIMIT,
    )
