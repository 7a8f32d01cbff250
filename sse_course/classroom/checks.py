"""Exercise checks: run a learner's code over every fixture under the harness's partitions.

Every check behaves the same way, so a learner can trust it:

* unattempted (``NotImplementedError`` anywhere in the learner's code): it
  prints that the exercise is not attempted yet, and does not raise, so an
  exercise notebook still runs top to bottom;
* wrong: it raises :class:`CheckFailed` (an ``AssertionError``) whose message
  says first what is wrong and which way (LATE, EARLY, MISSING, EXTRA, WRONG
  VALUE, or an error missing, extra or wrong), then the fixture that explains
  the case, the smallest split that still shows the same difference (fewest
  cuts, then the shortest input), and what each call returned, expected
  against got. In a notebook only that message is shown, not the frames of
  this module;
* right: it prints what it verified (fixtures, partitions, profiles).

A layer is checked inside the package's parser (:func:`~sse_course.classroom.zoo.compose`):
the learner's decoder, line splitter or event assembler takes the place of the
package's own. Everything a caller can observe is compared with the package's
layered parser, read by read: the events each ``feed()`` and ``close()``
return, ``parser.last_event_id`` and ``parser.retry`` after each call (what a
reconnecting client relies on), and the error's class and ``offset``. Messages
are not compared, since a learner's wording may differ. The inputs are the
shipped fixtures (the families that explain the layer first, every strategy
each was checked under, pairs narrowed to those holding an interesting cut)
plus seeded generated streams.

    from sse_course.classroom.checks import check_parser
    check_parser(lambda: MyParser(), profile="browser")
"""

from __future__ import annotations

import codecs
import functools
import inspect
import json
import random
import tracemalloc
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from .. import __version__
from ..errors import DEFAULT_MAX_LINE_CHARS, SSEError
from ..events import MAX_RETRY_MS, Event
from ..events import parse_retry as package_parse_retry
from ..events import split_field as package_split_field
from ..lines import LineSplitter
from ..layered import PROFILES
from ..parser import SSEParser
from ..payloads import JSONPayloads
from . import fixtures as fixture_files
from . import blocks
from .fixtures import Fixture, load_fixtures
from .harness import (
    PAIRS_MAX_BYTES,
    Partition,
    as_event,
    chunks_of,
    describe,
    find_failure,
    interesting_cuts,
    on_boundary,
    partitions,
    reference_outcome,
    run,
    show_split,
    without_range,
)
from .zoo import ZOO, compose

#: Strategies for the generated streams (all but ``pairs``, to keep checks fast).
GENERATED_STRATEGIES = ("whole", "single", "empty_reads", "one_byte", "interesting", "random")
GENERATED_COUNT = 30
GENERATED_SEED = 4

#: A chunk with no line end, far larger than the limit it is fed under.
HUGE_CHUNK_BYTES = 8 << 20
HUGE_LIMIT = 1024
#: What a parser may allocate while refusing the huge chunk: the limit plus a
#: slice of the chunk (the package's parser decodes 64 KiB at a time), with room.
HUGE_PEAK_BYTES = 2 << 20


# --- not attempted yet ------------------------------------------------------


class NotAttempted(BaseException):
    """A stub raised NotImplementedError. A BaseException, so the harness
    (which records any Exception as a parser's outcome) lets it through."""


def _attempted(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        return call(*args, **kwargs)
    except NotImplementedError as err:
        raise NotAttempted(getattr(call, "__qualname__", repr(call))) from err


class Guarded:
    """Wraps a learner's object so a NotImplementedError from any method
    stops the whole check instead of counting as a wrong outcome.

    An SSE error raised without ``completed`` (``IncompleteStream("...")``)
    is taken to carry nothing: ``empty`` of the layer's output type.
    """

    def __init__(self, target: Any, empty: Any = None) -> None:
        self._target = target
        self._empty = empty

    def feed(self, value: Any) -> Any:
        return self._call(self._target.feed, value)

    def close(self) -> Any:
        return self._call(self._target.close)

    def _call(self, method: Callable[..., Any], *args: Any) -> Any:
        try:
            return _attempted(method, *args)
        except SSEError as err:
            if err.completed is None and self._empty is not None:
                err.completed = self._empty
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)


def guarded(factory: Callable[..., Any], empty: Any = None) -> Callable[..., Guarded]:
    """A factory whose objects are :class:`Guarded`, constructor included."""
    return lambda *args, **kwargs: Guarded(_attempted(factory, *args, **kwargs), empty)


def exercise(what: str) -> Callable[[Callable[..., str]], Callable[..., None]]:
    """Turn a function returning what it verified into a check that prints it,
    or prints "not attempted yet" when the learner's code is still a stub."""

    def wrap(check: Callable[..., str]) -> Callable[..., None]:
        @functools.wraps(check)
        def checked(*args: Any, **kwargs: Any) -> None:
            try:
                verified = check(*args, **kwargs)
            except NotAttempted as err:
                print(f"Not attempted yet: {what} still raises NotImplementedError ({err}).")
                print("Write it in the cell above, run that cell, then run this check again.")
                return
            print(f"Correct: {what} {verified}.")

        return checked

    return wrap


def try_it(call: Callable[[], Any]) -> Any:
    """Return ``call()``; if the learner's code it runs is still a stub, say so
    and return None, so a cell that tries the code runs in an exercise too."""
    try:
        return call()
    except NotImplementedError:
        print("Not attempted yet: this cell runs code that still raises NotImplementedError.")
        return None


# --- the inputs -------------------------------------------------------------


FIELD_NAMES = ["data", "data", "data", "data", "event", "event", "id", "retry", "", "Data", "data ", "foo"]
SEPARATORS = ["", ":", ": ", ": ", ":  ", ":\t"]
VALUE_PARTS = ["x", "yz", "a:b", " ", "\u00e9", "\u20ac", "\U0001f600", "\u2028", "\x00", "0", "12", "+3", "\u0663", '{"k": 1}', "\ufeff"]
LINE_ENDS = ["\n", "\n", "\r", "\r\n"]
BAD_BYTES = [b"\xff", b"\xe2\x82", b"\xc0\xaf", b"\xed\xa0\x80"]


