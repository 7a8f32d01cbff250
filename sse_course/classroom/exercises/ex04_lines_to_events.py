"""Exercise 04: the state a client resumes with (part 1) and the server's encoder (part 2).

Part 1's reference :func:`resume_state` follows the field rules to the ID and
reconnection time a client keeps; part 2's check parses what the learner's
encoder writes back with the package's parser.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ... import events as events_module
from ... import layered as layered_module
from ... import parser as parser_module
from ...decoding import Utf8Decoder
from ...events import MAX_RETRY_MS, Event, EventAssembler
from ...lines import LineSplitter
from ...parser import SSEParser
from ...profiles import PROFILES
from ..checking import (
    Kind,
    NotAttempted,
    NotYours,
    Trace,
    Watch,
    difference,
    exercise,
    failed,
    not_yours,
    rules,
    watched,
)
from ..checking.compare import show_error
from ..checking.layers import event_trace
from ..fixtures import load_fixtures
from ..harness import (
    as_event,
    chunks_of,
    partitions,
    show_split,
)

# --- part 1: the state a client resumes with ----------------------------


#: name -> (the rule it separates, lines): a blank line is "".
RESUME_STREAMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "id-with-colons": ("the name ends at the first colon; the value keeps the others", ("id: a:b", "data: x", "")),
    "two-spaces": ("one leading space is dropped, no more", ("id:  7", "data: x", "")),
    "no-space": ("the space after the colon is optional", ("id:8", "retry:250", "data: x", "")),
    "name-alone": (
        "a line without a colon is a name with an empty value",
        ("id: 5", "data: x", "", "id", "data: y", ""),
    ),
    "names-cased": (
        "names are compared exactly: case and spaces count",
        ("id: 1", "data: x", "", "ID: 9", "Retry: 7", "retry : 8", "data: y", ""),
    ),
    "id-at-dispatch": (
        "an id becomes the last event ID only at the blank line",
        ("id: 3", "data: x", "", "id: 4", "data: y"),
    ),
    "id-without-data": (
        "a blank line commits the id even when its block has no data",
        ("id: 6", "", ": a comment", ""),
    ),
    "id-with-nul": ("an id holding NUL is ignored", ("id: 1", "data: x", "", "id: 2\x003", "data: z", "")),
    "retry-not-digits": (
        "retry takes ASCII digits and nothing else",
        ("retry: 100", "retry: +5", "retry:  5", "retry: 1_0", "retry: \u0663", "retry: 5s", "retry:", ""),
    ),
    "retry-at-once": ("retry takes effect at once, without a blank line", ("data: x", "retry: 500", "data: y")),
    "retry-too-large": (
        f"a retry above {MAX_RETRY_MS} (2**64 - 1) is ignored",
        (f"retry: {MAX_RETRY_MS}", "", f"retry: {MAX_RETRY_MS + 1}", ""),
    ),
    "retry-thousands-of-digits": (
        "a retry of thousands of digits is too large, and ignored (int() of it raises)",
        ("retry: 7", "retry: " + "9" * 5000, ""),
    ),
    "retry-leading-zeros": (
        "leading zeros count for nothing: a retry of 25 digits can be 5",
        ("retry: 00", "retry: " + "0" * 24 + "5", ""),
    ),
    "retry-thousands-of-zeros": (
        "leading zeros count for nothing, even thousands of them (int() of them all raises)",
        ("retry: 5", "retry: " + "0" * 5000 + "7", ""),
    ),
    "comment": ("a line starting with a colon is a comment", ("id: 2", "data: x", "", ":id: 9", "")),
}


def resume_state(lines: Iterable[str]) -> tuple[str, int | None]:
    """The Last-Event-ID and reconnection time a client holds after these complete lines."""
    assembler = EventAssembler(strict=False)
    assembler.feed(list(lines))
    return assembler.last_event_id, assembler.retry


def lines_of(raw: bytes) -> list[str]:
    """The complete lines of a stream (U+FFFD for bad bytes, no limit)."""
    return LineSplitter(1 << 40, strict=False).feed(Utf8Decoder("replace").feed(raw))


# --- part 1: the check -------------------------------------------------------


@dataclass(frozen=True)
class LinesCase:
    """Complete lines a client read before its connection dropped, and where they come from."""

    source: str
    about: str
    lines: tuple[str, ...]


def resume_cases() -> list[LinesCase]:
    """Each rule case whole (it separates its rule), then every prefix of the rule cases and of
    every fixture's lines (a drop can come after any line), smallest first."""
    whole = [LinesCase(f"case {name}", about, lines) for name, (about, lines) in RESUME_STREAMS.items()]
    crafted = {
        LinesCase(f"case {name}", about, lines[:n])
        for name, (about, lines) in RESUME_STREAMS.items()
        for n in range(1, len(lines))
    }
    shipped = {
        LinesCase(f"fixture {f.id}", f.about, tuple(lines_of(f.raw))[:n])
        for f in load_fixtures()
        for n in range(1, len(lines_of(f.raw)) + 1)
    }
    size = lambda case: (sum(map(len, case.lines)) + len(case.lines), case.lines)  # noqa: E731
    ordered = whole + sorted(crafted, key=size) + sorted(shipped - crafted, key=size)
    return ordered + [case for case in generated_resume_cases() if case not in set(ordered)]


