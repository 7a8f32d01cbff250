"""The transfer tasks of exercises 01, 04 (part 1), 05 (part 1), 07 and 08: their inputs as data, and their references.

Each task asks for a lesson's idea applied to something the lesson did not
print, so each needs its own reference (what the task's rules say) and its own
inputs, chosen so that every rule the task states is broken by some input:

* exercise 01, :class:`JsonLines`: chunks are not messages, in another format
  (JSON Lines: one JSON value per LF-terminated line);
* exercise 04, :func:`resume_state`: the field rules, asked a new question
  (what a client sends after a drop, rather than which events came);
* exercise 05, :class:`Pipeline`: lesson 05's composition for any chain of
  sans-I/O stages, with stages whose end output matters (:class:`TailLines`,
  :class:`Batches`);
* exercise 07: a mistake of one's own that every shipped fixture misses, and
  the fixture that catches it;
* exercise 08, :func:`read_answer`: a real, possibly compressed, possibly cut
  stream shown to a user: the text, and whether it arrived whole.

Each check is a declaration on the checking engine
(:mod:`sse_course.classroom.checking`): a :class:`StreamCheck` where the
learner's object is fed chunks, else a short loop over the task's cases that
words every failure with :func:`failed`. ``tests/test_tasks.py`` breaks each
rule a task states with one mutant and asserts its kind and direction.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import httpx

from .. import __version__
from .. import client as client_module
from .. import events as events_module
from .. import layered as layered_module
from .. import parser as parser_module
from ..decoding import Utf8Decoder
from ..errors import DEFAULT_MAX_EVENT_CHARS, DEFAULT_MAX_LINE_CHARS, IncompleteStream, SSEError
from ..events import Event, EventAssembler
from ..layered import LayeredSSEParser
from ..lines import LineSplitter
from ..parser import SSEParser
from ..profiles import DEFAULT_PROFILE, PROFILES, get_profile
from .checking import (
    Kind,
    NotAttempted,
    NotYours,
    StreamCheck,
    Trace,
    Watch,
    attempted,
    exercise,
    failed,
    long_line_growth,
    not_yours,
    regrouped,
    rules,
    trace,
    watched,
)
from .checking.compare import no_state
from .checking.declare import EVERY_PROFILE
from .fixtures import Fixture, fixture_from_spec, load_fixtures
from .harness import (
    Partition,
    as_event,
    chunks_of,
    describe,
    find_failure,
    interesting_cuts,
    reference_outcome,
    run,
    show_split,
)
from .recording import TIMEOUT
from .server import SSEServer
from .zoo import ZOO, compose

# --- exercise 01: JSON Lines -------------------------------------------------


#: name -> (why it matters, the stream): each breaks one rule of the task when the reads cut it.
JSON_LINES_STREAMS: dict[str, tuple[str, bytes]] = {
    "tokens": (
        "Characters of two, three and four bytes: a read may end inside any of them.",
        '{"token": "caf\u00e9"}\n{"token": " \u20ac5"}\n{"token": " \U0001f600"}\n'.encode(),
    ),
    "several-per-read": ("Read whole, one chunk completes four values.", b'1\n2\n[3, 4]\n"five"\n'),
    "blank-lines": ("Blank lines carry no value.", b'\n{"a": 1}\n\n  \n{"b": [true, null]}\n'),
    "no-final-lf": ("The last line may end without LF: close() gives its value.", b'{"done": false}\n{"done": true}'),
    "crlf": ("A CR before the LF is JSON whitespace.", '{"x": "\u00e9"}\r\n{"y": 2}\r\n'.encode()),
    "blank-tail": ("What is left at the end may be blank: no value.", b'"last"\n  '),
    "escaped-lf": ("An LF inside a JSON string is written \\n: it ends no line.", b'{"text": "two\\nlines"}\n7\n'),
    "other-line-ends": (
        "Only LF ends a line: U+2028, U+2029 and U+0085 may stand raw inside a JSON string.",
        '{"t": "a\u2028b"}\n{"t": "c\u2029d\u0085e"}\n'.encode(),
    ),
    "lone-cr": ("A CR without LF ends no line: here it is JSON whitespace.", b'[1,\r2]\n"x"\r\n'),
    "numbers": ("Signs, exponents and nested values.", b'-1\n2.5e-3\n{"a": [0, {"b": -0.0}]}\n'),
    "tab-blank": ("A line of tabs and spaces is blank too.", b"\t \n1\n\t\n"),
    "long-value": ("One value spread over many reads.", b'{"text": "' + b"x" * 40 + b'"}\n'),
}


class JsonLines:
    """bytes -> JSON values, one per LF-terminated line; the last line may lack its LF."""

    def __init__(self) -> None:
        self.pieces: list[bytes] = []  # the unfinished line's bytes

    def feed(self, chunk: bytes) -> list[Any]:
        *complete, rest = chunk.split(b"\n")
        if not complete:
            self.pieces.append(rest)
            return []
        lines = [b"".join([*self.pieces, complete[0]]), *complete[1:]]
        self.pieces = [rest]
        return [json.loads(line) for line in lines if line.strip()]

    def close(self) -> list[Any]:
        tail, self.pieces = b"".join(self.pieces), []
        return [json.loads(tail)] if tail.strip() else []


# --- exercise 04: the state a client resumes with ----------------------------


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
        "a retry above 2**64 - 1 is ignored",
        ("retry: 18446744073709551615", "", "retry: 18446744073709551616", ""),
    ),
    "retry-thousands-of-digits": (
        "a retry of thousands of digits is too large, and ignored (int() of it raises)",
        ("retry: 7", "retry: " + "9" * 5000, ""),
    ),
    "retry-leading-zeros": (
        "leading zeros count for nothing: a retry of 25 digits can be 5",
        ("retry: 00", "retry: " + "0" * 24 + "5", ""),
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


# --- exercise 05: any chain of stages ----------------------------------------


class Pipeline:
    """Any sans-I/O stages in a row: each one's output is the next one's input."""

    def __init__(self, *stages: Any) -> None:
        self.stages = stages

    def feed(self, value: Any) -> Any:
        for stage in self.stages:
            value = stage.feed(value)
        return value

    def close(self) -> Any:
        ended = self.stages[0].close()
        for stage in self.stages[1:]:
            ended = stage.feed(ended) + stage.close()
        return ended


class TailLines:
    """text -> lines at LF, for formats whose last line may end without one
    (JSON Lines, logs): close() returns the unfinished line, if any."""

    def __init__(self) -> None:
        self.partial = ""

    def feed(self, text: str) -> list[str]:
        *lines, self.partial = (self.partial + text).split("\n")
        return lines

    def close(self) -> list[str]:
        tail, self.partial = self.partial, ""
        return [tail] if tail else []


class JsonValues:
    """lines -> JSON values; blank lines carry none."""

    def feed(self, lines: list[str]) -> list[Any]:
        return [json.loads(line) for line in lines if line.strip()]

    def close(self) -> list[Any]:
        return []


class Batches:
    """items -> lists of ``size`` items (a screen updated every few tokens);
    close() returns the last, shorter batch, if any."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.held: list[Any] = []

    def feed(self, items: list[Any]) -> list[list[Any]]:
        self.held += items
        cut = len(self.held) - len(self.held) % self.size
        ready, self.held = self.held[:cut], self.held[cut:]
        return [ready[i : i + self.size] for i in range(0, cut, self.size)]

    def close(self) -> list[list[Any]]:
        rest, self.held = self.held, []
        return [rest] if rest else []