def generated_stream(rng: random.Random) -> bytes:
    """A short stream of fields, comments, blank lines and line ends of every
    kind; sometimes a BOM, a bad byte, or an unfinished end."""
    parts: list[bytes] = [b"\xef\xbb\xbf"] if rng.random() < 0.2 else []
    for _ in range(rng.randint(2, 7)):
        kind = rng.random()
        if kind < 0.25:
            line = ""
        elif kind < 0.35:
            line = ":" + rng.choice(VALUE_PARTS)
        else:
            value = "".join(rng.choice(VALUE_PARTS) for _ in range(rng.randint(0, 3)))
            line = rng.choice(FIELD_NAMES) + rng.choice(SEPARATORS) + value
        parts.append((line + rng.choice(LINE_ENDS)).encode("utf-8"))
    if rng.random() < 0.1:
        parts.insert(rng.randint(0, len(parts)), rng.choice(BAD_BYTES))
    if rng.random() > 0.15:
        parts.append(rng.choice(LINE_ENDS).encode())
    return b"".join(parts)


@functools.cache
def generated_fixtures(count: int = GENERATED_COUNT, seed: int = GENERATED_SEED) -> tuple[Fixture, ...]:
    """Seeded streams whose expected outcome is what the package's parser gives."""
    rng = random.Random(seed)
    found = []
    for i in range(count):
        raw = generated_stream(rng)
        expected = {profile: reference_outcome(raw, profile, {}) for profile in PROFILES}
        found.append(
            Fixture("generated", f"stream-{i}", "a seeded generated stream", raw, (), {}, expected, GENERATED_STRATEGIES, __version__)
        )
    return tuple(found)


def all_kept(fixture: Fixture) -> bool:
    return True


def all_fixtures(keep: Callable[[Fixture], bool] = all_kept, first: tuple[str, ...] = ()) -> list[Fixture]:
    """The shipped fixtures then the generated ones, those ``keep`` accepts; the
    families in ``first`` lead, so a failure is shown on a fixture that explains it."""
    found = [fixture for fixture in [*load_fixtures(), *generated_fixtures()] if keep(fixture)]
    return sorted(found, key=lambda fixture: first.index(fixture.family) if fixture.family in first else len(first))


def without_option(*names: str) -> Callable[[Fixture], bool]:
    """Keep fixtures that set none of these options (a layer without limits yet)."""
    return lambda fixture: not set(names) & set(fixture.options)


# --- what a caller observes, read by read -----------------------------------


class CheckFailed(AssertionError):
    """A check's verdict. In a notebook only its message is shown: IPython
    calls ``_render_traceback_`` instead of printing the frames of checks.py."""

    def __init__(self, message: str, found: "Difference | None" = None, raw: bytes = b"", cuts: Partition = (), recheck: "Fails | None" = None) -> None:
        super().__init__(message)
        self.found = found  # what differs, the split that shows it, and how to re-run it (for tests)
        self.raw = raw
        self.cuts = cuts
        self.recheck = recheck

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


#: A parser object has no such state (a learner's parser may not offer it).
NO_STATE = None


@dataclass(frozen=True)
class Trace:
    """All a caller can observe of one run: each call's items (``feed`` per
    chunk, then ``close``), the parser's ``(last_event_id, retry)`` after each
    call, then the error's class and offset with the items it carried."""

    reads: int
    calls: tuple[tuple, ...]
    states: tuple[Any, ...]
    error: tuple[str, int | None] | None = None
    carried: tuple = ()

    def items(self) -> list:
        """Every item, in order: those returned, then those the error carried."""
        return [item for call in self.calls for item in call] + list(self.carried)


def state_of(parser: Any) -> Any:
    """What a reconnecting client reads from the parser, if it offers it."""
    try:
        return (parser.last_event_id, parser.retry)
    except AttributeError:
        return NO_STATE


def no_state(parser: Any) -> Any:
    return NO_STATE


def error_name(err: Exception) -> str:
    return type(err).__name__


def trace(
    factory: Callable[[], Any],
    chunks: Iterable[Any],
    normalise: Callable[[Any], Any] = as_event,
    state: Callable[[Any], Any] = state_of,
    name: Callable[[Exception], str] = error_name,
) -> Trace:
    """Run a fresh object over the chunks, then close it; record what came out."""
    chunks = list(chunks)
    calls: list[tuple] = []
    states: list[Any] = []
    try:
        parser = factory()
        for chunk in [*chunks, None]:
            out = parser.close() if chunk is None else parser.feed(chunk)
            calls.append(tuple(normalise(item) for item in out))
            states.append(state(parser))
    except Exception as err:  # a wrong layer may raise anything: that is what it did
        carried = tuple(normalise(item) for item in getattr(err, "events", None) or ())
        return Trace(len(chunks), tuple(calls), tuple(states), (name(err), getattr(err, "offset", None)), carried)
    return Trace(len(chunks), tuple(calls), tuple(states))


def same_item(expected: Any, got: Any) -> bool:
    """Equal, on the fields a learner's event provides (a ``(type, data)`` pair is enough)."""
    if isinstance(expected, tuple) and isinstance(got, tuple) and len(got) >= 2:
        return expected[: len(got)] == got
    return expected == got


def same_items(expected: list, got: list) -> bool:
    return len(expected) == len(got) and all(same_item(e, g) for e, g in zip(expected, got))


@dataclass(frozen=True)
class Difference:
    """How a run differs from the reference: ``kind`` stays fixed while the
    split is shrunk; ``says`` is the sentence for the learner."""

    kind: tuple
    says: str


def _call_name(index: int, reads: int) -> str:
    return "close()" if index == reads else f"read {index + 1}"


def _items_difference(where: str, expected: list, got: list, total_e: list, total_g: list, noun: str) -> Difference:
    """The direction of the first difference, found at the call ``where``."""
    if len(got) < len(expected) and same_items(expected[: len(got)], got):
        if len(total_g) >= len(total_e):
            return Difference(("late",), f"LATE: {where} should give {noun} {expected[len(got)]!r}, your code gives it only in a later call")
        return Difference(("missing",), f"MISSING: {noun} {expected[len(got)]!r}, expected from {where}, never comes")
    if len(got) > len(expected):
        if contains(got, expected) and len(total_g) > len(total_e):
            return Difference(("extra",), f"EXTRA: by {where} your code gave {_count(len(got), noun)} where the stream holds {len(expected)}")
        return Difference(
            ("early",),
            f"EARLY: by {where} your code gave {_count(len(got), noun)} where {len(expected)} are complete: "
            f"one came out before the line end or blank line that completes it",
        )
    if len(got) < len(expected):
        return Difference(("missing",), f"MISSING: by {where} your code gave {_count(len(got), noun)} where {len(expected)} are complete")
    j = next(j for j, (e, g) in enumerate(zip(expected, got)) if not same_item(e, g))
    return Difference(("value",), f"WRONG VALUE: {noun} {j + 1} (from {where}) should be {expected[j]!r}, your code gives {got[j]!r}")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def contains(longer: list, shorter: list) -> bool:
    """Is ``shorter`` a subsequence of ``longer`` (the rest being extra items)?"""
    rest = iter(longer)
    return all(any(same_item(item, other) for other in rest) for item in shorter)


