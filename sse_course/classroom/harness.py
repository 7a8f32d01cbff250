"""The partition harness: run a parser over a fixture under many chunkings.

A *partition* is a sorted tuple of cut positions into the input bytes; a cut
repeated makes an empty chunk there. The harness feeds the chunks to a fresh
parser, closes it, and compares everything that came out (events, then the
error) with the fixture's expectation. On a failure it reports the smallest
partition that shows it: fewest cuts, then the shortest input (the input is
shrunk only with the package's own parser as the oracle for what is right).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..events import Event
from ..parser import SSEParser
from .fixtures import Expected, Fixture

Partition = tuple[int, ...]
Factory = Callable[[], Any]

#: Inputs up to this many bytes are also run under every pair of cuts.
PAIRS_MAX_BYTES = 48
RANDOM_SEED = 20261130
RANDOM_COUNT = 25


def chunks_of(raw: bytes, cuts: Iterable[int]) -> list[bytes]:
    """Cut ``raw`` at the given positions (sorted; repeats give empty chunks)."""
    bounds = [0, *cuts, len(raw)]
    return [raw[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def show_split(raw: bytes, cuts: Iterable[int]) -> str:
    """The bytes as Python literals with each cut drawn as ' | '."""
    return " | ".join(repr(chunk) for chunk in chunks_of(raw, cuts))


# --- partition strategies -------------------------------------------------


def whole(raw: bytes) -> Iterator[Partition]:
    """One chunk: the stream as a single read."""
    yield ()


def single(raw: bytes) -> Iterator[Partition]:
    """Every single cut."""
    for cut in range(1, len(raw)):
        yield (cut,)


def empty_reads(raw: bytes) -> Iterator[Partition]:
    """Every single cut with an empty read at it, plus empty reads at both ends."""
    yield (0, len(raw))
    for cut in range(1, len(raw)):
        yield (cut, cut)


def pairs(raw: bytes) -> Iterator[Partition]:
    """Every pair of cuts, for short inputs only (quadratic in the length)."""
    if len(raw) <= PAIRS_MAX_BYTES:
        for first in range(1, len(raw)):
            for second in range(first + 1, len(raw)):
                yield (first, second)


def one_byte(raw: bytes) -> Iterator[Partition]:
    """One-byte chunks."""
    yield tuple(range(1, len(raw)))


def interesting(raw: bytes) -> Iterator[Partition]:
    """Each interesting cut alone, then all of them at once."""
    cuts = interesting_cuts(raw)
    for cut in cuts:
        yield (cut,)
    if len(cuts) > 1:
        yield tuple(cuts)


def seeded_random(raw: bytes) -> Iterator[Partition]:
    """Random partitions from a fixed seed, so every run sees the same ones."""
    rng = random.Random(RANDOM_SEED + len(raw))
    for _ in range(RANDOM_COUNT if len(raw) > 1 else 0):
        count = rng.randint(1, min(len(raw) - 1, 12))
        yield tuple(sorted(rng.sample(range(1, len(raw)), count)))


STRATEGIES: dict[str, Callable[[bytes], Iterator[Partition]]] = {
    "whole": whole,
    "single": single,
    "empty_reads": empty_reads,
    "pairs": pairs,
    "one_byte": one_byte,
    "interesting": interesting,
    "random": seeded_random,
}


def interesting_cuts(raw: bytes) -> list[int]:
    """Cuts where chunking bugs live: inside a multi-byte character, between
    CR and LF, right after ``data:``, and between events."""
    cuts = set()
    for i, byte in enumerate(raw):
        if i and 0x80 <= byte < 0xC0:
            cuts.add(i)  # before a continuation byte: inside a character
        if raw[i : i + 2] == b"\r\n":
            cuts.add(i + 1)
        if raw[i : i + 5] == b"data:":
            cuts.add(i + 5)
        if raw[i : i + 2] in (b"\n\n", b"\r\r") or raw[i : i + 4] == b"\r\n\r\n":
            cuts.add(i + 1)
    return sorted(cut for cut in cuts if 0 < cut < len(raw))


def partitions(raw: bytes, strategies: Iterable[str], extra_cuts: Iterable[int] = ()) -> list[Partition]:
    """All partitions of the named strategies plus the fixture's own cuts, fewest cuts first."""
    found = {partition for name in strategies for partition in STRATEGIES[name](raw)}
    found.update((cut,) for cut in extra_cuts)
    return sorted(found, key=lambda p: (len(p), p))


#: The order a search across many fixtures tries the strategies in: those with few
#: partitions first, so most mistakes show within a few runs; the quadratic pairs last.
SEARCH_ORDER = ("whole", "interesting", "empty_reads", "single", "one_byte", "random", "pairs")


def search_plan(
    fixtures: Iterable[Fixture], strategies: Iterable[str] | None = None
) -> Iterator[tuple[Fixture, Partition]]:
    """Every partition :func:`partitions` gives each fixture (its ``checked_under``
    strategies, or ``strategies``, plus its own cuts), each once, ordered for a search
    across fixtures: each fixture's own cuts, then one strategy at a time over every
    fixture, in :data:`SEARCH_ORDER`. A parser wrong somewhere fails early; one right
    everywhere still runs every partition of every fixture."""
    fixtures = list(fixtures)
    chosen = None if strategies is None else tuple(strategies)
    named = [fixture.checked_under if chosen is None else chosen for fixture in fixtures]
    unplaced = {name for names in named for name in names} - set(SEARCH_ORDER)
    if unplaced:  # a strategy left out of the order would be left out of the search
        raise KeyError(f"strategies not in SEARCH_ORDER: {sorted(unplaced)}")
    done: list[set[Partition]] = [set() for _ in fixtures]
    for phase in ("cuts", *SEARCH_ORDER):
        for fixture, names, seen in zip(fixtures, named, done, strict=False):
            if phase == "cuts":
                found: Iterable[Partition] = [(cut,) for cut in fixture.cuts]
            else:
                found = STRATEGIES[phase](fixture.raw) if phase in names else ()
            for partition in found:
                if partition not in seen:
                    seen.add(partition)
                    yield fixture, partition