#: Lines a generated resume case is made of, each aimed at a field rule: ids and retries written
#: every way a server (or a mistake) may write them, data, comments and blank lines.
RESUME_LINES = (
    "id: 1",
    "id:2",
    "id:  3",
    "id",
    "id:",
    "id: a:b",
    "id: 4\x00",
    "ID: 5",
    "id : 6",
    " id: 7",
    "id: \u00e9",
    "retry: 10",
    "retry:20",
    "retry: 030",
    "retry",
    "retry: -1",
    "retry: 1 ",
    "retry: 1e3",
    "retry: \u0663",
    "retry: 18446744073709551616",
    "data: x",
    "data",
    "event: add",
    ": id: 8",
    "",
    "",
)


def generated_resume_cases(count: int = 60, seed: int = 4) -> list[LinesCase]:
    """Seeded sequences of one to eight lines from :data:`RESUME_LINES`: every field rule meets the others."""
    rng = random.Random(seed)
    return [
        LinesCase(
            f"generated case {i}",
            "generated: ids, retries, data, comments and blank lines in a random order",
            tuple(rng.choice(RESUME_LINES) for _ in range(rng.randint(1, 8))),
        )
        for i in range(count)
    ]


#: What the resume-state task forbids: the package's field rules.
PACKAGE_FIELDS = NotYours(
    "write the field rules yourself: not the package's split_field, parse_retry or EventAssembler, nor a parser, "
    "nor the course's own resume_state",
    classes=(EventAssembler,),
    code=(events_module, layered_module, parser_module, resume_state),
)


@exercise("your resume_state")
def check_resume_state(resume: Callable[[list[str]], tuple[str, int | None]]) -> str:
    """Exercise 04, part 1: ``resume(lines)`` returns ``(last_event_id, retry)``
    after those complete lines, as a client holds them when the connection drops."""
    watch = Watch(PACKAGE_FIELDS)
    cases = resume_cases()
    for case in cases:
        expected = resume_state(case.lines)
        try:
            got = watched(watch, resume, list(case.lines))
        except NotAttempted:
            raise
        except Exception as err:  # a wrong function may raise: that is what it did
            got = err
        if watch.reached:
            raise not_yours("your resume_state", PACKAGE_FIELDS, watch.reached[0])
        if got != expected:
            raise failed(
                "your resume_state",
                *resume_difference(expected, got),
                f"{case.source} ({case.about}), cut after {len(case.lines)} line{'s' if len(case.lines) > 1 else ''}:\n"
                f"    {shown_lines(case.lines)}\nexpected: {expected!r}\n     got: {got!r}",
                direction="unexpected" if isinstance(got, Exception) else "state",
                fixture=case.source,
            )
    return f"holds the right Last-Event-ID and retry after every line of {len(RESUME_STREAMS)} rule cases and every fixture ({len(cases)} cuts)"  # noqa: E501


def shown_lines(lines: Iterable[str], most: int = 60) -> str:
    """The lines as a list, each line longer than ``most`` characters shortened (said so, with its length)."""
    return (
        "["
        + ", ".join(
            repr(line) if len(line) <= most else f"{line[: most // 2]!r} + ... ({len(line):,} characters in all)"
            for line in lines
        )
        + "]"
    )


