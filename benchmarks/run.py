"""Benchmark sse_course's parsers against a first attempt and the SSE parsers people use.

    pip install -r benchmarks/requirements.txt
    python benchmarks/run.py            # full run, about 10 minutes on 2 cores
    python benchmarks/run.py --quick    # smaller corpora, about 1.5 minutes

Everything is measured side by side in one run. The machine is noisy, so each
cell runs every parser once per round, in a rotating order, and reports each
parser's best round over the fastest peer's best round (CPU time from
``time.process_time``, steadier than wall time). Noise only adds time: work on
the other core and on the host shares caches and memory with the parse, and
interrupts are charged to it, so no round is faster than the parse's own cost
and the least of several is the nearest to it (``timeit``'s documentation gives
the same advice for its repeats). The rounds come in three sweeps over every
cell, each in a fresh process (a state that slows a parser for as long as a
process lives then falls on a third of the rounds).
Before timing, the first run of every cell checks that each parser yields the
same events (type, data, id) as LayeredSSEParser (the parser the lessons build),
and prints where one disagrees.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import gc
import itertools
import math
import multiprocessing
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace

from corpora import CORPORA, EDGE_CASES, chunked, long_line
from parsers import OURS, Parse, Triple, char_loop, installed_peers, ours, split_lines_floor

from sse_course import LayeredSSEParser, SSEParser

REFERENCE = "LayeredSSEParser"
#: What the targets below are set for: iter_events, the package's loop over an iterable
#: of chunks, as each peer is driven through its own (SSEParser's feed() loop beside it).
TARGETED = "iter_events"
CHAR_LOOP = "char loop"
#: The floor: the same chunks split at line ends in Python, nothing more (parsers.split_lines).
FLOOR = "line split"
#: Every cell of TARGETED at most this many times the fastest peer's time (1.00 is the
#: promise; the margin is for a noisy machine), and, the goal, at most GOAL_FLOOR times the floor's.
MUST_PEER, GOAL_PEER, GOAL_FLOOR = 0.90, 0.50, 1.5
#: Generous limits so the 8 MiB line is legal for our parsers.
LIMITS = {"max_line_chars": 16 << 20, "max_event_chars": 16 << 20}


@dataclass(frozen=True)
class Plan:
    """Sizes and repeats: the full run, or the --quick one."""

    corpus_bytes: dict[str, int]  # the event corpora's sizes
    prefix_bytes: int  # the one-byte chunking runs on a stream this long
    long_lines: tuple[int, ...]  # the long-line grid: one data line of each size
    one_byte_line_max: int  # the grid's one-byte chunking only up to this line size
    memory_line: int  # peak memory is measured on a line this long
    growth_bytes: tuple[int, ...]  # one long line in one-byte chunks
    rounds: int  # per cell, in ``sweeps`` sweeps over every cell
    sweeps: int
    growth_rounds: int
    cap_seconds: float  # a parser slower than this in a cell's first run is not timed there

    def __post_init__(self) -> None:
        if self.rounds % self.sweeps or self.growth_rounds % self.sweeps:
            raise ValueError("each sweep takes the same share of the rounds: make them a multiple of sweeps")


FULL = Plan(
    {"token stream": 2_250_000, "CRLF events": 2_000_000, "spanning events": 2_000_000},
    200_000,
    (100_000, 500_000, 2_000_000, 8_000_000),
    500_000,
    8 << 20,
    (50_000, 100_000, 200_000, 400_000),
    rounds=9,
    sweeps=3,
    growth_rounds=6,
    cap_seconds=8.0,
)
QUICK = Plan(
    {"token stream": 300_000, "CRLF events": 300_000, "spanning events": 300_000},
    30_000,
    (100_000, 500_000),
    100_000,
    1 << 20,
    (12_500, 25_000, 50_000, 100_000),
    rounds=9,
    sweeps=3,
    growth_rounds=9,
    cap_seconds=1.5,
)


class TooSlow(Exception):
    """The parser passed the cap in a cell's first run."""


def guarded(chunks: list[bytes], cap: float) -> Iterator[bytes]:
    """Yield the chunks, giving up once ``cap`` CPU seconds have passed."""
    deadline = time.process_time() + cap
    for i, chunk in enumerate(chunks):
        if i % 2048 == 0 and time.process_time() > deadline:
            raise TooSlow
        yield chunk