def sse_stages(profile: str, options: dict[str, Any] | None = None) -> list[Any]:
    """The package's three layers for one profile, with a fixture's limits: LayeredSSEParser's, built apart."""
    rules, options = get_profile(profile), options or {}
    return [
        Utf8Decoder(rules.decode_errors),
        LineSplitter(options.get("max_line_chars", DEFAULT_MAX_LINE_CHARS), rules.incomplete_is_error),
        EventAssembler(options.get("max_event_chars", DEFAULT_MAX_EVENT_CHARS), rules.incomplete_is_error),
    ]


#: chain name -> (what it shows, its stages for a profile, the streams it is fed).
CHAINS: dict[str, tuple[str, Callable[[str], list[Any]], dict[str, tuple[str, bytes]]]] = {
    "json-lines": (
        "JSON Lines from stages: the line stage's close() gives the last line",
        lambda _no_profile: [Utf8Decoder("replace"), TailLines(), JsonValues()],
        {
            "last-without-lf": ("three values, the last without LF", b'1\n"two"\n[3]'),
            "blank-tail": ("a blank line at the end", b'{"a": 1}\n\n'),
            "one-value": ("one value, no LF", '"caf\u00e9"'.encode()),
        },
    ),
    "batches": (
        "events, in batches of 2, in pairs of batches: each close() gives a last, shorter batch",
        lambda profile: [*sse_stages(profile), Batches(2), Batches(2)],
        {
            "five-events": (
                "two batches of two, then one event left at the end",
                b"data: a\n\ndata: b\n\ndata: c\n\ndata: d\n\ndata: e\n\n",
            ),
            "three-events": (
                "three events, CR and CRLF line ends",
                "data: \u00e9\r\n\r\ndata: b\r\rdata: c\n\n".encode(),
            ),
        },
    ),
    "nested-batches": (
        "the bytes in batches of 2, each batch then wrapped twice: the first stage's last, shorter batch must "
        "cross the two stages after it",
        lambda _no_profile: [Batches(2), Batches(1), Batches(1)],
        {
            "odd-length": ("an odd number of bytes: one is left for close()", b"abc"),
            "one-byte": ("one byte: only close() gives anything", b"x"),
        },
    ),
    "text-lines": (
        "two stages only: text, then lines",
        lambda _no_profile: [Utf8Decoder("replace"), TailLines()],
        {"cut-character": ("the stream ends inside a character: the decoder's close() gives U+FFFD", b"a\nb\xc3")},
    ),
}