def difference(expected: Trace, got: Trace, noun: str = "event") -> Difference | None:
    """The first thing a caller would see differ, or None: items read by read,
    the parser's state after each call, then the error (class and offset)."""
    so_far_e: list = []
    so_far_g: list = []
    for i, (call_e, call_g) in enumerate(zip(expected.calls, got.calls)):
        so_far_e += call_e
        so_far_g += call_g
        if not same_items(so_far_e, so_far_g):
            return _items_difference(_call_name(i, expected.reads), so_far_e, so_far_g, expected.items(), got.items(), noun)
        state_e, state_g = expected.states[i], got.states[i]
        if NO_STATE not in (state_e, state_g) and state_e != state_g:
            name = "last_event_id" if state_e[0] != state_g[0] else "retry"
            value_e, value_g = (state_e[0], state_g[0]) if name == "last_event_id" else (state_e[1], state_g[1])
            return Difference(
                ("state", name),
                f"WRONG VALUE: after {_call_name(i, expected.reads)}, parser.{name} should be {value_e!r}, yours is {value_g!r}"
                + (" (what a reconnecting client sends as Last-Event-ID)" if name == "last_event_id" else ""),
            )
    if (expected.error and expected.error[0]) != (got.error and got.error[0]):
        return _error_difference(expected.error, got.error)
    total_e, total_g = expected.items(), got.items()
    if not same_items(total_e, total_g):
        return _items_difference("the whole stream", total_e, total_g, total_e, total_g, noun)
    return _error_difference(expected.error, got.error)


def _error_difference(expected: tuple | None, got: tuple | None) -> Difference | None:
    if expected == got:
        return None
    if got is None:
        return Difference(("error", expected[0], None), f"MISSING ERROR: the stream should raise {_error(expected)}, your code raises nothing")
    if expected is None:
        return Difference(("error", None, got[0]), f"EXTRA ERROR: your code raises {_error(got)}, where the stream is fine")
    if expected[0] != got[0]:
        return Difference(("error", expected[0], got[0]), f"WRONG ERROR: expected {_error(expected)}, your code raises {_error(got)}")
    return Difference(("offset",), f"WRONG VALUE: {_error(expected)} is right, your code says byte {got[1]}: count from the start of the stream, bytes held from earlier reads included")


def _error(error: tuple) -> str:
    return error[0] + ("" if error[1] is None else f" at byte {error[1]}")


def show_trace(found: Trace) -> str:
    """Each call's items, then the error, as one line."""
    calls = "[" + ", ".join("[" + ", ".join(repr(item) for item in call) + "]" for call in found.calls) + "]"
    return calls + (f" then {_error(found.error)}" if found.error else "")


@functools.lru_cache(maxsize=1 << 17)
def reference_trace(raw: bytes, cuts: Partition, profile: str, options: str) -> Trace:
    """What the package's layered parser gives: the oracle every check compares with."""
    return trace(lambda: compose(profile, json.loads(options)), chunks_of(raw, cuts))


def frozen(options: dict[str, Any]) -> str:
    """Options (limits, or an adapter's config) as a key the oracles can cache on."""
    return json.dumps(options, sort_keys=True)


Fails = Callable[[bytes, Partition], "Difference | None"]