def grid(plan: Plan, *, say: bool = True) -> Iterator[tuple[str, str, list[bytes]]]:
    """(corpus, chunking, chunks) for every cell: the event corpora in four chunkings,
    then the long-line grid (one-byte chunks only on the shorter lines); ``say``:
    print each corpus's size as it is made."""
    for corpus, size in plan.corpus_bytes.items():
        raw, prefix = CORPORA[corpus](size), CORPORA[corpus](plan.prefix_bytes)
        if say:
            events = len(ours(LayeredSSEParser)([raw]))
            print(f"{corpus}: {len(raw):,} bytes, {events:,} events; ", end="")
            print(f"one-byte chunks on {len(prefix):,} bytes", flush=True)
        for label, chunk in CHUNKINGS:
            if label in CORPUS_CHUNKINGS.get(corpus, (label,)):
                yield corpus, label, chunked(prefix if chunk == 1 else raw, chunk)
    for size in plan.long_lines:
        raw, corpus = long_line(size), f"long line {size / 1e6:g} MB"
        if say:
            print(f"{corpus}: one data line of {size:,} bytes", flush=True)
        for label, chunk in CHUNKINGS:
            if chunk > 1 or size <= plan.one_byte_line_max:
                yield corpus, label, chunked(raw, chunk)


CHUNKINGS = (("64 KiB", 65536), ("1 KiB", 1024), ("37 B", 37), ("1 B", 1))
#: A corpus measured in some chunkings only: events that span many reads.
CORPUS_CHUNKINGS = {"spanning events": ("1 KiB", "37 B")}


#: A parser whose parse of a cell took less CPU time than this (in a first, cold
#: run) parses it several times per measurement, so that each measurement spans
#: about this much of its own work and a 0.1 ms parse is not measured at the timer's and the cache's noise
#: (a slow parser is not made to repeat a parse hundreds of times for a fast one's sake).
MIN_SAMPLE_SECONDS = 0.02


def repeats(once: float) -> int:
    """How many parses one measurement takes, for a parse that took ``once`` seconds."""
    return max(1, math.ceil(MIN_SAMPLE_SECONDS / max(once, 1e-6)))


def cpu_time(parse: Callable[[list[bytes]], object], chunks: list[bytes], repeat: int = 1) -> float:
    """CPU seconds of one parse, the mean over ``repeat`` parses in a row."""
    start = time.process_time()
    for _ in range(repeat):
        parse(chunks)
    return (time.process_time() - start) / repeat


EVERY_ROUND = slice(None)


@dataclass
class Cell:
    """One corpus under one chunking: times per parser per round."""

    corpus: str
    chunking: str
    chunks: list[bytes]
    fingerprint: tuple[int, int] = (0, 0)  # of the chunks: a sweep's process checks it made the same
    times: dict[str, list[float]] = field(default_factory=dict)
    repeat: dict[str, int] = field(default_factory=dict)  # parses per measurement, per parser
    too_slow: list[str] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)

    def ratio(self, name: str, peers: Iterable[str], rounds: slice = EVERY_ROUND) -> float | None:
        """The best round of ``name`` over the best round of the fastest peer (of these
        ``rounds``: by default all)."""
        peers = [p for p in peers if p in self.times]
        if name not in self.times or not peers:
            return None
        return self.best(name, rounds) / min(self.best(p, rounds) for p in peers)

    def fastest_peer(self, peers: Iterable[str]) -> str | None:
        timed = [p for p in peers if p in self.times]
        return min(timed, key=self.best) if timed else None

    def best(self, name: str, rounds: slice = EVERY_ROUND) -> float:
        """The least CPU time of ``name``'s rounds (of these ``rounds``)."""
        return min(self.times[name][rounds])


def first_difference(expected: list[Triple], got: list[Triple], reference: str = REFERENCE) -> str:
    """Where two event lists part, shortly."""
    for i, (e, g) in enumerate(zip(expected, got, strict=False)):
        if e != g:
            return f"event {i}: {reference} {short(e)} vs {short(g)}"
    return f"{len(expected)} events vs {len(got)} (the first {min(len(expected), len(got))} agree)"


def short(event: Triple) -> str:
    text = repr(event)
    return text if len(text) < 90 else text[:87] + "..."