# --- exercise 08: an answer read from a real stream --------------------------


def answer_of(served: bytes, cut_by_http: bool = False) -> tuple[str, bool]:
    """What exercise 08's reader must return for the bytes a server sent: the data of
    the ``message`` events joined, and False when the stream stopped inside a line or an
    event, or when HTTP itself says the body was cut (a chunked body dropped short)."""
    parser = SSEParser()
    events, whole = parser.feed(served), not cut_by_http
    try:
        events += [] if cut_by_http else parser.close()
    except IncompleteStream as err:
        events, whole = events + [event for event in err.events if isinstance(event, Event)], False
    return "".join(event.data for event in events if event.type == "message"), whole


# === the checks: declarations on the checking engine ==========================

#: Ways to cut the tasks' short streams: every single cut, every pair, empty reads, one-byte reads.
TASK_STRATEGIES = ("whole", "single", "pairs", "empty_reads", "one_byte")


def task_fixtures(family: str, streams: dict[str, tuple[str, bytes]]) -> list[Fixture]:
    """A task's streams as fixtures (no expected outcome stored: the task's reference gives it)."""
    return [
        Fixture(family, name, about, raw, (), {}, {}, TASK_STRATEGIES, __version__)
        for name, (about, raw) in streams.items()
    ]


def value_trace(factory: Callable[[], Any], chunks: list) -> Trace:
    """An object fed chunks: what each call returned, and the error's class."""
    return trace(factory, chunks, state=no_state)


# --- exercise 01 ---------------------------------------------------------------


@regrouped
def json_lines_oracle(chunks: list[bytes], profile: str, options: str) -> Trace:
    return value_trace(JsonLines, chunks)


JSON_LINES = StreamCheck(
    "your JSON Lines reader",
    rules(
        ("several", "feed returns every value its chunk completes: none, one or several"),
        ("at-once", "a value comes out of the feed whose chunk brings its LF, not later"),
        ("kept", "the unfinished line is kept for the next feed"),
        ("bytes-kept", "a line is decoded only once it is complete: a chunk may end inside a character"),
        ("blank", "blank lines carry no value"),
        ("lf-only", "only LF ends a line: a lone CR, U+2028 and the like end none"),
        ("last-line", "close(): what is left after the last LF, if not blank, is one last value"),
        ("blank-tail", "close(): a blank rest gives nothing"),
    ),
    lambda: task_fixtures("json-lines", JSON_LINES_STREAMS),
    lambda make, _profile, _options: make(),
    json_lines_oracle,
    value_trace,
    profiles=("",),
    noun="value",
    not_yours=NotYours(
        "write the reader yourself, on bytes: not on the package's parser or its layers, nor on the course's "
        "own reader or stages (not subclassed, held or called)",
        classes=(SSEParser, LayeredSSEParser, Utf8Decoder, LineSplitter, EventAssembler, JsonLines)
        + (Pipeline, TailLines, JsonValues, Batches),
    ),
)


