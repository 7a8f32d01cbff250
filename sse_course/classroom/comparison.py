"""Lesson 09's comparison: a parser against LayeredSSEParser, feed by feed, on the fixtures.

What a caller sees of one run is a :class:`~.checking.Trace`: each call's events,
``(last_event_id, retry)`` read right after it, then the error's class and the
events it carried. :func:`same` asks for all of it to be equal, with one
allowance: where LayeredSSEParser raises DecodeError from a feed, the other
parser may raise it from that feed or a later one (a bytes-first parser decodes
a block when its blank line comes). The calls before that feed must then match,
and after it the error's class and all the events, returned and carried. Error
messages and offsets are not compared: the lesson's small parser does not count
the LFs its cutter drops.

LayeredSSEParser is run once per stream and profile, a byte at a time, and its
trace under any split is regrouped from that run (:func:`~.checking.compare.regroup`):
exact for a parser whose output depends only on the bytes fed so far.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..layered import LayeredSSEParser
from ..profiles import PROFILES
from .checking import Trace, show_trace, trace
from .checking.compare import one_byte_reads, regroup
from .fixtures import Fixture
from .harness import STRATEGIES, Partition, chunks_of, partitions, search_plan, show_split

#: ``make(profile, **options)``: a fresh parser of the kind under comparison.
Make = Callable[..., Any]


@functools.lru_cache(maxsize=1 << 10)
def _byte_by_byte(raw: bytes, profile: str, options: str) -> Trace:
    return trace(lambda: LayeredSSEParser(profile, **json.loads(options)), one_byte_reads(raw))


def layered_trace(raw: bytes, cuts: Partition, profile: str, options: dict[str, Any]) -> Trace:
    """What a caller sees of LayeredSSEParser under ``cuts``, regrouped from one run a byte at a time."""
    return regroup(_byte_by_byte(raw, profile, json.dumps(options, sort_keys=True)), cuts)


def same(expected: Trace, got: Trace) -> bool:
    """Feed by feed: each call's events and (last_event_id, retry) after it, then the error's class and
    carried events; where LayeredSSEParser raises DecodeError, the same calls up to that feed, then a
    DecodeError from it or a later one, with the same events in all."""
    if expected.error and expected.error[0] == "DecodeError":
        at = len(expected.calls)  # the calls before the feed that raised
        return (got.calls[:at], got.states[:at]) == (expected.calls, expected.states) and (
            got.error is not None and got.error[0] == "DecodeError" and got.items() == expected.items()
        )
    error = expected.error and expected.error[0]
    return (got.calls, got.states, got.error and got.error[0], got.carried) == (
        expected.calls,
        expected.states,
        error,
        expected.carried,
    )


@dataclass(frozen=True)
class Difference:
    """A split under which a parser's run is not the same as LayeredSSEParser's."""

    where: str
    raw: bytes
    cuts: Partition
    expected: Trace
    got: Trace

    def __str__(self) -> str:
        return (
            f"{self.where} {show_split(self.raw, self.cuts)}\n"
            f"  LayeredSSEParser: {show_trace(self.expected, states=True)}\n"
            f"  this parser:      {show_trace(self.got, states=True)}"
        )


def compare(
    make: Make, raw: bytes, cuts: Partition, profile: str, options: dict[str, Any], where: str = ""
) -> Difference | None:
    """The difference between ``make(profile, **options)``'s run and LayeredSSEParser's under ``cuts``, if any."""
    got = trace(lambda: make(profile, **options), chunks_of(raw, cuts))
    expected = layered_trace(raw, cuts, profile, options)
    return None if same(expected, got) else Difference(where or f"[{profile}]", raw, cuts, expected, got)


def first_difference(
    make: Make, fixtures: Iterable[Fixture], strategies: Iterable[str] = tuple(STRATEGIES)
) -> Difference | None:
    """The first split that shows a difference, in either profile, the cheap splits of every fixture first."""
    for fixture, cuts in search_plan(fixtures, tuple(strategies)):
        for profile in PROFILES:
            found = compare(make, fixture.raw, cuts, profile, fixture.options, f"{fixture.id} [{profile}]")
            if found is not None:
                return found
    return None


def differences(
    make: Make, fixtures: Iterable[Fixture], strategies: Iterable[str] = tuple(STRATEGIES)
) -> tuple[int, list[Difference]]:
    """Every split of every fixture under ``strategies``, in both profiles: how many runs, and the first
    difference of each (fixture, profile) that has one."""
    runs, found = 0, []
    for fixture in fixtures:
        for profile in PROFILES:
            for cuts in partitions(fixture.raw, strategies, fixture.cuts):
                runs += 1
                difference = compare(make, fixture.raw, cuts, profile, fixture.options, f"{fixture.id} [{profile}]")
                if difference is not None:
                    found.append(difference)
                    break
    return runs, found
