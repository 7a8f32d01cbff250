"""A check is a declaration: its inputs (fixtures, as data), its reference, what it observes, its rules.

:class:`StreamCheck` is the declaration for everything fed in chunks (a parser,
a layer inside the package's parser, a byte splitter, a payload adapter): it
runs every fixture under the partitions it was checked under, in each
profile, compares what the caller observes with the reference read by read,
shrinks the first difference, and raises it worded by the printer.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from ...profiles import PROFILES
from ..fixtures import Fixture
from ..harness import PAIRS_MAX_BYTES, Partition, chunks_of, interesting_cuts, partitions, show_split
from .compare import NO_STATE, Difference, Trace, difference, one_byte_reads, regroup, show_trace
from .learner import guarded
from .ownership import NotYours, Watch, direction_of
from .shrink import shrink
from .verdict import CheckFailed, Kind, failed

Oracle = Callable[[bytes, Partition, str, str], Trace]
Observe = Callable[[Callable[[], Any], list], Trace]
#: (the learner's factory, guarded; profile; the fixture's options) -> the object fed the chunks.
Build = Callable[[Callable[..., Any], str, dict[str, Any]], Any]


class EveryProfile(Sequence[str]):
    """Every profile of ``profiles.PROFILES``, read each time it is used: a profile added there
    (by a test, or by the course) reaches every check that runs in all profiles."""

    def __getitem__(self, index: Any) -> Any:
        return tuple(PROFILES)[index]

    def __len__(self) -> int:
        return len(PROFILES)

    def __repr__(self) -> str:
        return f"EveryProfile{tuple(PROFILES)}"


EVERY_PROFILE = EveryProfile()


@dataclass(frozen=True)
class Rule:
    """One rule the task states: ``name`` for tests (a mutant breaks it), ``says`` in the task's words."""

    name: str
    says: str


def rules(*pairs: tuple[str, str]) -> tuple[Rule, ...]:
    return tuple(Rule(name, says) for name, says in pairs)


def frozen_options(options: dict[str, Any]) -> str:
    """Options (limits, or an adapter's config) as a key the oracles can cache on."""
    import json

    return json.dumps(options, sort_keys=True)


def regrouped(run: Callable[[list[bytes], str, str], Trace]) -> Oracle:
    """An oracle from ``run(chunks, profile, options)``: the reference fed each stream
    once, a byte per read, that trace regrouped for every split (:func:`regroup`).
    Exact for a reference whose output depends only on the bytes fed so far; one
    run per stream instead of one per split."""
    steps = functools.lru_cache(maxsize=1 << 12)(
        lambda raw, profile, options: run(one_byte_reads(raw), profile, options)
    )

    @functools.wraps(run)
    def oracle(raw: bytes, cuts: Partition, profile: str, options: str) -> Trace:
        return regroup(steps(raw, profile, options), cuts)

    return oracle


def check_partitions(fixture: Fixture) -> list[Partition]:
    """The fixture's partitions, with ``pairs`` narrowed to pairs holding an
    interesting cut (inside a character, between CR and LF, after ``data:``,
    between events): the pairs that catch the zoo, at a third of the cost."""
    return list(narrowed_partitions(fixture.raw, tuple(fixture.checked_under), tuple(fixture.cuts)))


@functools.lru_cache(maxsize=1 << 10)
def narrowed_partitions(raw: bytes, checked_under: tuple[str, ...], cuts: tuple[int, ...]) -> tuple[Partition, ...]:
    """:func:`check_partitions`, made once per fixture: a check asks for every fixture's
    partitions before it runs the first (even one that then fails on it), in each
    profile, and every check that runs the fixture asks again."""
    strategies = [name for name in checked_under if name != "pairs"]
    found = partitions(raw, strategies, cuts)
    if "pairs" in checked_under and len(raw) <= PAIRS_MAX_BYTES:
        seen = set(found)
        for first in interesting_cuts(raw):
            for other in range(1, len(raw)):
                pair = tuple(sorted((first, other)))
                if first != other and pair not in seen:
                    seen.add(pair)
                    found.append(pair)
    return tuple(found)


def not_yours(what: str, rule: NotYours, reason: str) -> CheckFailed:
    return failed(what, Kind.NOT_YOURS, f"{reason}.", f"The task asks: {rule.task}", direction=direction_of(reason))