@exercise("your JSON Lines reader")
def check_json_lines(factory: Callable[[], Any]) -> str:
    """Exercise 01: ``factory()`` returns a reader with ``feed(bytes) -> list`` and ``close() -> list``."""
    return f"{JSON_LINES.verify(factory)}, {json_lines_growth(factory)}"


def json_lines_growth(factory: Callable[[], Any]) -> str:
    """Exercise 01's growth: one long JSON string on one line, in small reads, at n and 4n bytes."""
    line = lambda size: b'"' + b"x" * (size - 3) + b'"\n'  # noqa: E731
    hint = (
        "Keep the unfinished line as pieces (a list) or in a bytearray, and search only the new chunk for an "
        "LF (what you hold has none): held + chunk copies, and a search of what is held reads, everything "
        "held on every read."
    )
    return long_line_growth(JSON_LINES.what, factory, JsonLines, line, 512 * 1024, hint)


# --- exercise 04, part 1 -------------------------------------------------------


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


# --- exercise 05, part 1 -------------------------------------------------------


#: The chains' streams: every single cut, empty reads, one-byte reads (a stage's end does not depend on pairs).
CHAIN_STRATEGIES = ("whole", "single", "empty_reads", "one_byte")
#: The shipped fixtures through the SSE layers: the layers are the package's, so one read each suffices.
SSE_CHAIN_STRATEGIES = ("whole",)


def plain(item: Any) -> Any:
    """Events as (type, data, last_event_id, retry), inside batches too."""
    if isinstance(item, list):
        return [plain(inner) for inner in item]
    return as_event(item) if isinstance(item, Event) else item


def chain_trace(factory: Callable[[], Any], chunks: list) -> Trace:
    return trace(factory, chunks, normalise=plain, state=no_state)


def pipeline_check(
    name: str,
    stages: Callable[[str, dict[str, Any]], list[Any]],
    fixtures: Callable[[], list[Fixture]],
    profiles: Sequence[str],
) -> StreamCheck:
    """One chain of fresh stages, fed every fixture under its partitions; the reference is :class:`Pipeline`."""

    @functools.lru_cache(maxsize=1 << 14)
    def oracle(raw: bytes, cuts: Partition, profile: str, options: str) -> Trace:
        return chain_trace(lambda: Pipeline(*stages(profile, json.loads(options))), chunks_of(raw, cuts))

    return StreamCheck(
        f"your pipeline ({name})",
        PIPELINE_RULES,
        fixtures,
        lambda make, profile, options: make(*stages(profile, options)),
        oracle,
        chain_trace,
        profiles=profiles,
        noun="item",
        not_yours=PACKAGE_PARSERS,
    )


PIPELINE_RULES = rules(
    ("feed-through", "feed passes its input through every stage in order and returns the last stage's output"),
    ("close-in-order", "close() closes the stages in order, first to last"),
    (
        "ends-pushed-on",
        "what each stage's close() gives goes through the feed of every later stage before that stage closes",
    ),
    (
        "close-returns-all",
        "close() returns all the last stage gave while closing: its feeds' output, then its close()'s",
    ),
    ("any-length", "any number of stages, of any kind"),
)
PACKAGE_PARSERS = NotYours(
    "write the composition yourself: not the package's LayeredSSEParser or SSEParser, nor the check's own Pipeline "
    "(not subclassed, held or called)",
    classes=(LayeredSSEParser, SSEParser, Pipeline),
    code=(layered_module, parser_module),
)


def chain_fixtures(chain: str) -> Callable[[], list[Fixture]]:
    shows, _stages, streams = CHAINS[chain]
    return lambda: [
        Fixture(chain, name, f"{about}; {shows}", raw, (), {}, {}, CHAIN_STRATEGIES, __version__)
        for name, (about, raw) in streams.items()
    ]


def chain_stages(chain: str) -> Callable[[str, Any], Any]:
    """The factory of ``chain``'s stages in a profile (the options are not used)."""
    return lambda profile, _options: CHAINS[chain][1](profile)


