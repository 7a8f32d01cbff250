"""Exercise checks: run a learner's code over every fixture under the harness's partitions.

Every check behaves the same way, so a learner can trust it:

* unattempted (``NotImplementedError`` anywhere in the learner's code): it
  prints that the exercise is not attempted yet, and does not raise, so an
  exercise notebook still runs top to bottom;
* wrong: it raises ``AssertionError`` showing the smallest failing input with
  the split marked (``b'data: a\\r' | b'\\n'``), expected against got;
* right: it prints what it verified (fixtures, partitions, profiles).

A layer is checked inside the package's parser (:func:`~sse_course.classroom.zoo.compose`):
the learner's decoder, line splitter or event assembler takes the place of the
package's own, and the whole stream must come out as the standard says. The
inputs are the shipped fixtures (every family, the strategies each was checked
under) plus seeded generated streams whose expected outcome the package's
parser gives. Error *types* are compared, not messages, since a learner's
wording may differ.

    from sse_course.classroom.checks import check_parser
    check_parser(lambda: MyParser(), profile="browser")
"""

from __future__ import annotations

import functools
import inspect
import json
import random
import tracemalloc
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .. import __version__
from ..errors import DEFAULT_MAX_LINE_CHARS, SSEError
from ..layered import PROFILES
from ..parser import SSEParser
from ..payloads import JSONPayloads
from . import fixtures as fixture_files
from .fixtures import Fixture, load_fixtures
from .harness import (
    Partition,
    chunks_of,
    describe,
    find_failure,
    partitions,
    reference_outcome,
    run,
    same_events,
    show_split,
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


def all_fixtures(keep: Callable[[Fixture], bool] = all_kept) -> list[Fixture]:
    """The shipped fixtures then the generated ones, those ``keep`` accepts."""
    return [fixture for fixture in [*load_fixtures(), *generated_fixtures()] if keep(fixture)]


def without_option(*names: str) -> Callable[[Fixture], bool]:
    """Keep fixtures that set none of these options (a layer without limits yet)."""
    return lambda fixture: not set(names) & set(fixture.options)


# --- running everything -----------------------------------------------------


Maker = Callable[[str, dict[str, Any]], Any]


def verify(make: Maker, fixtures: list[Fixture], profiles: Iterable[str], what: str) -> str:
    """Run every fixture under every partition in each profile; raise on the
    first failure (shrunk to the smallest split), else say what was verified.
    Then each read's events must come out of that read's ``feed``, not later."""
    profiles = tuple(profiles)
    count = 0
    for profile in profiles:
        for fixture in fixtures:
            failure = find_failure(lambda: make(profile, fixture.options), fixture, profile, exact_errors=False)
            if failure is not None:
                shown_whole = failure.raw == fixture.raw and fixture.family != "generated"
                about = f"\n({fixture.about})" if fixture.about and shown_whole else ""
                raise AssertionError(f"{what} is wrong on {failure}{about}")
            late = late_events(lambda: make(profile, fixture.options), fixture, profile)
            if late is not None:
                raise AssertionError(f"{what} returns an event late on {late}")
            count += len(partitions(fixture.raw, fixture.checked_under, fixture.cuts))
    shipped = sum(fixture.family != "generated" for fixture in fixtures)
    return (
        f"gives the expected events, read by read, and error types on {shipped} fixtures and "
        f"{len(fixtures) - shipped} generated streams, under {count} partitions in all "
        f"(profile{'s' if len(profiles) > 1 else ''} {' and '.join(profiles)})"
    )


#: Strategies under which each read's events are compared, not only the totals.
PER_READ_STRATEGIES = ("single", "empty_reads", "one_byte", "interesting")


def per_read(factory: Callable[[], Any], chunks: list[bytes]) -> list[list]:
    """The events each ``feed`` returned, then ``close()``'s, up to an error."""
    calls: list[list] = []
    try:
        parser = factory()
        for chunk in chunks:
            calls.append(list(parser.feed(chunk)))
        calls.append(list(parser.close()))
    except Exception:  # the error itself is compared by find_failure
        pass
    return calls


def late_events(factory: Callable[[], Any], fixture: Fixture, profile: str) -> str | None:
    """The fewest-cuts split where some ``feed`` returns other events than the
    package's parser returns for that read (an event held back for a later read)."""
    reference = functools.partial(SSEParser, profile, **fixture.options)
    for cuts in partitions(fixture.raw, PER_READ_STRATEGIES, fixture.cuts):
        chunks = chunks_of(fixture.raw, cuts)
        expected, got = per_read(reference, chunks), per_read(factory, chunks)
        if not all(same_events(e, g) for e, g in zip(expected, got)):
            return (
                f"{fixture.id} [{profile}] under the split\n    {show_split(fixture.raw, cuts)}\n"
                f"each read's events, then close()'s:\n"
                f"expected: {_calls(expected)}\n     got: {_calls(got)}\n"
                "(feed() must return every event its chunk completes, without waiting for the next read)"
            )
    return None


def _calls(calls: list[list]) -> str:
    return "[" + ", ".join(describe(call, None) for call in calls) + "]"


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
        raise AssertionError(
            f"{what} is wrong on one chunk of {len(chunk)} bytes with no line end, max_line_chars={HUGE_LIMIT}\n"
            f"    b'data: xxxxxxxx...'  (a single read)\n"
            f"expected: LineTooLong raised by that feed()\n     got: {got[:200]}"
        )
    if peak > HUGE_PEAK_BYTES:
        raise AssertionError(
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
    verified = verify(lambda _profile, options: make_one(**options), all_fixtures(keep), [profile], "your parser")
    if not limits:
        return verified + " (limit fixtures skipped: the factory takes no max_line_chars/max_event_chars)"
    return verified + " " + refuses_huge_chunk(make_one(max_line_chars=HUGE_LIMIT), "your parser")


# --- the layers -------------------------------------------------------------


def verify_layer(slot: str, make_layer: Maker, keep: Callable[[Fixture], bool], what: str) -> str:
    """Verify a learner's layer in the package's parser, in place of its ``slot``
    (``decoder``, ``splitter`` or ``assembler``), in both profiles."""
    return verify(
        lambda profile, options: compose(profile, options, **{slot: make_layer(profile, options)}),
        all_fixtures(keep),
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

    verified = verify_layer("splitter", make, all_kept, "your bounded line splitter")
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


@dataclass(frozen=True)
class PayloadOutcome:
    """The payloads a pipeline returned, then the error class it raised."""

    values: tuple
    error: type | None

    def describe(self) -> str:
        values = "[" + ", ".join(json.dumps(value) for value in self.values) + "]"
        return values + (f" then {self.error.__name__}" if self.error else "")


def payload_outcome(factory: Callable[[], Any], chunks: Iterable[bytes]) -> PayloadOutcome:
    values: list[Any] = []
    try:
        pipeline = factory()
        for chunk in chunks:
            values += pipeline.feed(chunk)
        values += pipeline.close()
    except Exception as err:  # a wrong adapter may raise anything: that is its outcome
        return PayloadOutcome(tuple(values), type(err))
    return PayloadOutcome(tuple(values), None)


def payload_error_ok(expected: type | None, got: type | None) -> bool:
    """A payload error must be its own ValueError: not an SSE error, and not a
    bare ``JSONDecodeError`` that names no event."""
    if expected is None or got is None:
        return expected is got
    return issubclass(got, ValueError) and not issubclass(got, (SSEError, json.JSONDecodeError))


def payload_failure(factory: Callable[..., Any], fixture: Fixture) -> str | None:
    """The fewest-cuts split where the pipeline differs from the package's, described."""
    config = fixture.payload.config if fixture.payload else {}
    for cuts in partitions(fixture.raw, fixture.checked_under, fixture.cuts):
        chunks = chunks_of(fixture.raw, cuts)
        expected = payload_outcome(lambda: AdapterPipeline(JSONPayloads(**config)), chunks)
        got = payload_outcome(lambda: factory(**config), chunks)
        if got.values != expected.values or not payload_error_ok(expected.error, got.error):
            return _payload_message(fixture, config, cuts, expected, got)
    return None


def _payload_message(fixture: Fixture, config: dict, cuts: Partition, expected: PayloadOutcome, got: PayloadOutcome) -> str:
    note = ""
    if expected.error and got.error:
        note = "\n(a payload error must be its own ValueError: not an SSEError, not a bare JSONDecodeError)"
    return (
        f"{fixture.id} with config {config} under the split\n    {show_split(fixture.raw, cuts)}\n"
        f"expected: {expected.describe()}\n     got: {got.describe()}{note}"
    )


def payload_fixtures() -> list[Fixture]:
    return [fixture for fixture in load_fixtures() if fixture.payload is not None]


@exercise("your payload pipeline")
def check_payloads(factory: Callable[..., Any]) -> str:
    """``factory(**config)`` returns a bytes -> payloads pipeline with ``feed(chunk)``
    and ``close()``; ``config`` is ``JSONPayloads``'s (event_types, required_keys, end_marker)."""
    return _verify_payloads(guarded(factory), "your payload pipeline")


@exercise("your JSON adapter")
def check_json_adapter(factory: Callable[..., Any]) -> str:
    """Lesson 06: ``factory(**config)`` returns an adapter with ``feed(events) ->
    list`` and ``close() -> list``, raising its own error for a broken payload."""
    make_one = guarded(factory)
    return _verify_payloads(lambda **config: AdapterPipeline(make_one(**config)), "your JSON adapter")


def _verify_payloads(factory: Callable[..., Any], what: str) -> str:
    fixtures = payload_fixtures()
    count = 0
    for fixture in fixtures:
        message = payload_failure(factory, fixture)
        if message is not None:
            raise AssertionError(f"{what} is wrong on {message}")
        count += len(partitions(fixture.raw, fixture.checked_under, fixture.cuts))
    return f"gives the package's payloads and errors on {len(fixtures)} payload fixtures under {count} partitions"


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
            raise AssertionError(_split_message(name or "SSEParser", profile, raw, expected, got, factory))
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
        raise AssertionError(f"your fixture is not in the fixtures' format ({type(err).__name__}: {err})") from None
    for profile in PROFILES:
        failure = find_failure(lambda: SSEParser(profile, **fixture.options), fixture, profile, shrink=False)
        if failure is not None:
            raise AssertionError(f"your fixture's expectation is not what the standard says (the package's parser): {failure}")
    target = ZOO[TARGET]
    if not list(catches(target, [fixture])):
        outcome = run(lambda: target("strict", **fixture.options), [fixture.raw])
        raise AssertionError(
            f"your fixture is right, but {TARGET} passes it under every split:\n    {fixture.raw!r}\n"
            f"{TARGET} gives {_events(outcome.events)}, as expected. Its docstring names its mistake."
        )
    missed = not list(catches(target, load_fixtures()))
    count = sum(len(partitions(fixture.raw, fixture.checked_under, fixture.cuts)) for _ in PROFILES)
    return (
        f"is right under {count} partitions in both profiles, and catches {TARGET}"
        + (", which every shipped fixture misses" if missed else "")
    )