def quiet_collector() -> None:
    """Collect, then set aside every object alive now (the peers' imported modules, the
    corpora): a collection then looks only at what was made since, so one before each
    measurement is cheap, and none during a parse walks the heap that the benchmark
    itself built, whichever parser it falls in."""
    gc.collect()
    gc.freeze()


def check_cell(cell: Cell, parsers: dict[str, Parse], plan: Plan) -> None:
    """Check every parser's events against the reference's, mark the ones over the cap,
    and set how many parses each measurement of the others (and the floor) takes."""
    expected = parsers[REFERENCE](cell.chunks)
    for name, parse in parsers.items():
        try:
            got = parse(guarded(cell.chunks, plan.cap_seconds))  # type: ignore[arg-type]
        except TooSlow:
            cell.too_slow.append(name)
            continue
        if got != expected:
            cell.disagreements.append(f"{name}: {first_difference(expected, got)}")
    quiet_collector()
    timed = timed_parsers(cell, parsers)
    cell.repeat = {name: repeats(cpu_time(parse, cell.chunks)) for name, parse in timed.items()}
    cell.times = {name: [] for name in timed}


def timed_parsers(cell: Cell, parsers: dict[str, Parse]) -> dict[str, Callable[[list[bytes]], object]]:
    """The parsers timed in the cell, and the floor (which gives lines, not events)."""
    return {**{name: parse for name, parse in parsers.items() if name not in cell.too_slow}, FLOOR: split_lines_floor}


def rotated(names: list[str], r: int) -> list[str]:
    """The order of round ``r``: each round starts one name further on, so no parser
    always runs first, or right after the same one."""
    return names[r % len(names) :] + names[: r % len(names)]


def time_cell(cell: Cell, parsers: dict[str, Parse], rounds: int) -> None:
    """``rounds`` more rounds of the cell, each parser once, the order rotating on from
    the rounds before."""
    timed = timed_parsers(cell, parsers)
    done = len(cell.times[FLOOR])
    for r in range(done, done + rounds):
        for name in rotated(list(timed), r):
            gc.collect()  # every measurement starts from the same collector state, not the last parser's
            cell.times[name].append(cpu_time(timed[name], cell.chunks, cell.repeat[name]))


def edge_case_findings(parsers: dict[str, Parse]) -> list[str]:
    """Where a parser's events differ from the standard's (LayeredSSEParser's
    ``browser`` profile) on the edge cases, whole and in one-byte chunks."""
    standard = ours(LayeredSSEParser, profile="browser")
    findings = []
    for case, raw in EDGE_CASES.items():
        for name, parse in parsers.items():
            found = {
                label: outcome_difference(standard, parse, chunks)
                for label, chunks in (("whole", [raw]), ("1 B", chunked(raw, 1)))
            }
            if found["whole"] == found["1 B"] and found["whole"]:
                findings.append(f"{case}: {name}: {found['whole']}")
            else:
                findings += [f"{case} [{label}]: {name}: {text}" for label, text in found.items() if text]
    return findings


def outcome_difference(standard: Parse, parse: Parse, chunks: list[bytes]) -> str | None:
    """How ``parse`` differs from ``standard`` on these chunks, or None."""
    expected = standard(chunks)
    try:
        got = parse(chunks)
    except Exception as err:  # a peer may raise on what the standard accepts
        return f"raised {type(err).__name__}: {err}"
    return None if got == expected else first_difference(expected, got, "standard")


@dataclass
class Growth:
    """One long line fed one byte at a time: each parser's CPU times per size, per round."""

    sizes: tuple[int, ...]
    times: dict[str, dict[int, list[float]]]  # a parser too slow at a size has no times there or above
    lines: dict[int, list[bytes]]  # each size's line, in one-byte chunks
    repeat: dict[tuple[str, int], int] = field(default_factory=dict)  # parses per measurement
    rounds: int = 0  # rounds timed so far

    def best(self, name: str, size: int) -> float | None:
        """The least CPU time of ``name``'s rounds at ``size``, if it was timed there."""
        times = self.times[name].get(size)
        return min(times) if times else None

    def ratio(self, name: str) -> float | None:
        """The best round at the largest size over the best round at the smallest."""
        first, last = self.best(name, self.sizes[0]), self.best(name, self.sizes[-1])
        return last / first if first and last else None