#: The chains whose ends matter first (a stage's end thrown away shows there), then the SSE layers on every fixture.
PIPELINE_CHECKS: tuple[StreamCheck, ...] = (
    *(
        pipeline_check(
            chain,
            chain_stages(chain),
            chain_fixtures(chain),
            EVERY_PROFILE if chain == "batches" else ("",),
        )
        for chain in CHAINS
    ),
    pipeline_check(
        "the SSE layers",
        sse_stages,
        lambda: [replace(fixture, checked_under=SSE_CHAIN_STRATEGIES) for fixture in load_fixtures()],
        EVERY_PROFILE,
    ),
)


@exercise("your pipeline")
def check_pipeline(factory: Callable[..., Any]) -> str:
    """Exercise 05, part 1: ``factory(*stages)`` returns an object with ``feed`` and ``close``."""
    verified = [check.verify(factory) for check in PIPELINE_CHECKS]
    return "; ".join(
        f"{check.what.removeprefix('your pipeline ')}: {said}"
        for check, said in zip(PIPELINE_CHECKS, verified, strict=False)
    )


# --- exercise 08 -----------------------------------------------------------------


#: name -> (why it matters, the stream): an answer in token events, with events that carry none.
ANSWER_STREAMS: dict[str, tuple[str, bytes]] = {
    "tokens": (
        "tokens, a ping between them, an emoji cut across writes",
        "data: Hel\n\nevent: ping\ndata: {}\n\ndata: lo \U0001f600\n\n".encode(),
    ),
    "crlf": ("CRLF line ends, a two-line event (its lines join with LF)", b"data: a\r\n\r\ndata: b\r\ndata: c\r\n\r\n"),
    "comments": ("a keep-alive comment and an id-only block", b": keep-alive\n\nid: 1\n\ndata: x\n\n"),
}
#: Seconds between the server's writes: a loopback client then reads most writes on their own.
ANSWER_PAUSE = 0.002


@dataclass(frozen=True)
class ServedCase:
    """One served stream: cut short at ``drop_at``, compressed or not."""

    name: str
    body: bytes
    drop_at: int
    encoding: str | None
    chunked: bool = False

    @property
    def served(self) -> bytes:
        return self.body[: self.drop_at]

    @property
    def cut_by_http(self) -> bool:
        """A chunked body dropped short: httpx raises RemoteProtocolError while it is read."""
        return self.chunked and self.drop_at < len(self.body)

    def expected(self) -> tuple[str, bool]:
        return answer_of(self.served, self.cut_by_http)

    def show(self) -> str:
        dropped = "" if self.drop_at == len(self.body) else f", dropped after byte {self.drop_at} of {len(self.body)}"
        coded = ", sent gzip-compressed (Content-Encoding: gzip)" if self.encoding else ""
        framed = ", sent chunked (Transfer-Encoding: chunked)" if self.chunked else ""
        return f"stream {self.name}{dropped}{coded}{framed}; the server sent\n    {self.served!r}"


#: How the cases are served, in turn: plain, gzip, chunked, gzip and chunked (the body's two endings, and both codings).
SERVED_AS: tuple[tuple[str | None, bool], ...] = ((None, False), ("gzip", False), (None, True), ("gzip", True))


def served_cases() -> list[ServedCase]:
    """Each stream whole and dropped after each line end and just before it, served in turn
    plain, gzip-compressed, chunked, and both; smallest first. A close-delimited body just
    ends at a drop; a chunked one is cut, and httpx says so."""
    cases: set[tuple[str, bytes, int]] = set()
    for name, (_about, body) in ANSWER_STREAMS.items():
        ends = [i + 1 for i, byte in enumerate(body) if byte in b"\r\n"]
        cases.update((name, body, drop) for drop in {len(body), *ends, *(end - 1 for end in ends)} if drop > 0)
    ordered = sorted(cases, key=lambda case: (case[2], case[0]))
    return [
        ServedCase(name, body, drop, *SERVED_AS[i % len(SERVED_AS)]) for i, (name, body, drop) in enumerate(ordered)
    ]


ANSWER_NOT_YOURS = NotYours(
    "read the response yourself, with one strict parser: not the course's own answer_of, "
    "nor the package's reconnecting client",
    code=(answer_of, client_module),
)


