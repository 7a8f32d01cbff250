"""The inputs the checks share: the shipped fixtures, and streams generated for the rules tasks state.

Generated streams come from a fixed seed, so a rerun shows the same input.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

from ... import __version__
from ...profiles import PROFILES
from ..fixtures import Fixture, load_fixtures
from ..harness import (
    reference_outcome,
)
from .declare import in_order

#: Strategies for the generated streams (all but ``pairs``, to keep checks fast).
GENERATED_STRATEGIES = ("whole", "single", "empty_reads", "one_byte", "interesting", "random")


GENERATED_COUNT = 30


GENERATED_SEED = 4


# --- the inputs -------------------------------------------------------------


FIELD_NAMES = ["data", "data", "data", "data", "event", "event", "id", "retry", "", "Data", "data ", "foo"]


SEPARATORS = ["", ":", ": ", ": ", ":  ", ":\t"]


VALUE_PARTS = [
    "x",
    "yz",
    "a:b",
    " ",
    "\u00e9",
    "\u20ac",
    "\U0001f600",
    "\u2028",
    "\x00",
    "0",
    "12",
    "+3",
    "\u0663",
    '{"k": 1}',
    "\ufeff",
    "\x85",
    "\t",
    "-1",
    "\u2029",
]


LINE_ENDS = ["\n", "\n", "\r", "\r\n"]


BAD_BYTES = [
    b"\xff",
    b"\xe2\x82",
    b"\xc0\xaf",
    b"\xed\xa0\x80",  # a surrogate
    b"\xf4\x90\x80\x80",  # past U+10FFFF
    b"\xe0\x80\x80",  # over-long
    b"\x80",  # a continuation byte with no lead
    b"\xf0\x9f\x98",  # a character one byte short
]


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
            Fixture(
                "generated",
                f"stream-{i}",
                "a seeded generated stream",
                raw,
                (),
                {},
                expected,
                GENERATED_STRATEGIES,
                __version__,
            )
        )
    return tuple(found)


#: Characters a long line is made of: one to four bytes each, and a colon (a field's name ends there).
LIMIT_CHARS = ["x", "x", ":", " ", "\u00e9", "\u20ac", "\U0001f600"]


def limit_stream(rng: random.Random, limit: int) -> bytes:
    """Lines one character under, at and over ``limit`` (the line end not counted), each with its
    own line end, some of them in one read with a line before them; then a blank line."""
    lines = []
    for _ in range(rng.randint(1, 4)):
        size = max(0, limit + rng.choice((-1, 0, 0, 1)))
        lines.append("".join(rng.choice(LIMIT_CHARS) for _ in range(size)) + rng.choice(LINE_ENDS))
    if rng.random() < 0.3:  # an unfinished line at the end, at the limit or over it
        lines.append("x" * (limit + rng.choice((0, 1))))
    return "".join(lines).encode("utf-8") + (b"\n" if rng.random() < 0.5 else b"")


@functools.cache
def limit_fixtures(count: int = GENERATED_COUNT, seed: int = GENERATED_SEED) -> tuple[Fixture, ...]:
    """Seeded streams aimed at the line limit: lengths at the limit and one either side, in
    characters of one to four bytes; their expected outcome is the package's parser's."""
    rng = random.Random(seed)
    found = []
    for i in range(count):
        limit = rng.randint(1, 6)
        raw, options = limit_stream(rng, limit), {"max_line_chars": limit}
        expected = {profile: reference_outcome(raw, profile, options) for profile in PROFILES}
        about = f"lines of {limit - 1}, {limit} and {limit + 1} characters at max_line_chars={limit}"
        found.append(
            Fixture(
                "generated-limits", f"stream-{i}", about, raw, (), options, expected, GENERATED_STRATEGIES, __version__
            )
        )
    return tuple(found)


def all_kept(fixture: Fixture) -> bool:
    return True


def all_fixtures(keep: Callable[[Fixture], bool] = all_kept, first: tuple[str, ...] = ()) -> list[Fixture]:
    """The shipped fixtures then the generated ones, those ``keep`` accepts; the
    families in ``first`` lead, so a failure is shown on a fixture that explains it."""
    return in_order([fixture for fixture in [*load_fixtures(), *generated_fixtures()] if keep(fixture)], first)


def without_option(*names: str) -> Callable[[Fixture], bool]:
    """Keep fixtures that set none of these options (a layer without limits yet)."""
    return lambda fixture: not set(names) & set(fixture.options)


# === the checks: declarations on the checking engine ==========================

#: Ways to cut the tasks' short streams: every single cut, every pair, empty reads, one-byte reads.
TASK_STRATEGIES = ("whole", "single", "pairs", "empty_reads", "one_byte")


def task_fixtures(family: str, streams: dict[str, tuple[str, bytes]]) -> list[Fixture]:
    """A task's streams as fixtures (no expected outcome stored: the task's reference gives it)."""
    return [
        Fixture(family, name, about, raw, (), {}, {}, TASK_STRATEGIES, __version__)
        for name, (about, raw) in streams.items()
    ]