@dataclass(frozen=True)
class StreamCheck:
    """Feed the learner's object every fixture under every partition; compare with ``reference``."""

    what: str
    rules: tuple[Rule, ...]
    fixtures: Callable[[], list[Fixture]]
    build: Build
    reference: Oracle
    observe: Observe
    profiles: Sequence[str] = EVERY_PROFILE
    noun: str = "event"
    empty: Any = None  # what an SSE error raised without ``completed`` carried
    not_yours: NotYours | None = None
    full_trace: bool = False  # the reference gives parser state and error offsets, and the message says so
    parts: tuple[
        tuple[str, Callable[..., Any]], ...
    ] = ()  # other parts of the exercise, by name: their references stand in
    partitions: Callable[[Fixture], list[Partition]] = check_partitions  # the splits each fixture runs under
    says: Callable[[list[Fixture], int], str] | None = None  # what it verified, if not the usual sentence
    same_calls: Oracle | None = (
        None  # what the learner's layer is handed under a split, exactly, where the reference is the package's parser with its own layer there: see ``verify``  # noqa: E501
    )

    def verify(self, factory: Callable[..., Any], own: bool = True) -> str:
        """Raise the first difference, shrunk; else say what was verified.
        ``own=False`` skips NOT YOURS (the zoo's members subclass the package on purpose).

        With ``same_calls``, a split that hands the learner's object exactly what an
        earlier split of the same stream, profile and options handed it (the same
        calls, the same arguments) is not run again: the object, and the reference,
        which is the package's own object in its place, do there what they did
        there. Every partition is still counted as verified."""
        rule = self.not_yours if own else None
        if own:
            self.refuse_subclass(factory)
        watch = Watch(rule)
        make = guarded(factory, self.empty, watch)
        fixtures = self.fixtures()
        count = 0
        runs = [(fixture, profile, self.partitions(fixture)) for fixture in fixtures for profile in self.run_profiles]
        ran: set = set()
        with reference_parts(factory, self.parts) as swapped:
            try:
                for few in (True, False):  # every fixture whole and cut once, then the many-cut splits
                    for fixture, profile, chosen in runs:
                        count += self._verify_fixture(
                            make, fixture, profile, watch, [c for c in chosen if (len(c) <= 1) == few], ran
                        )
            except CheckFailed as err:
                if swapped:
                    err.verdict = replace(err.verdict, message=f"{err.verdict.message}\n{stood_in(swapped)}")
                    err.args = (err.verdict.message,)
                raise
        verified = self.says(fixtures, count) if self.says is not None else self._says(fixtures, count)
        return verified + (f" ({stood_in(swapped)})" if swapped else "")

    @property
    def run_profiles(self) -> tuple[str, ...]:
        """The profiles this check runs in, as they are now."""
        return tuple(self.profiles)

    def _says(self, fixtures: list[Fixture], count: int) -> str:
        profiles = self.run_profiles
        shipped = sum(not fixture.family.startswith("generated") for fixture in fixtures)
        generated = f" and {len(fixtures) - shipped} generated streams" if shipped < len(fixtures) else ""
        state = ", parser.last_event_id and retry after each read," if self.full_trace else ""
        return (
            f"gives the expected {self.noun}s read by read{state} and the expected errors"
            f"{' (class and offset)' if self.full_trace else ''} on {shipped} fixtures{generated}, "
            f"under {count} partitions in all"
            + (f" (profile{'s' if len(profiles) > 1 else ''} {' and '.join(profiles)})" if any(profiles) else "")
        )

    def refuse_subclass(self, factory: Callable[..., Any]) -> None:
        """NOT YOURS at once for a subclass of what the task asks to write."""
        if self.not_yours is not None and (reason := self.not_yours.subclassed(factory)):
            raise not_yours(self.what, self.not_yours, reason)

    def _verify_fixture(
        self, make: Callable[..., Any], fixture: Fixture, profile: str, watch: Watch, chosen: list[Partition], ran: set
    ) -> int:
        options = frozen_options(fixture.options)

        def run(raw: bytes, cuts: Partition) -> Trace:
            return self.observe(lambda: self.build(make, profile, fixture.options), chunks_of(raw, cuts))

        def fails(raw: bytes, cuts: Partition) -> Difference | None:
            return difference(self.reference(raw, cuts, profile, options), run(raw, cuts), self.noun)

        for cuts in chosen:
            if self.same_calls is not None:
                handed = (fixture.raw, profile, options, self.same_calls(fixture.raw, cuts, profile, options))
                if handed in ran:
                    continue
                ran.add(handed)
            found = fails(fixture.raw, cuts)
            if watch.reached:
                assert watch.rule is not None  # a watch reaches only what a rule names
                raise not_yours(self.what, watch.rule, watch.reached[0])
            if found is not None:
                raw, cuts, found = shrink(fails, fixture.raw, cuts, found)
                expected, got = self.reference(raw, cuts, profile, options), run(raw, cuts)
                found = self._raised_early(found, raw, run, profile, options) or found
                raise failed(
                    self.what,
                    found.kind,
                    found.says + ".",
                    stream_details(fixture, profile, raw, cuts, expected, got),
                    direction=found.direction,
                    fixture=fixture.id,
                    raw=raw,
                    cuts=cuts,
                    found=found,
                    recheck=fails,
                )
        return len(chosen)

    def _raised_early(
        self, found: Difference, raw: bytes, run: Callable[[bytes, Partition], Trace], profile: str, options: str
    ) -> Difference | None:
        """Items missing where both raise the same error may mean the error came too early:
        read a byte at a time, which byte raises on each side?"""
        if found.kind is not Kind.MISSING or len(raw) < 2:
            return None
        bytewise = tuple(range(1, len(raw)))
        expected, got = self.reference(raw, bytewise, profile, options), run(raw, bytewise)
        if not (expected.error and got.error and expected.error[0] == got.error[0]):
            return None
        # one call per byte: the count of calls made is the index of the byte that raised
        at_expected, at_got = len(expected.calls), len(got.calls)
        if at_got >= at_expected:
            return None
        name = expected.error[0]
        return Difference(
            Kind.WRONG_ERROR,
            "early",
            f"your code raises {name} too early: read a byte at a time, it raises on byte {at_got} "
            f"({raw[at_got : at_got + 1]!r}), where it is due only on byte {at_expected}; "
            f"the stream up to there is {raw[: at_expected + 1]!r}",
        )