@exercise("your read_answer")
def check_read_answer(read_answer: Callable[[httpx.Client, str], tuple[str, bool]]) -> str:
    """Exercise 08: serve every case for real; ``read_answer(client, url)`` must return
    the text of the ``message`` events that arrived whole, and whether the stream did."""
    cases = served_cases()
    watch = Watch(ANSWER_NOT_YOURS)
    with httpx.Client(timeout=TIMEOUT) as client:
        for case in cases:
            check_served(read_answer, client, case, watch)
    return (
        f"on {len(cases)} real streams, cut after every line end and just before it, "
        "ending with the connection or as a cut chunked body, plain or gzip-compressed"
    )


def check_served(
    read_answer: Callable[[httpx.Client, str], tuple[str, bool]],
    client: httpx.Client,
    case: ServedCase,
    watch: Watch,
) -> None:
    """Serve one case, call the learner's reader on it, raise what differs."""
    with SSEServer(
        case.body,
        cuts=interesting_cuts(case.served),
        pause=ANSWER_PAUSE,
        drop_at=case.drop_at,
        encoding=case.encoding,
        chunked=case.chunked,
    ) as server:
        try:
            got = watched(watch, read_answer, client, server.url)
        except NotAttempted:
            raise
        except Exception as err:  # a wrong reader may raise anything: that is what it did
            got = err
    if watch.reached:
        raise not_yours("your read_answer", ANSWER_NOT_YOURS, watch.reached[0])
    expected = case.expected()
    if got != expected:
        kind, says, details, direction = answer_difference(case, expected, got)
        raise failed("your read_answer", kind, says, details, direction=direction, fixture=case.name, raw=case.served)


def answer_difference(case: ServedCase, expected: tuple[str, bool], got: Any) -> tuple[Kind, str, str, str]:
    """Kind, headline sentence and details of a wrong answer; the headline names the fix where it can."""
    details = f"{case.show()}\nexpected: {expected!r}\n     got: {got!r}"
    if isinstance(got, Exception):
        hint = ""
        if isinstance(got, httpx.RemoteProtocolError) and case.cut_by_http:
            hint = (
                " The body was sent chunked and the connection dropped before its end: httpx raises"
                " RemoteProtocolError while you read. Catch it and treat it as the stream ending early:"
                " keep the text that arrived whole, and report that the stream did not."
            )
        elif case.encoding and isinstance(got, SSEError):
            hint = " The body is compressed: read response.iter_bytes(), which undoes gzip; iter_raw() hands over the compressed bytes."  # noqa: E501
        elif isinstance(got, SSEError):
            hint = " A cut stream is expected here: catch IncompleteStream and keep the events that arrived whole."
        return Kind.WRONG_ERROR, f"it raises {type(got).__name__}: {got}.{hint}", details, "unexpected"
    if not (isinstance(got, tuple) and len(got) == 2):
        return (
            Kind.WRONG_VALUE,
            f"it should return a pair (text, arrived_whole), not {type(got).__name__}.",
            details,
            "",
        )
    (text, whole), (got_text, got_whole) = expected, got
    if got_text != text:
        if text.startswith(got_text):
            return (
                Kind.MISSING,
                f"the text lacks {text[len(got_text) :]!r}, which arrived in whole events.",
                details,
                "never",
            )
        if got_text.startswith(text):
            return (
                Kind.EXTRA,
                f"the text has {got_text[len(text) :]!r} more than the message events that arrived whole.",
                details,
                "more",
            )
        return Kind.WRONG_VALUE, f"the text should be {text!r}, yours is {got_text!r}.", details, ""
    if got_whole and not whole:
        why = (
            "the chunked body was cut (httpx raised RemoteProtocolError while reading it)"
            if case.cut_by_http
            else "the stream stopped inside a line or an event: a strict parser raises IncompleteStream "
            "when such a body ends (from close(), or from iter_sse at the end of the body)"
        )
        return Kind.MISSING_ERROR, f"{why}, and your reader says it arrived whole.", details, "none raised"
    return (
        Kind.WRONG_ERROR,
        "the stream ended cleanly after a blank line, and your reader says it was cut.",
        details,
        "unexpected",
    )


# --- exercise 07 -----------------------------------------------------------------


def strict_in(profile: str) -> bool:
    """A layer's ``strict`` argument: does an unfinished line or event raise at the end, in ``profile``?"""
    return get_profile(profile).incomplete_is_error


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