def resume_difference(expected: tuple[str, int | None], got: Any) -> tuple[Kind, str]:
    """The headline's kind and sentence: which of the two values is wrong."""
    if isinstance(got, Exception):
        return Kind.WRONG_ERROR, f"it raises {type(got).__name__}: {got} on lines a client may read."
    if not (isinstance(got, tuple) and len(got) == 2):
        return Kind.WRONG_VALUE, f"it should return a pair (last_event_id, retry), not {got!r}."
    if got[0] != expected[0]:
        return Kind.WRONG_VALUE, f"the Last-Event-ID should be {expected[0]!r}, yours is {got[0]!r}."
    return Kind.WRONG_VALUE, f"the reconnection time should be {expected[1]!r}, yours is {got[1]!r}."


# --- part 2: the server's side -----------------------------


def field_lines() -> list[str]:
    """Every line of every fixture (decoded as a browser would), shortest first."""
    found = {"data", "data:", "data: ", "data:  x", ":", ": x", "a:b:c", "id: 1", "x : y"}
    for fixture in load_fixtures():
        text = fixture.raw.decode("utf-8", "replace")
        found.update(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return sorted(found, key=lambda line: (len(line), line))


ENCODER_RULES = rules(
    ("data-lines", "each line of the data goes in its own data field"),
    ("space-kept", "a value that starts with a space keeps it (one space after the colon is dropped by the reader)"),
    ("fields", "event, id and retry are written as their fields when given"),
    ("blank-line", "a blank line ends the event"),
    ("refuse", "a value no stream can carry raises ValueError"),
    (
        "retry-read-back",
        "a retry the parser would not read back (not an int, a bool, below 0, above MAX_RETRY_MS) raises ValueError",
    ),
)


ENCODE_DATA = [
    "x",
    "",
    " x",
    "  two",
    "a:b",
    ":",
    "line 1\nline 2",
    "\n",
    "\n\n",
    "tail\n",
    "caf\u00e9 \U0001f600",
    "a\u2028b\x85c",
    '{"k": 1}',
    "\ufeffbom",
    "data: x",
    "\u2028",
    "\x00",
    "\t tab",
    " ",
    "a\n",
    "\n b",
    ": not a comment",
]


#: Event types that travel, NUL included (only an id holding NUL is ignored by a parser).
ENCODE_TYPES = [None, "add", " add ", "", "\u00e9v", "message", "a:b", " ", "\t", "\u2028", "\x00", "a\x00b"]


ENCODE_IDS = [None, "7", "", " 8 ", "a:b", "\u2026", " ", "\u2028", "id: 9"]


ENCODE_RETRY = [None, 0, 7, 3000, 10**12, MAX_RETRY_MS]


ENCODE_REFUSED: list[dict[str, object]] = [
    {"data": "a\rb"},
    {"data": "x", "event": "a\nb"},
    {"data": "x", "event": "a\rb"},
    {"data": "x", "id": "1\n2"},
    {"data": "x", "id": "1\x002"},
    {"data": "x", "id": "1\r"},
    {"data": "x", "retry": -1},
    {"data": "a\r\nb"},
    {"data": "x", "id": "\x00"},
    {"data": "x", "event": "\n"},
    {"data": "\ud800"},
    {"data": "x", "event": "\udc00"},
    {"data": "x", "id": "\ud800"},
    {"data": "x", "retry": MAX_RETRY_MS + 1},
    {"data": "x", "retry": True},
    {"data": "x", "retry": 1.5},
    {"data": "x", "retry": "5"},
]


def encode_cases() -> list[dict]:
    """Each data value with each event type, id and retry in turn."""
    cases: list[dict[str, object]] = [{"data": data} for data in ENCODE_DATA]
    cases += [{"data": "x", "event": event} for event in ENCODE_TYPES]
    cases += [{"data": data, "id": id_} for id_ in ENCODE_IDS for data in ("x", " x")]
    cases += [{"data": "x", "retry": retry} for retry in ENCODE_RETRY]
    return cases


def expected_event(case: dict, last_event_id: str, retry: int | None) -> Event:
    return Event(
        case.get("event") or "message",
        case["data"],
        case["id"] if case.get("id") is not None else last_event_id,
        case["retry"] if case.get("retry") is not None else retry,
    )


@functools.cache
def encoder_not_yours() -> NotYours:
    """What the encoder task forbids: a library's encoder (sse-starlette's, where it is installed)."""
    try:
        from sse_starlette import event as starlette_event
    except ImportError:  # not installed: nothing of it can be called
        return NotYours(ENCODER_TASK)
    return NotYours(ENCODER_TASK, classes=(starlette_event.ServerSentEvent,), code=(starlette_event,))


ENCODER_TASK = "write the fields yourself: not a library's encoder (sse-starlette's ServerSentEvent)"


def _encoded(encode: Callable[..., bytes], case: dict, watch: Watch) -> Any:
    try:
        got = watched(watch, encode, **case)
    except NotAttempted:
        raise
    except Exception as err:  # that is what it did
        got = err
    if watch.reached:
        raise not_yours("your encoder", encoder_not_yours(), watch.reached[0])
    return got


def _call(case: dict) -> str:
    return "encode(" + ", ".join(f"{key}={value!r}" for key, value in case.items()) + ")"


@exercise("your encoder")
def check_encoder(encode: Callable[..., bytes]) -> str:
    """Exercise 04, part 2: every stream of ``encode`` calls, read by the
    package's parser, gives back exactly the events encoded, in both profiles
    and under every single cut; values no stream can carry raise ValueError."""
    cases = encode_cases()
    watch = Watch(encoder_not_yours())
    for first in [{}, {"data": "before", "id": "1", "retry": 10}]:
        for case in cases:
            calls = [first, case] if first else [case]
            encoded = [_encoded(encode, call, watch) for call in calls]
            bad = next((e for e in encoded if not isinstance(e, bytes)), None)
            if bad is not None:
                raise failed(
                    "your encoder",
                    Kind.WRONG_ERROR,
                    f"{_call(calls[encoded.index(bad)])} should return bytes, yours gives {bad!r}.",
                    direction="unexpected",
                )
            raw = b"".join(encoded)
            expected, last_id, retry = [], "", None
            for call in calls:
                expected.append(expected_event(call, last_id, retry))
                last_id, retry = expected[-1].last_event_id, expected[-1].retry
            for profile in PROFILES:
                for cuts in partitions(raw, ("whole", "single")):
                    got = event_trace(lambda: SSEParser(profile), chunks_of(raw, cuts))  # noqa: B023
                    want = Trace(0, (tuple(as_event(e) for e in expected),), ((last_id, retry),))
                    seen = Trace(0, (tuple(got.items()),), got.states[-1:], got.error)
                    found = difference(want, seen)
                    if found is not None:
                        raise failed(
                            "your encoder",
                            found.kind,
                            "a parser reads your bytes as other events: "
                            + found.says.replace("from close()", "from the stream")
                            + ".",
                            "\n".join(_call(call) for call in calls)
                            + f"\ngave {raw!r}\nunder the split {show_split(raw, cuts)} [{profile}]\n"
                            f"the events of the whole stream, then parser.last_event_id:\n"
                            f"expected: {list(want.items())}, {last_id!r}\n"
                            f"     got: {list(seen.items())}{' then ' + show_error(got.error) if got.error else ''}, {seen.states[0][0] if seen.states else '?'!r}",  # noqa: E501
                            direction=found.direction,
                        )
    for refused in ENCODE_REFUSED:
        refusal = _encoded(encode, refused, watch)
        if not isinstance(refusal, ValueError):
            raise failed(
                "your encoder",
                Kind.MISSING_ERROR,
                f"a parser would not read this retry back: it reads an int from 0 to {MAX_RETRY_MS}, in ASCII digits."
                if "retry" in refused
                else "no stream can carry this value.",
                f"{_call(refused)} should raise ValueError, yours gives {refusal!r}",
                direction="none raised",
            )
    return f"round-trips {2 * len(cases)} streams through the package's parser in both profiles, and refuses {len(ENCODE_REFUSED)} values a parser would not read back"  # noqa: E501
