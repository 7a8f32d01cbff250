"""Exercise 07: a mistake of one's own that every shipped fixture misses, and the fixture that catches it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from ... import __version__
from ...decoding import Utf8Decoder
from ...errors import DEFAULT_MAX_EVENT_CHARS, DEFAULT_MAX_LINE_CHARS
from ...events import EventAssembler
from ...lines import LineSplitter
from ...parser import SSEParser
from ...profiles import DEFAULT_PROFILE, PROFILES, get_profile
from ..checking import (
    Kind,
    attempted,
    exercise,
    failed,
)
from ..checking.inputs import TASK_STRATEGIES
from ..checking.layers import strict_in
from ..fixtures import Fixture, fixture_from_spec, load_fixtures
from ..harness import (
    describe,
    find_failure,
    reference_outcome,
    run,
    show_split,
)
from ..zoo import ZOO, compose

# --- the check ----------------------------------------------------------------


#: The package's layers a mistake may stand in for, and how a parser slot builds one.
LAYER_SLOTS: dict[type, tuple[str, Callable[[type, str, dict[str, Any]], Any]]] = {
    Utf8Decoder: ("decoder", lambda cls, profile, _o: cls(get_profile(profile).decode_errors)),
    LineSplitter: (
        "splitter",
        lambda cls, profile, o: cls(o.get("max_line_chars", DEFAULT_MAX_LINE_CHARS), strict_in(profile)),
    ),
    EventAssembler: (
        "assembler",
        lambda cls, profile, o: cls(o.get("max_event_chars", DEFAULT_MAX_EVENT_CHARS), strict_in(profile)),
    ),
}


#: Shipped fixtures the mistake must pass: read whole and in one-byte reads (a mistake of one layer shows in one of them).  # noqa: E501
SHIPPED_READS = ("whole", "one_byte")


OWN = "your answer"


def with_mistake(mistake: type) -> Callable[..., Any]:
    """``factory(profile, **options)``: the package's parser with ``mistake`` in its layer's slot."""
    base = next(base for base in LAYER_SLOTS if issubclass(mistake, base))
    slot, build = LAYER_SLOTS[base]
    return lambda profile, **options: compose(profile, options, **{slot: build(mistake, profile, options)})


def own_fixture(spec: dict) -> Fixture:
    family = {"family": "mine", "parser_version": __version__, "checked_under": list(TASK_STRATEGIES)}
    try:
        return fixture_from_spec(family, {"name": "my-fixture", **spec})
    except (KeyError, TypeError, ValueError) as err:
        raise failed(
            OWN, Kind.WRONG_VALUE, f"the fixture is not in the fixtures' format ({type(err).__name__}: {err})."
        ) from None


def first_failure(
    factory: Callable[..., Any], fixtures: Iterable[Fixture], strategies: Sequence[str] | None = None
) -> Any:
    """The first failure of ``factory(profile, **options)`` on these fixtures, in either profile, or None."""
    for fixture in fixtures:
        for profile in PROFILES:
            found = find_failure(
                lambda: factory(profile, **fixture.options),  # noqa: B023
                fixture,
                profile,
                strategies,
                shrink=False,
            )
            if found is not None:
                return found
    return None


def show_failure(failure: Any, expected: str = "expected", got: str = "got") -> str:
    width = max(len(expected), len(got))
    return (
        f"{failure.fixture} [{failure.profile}] under the split\n    {show_split(failure.raw, failure.cuts)}\n"
        f"{expected:>{width}}: {describe(failure.expected.events, failure.expected.error)}\n"
        f"{got:>{width}}: {describe(failure.got.events, failure.got.error)}"
    )


@exercise(OWN)
def check_own_mistake(mistake: type, spec: Callable[[], dict]) -> str:
    """Exercise 07: ``mistake`` subclasses one of the package's layers and holds a
    mistake every shipped fixture misses; ``spec()`` is a fixture that catches it."""
    fixture = own_fixture(attempted(spec))
    if not (isinstance(mistake, type) and any(issubclass(mistake, base) for base in LAYER_SLOTS)):
        raise failed(
            OWN,
            Kind.WRONG_VALUE,
            "the mistake must be a class that subclasses Utf8Decoder, LineSplitter or EventAssembler.",
        )
    zoo_part = next((name for name, member in ZOO.items() if issubclass(mistake, member.part)), None)
    if zoo_part:
        raise failed(
            OWN,
            Kind.NOT_YOURS,
            f"your class subclasses the zoo's {zoo_part}: the task asks for a mistake of your own.",
            direction="subclass",
        )
    wrong = first_failure(lambda profile, **options: SSEParser(profile, **options), [fixture])
    if wrong is not None:
        raise failed(
            OWN,
            Kind.WRONG_VALUE,
            "your fixture expects what the standard does not give (the package's parser is the reference).",
            show_failure(wrong, "your fixture expects", "the standard gives"),
        )
    factory = with_mistake(mistake)
    caught = attempted(first_failure, factory, [fixture])
    if caught is None:
        outcome = run(lambda: factory(DEFAULT_PROFILE, **fixture.options), [fixture.raw])
        raise failed(
            OWN,
            Kind.MISSING,
            "your fixture is right, but your mistake passes it under every split.",
            f"{fixture.raw!r} gives {describe(outcome.events, outcome.error)} with your mistake, as expected",
            direction="never",
        )
    same = next((name for name, member in ZOO.items() if zoo_gives_same(member, factory, fixture)), None)
    if same:
        raise failed(
            OWN,
            Kind.NOT_YOURS,
            f"your mistake gives what the zoo's {same} gives on your fixture: "
            "the task asks for one the zoo does not hold.",
            " ".join(ZOO[same].__doc__.split()),
        )
    shipped = attempted(first_failure, factory, load_fixtures(), SHIPPED_READS)
    if shipped is not None:
        raise failed(
            OWN,
            Kind.WRONG_VALUE,
            f"a shipped fixture already catches your mistake: {shipped.fixture}. Find one they all miss.",
            show_failure(shipped, "the fixture expects", "your mistake gives"),
        )
    variants = value_variants(fixture)
    hidden = [changed for changed in variants if first_failure(factory, [changed], SHIPPED_READS) is None]
    if len(hidden) * 2 > len(variants):
        raise failed(
            OWN,
            Kind.WRONG_VALUE,
            "your mistake shows only on this exact input: change one letter or digit of a value and it is gone.",
            f"your fixture: {fixture.raw!r}\nmissed, one character changed: {hidden[0].raw!r}\n"
            "A mistake a developer could make breaks a rule of the standard (a field, a line end, a character), "
            "whatever the values: write one that does, then the fixture that shows it.",
        )
    return f"is missed by every shipped fixture, read whole and in one-byte reads, and your fixture is right and catches it ({show_split(caught.raw, caught.cuts)} [{caught.profile}])"  # noqa: E501


#: How many variants of the learner's fixture are tried, each with one character of a value changed.
VARIANTS = 8


def value_variants(fixture: Fixture) -> list[Fixture]:
    """The fixture with one letter or digit of a field's value changed (a to b, 9 to 0, case kept), at
    up to :data:`VARIANTS` places spread over its values; the expected outcome is the package's parser's."""
    text = fixture.raw.decode("utf-8", "replace")
    places, start = [], 0
    for line in text.splitlines(keepends=True):
        colon = line.find(":")
        if colon > 0:
            places += [start + i for i in range(colon + 1, len(line)) if line[i].isascii() and line[i].isalnum()]
        start += len(line)
    chosen = places[:: max(1, len(places) // VARIANTS)][:VARIANTS]
    return [variant(fixture, text[:at] + next_char(text[at]) + text[at + 1 :]) for at in chosen]


def next_char(char: str) -> str:
    """The next letter or digit of the same kind: a -> b, z -> a, Z -> A, 9 -> 0."""
    first = "0" if char.isdigit() else "a" if char.islower() else "A"
    size = 10 if char.isdigit() else 26
    return chr(ord(first) + (ord(char) - ord(first) + 1) % size)


def variant(fixture: Fixture, text: str) -> Fixture:
    raw = text.encode("utf-8")
    expected = {profile: reference_outcome(raw, profile, fixture.options) for profile in PROFILES}
    return replace(fixture, raw=raw, cuts=(), expected=expected)


def zoo_gives_same(member: type, factory: Callable[..., Any], fixture: Fixture) -> bool:
    """Does the zoo member go wrong on the fixture (read whole) exactly as the learner's mistake does?"""

    def outcomes(make: Callable[..., Any]) -> list[Any]:
        return [run(lambda: make(profile, **fixture.options), [fixture.raw]) for profile in ("strict", "browser")]  # noqa: B023

    ours = outcomes(factory)
    return ours == outcomes(member) and ours != outcomes(SSEParser)