def growth(parsers: dict[str, Parse], plan: Plan) -> Growth:
    """The growth series, ready to time: each parser at each size it takes within the
    cap (a parser slower than the cap at one size is not timed there or above), and
    how many parses a measurement takes."""
    lines = growth_lines(plan)
    found = Growth(plan.growth_bytes, {name: {} for name in parsers}, lines)
    for name, parse in parsers.items():
        for size, chunks in lines.items():
            try:
                once = cpu_time(lambda c: parse(guarded(c, plan.cap_seconds)), chunks)  # type: ignore[arg-type]  # noqa: B023
            except TooSlow:
                break
            found.times[name][size], found.repeat[name, size] = [], repeats(once)
    quiet_collector()
    return found


def growth_lines(plan: Plan) -> dict[int, list[bytes]]:
    """Each size's long line, in one-byte chunks."""
    return {size: chunked(long_line(size), 1) for size in plan.growth_bytes}


def time_growth(found: Growth, parsers: dict[str, Parse], rounds: int) -> None:
    """``rounds`` more rounds of the growth series, side by side as the cells' are: in
    a round, one parser's sizes one right after another, the order of parsers rotating."""
    for r in range(found.rounds, found.rounds + rounds):
        for name in rotated(list(parsers), r):
            for size in found.times[name]:
                gc.collect()
                found.times[name][size].append(cpu_time(parsers[name], found.lines[size], found.repeat[name, size]))
    found.rounds += rounds


def sweep(plan: Plan, cells: list[Cell], series: Growth) -> None:
    """One sweep over every cell and the growth series, in a fresh process: a state that
    slows a parser for as long as its process lives (benchmarks/README.md tells of one)
    then falls on a third of a cell's rounds, not all."""
    bare_cells, bare_series = [replace(cell, chunks=[]) for cell in cells], replace(series, lines={})
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        times, swept = pool.submit(time_sweep, plan, bare_cells, bare_series).result()
    for cell, cell_times in zip(cells, times, strict=True):
        cell.times = cell_times
    series.times, series.rounds = swept.times, swept.rounds