def shrink(fails: Fails, raw: bytes, cuts: Partition, found: Difference) -> tuple[bytes, Partition, Difference]:
    """Fewer cuts, then a shorter input (never cutting a character in half),
    while the run still differs in the same way; then fewer cuts again."""

    def same_kind(trial_raw: bytes, trial_cuts: Partition) -> Difference | None:
        trial = fails(trial_raw, trial_cuts)
        return trial if trial is not None and trial.kind == found.kind else None

    def fewer_cuts(raw: bytes, cuts: Partition, found: Difference) -> tuple[Partition, Difference]:
        i = 0
        while i < len(cuts):
            trial = cuts[:i] + cuts[i + 1 :]
            smaller = same_kind(raw, trial)
            if smaller is None:
                i += 1
            else:
                cuts, found = trial, smaller
        return cuts, found

    cuts, found = fewer_cuts(raw, cuts, found)
    size = max(len(raw) // 2, 1)
    while size >= 1:
        start = 0
        while start < len(raw):
            smaller = None
            if on_boundary(raw, start) and on_boundary(raw, start + size):
                trial_raw, trial_cuts = without_range(raw, cuts, start, size)
                smaller = same_kind(trial_raw, trial_cuts)
            if smaller is None:
                start += size
            else:
                raw, cuts, found = trial_raw, trial_cuts, smaller
        size //= 2
    shorter = True
    while shorter:  # then one whole character at a time, until none can go
        shorter, start = False, 0
        while start < len(raw):
            size = next((n for n in range(1, 5) if on_boundary(raw, start + n)), 1)
            trial_raw, trial_cuts = without_range(raw, cuts, start, size)
            smaller = same_kind(trial_raw, trial_cuts) if trial_raw else None
            if smaller is None:
                start += size
            else:
                raw, cuts, found, shorter = trial_raw, trial_cuts, smaller, True
        cuts, found = fewer_cuts(raw, cuts, found)
    return raw, cuts, found


# --- running everything -----------------------------------------------------


Maker = Callable[[str, dict[str, Any]], Any]

#: The fixture families that explain a layer's mistakes, searched first.
LAYER_FAMILIES = {
    "decoder": ("utf8", "bom"),
    "splitter": ("line_ends",),
    "assembler": ("fields", "ids", "retry", "eof"),
    "parser": ("utf8", "bom", "line_ends", "fields", "ids", "retry", "eof"),
}


def check_partitions(fixture: Fixture) -> list[Partition]:
    """The fixture's partitions, with ``pairs`` narrowed to pairs holding an
    interesting cut (inside a character, between CR and LF, after ``data:``,
    between events): the pairs that catch the zoo, at a third of the cost."""
    strategies = [name for name in fixture.checked_under if name != "pairs"]
    found = partitions(fixture.raw, strategies, fixture.cuts)
    if "pairs" in fixture.checked_under and len(fixture.raw) <= PAIRS_MAX_BYTES:
        seen = set(found)
        for first in interesting_cuts(fixture.raw):
            for other in range(1, len(fixture.raw)):
                pair = tuple(sorted((first, other)))
                if first != other and pair not in seen:
                    seen.add(pair)
                    found.append(pair)
    return found


Oracle = Callable[[bytes, Partition, str, str], Trace]
Observe = Callable[[Callable[[], Any], list], Trace]


def verify(
    make: Maker,
    fixtures: list[Fixture],
    profiles: Iterable[str],
    what: str,
    oracle: Oracle = reference_trace,
    observe: Observe = trace,
    noun: str = "event",
) -> str:
    """Run every fixture under every partition in each profile and compare all
    a caller observes with the package's parser; raise on the first difference,
    shrunk to the smallest split, else say what was verified."""
    profiles = tuple(profiles)
    count = 0
    for fixture in fixtures:
        for profile in profiles:
            options = frozen(fixture.options)

            def fails(raw: bytes, cuts: Partition) -> Difference | None:
                got = observe(lambda: make(profile, fixture.options), chunks_of(raw, cuts))
                return difference(oracle(raw, cuts, profile, options), got, noun)

            chosen = check_partitions(fixture)
            for cuts in chosen:
                found = fails(fixture.raw, cuts)
                if found is not None:
                    raw, cuts, found = shrink(fails, fixture.raw, cuts, found)
                    expected = oracle(raw, cuts, profile, options)
                    got = observe(lambda: make(profile, fixture.options), chunks_of(raw, cuts))
                    message = failure_message(what, fixture, profile, raw, cuts, found, expected, got)
                    raise CheckFailed(message, found, raw, cuts, fails)
            count += len(chosen)
    shipped = sum(fixture.family != "generated" for fixture in fixtures)
    generated = f" and {len(fixtures) - shipped} generated streams" if shipped < len(fixtures) else ""
    state = ", parser.last_event_id and retry after each read," if oracle is reference_trace else ""
    return (
        f"gives the expected {noun}s read by read{state} and the expected errors"
        f"{' (class and offset)' if oracle is reference_trace else ''} on {shipped} fixtures{generated}, "
        f"under {count} partitions in all (profile{'s' if len(profiles) > 1 else ''} {' and '.join(profiles)})"
    )


def failure_message(
    what: str, fixture: Fixture, profile: str, raw: bytes, cuts: Partition, found: Difference, expected: Trace, got: Trace
) -> str:
    """The learner's bug report: the direction, the fixture and why it matters,
    the smallest split, then what each call returned, expected against got."""
    about = f" ({fixture.about})" if fixture.about and fixture.family != "generated" else ""
    settings = "".join(f", {name}={value!r}" for name, value in fixture.options.items())
    shortened = "" if raw == fixture.raw else ", shortened"
    reads = len(chunks_of(raw, cuts))
    return (
        f"{what} is wrong: {found.says}.\n"
        f"fixture {fixture.id}{shortened} [{profile}{settings}]{about}\nunder the split ({reads} read{'s' if reads > 1 else ''})\n"
        f"    {show_split(raw, cuts)}\n"
        f"each feed(), then close():\n"
        f"expected: {show_trace(expected)}\n     got: {show_trace(got)}"
    )


#: Strategies under which each read's events are compared, not only the totals.
PER_READ_STRATEGIES = ("single", "empty_reads", "one_byte", "interesting")


def per_read(factory: Callable[[], Any], chunks: list[bytes]) -> list[list]:
    """The events each ``feed`` returned, then ``close()``'s, up to an error."""
    return [list(call) for call in trace(factory, chunks, normalise=lambda item: item).calls]


def accepts_limits(factory: Callable[..., Any]) -> bool:
    """Can ``factory`` take ``max_line_chars=`` and ``max_event_chars=``?"""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    names = {p.name for p in params}
    return any(p.kind is p.VAR_KEYWORD for p in params) or {"max_line_chars", "max_event_chars"} <= names


def refuses_huge_chunk(parser: Any, what: str) -> str:
    """Feed one huge chunk with no line end under a small line limit: the
    limit must fire in that feed, before the chunk is buffered whole."""
    chunk = b"data: " + b"x" * HUGE_CHUNK_BYTES
    tracemalloc.start()
    try:
        parser.feed(chunk)
        got = "feed() returned: the line is being buffered"
    except Exception as err:  # a wrong parser may raise anything
        got = f"{type(err).__name__}: {err}"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    if not got.startswith("LineTooLong"):
        raise CheckFailed(
            f"{what} is wrong on one chunk of {len(chunk)} bytes with no line end, max_line_chars={HUGE_LIMIT}\n"
            f"    b'data: xxxxxxxx...'  (a single read)\n"
            f"expected: LineTooLong raised by that feed()\n     got: {got[:200]}"
        )
    if peak > HUGE_PEAK_BYTES:
        raise CheckFailed(
            f"{what} raised LineTooLong only after holding {peak // 1024} KiB for a {HUGE_LIMIT}-character "
            f"limit (allowed: {HUGE_PEAK_BYTES // 1024} KiB): check the limit before buffering the chunk"
        )
    return f"and refuses one {len(chunk) >> 20} MiB chunk at max_line_chars={HUGE_LIMIT} holding at most {peak // 1024} KiB"


# --- the whole parser -------------------------------------------------------


@exercise("your parser")
def check_parser(factory: Callable[..., Any], profile: str = "strict") -> str:
    """Check a whole parser: ``factory()`` returns an object with ``feed(bytes)``
    and ``close()`` returning ``Event``s, objects with ``.type``/``.data``, or
    ``(type, data)`` tuples. If ``factory`` accepts ``max_line_chars`` and
    ``max_event_chars`` keywords, the limit fixtures run too, and a huge chunk."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
    make_one = guarded(factory)
    limits = accepts_limits(factory)
    keep = all_kept if limits else without_option("max_line_chars", "max_event_chars")
    verified = verify(lambda _profile, options: make_one(**options), all_fixtures(keep, LAYER_FAMILIES["parser"]), [profile], "your parser")
    if not limits:
        return verified + " (limit fixtures skipped: the factory takes no max_line_chars/max_event_chars)"
    return verified + " " + refuses_huge_chunk(make_one(max_line_chars=HUGE_LIMIT), "your parser")


# --- the layers -------------------------------------------------------------


def verify_layer(slot: str, make_layer: Maker, keep: Callable[[Fixture], bool], what: str, first: tuple[str, ...] = ()) -> str:
    """Verify a learner's layer in the package's parser, in place of its ``slot``
    (``decoder``, ``splitter`` or ``assembler``), in both profiles."""
    return verify(
        lambda profile, options: compose(profile, options, **{slot: make_layer(profile, options)}),
        all_fixtures(keep, first or LAYER_FAMILIES[slot]),
        PROFILES,
        what,
    )


def _strict(profile: str) -> bool:
    return profile == "strict"


def by_strictness(factory: Callable[..., Any]) -> Maker:
    """Make a layer of the lines or events kind: ``factory(strict=...)``."""
    make_one = guarded(factory, empty=[])
    return lambda profile, _options: make_one(strict=_strict(profile))


@exercise("your decoder")
def check_decoder(factory: Callable[..., Any]) -> str:
    """Lesson 02: ``factory(errors="strict" | "replace")`` returns a decoder with
    ``feed(bytes) -> str`` and ``close() -> str`` (BOM dropped once, at the
    start; strict errors raise ``DecodeError`` carrying the text before them)."""
    make_one = guarded(factory, empty="")
    errors = {"strict": "strict", "browser": "replace"}
    return verify_layer("decoder", lambda profile, _: make_one(errors=errors[profile]), all_kept, "your decoder")


@exercise("your line splitter")
def check_line_splitter(factory: Callable[..., Any]) -> str:
    """Lesson 03: ``factory(strict=True | False)`` returns a splitter with
    ``feed(text) -> list[str]`` and ``close() -> list[str]``; limits come later."""
    return verify_layer("splitter", by_strictness(factory), without_option("max_line_chars"), "your line splitter")


@exercise("your event assembler")
def check_event_assembler(factory: Callable[..., Any]) -> str:
    """Lesson 04: ``factory(strict=True | False)`` returns an assembler with
    ``feed(lines) -> list[Event]`` and ``close() -> list[Event]``."""
    return verify_layer("assembler", by_strictness(factory), without_option("max_event_chars"), "your event assembler")


@exercise("your bounded line splitter")
def check_line_limit(factory: Callable[..., Any]) -> str:
    """Lesson 05: ``factory(max_line_chars=n, strict=...)`` returns a splitter
    that raises ``LineTooLong`` as soon as a line passes ``n`` characters."""
    make_one = guarded(factory, empty=[])

    def make(profile: str, options: dict[str, Any]) -> Any:
        limit = options.get("max_line_chars", DEFAULT_MAX_LINE_CHARS)
        return make_one(max_line_chars=limit, strict=_strict(profile))

    verified = verify_layer("splitter", make, all_kept, "your bounded line splitter", ("limits", "line_ends"))
    huge = compose("strict", {}, splitter=make("strict", {"max_line_chars": HUGE_LIMIT}))
    return verified + " " + refuses_huge_chunk(huge, "your bounded line splitter")


# --- payloads ---------------------------------------------------------------


class AdapterPipeline:
    """The package's parser, then a payload adapter fed each chunk's events."""

    def __init__(self, adapter: Any) -> None:
        self.parser = SSEParser()
        self.adapter = adapter

    def feed(self, chunk: bytes) -> list[Any]:
        return self.adapter.feed(self.parser.feed(chunk))

    def close(self) -> list[Any]:
        return self.adapter.feed(self.parser.close()) + self.adapter.close()


def payload_error_name(err: Exception) -> str:
    """A payload error must be its own ValueError: not an SSE error, and not a
    bare ``JSONDecodeError`` that names no event. Any such class passes as one."""
    if isinstance(err, ValueError) and not isinstance(err, (SSEError, json.JSONDecodeError)):
        return "a payload error (its own ValueError)"
    return type(err).__name__


def payload_trace(factory: Callable[[], Any], chunks: list) -> Trace:
    return trace(factory, chunks, normalise=lambda value: value, state=no_state, name=payload_error_name)


def payload_oracle(reference: Callable[..., Any]) -> Oracle:
    """The trace of the package's parser, then ``reference(**config)``, fed each read's events."""

    @functools.lru_cache(maxsize=1 << 14)
    def oracle(raw: bytes, cuts: Partition, profile: str, config: str) -> Trace:
        return payload_trace(lambda: AdapterPipeline(reference(**json.loads(config))), chunks_of(raw, cuts))

    return oracle


def payload_fixtures() -> list[Fixture]:
    """The payload fixtures, their adapter's config as their options."""
    return [replace(fixture, options=fixture.payload.config) for fixture in load_fixtures() if fixture.payload is not None]


JSON_ORACLE = payload_oracle(JSONPayloads)


@exercise("your payload pipeline")
def check_payloads(factory: Callable[..., Any]) -> str:
    """``factory(**config)`` returns a bytes -> payloads pipeline with ``feed(chunk)``
    and ``close()``; ``config`` is ``JSONPayloads``'s (event_types, required_keys, end_marker)."""
    make_one = guarded(factory)
    return verify(lambda _p, config: make_one(**config), payload_fixtures(), ["strict"], "your payload pipeline", JSON_ORACLE, payload_trace, "payload")


@exercise("your JSON adapter")
def check_json_adapter(factory: Callable[..., Any]) -> str:
    """Lesson 06: ``factory(**config)`` returns an adapter with ``feed(events) ->
    list`` and ``close() -> list``, raising its own error for a broken payload."""
    make_one = guarded(factory)
    make = lambda _p, config: AdapterPipeline(make_one(**config))  # noqa: E731
    return verify(make, payload_fixtures(), ["strict"], "your JSON adapter", JSON_ORACLE, payload_trace, "payload")


# --- exercise 02: where a buffer can be cut ---------------------------------


def whole_characters(buffer: bytes) -> int:
    """How many leading bytes of ``buffer`` can be decoded now: all but a
    trailing lead byte that promises more bytes than follow it (and those that
    follow). Bytes that are invalid anyway are left to the decoder to report."""
    for back in range(1, min(4, len(buffer)) + 1):
        byte = buffer[-back]
        if byte < 0x80 or byte >= 0xF8:
            return len(buffer)
        if byte >= 0xC0:
            promised = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return len(buffer) - back if promised > back else len(buffer)
    return len(buffer)


SAFE_CUT_EXTRA = [b"", b"\x80\x80\x80\x80", b"a\xf8\x80", b"\xe0\x80", b"\xc3\xa9\xc3", b"\xf0\x9f\x98\x80\xf0"]


def safe_cut_cases() -> list[bytes]:
    """Every prefix of every fixture's bytes, and a few edge cases, shortest first."""
    found = {raw[:end] for fixture in all_fixtures() for raw in [fixture.raw] for end in range(len(raw) + 1)}
    return sorted(found | set(SAFE_CUT_EXTRA), key=lambda raw: (not _valid_so_far(raw), len(raw), raw))


def _valid_so_far(buffer: bytes) -> bool:
    """Could the buffer be the start of valid UTF-8? Those make the clearer examples."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(buffer)
    except UnicodeDecodeError:
        return False
    return True


@exercise("your safe_cut")
def check_safe_cut(safe_cut: Callable[[bytes], int]) -> str:
    """Exercise 02: ``safe_cut(buffer)`` is the number of leading bytes that end
    on a character boundary (a lead byte's promise kept, or broken beyond repair)."""
    cases = safe_cut_cases()
    for buffer in cases:
        expected, got = whole_characters(buffer), _attempted(safe_cut, buffer)
        if got != expected:
            direction = "too FEW: whole characters wait for nothing" if isinstance(got, int) and got < expected else "too MANY: a character would be cut in two"
            raise CheckFailed(
                f"your safe_cut is wrong: WRONG VALUE, {direction}.\n"
                f"safe_cut({buffer!r}) should be {expected}, yours is {got!r}\n"
                f"    decodable now: {buffer[:expected]!r}, held for the next read: {buffer[expected:]!r}"
            )
    return f"gives the right cut for {len(cases)} buffers: every prefix of every fixture, and edge cases"


# --- exercise 03: lines on bytes ---------------------------------------------


class LatinLines:
    """The package's line splitter on bytes: CR and LF are ASCII, so reading
    each byte as one Latin-1 character splits bytes exactly as it splits text."""

    def __init__(self, strict: bool) -> None:
        self.splitter = LineSplitter(strict=strict)

    def feed(self, chunk: bytes) -> list[bytes]:
        return [line.encode("latin-1") for line in self.splitter.feed(chunk.decode("latin-1"))]

    def close(self) -> list[bytes]:
        return [line.encode("latin-1") for line in self.splitter.close()]


def line_trace(factory: Callable[[], Any], chunks: list) -> Trace:
    return trace(factory, chunks, normalise=bytes, state=no_state)


@functools.lru_cache(maxsize=1 << 16)
def line_oracle(raw: bytes, cuts: Partition, profile: str, options: str) -> Trace:
    return line_trace(lambda: LatinLines(_strict(profile)), chunks_of(raw, cuts))


@exercise("your byte line splitter")
def check_byte_lines(factory: Callable[..., Any]) -> str:
    """Exercise 03: ``factory(strict=...)`` returns a splitter with ``feed(bytes)
    -> list[bytes]`` and ``close() -> list[bytes]``."""
    make = by_strictness(factory)
    fixtures = all_fixtures(without_option("max_line_chars"), ("line_ends",))
    return verify(make, fixtures, PROFILES, "your byte line splitter", line_oracle, line_trace, "line")


# --- exercise 04: fields, and the server's side -----------------------------


def field_lines() -> list[str]:
    """Every line of every fixture (decoded as a browser would), shortest first."""
    found = {"data", "data:", "data: ", "data:  x", ":", ": x", "a:b:c", "id: 1", "x : y"}
    for fixture in load_fixtures():
        text = fixture.raw.decode("utf-8", "replace")
        found.update(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return sorted(found, key=lambda line: (len(line), line))


RETRY_VALUES = ["0", "7", "0007", "5000", "+5", "-1", " 5", "5 ", "1_000", "1.5", "\u0663", "\u00b2", "\uff15", "", "x",
                str(MAX_RETRY_MS), str(MAX_RETRY_MS + 1), "0" * 30 + "1", "9" * 5000]


@exercise("your split_field and parse_retry")
def check_fields(split_field: Callable[[str], tuple], parse_retry: Callable[[str], Any]) -> str:
    """Exercise 04, part 1: both functions against the package's, on every line
    of every fixture and on the values ``int()`` and ``isdigit()`` get wrong."""
    lines = field_lines()
    for name, function, reference, cases in (
        ("split_field", split_field, package_split_field, lines),
        ("parse_retry", parse_retry, package_parse_retry, RETRY_VALUES),
    ):
        for value in cases:
            expected = reference(value)
            try:
                got = _attempted(function, value)
            except NotAttempted:
                raise
            except Exception as err:  # a wrong function may raise: that is what it did
                got = f"{type(err).__name__}: {str(err)[:80]}"
            if got != expected:
                shown = value if len(value) < 60 else value[:20] + f"... ({len(value)} characters)"
                raise CheckFailed(f"your {name} is wrong: WRONG VALUE.\n{name}({shown!r}) should be {expected!r}, yours is {got!r}")
    return f"agree with the standard on {len(lines)} field lines and {len(RETRY_VALUES)} retry values"


ENCODE_DATA = ["x", "", " x", "  two", "a:b", ":", "line 1\nline 2", "\n", "\n\n", "tail\n", "caf\u00e9 \U0001f600", "a\u2028b\x85c", '{"k": 1}', "\ufeffbom", "data: x"]
ENCODE_TYPES = [None, "add", " add ", "", "\u00e9v", "message", "a:b"]
ENCODE_IDS = [None, "7", "", " 8 ", "a:b", "\u2026"]
ENCODE_RETRY = [None, 0, 3000]
ENCODE_REFUSED = [
    {"data": "a\rb"}, {"data": "x", "event": "a\nb"}, {"data": "x", "event": "a\rb"},
    {"data": "x", "id": "1\n2"}, {"data": "x", "id": "1\x002"}, {"data": "x", "id": "1\r"}, {"data": "x", "retry": -1},
]


def encode_cases() -> list[dict]:
    """Each data value with each event type, id and retry in turn."""
    cases = [{"data": data} for data in ENCODE_DATA]
    cases += [{"data": "x", "event": event} for event in ENCODE_TYPES]
    cases += [{"data": data, "id": id_} for id_ in ENCODE_IDS for data in ("x", " x")]
    cases += [{"data": "x", "retry": retry} for retry in ENCODE_RETRY]
    return cases


def expected_event(case: dict, last_event_id: str, retry: int | None) -> Event:
    return Event(case.get("event") or "message", case["data"], case["id"] if case.get("id") is not None else last_event_id,
                 case["retry"] if case.get("retry") is not None else retry)


def _encoded(encode: Callable[..., bytes], case: dict) -> Any:
    try:
        return _attempted(encode, **case)
    except NotAttempted:
        raise
    except Exception as err:  # that is what it did
        return err


def _call(case: dict) -> str:
    return "encode(" + ", ".join(f"{key}={value!r}" for key, value in case.items()) + ")"


@exercise("your encoder")
def check_encoder(encode: Callable[..., bytes]) -> str:
    """Exercise 04, part 2: every stream of ``encode`` calls, read by the
    package's parser, gives back exactly the events encoded, in both profiles
    and under every single cut; values no stream can carry raise ValueError."""
    cases = encode_cases()
    for first in [{}, {"data": "before", "id": "1", "retry": 10}]:
        for case in cases:
            calls = [first, case] if first else [case]
            encoded = [_encoded(encode, call) for call in calls]
            bad = next((e for e in encoded if not isinstance(e, bytes)), None)
            if bad is not None:
                raise CheckFailed(f"your encoder is wrong: EXTRA ERROR.\n{_call(calls[encoded.index(bad)])} should return bytes, yours gives {bad!r}")
            raw = b"".join(encoded)
            expected, last_id, retry = [], "", None
            for call in calls:
                expected.append(expected_event(call, last_id, retry))
                last_id, retry = expected[-1].last_event_id, expected[-1].retry
            for profile in PROFILES:
                for cuts in partitions(raw, ("whole", "single")):
                    got = trace(lambda: SSEParser(profile), chunks_of(raw, cuts))
                    events = got.items()
                    if got.error or events != [as_event(e) for e in expected] or got.states[-1] != (last_id, retry):
                        said = "WRONG VALUE" if len(events) == len(expected) else ("MISSING" if len(events) < len(expected) else "EXTRA")
                        raise CheckFailed(
                            f"your encoder is wrong: {said}: a parser reads your bytes as other events.\n"
                            + "\n".join(_call(call) for call in calls)
                            + f"\ngave {raw!r}\nunder the split {show_split(raw, cuts)} [{profile}]\n"
                            f"expected: {[as_event(e) for e in expected]}, parser.last_event_id {last_id!r}\n"
                            f"     got: {show_trace(got)}, parser.last_event_id {got.states[-1][0] if got.states else '?'!r}"
                        )
    for case in ENCODE_REFUSED:
        got = _encoded(encode, case)
        if not isinstance(got, ValueError):
            raise CheckFailed(
                f"your encoder is wrong: MISSING ERROR: no stream can carry this value.\n"
                f"{_call(case)} should raise ValueError, yours gives {got!r}"
            )
    return f"round-trips {2 * len(cases)} streams through the package's parser in both profiles, and refuses {len(ENCODE_REFUSED)} values no stream can carry"


# --- exercise 06: a provider contract with named events ---------------------


class ContractError(ValueError):
    """The provider broke its payload contract (exercise 06 gives its learner this class)."""


class ProviderError(ValueError):
    """The provider reported a failure in an ``error`` event."""


class NamedEventsReference:
    """The contract of exercise 06: ``delta`` events carry ``{"text": str}``;
    ``error`` carries ``{"message": str}`` and raises ProviderError; ``done``
    ends the stream; other types are skipped; nothing may follow ``done``,
    and the stream must not end without it."""

    def __init__(self) -> None:
        self.done = False
        self.count = 0

    def feed(self, events: Iterable[Event]) -> list[str]:
        texts = []
        for event in events:
            index, self.count = self.count, self.count + 1
            if self.done:
                raise ContractError(f"event {index}: {event.type!r} after done")
            if event.type == "done":
                self.done = True
            elif event.type in ("delta", "error"):
                texts.append(self.field(event, index, "text" if event.type == "delta" else "message"))
                if event.type == "error":
                    raise ProviderError(texts.pop())
        return texts

    def field(self, event: Event, index: int, key: str) -> str:
        try:
            value = json.loads(event.data)
        except json.JSONDecodeError:
            raise ContractError(f"event {index}: {event.type} data is not JSON") from None
        if not isinstance(value, dict) or not isinstance(value.get(key), str):
            raise ContractError(f"event {index}: {event.type} needs a string {key!r}")
        return value[key]

    def close(self) -> list[str]:
        if not self.done:
            raise ContractError(f"the stream ended after {self.count} events without done")
        return []


CONTRACT_STREAMS = {
    "deltas-then-done": ("Two deltas, then the end event.", 'event: delta\ndata: {"text": "Hel"}\n\nevent: delta\ndata: {"text": "lo"}\n\nevent: done\ndata: {}\n\n'),
    "ping-and-unknown-skipped": ("Keep-alives and types the contract does not name carry no text.", 'event: ping\ndata: {}\n\n: keep-alive\n\nevent: delta\ndata: {"text": "a"}\n\nevent: usage\ndata: {"tokens": 3}\n\nevent: done\ndata:\n\n'),
    "text-split-across-reads": ("A character of the text may be cut by any read.", 'event: delta\ndata: {"text": "caf\u00e9 \U0001f600"}\n\nevent: done\ndata: {}\n\n'),
    "json-on-two-lines": ("Data lines join with LF: JSON may span them.", 'event: delta\ndata: {"text":\ndata:  "two lines"}\n\nevent: done\ndata: {}\n\n'),
    "delta-not-json": ("A delta whose data is not JSON breaks the contract.", 'event: delta\ndata: {"text": "a"}\n\nevent: delta\ndata: {"text": \n\nevent: done\ndata: {}\n\n'),
    "delta-without-text": ("A delta must carry a string text.", 'event: delta\ndata: {"content": "a"}\n\nevent: done\ndata: {}\n\n'),
    "error-event": ("The provider reports a failure: the texts before it arrive, then its message is raised.", 'event: delta\ndata: {"text": "a"}\n\nevent: error\ndata: {"message": "overloaded"}\n\n'),
    "after-done": ("Nothing may follow the end event.", 'event: done\ndata: {}\n\nevent: delta\ndata: {"text": "late"}\n\n'),
    "no-done": ("A stream cut before done is not complete, though every event is.", 'event: delta\ndata: {"text": "a"}\n\n'),
    "sentinel-style": ("A [DONE] sentinel is not this contract's end: message events are skipped, done never comes.", 'data: {"text": "a"}\n\ndata: [DONE]\n\n'),
}

CONTRACT_STRATEGIES = ("whole", "single", "empty_reads", "one_byte", "interesting")


@functools.cache
def contract_fixtures() -> tuple[Fixture, ...]:
    return tuple(
        Fixture("contract", name, about, text.encode(), (), {}, {}, CONTRACT_STRATEGIES, __version__)
        for name, (about, text) in CONTRACT_STREAMS.items()
    )


def contract_error_name(err: Exception) -> str:
    return type(err).__name__ if isinstance(err, (ContractError, ProviderError)) else f"{type(err).__name__} (not ContractError or ProviderError)"


def contract_trace(factory: Callable[[], Any], chunks: list) -> Trace:
    return trace(factory, chunks, normalise=lambda value: value, state=no_state, name=contract_error_name)


@functools.lru_cache(maxsize=1 << 14)
def contract_oracle(raw: bytes, cuts: Partition, profile: str, options: str) -> Trace:
    return contract_trace(lambda: AdapterPipeline(NamedEventsReference()), chunks_of(raw, cuts))


@exercise("your named-events adapter")
def check_named_events(factory: Callable[[], Any]) -> str:
    """Exercise 06: ``factory()`` returns an adapter with ``feed(events) -> list[str]``
    and ``close()``, raising the exercise's ContractError and ProviderError."""
    make_one = guarded(factory)
    make = lambda _p, _o: AdapterPipeline(make_one())  # noqa: E731
    return verify(make, list(contract_fixtures()), ["strict"], "your named-events adapter", contract_oracle, contract_trace, "text")


# --- lesson 01: finding the split that breaks a parser ----------------------


#: (zoo member, profile, stream): parsers that break under some single cut, and one that does not.
SPLIT_CASES: list[tuple[str, str, bytes]] = [
    ("decode-each-chunk", "browser", "data: caf\u00e9\n\n".encode()),
    ("splitlines", "browser", b"data: a\r\ndata: b\r\n\r\n"),
    ("bom-dropped-per-chunk", "strict", b"\xef\xbb\xbfdata:1\n\n\xef\xbb\xbfdata:2\n\ndata:3\n\n"),
    ("", "browser", "data: caf\u00e9\r\n\r\ndata: b\r\r".encode()),
]


def first_breaking_cut(factory: Callable[[], Any], raw: bytes) -> int | None:
    """The smallest single cut whose two reads give other events than one read."""
    whole = run(factory, [raw])
    return next((cut for cut in range(1, len(raw)) if run(factory, chunks_of(raw, (cut,))) != whole), None)


@exercise("your split finder")
def check_split_finder(find: Callable[[Callable[[], Any], bytes], int | None]) -> str:
    """Lesson 01: ``find(factory, raw)`` returns the smallest cut at which two
    reads give other events than one read, or ``None`` if no cut does."""
    for name, profile, raw in SPLIT_CASES:
        factory = _split_case_factory(name, profile)
        expected = first_breaking_cut(factory, raw)
        got = _attempted(find, factory, raw)
        if got != expected:
            raise CheckFailed(_split_message(name or "SSEParser", profile, raw, expected, got, factory))
    return f"finds the first breaking cut (or None) for {len(SPLIT_CASES)} parsers and streams"


def _split_case_factory(name: str, profile: str) -> Callable[[], Any]:
    cls = ZOO[name] if name else SSEParser
    return lambda: cls(profile)


def _split_message(name: str, profile: str, raw: bytes, expected: int | None, got: Any, factory: Callable[[], Any]) -> str:
    shown = [f"{name}({profile!r}) on {raw!r}", f"expected: {expected}", f"     got: {got!r}"]
    for label, cut in (("expected", expected), ("got", got)):
        if isinstance(cut, int) and 0 < cut < len(raw):
            outcome = run(factory, chunks_of(raw, (cut,)))
            shown.append(f"  split at {cut} ({label}): {show_split(raw, (cut,))} gives {_events(outcome.events)}")
    shown.append(f"  one read gives {_events(run(factory, [raw]).events)}")
    return "your split finder is wrong for " + "\n".join(shown)


def _events(events: Iterable[Any]) -> str:
    return "[" + ", ".join(repr((event.type, event.data)) for event in events) + "]"


# --- lesson 07: a fixture of one's own --------------------------------------


#: The zoo member the learner's fixture must catch: no shipped fixture does.
TARGET = "event-type-stripped"


def catches(factory: Callable[[], Any] | Callable[..., Any], fixtures: Iterable[Fixture]) -> Iterator[Fixture]:
    """The fixtures on which ``factory(profile, **options)`` fails, in some profile."""
    for fixture in fixtures:
        if any(find_failure(lambda: factory(p, **fixture.options), fixture, p, shrink=False) for p in PROFILES):
            yield fixture


@exercise("your fixture")
def check_own_fixture(spec: dict | Callable[[], dict]) -> str:
    """Lesson 07: ``spec`` (or a function returning it) is one fixture in the
    JSON files' format. It must be right (the package's parser agrees under
    every partition, in both profiles) and catch the zoo member ``TARGET``."""
    spec = _attempted(spec) if callable(spec) else spec
    family = {"family": "mine", "parser_version": __version__, "checked_under": sorted(GENERATED_STRATEGIES)}
    try:
        fixture = fixture_files.fixture_from_spec(family, {"name": "my-fixture", **spec})
    except (KeyError, TypeError, ValueError) as err:
        raise CheckFailed(f"your fixture is not in the fixtures' format ({type(err).__name__}: {err})") from None
    for profile in PROFILES:
        failure = find_failure(lambda: SSEParser(profile, **fixture.options), fixture, profile, shrink=False)
        if failure is not None:
            raise CheckFailed(
                f"your fixture is wrong: WRONG VALUE: its expectation is not what the standard says.\n"
                f"{failure.fixture} [{failure.profile}] under the split\n    {show_split(failure.raw, failure.cuts)}\n"
                f"your fixture expects: {describe(failure.expected.events, failure.expected.error)}\n"
                f"the standard gives:   {describe(failure.got.events, failure.got.error)} (the package's parser)"
            )
    target = ZOO[TARGET]
    if not list(catches(target, [fixture])):
        outcome = run(lambda: target("strict", **fixture.options), [fixture.raw])
        raise CheckFailed(
            f"your fixture is right, but {TARGET} passes it under every split:\n    {fixture.raw!r}\n"
            f"{TARGET} gives {_events(outcome.events)}, as expected. Its docstring names its mistake."
        )
    missed = not list(catches(target, load_fixtures()))
    count = sum(len(partitions(fixture.raw, fixture.checked_under, fixture.cuts)) for _ in PROFILES)
    return (
        f"is right under {count} partitions in both profiles, and catches {TARGET}"
        + (", which every shipped fixture misses" if missed else "")
    )


# --- exercise 09: blocks cut on the bytes -------------------------------------


@exercise("your block cutter")
def check_block_cutter(factory: Callable[[], Any]) -> str:
    """Exercise 09: ``factory()`` returns a cutter with ``feed(bytes) -> list[bytes]``
    (the blocks the chunk completes) and ``close() -> bytes`` (the bytes after the
    last block), compared feed by feed with the course's (blocks.py), which also
    gives the inputs and the directions."""
    refused = blocks.not_yours(factory)
    if refused:
        raise CheckFailed(refused)
    make = guarded(factory)

    def fails(raw: bytes, cuts: Partition) -> Difference | None:
        found = blocks.compare(raw, cuts, make)
        return None if found is None else Difference(*found)

    count = fixtures = 0
    for fixture, chosen in blocks.cases(check_partitions):
        for cuts in chosen:
            if (found := fails(fixture.raw, cuts)) is not None:
                raw, cuts, found = shrink(fails, fixture.raw, cuts, found)
                raise CheckFailed(blocks.failure_message(fixture, raw, cuts, found.says, make), found, raw, cuts, fails)
        count += len(chosen)
        fixtures += 1
    return blocks.verified(fixtures, count)