# --- running a parser -----------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """Everything one run produced: all events, then the error (if any)."""

    events: tuple
    error: tuple[str, str] | None = None


def run(factory: Factory, chunks: Iterable[bytes]) -> Outcome:
    """Feed the chunks to ``factory()``'s parser, close it, and record the outcome."""
    events: list = []
    try:
        parser = factory()
        for chunk in chunks:
            events += parser.feed(chunk)
        events += parser.close()
    except Exception as err:  # a buggy parser may raise anything; that is an outcome
        events += getattr(err, "events", None) or []
        return Outcome(tuple(events), (type(err).__name__, str(err)))
    return Outcome(tuple(events))


def as_event(event: Any) -> tuple:
    """Normalise an ``Event``, an object with ``.type``/``.data``, or a tuple."""
    if isinstance(event, Event):
        return (event.type, event.data, event.last_event_id, event.retry)
    if isinstance(event, tuple):
        return event
    return tuple(getattr(event, name) for name in ("type", "data", "last_event_id", "retry") if hasattr(event, name))


def same_events(expected: Iterable[Event], got: Iterable[Any]) -> bool:
    """Equal event by event, on the fields the candidate's events provide."""
    wanted, given = [as_event(e) for e in expected], [as_event(e) for e in got]
    return len(wanted) == len(given) and all(
        e[: len(g)] == g and len(g) >= 2 for e, g in zip(wanted, given, strict=False)
    )


def agrees(expected: Expected, outcome: Outcome, exact_errors: bool = True) -> bool:
    """Does the outcome match? ``exact_errors=False`` compares error types only."""
    if not same_events(expected.events, outcome.events):
        return False
    if expected.error is None or outcome.error is None:
        return expected.error == outcome.error
    return expected.error == outcome.error if exact_errors else expected.error[0] == outcome.error[0]


@dataclass(frozen=True)
class Failure:
    """The smallest split found that shows a parser disagreeing with the expectation."""

    fixture: str
    profile: str
    raw: bytes
    cuts: Partition
    expected: Expected
    got: Outcome

    def __str__(self) -> str:
        return (
            f"{self.fixture} [{self.profile}] under the split\n    {show_split(self.raw, self.cuts)}\n"
            f"expected: {describe(self.expected.events, self.expected.error)}\n"
            f"     got: {describe(self.got.events, self.got.error)}"
        )


def describe(events: Iterable[Any], error: tuple[str, str] | None) -> str:
    """Events (every field the parser gives) and error, for failure messages."""
    text = "[" + ", ".join(repr(as_event(e)) for e in events) + "]"
    return text + (f" then {error[0]}: {error[1]}" if error else "")


def find_failure(
    factory: Factory,
    fixture: Fixture,
    profile: str = "strict",
    strategies: Iterable[str] | None = None,
    exact_errors: bool = True,
    shrink: bool = True,
) -> Failure | None:
    """Run every partition; return the smallest failing split, or None.

    The smallest split is found by the checking engine's one shrinker: fewer cuts, then
    (with ``shrink``) a shorter input, byte ranges halving in size, the reference parser
    giving its expected outcome, while the failure stays of the same kind (the errors
    expected and raised)."""
    from .checking.compare import Difference
    from .checking.shrink import fewer_cuts
    from .checking.shrink import shrink as shorter
    from .checking.verdict import Kind

    expected = fixture.expected[profile]
    names = fixture.checked_under if strategies is None else strategies

    def outcome_of(raw: bytes, cuts: Partition) -> tuple[Expected, Outcome]:
        want = expected if raw == fixture.raw else reference_outcome(raw, profile, fixture.options)
        return want, run(factory, chunks_of(raw, cuts))

    def fails(raw: bytes, cuts: Partition) -> Difference | None:
        want, got = outcome_of(raw, cuts)
        return None if agrees(want, got, exact_errors) else Difference(Kind.WRONG_VALUE, "", "", _kind(want, got))

    for cuts in partitions(fixture.raw, names, fixture.cuts):
        found = fails(fixture.raw, cuts)
        if found is not None:
            raw = fixture.raw
            if shrink:
                raw, cuts, found = shorter(fails, raw, cuts, found, by_character=False)
            else:
                cuts, found = fewer_cuts(fails, raw, cuts, found)
            want, got = outcome_of(raw, cuts)
            return Failure(fixture.id, profile, raw, cuts, want, got)
    return None


def reference_outcome(raw: bytes, profile: str, options: dict[str, Any]) -> Expected:
    """What the package's parser yields for ``raw``: the oracle for shrinking."""
    outcome = run(lambda: SSEParser(profile, **options), [raw])
    return Expected(tuple(outcome.events), outcome.error)


def _kind(expected: Expected, got: Outcome) -> tuple:
    """Which errors were expected and raised: a shorter input must keep the
    failure of the same kind, or shrinking drifts to a different bug."""
    return (expected.error and expected.error[0], got.error and got.error[0])