def learner_globals(learner: Any) -> dict[str, Any] | None:
    """The module namespace the learner's function or class was written in (a notebook's)."""
    functions = [learner] if callable(learner) and hasattr(learner, "__globals__") else []
    if isinstance(learner, type):
        functions = [value for value in vars(learner).values() if hasattr(value, "__globals__")]
    return functions[0].__globals__ if functions else None


@contextmanager
def reference_parts(learner: Any, parts: tuple[tuple[str, Callable[..., Any]], ...]) -> Iterator[list[str]]:
    """While a part is checked, the other parts it calls by name are the references:
    a bug in part 1 is reported once, by part 1's check, not again by part 2's.
    Yields the names that were stood in for, so that the verdict says so."""
    names = learner_globals(learner) if parts else None
    saved = {name: names[name] for name, _ in parts if names is not None and name in names}
    if names is not None:
        names.update({name: reference for name, reference in parts if name in saved})
    try:
        yield sorted(saved)
    finally:
        if names is not None:
            names.update(saved)


def stood_in(names: list[str]) -> str:
    """The sentence a verdict carries when the course's reference stood in for some of the learner's parts."""
    shown = ", ".join(names)
    return (
        f"while this ran, the course's {shown} stood in for yours, so that a mistake in your {shown} "
        f"is reported by its own check, not here"
    )


def stand_in(reference: Callable[..., Any], name: str) -> Callable[..., Any]:
    """A copy of ``reference`` named ``name``, with code of its own: it stands in for the learner's
    part while another part is checked, and is not the reference a NOT YOURS rule refuses."""
    code = reference.__code__.replace(co_name=name)  # type: ignore[attr-defined]
    copy = types.FunctionType(code, reference.__globals__, name, reference.__defaults__, reference.__closure__)  # type: ignore[attr-defined]
    copy.__doc__ = reference.__doc__
    return copy


def stream_details(fixture: Fixture, profile: str, raw: bytes, cuts: Partition, expected: Trace, got: Trace) -> str:
    """The fixture and why it matters, the smallest split, then each call, expected against got."""
    about = f" ({fixture.about})" if fixture.about and fixture.family != "generated" else ""
    if about and raw != fixture.raw:
        about = f" (the whole fixture: {fixture.about})"
    settings = ", ".join([profile] * bool(profile) + [f"{name}={value!r}" for name, value in fixture.options.items()])
    shortened = "" if raw == fixture.raw else ", shortened"
    reads = len(chunks_of(raw, cuts))
    states = expected.states != got.states and NO_STATE not in (*expected.states, *got.states)
    return (
        f"fixture {fixture.id}{shortened}{f' [{settings}]' if settings else ''}{about}\nunder the split ({reads} read{'s' if reads > 1 else ''})\n"  # noqa: E501
        f"    {show_split(raw, cuts)}\n"
        f"each feed(), then close():\n"
        f"expected: {show_trace(expected, states)}\n     got: {show_trace(got, states)}"
    )


def in_order(fixtures: Iterable[Fixture], first: tuple[str, ...]) -> list[Fixture]:
    """The families in ``first`` lead, so a failure is shown on a fixture that explains it."""
    return sorted(fixtures, key=lambda fixture: first.index(fixture.family) if fixture.family in first else len(first))