def time_sweep(plan: Plan, cells: list[Cell], series: Growth) -> tuple[list[dict[str, list[float]]], Growth]:
    """A sweep's work, in its own process: the same chunks made again (checked), the start
    of every cell parsed untimed, then a third of each cell's rounds and of the growth
    series'; returns the times, the lines left out."""
    parsers = all_parsers()[0]
    for cell, (corpus, chunking, chunks) in zip(cells, grid(plan, say=False), strict=True):
        if (corpus, chunking, fingerprint(chunks)) != (cell.corpus, cell.chunking, cell.fingerprint):
            raise RuntimeError(f"the sweep's process made other chunks for {cell.corpus}, {cell.chunking}")
        cell.chunks = chunks
        for parse in timed_parsers(cell, parsers).values():  # untimed: no round is a parser's first here, and
            with contextlib.suppress(Exception):  # a peer's package is imported before the collector sets all aside
                parse(start_of(chunks))  # (the start of a stream may end inside an event: strict raises there)
    series.lines = growth_lines(plan)
    quiet_collector()
    for cell in cells:
        time_cell(cell, parsers, plan.rounds // plan.sweeps)
    time_growth(series, parsers, plan.growth_rounds // plan.sweeps)
    return [cell.times for cell in cells], replace(series, lines={})


def fingerprint(chunks: list[bytes]) -> tuple[int, int]:
    """The chunks' count and a checksum of their bytes: a sweep's process checks it made the same."""
    return len(chunks), zlib.crc32(b"".join(chunks))


#: How much of each cell a sweep's process parses, untimed, before its rounds.
WARM_BYTES = 64 * 1024


def start_of(chunks: list[bytes]) -> list[bytes]:
    """The first chunks, up to WARM_BYTES (at least one)."""
    ends = list(itertools.accumulate(map(len, chunks)))
    return chunks[: max(1, bisect.bisect_right(ends, WARM_BYTES))]


def print_sweep(cells: list[Cell], peers: list[str], plan: Plan, index: int) -> None:
    """The targeted parser's worst cell in one sweep's rounds alone (sweep ``index``, from 0)."""
    per_sweep = plan.rounds // plan.sweeps
    rounds = slice(index * per_sweep, (index + 1) * per_sweep)
    found = [(cell.ratio(TARGETED, peers, rounds), f"{cell.corpus}, {cell.chunking}") for cell in cells]
    timed = [(ratio, label) for ratio, label in found if ratio is not None]
    if timed:
        ratio, label = max(timed)
        print(f"  its rounds alone: {TARGETED}'s worst cell {label}: {ratio:.2f}x the fastest peer", flush=True)


def peak_memory(parsers: dict[str, Parse], size: int) -> dict[str, float]:
    """tracemalloc's peak while parsing one ``size``-byte line in 64 KiB chunks, over ``size``."""
    chunks = chunked(long_line(size), 64 * 1024)
    peaks = {}
    for name, parse in parsers.items():
        gc.collect()
        tracemalloc.start()
        try:
            parse(chunks)
            peaks[name] = tracemalloc.get_traced_memory()[1] / size
        finally:
            tracemalloc.stop()
    return peaks


def fmt(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:.2f}"


def print_cells(cells: list[Cell], ours: list[str], peers: list[str]) -> None:
    print("\nTime / fastest peer's time, each parser's best round (below 1.00: faster than every peer);")
    print(f"last column: {TARGETED}'s time / the floor's ({FLOOR}: the same chunks split at line ends, nothing more)")
    header = f"{'corpus':<17} {'chunks':<7} {'fastest peer':<13} {'ms':>8}" + "".join(f" {n:>13}" for n in ours)
    header += f" {TARGETED + ' / floor':>18}"
    print(header)
    print("-" * len(header))
    for cell in cells:
        best = cell.fastest_peer(peers)
        ms = f"{1000 * cell.best(best):8.1f}" if best else f"{'-':>8}"
        row = f"{cell.corpus:<17} {cell.chunking:<7} {best or '(none)':<13} {ms}"
        row += "".join(f" {fmt(cell.ratio(n, peers)):>13}" for n in ours)
        print(row + f" {fmt(cell.ratio(TARGETED, [FLOOR])):>18}")
    print(
        "\nBest CPU milliseconds per parser, the least of the rounds ('slow': over the cap in the first run, not timed)"
    )
    names = [*ours, *peers, FLOOR]
    print(f"{'corpus':<17} {'chunks':<7}" + "".join(f" {n:>13}" for n in names))
    for cell in cells:
        values = [
            "slow" if n in cell.too_slow else (f"{1000 * cell.best(n):.1f}" if n in cell.times else "-") for n in names
        ]
        print(f"{cell.corpus:<17} {cell.chunking:<7}" + "".join(f" {v:>13}" for v in values))


def print_disagreements(cells: list[Cell]) -> None:
    print(f"\nAgreement with {REFERENCE}'s events (type, data, id) in each cell's first run:")
    found = False
    for cell in cells:
        for line in cell.disagreements:
            found = True
            print(f"  {cell.corpus} / {cell.chunking}: {line}")
    if not found:
        print("  every parser agreed in every cell")


def print_growth(found: Growth) -> dict[str, float | None]:
    sizes = ", ".join(f"{size / 1000:g} KB" for size in found.sizes)
    print(f"\nOne line fed one byte at a time: best CPU ms of the rounds at {sizes};")
    print("last/first: the largest size's best round / the smallest's")
    ratios = {}
    for name in found.times:
        bests = (found.best(name, size) for size in found.sizes)
        cells = " ".join(f"{'slow' if t is None else f'{1000 * t:.0f}':>8}" for t in bests)
        ratios[name] = found.ratio(name)
        print(f"  {name:<16} {cells}   last/first: {fmt(ratios[name])}")
    return ratios


def print_targets(cells: list[Cell], growth_ratios: dict, peaks: dict, peers: list[str], elapsed: float) -> None:
    print(f"\nTargets, set for {TARGETED} ({', '.join(name for name in OURS if name != TARGETED)} beside it)")
    for name in OURS:
        ratios = [r for r in (cell.ratio(name, peers) for cell in cells) if r is not None]
        worst = max(ratios) if ratios else None
        floors = [r for r in (cell.ratio(name, [FLOOR]) for cell in cells) if r is not None]
        growth, peak = growth_ratios.get(name), peaks.get(name)
        verdicts = (
            (
                f"must (<= {MUST_PEER:.2f}) {'met' if worst is not None and worst <= MUST_PEER else 'MISSED'}, "
                f"goal (<= {GOAL_PEER:.2f}) {'met' if worst is not None and worst <= GOAL_PEER else 'missed'}",
                f"{'met' if growth and growth <= 10 else 'MISSED'} (<= 10)",
                f"{'met' if peak is not None and peak < 2.0 else 'MISSED'} (below 2.0; exactly {peak:.4f})"
                if peak is not None
                else "MISSED (not measured)",
            )
            if name == TARGETED
            else ("not a target",) * 3
        )
        print(
            f"  {name}: worst cell {fmt(worst)}x the fastest peer -> {verdicts[0]}; "
            f"cells faster than every peer: {sum(r <= 1 for r in ratios)}/{len(ratios)}, "
            f"at {MUST_PEER:.2f} or below: {sum(r <= MUST_PEER for r in ratios)}/{len(ratios)}, "
            f"at {GOAL_PEER:.2f} or below: {sum(r <= GOAL_PEER for r in ratios)}/{len(ratios)}"
        )
        worst_floor = max(floors) if floors else None
        print(
            f"  {name}: worst cell {fmt(worst_floor)}x the floor -> goal (<= {GOAL_FLOOR}) "
            f"{'met' if worst_floor is not None and worst_floor <= GOAL_FLOOR else 'missed'}"
            f"{'' if name == TARGETED else ' (not a target)'}; "
            f"cells at {GOAL_FLOOR} or below: {sum(r <= GOAL_FLOOR for r in floors)}/{len(floors)}"
        )
        print(f"  {name}: one-byte growth last/first {fmt(growth)} -> {verdicts[1]}")
        print(f"  {name}: peak memory {fmt(peak)}x the line -> {verdicts[2]}")
    print(f"  whole run: {elapsed:.0f} s wall time")


def all_parsers() -> tuple[dict[str, Parse], list[str], list[str]]:
    """Every parser timed (ours, the char loop, the peers installed), the peers' names,
    and the names of the peers not installed."""
    peer_parsers, missing = installed_peers()
    parsers: dict[str, Parse] = {name: make(**LIMITS) for name, make in OURS.items()}
    parsers[CHAR_LOOP] = char_loop
    parsers.update(peer_parsers)
    return parsers, list(peer_parsers), missing


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    args.add_argument("--quick", action="store_true", help="smaller corpora (about 1.5 minutes)")
    plan = QUICK if args.parse_args().quick else FULL
    started = time.perf_counter()
    parsers, peers, missing = all_parsers()
    if missing:
        print(f"not installed, skipped: {', '.join(missing)} (pip install -r benchmarks/requirements.txt)")

    cells = [Cell(corpus, label, chunks, fingerprint(chunks)) for corpus, label, chunks in grid(plan)]
    for cell in cells:
        check_cell(cell, parsers, plan)
    series = growth(parsers, plan)
    for index in range(plan.sweeps):  # a burst of noise that lasts a while falls on one sweep's rounds of a cell
        print(
            f"timing: sweep {index + 1} of {plan.sweeps} over every cell and the growth series, in a fresh process",
            flush=True,
        )
        sweep(plan, cells, series)
        print_sweep(cells, peers, plan, index)
    print_cells(cells, [*OURS, CHAR_LOOP], peers)
    print_disagreements(cells)
    checked = {"SSEParser": ours(SSEParser, profile="browser")}
    checked.update((name, parse) for name, parse in parsers.items() if name not in OURS)
    print("\nEdge cases (not timed), against the standard (LayeredSSEParser, browser profile):")
    print("\n".join(f"  {line}" for line in edge_case_findings(checked)) or "  every parser agreed")
    growth_ratios = print_growth(series)
    line_bytes = plan.memory_line
    peaks = peak_memory(parsers, line_bytes)
    print(f"\nPeak traced memory parsing one {line_bytes:,}-byte line in 64 KiB chunks, over the line's size")
    print("  " + "   ".join(f"{name}: {fmt(peak)}" for name, peak in peaks.items()))
    print_targets(cells, growth_ratios, peaks, peers, time.perf_counter() - started)


if __name__ == "__main__":
    main()
