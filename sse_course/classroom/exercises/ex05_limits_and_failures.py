"""Exercise 05: any chain of sans-I/O stages (part 1) and a line limit that fires before buffering (part 2).

Part 1's reference :class:`Pipeline` composes stages whose end output matters
(:class:`TailLines`, :class:`JsonValues`, :class:`Batches`, given to the learner);
part 2 is checked as the line splitter's slot, on the limit fixtures.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ... import __version__, lines
from ... import layered as layered_module
from ... import parser as parser_module
from ...decoding import Utf8Decoder
from ...errors import DEFAULT_MAX_EVENT_CHARS, DEFAULT_MAX_LINE_CHARS, LineTooLong
from ...events import Event, EventAssembler
from ...layered import LayeredSSEParser
from ...lines import LineSplitter
from ...parser import SSEParser
from ...profiles import DEFAULT_PROFILE, get_profile
from ..checking import (
    Kind,
    NotYours,
    StreamCheck,
    Trace,
    Watch,
    exercise,
    failed,
    guarded,
    in_order,
    long_line_growth,
    not_yours,
    rules,
    trace,
)
from ..checking.compare import no_state
from ..checking.declare import EVERY_PROFILE
from ..checking.inputs import generated_fixtures, limit_fixtures
from ..checking.layers import HUGE_CHUNK_BYTES, HUGE_LIMIT, layer_check, refuses_huge_chunk, strict_in
from ..fixtures import Fixture, load_fixtures
from ..harness import (
    Partition,
    as_event,
    chunks_of,
)
from ..zoo import compose

# --- part 1: any chain of stages ----------------------------------------------


class Pipeline:
    """Any sans-I/O stages in a row: each one's output is the next one's input."""

    def __init__(self, *stages: Any) -> None:
        if not stages:
            raise ValueError("a pipeline needs at least one stage")
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
    "one-stage": (
        "one stage alone: its feed and its close() are the pipeline's",
        lambda _no_profile: [Batches(2)],
        {"odd-length": ("an odd number of bytes: one is left for close()", b"abc")},
    ),
}


# --- part 1: the check --------------------------------------------------------


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
    ("any-length", "one stage or more, of any kind"),
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


# --- part 2: a limit that fires before buffering ------------------------------


def limit_arguments(profile: str, options: dict[str, Any]) -> dict[str, Any]:
    return {"max_line_chars": options.get("max_line_chars", DEFAULT_MAX_LINE_CHARS), "strict": strict_in(profile)}


LINE_LIMIT = layer_check(
    "splitter",
    "your bounded line splitter",
    rules(
        ("over-the-limit", "a line longer than max_line_chars raises LineTooLong"),
        ("at-the-limit", "a line of exactly max_line_chars characters is fine (the line end is not counted)"),
        ("unfinished-counts", "the unfinished line from earlier reads counts toward the limit"),
        ("completed", "LineTooLong carries the lines completed before the long line starts"),
        ("before-buffering", "the limit fires in the feed() that passes it, before the chunk is buffered"),
    ),
    limit_arguments,
    empty=[],
    not_yours=NotYours(
        "write the limit yourself, in front of the package's LineSplitter: the splitter's own "
        "max_line_chars must not be what refuses the line, and LineLimit must not subclass it",
        bases=(LineSplitter,),
        raised_by=(lines,),
        errors=(LineTooLong,),
    ),
)


#: The shipped families whose lines a guard in front of the splitter must count right (the others
#: vary fields, which a line guard never sees).
LIMIT_FAMILIES = ("limits", "line_ends", "utf8", "bom", "eof")


LINE_LIMIT = replace(
    LINE_LIMIT,
    fixtures=lambda: [
        *in_order([f for f in load_fixtures() if f.family in LIMIT_FAMILIES], LIMIT_FAMILIES),
        *limit_fixtures(),
        *generated_fixtures(),
    ],
)


@exercise("your bounded line splitter")
def check_line_limit(factory: Callable[..., Any]) -> str:
    """Lesson 05: ``factory(max_line_chars=n, strict=...)`` returns a splitter
    that raises ``LineTooLong`` as soon as a line passes ``n`` characters."""
    LINE_LIMIT.refuse_subclass(factory)
    watch = Watch(LINE_LIMIT.not_yours, budget=0)  # judges the error only: no profiler in what tracemalloc measures
    make = guarded(factory, [], watch)
    limits = limit_arguments(DEFAULT_PROFILE, {"max_line_chars": HUGE_LIMIT})
    huge = compose(DEFAULT_PROFILE, {}, splitter=make(**limits))
    refused = refuses_huge_chunk(
        huge, "your bounded line splitter"
    )  # first: one read, where the full run takes a minute
    if watch.reached:  # the package splitter's own limit refused the chunk
        assert LINE_LIMIT.not_yours is not None  # the line limit check names what is not yours
        raise not_yours(LINE_LIMIT.what, LINE_LIMIT.not_yours, watch.reached[0])
    for before, after in HUGE_TEXT_SPLITS:  # the guard itself, fed one huge text with a line end in it
        text = "x" * before + "\n" + "x" * after
        refuses_huge_chunk(make(**limits), LINE_LIMIT.what, text)
    verified = LINE_LIMIT.verify(factory)
    for reads in completed_cases():
        check_completed(make, reads)
    return f"{verified} {refused}, {line_limit_growth(factory)}"


def completed_cases(limit: int = 8) -> list[tuple[str, ...]]:
    """Reads fed to the guard itself: a CR ends a read (or sits before the LF in the same read), the LF
    follows, then a line over the limit; the lines completed before it do not include it, nor an empty
    line for the LF of the CRLF."""
    long = "x" * (limit + 1)
    return [
        (first, second)
        for line in ("a", "")
        for first, second in (
            (line + "\r", "\n" + long + "\n"),
            (line + "\r", "\n" + long),
            (line + "\r\n" + long + "\n", ""),
            (line + "\r", "\rb\r\n" + long + "\r"),
        )
    ]


def check_completed(make: Callable[..., Any], reads: tuple[str, ...], limit: int = 8) -> None:
    """WRONG VALUE if the LineTooLong the guard raises does not carry the lines the package's
    splitter completes before the long line (or if it raises in another read, or none)."""

    def outcome(splitter: Any) -> tuple[int, list[str] | None]:
        for i, text in enumerate(reads):
            try:
                splitter.feed(text)
            except LineTooLong as err:
                return i, list(err.completed)
        return len(reads), None

    expected, got = outcome(LineSplitter(limit, True)), outcome(make(max_line_chars=limit, strict=True))
    if got != expected:
        raise failed(
            LINE_LIMIT.what,
            Kind.WRONG_VALUE,
            "LineTooLong should carry the lines completed before the long line, and only those.",
            f"the texts {list(reads)!r} at max_line_chars={limit}, fed one by one\n"
            f"expected: LineTooLong from read {expected[0] + 1} carrying {expected[1]!r}\n"
            f"     got: "
            + (f"LineTooLong from read {got[0] + 1} carrying {got[1]!r}" if got[1] is not None else "none"),
            direction="state",
        )


#: Huge texts fed to the guard itself, as the lengths before and after their one LF: a line end first, then
#: one in the middle. A guard that hands the text to its splitter before counting makes the splitter copy
#: what follows the LF (with no line end, the splitter may keep the caller's own text: nothing new is held).
HUGE_TEXT_SPLITS = ((0, HUGE_CHUNK_BYTES), (HUGE_CHUNK_BYTES // 2, HUGE_CHUNK_BYTES // 2))


def line_limit_growth(factory: Callable[..., Any]) -> str:
    """Exercise 05's growth: one long line of text under a limit it never reaches, at n and 4n characters."""
    unlimited = lambda: factory(max_line_chars=1 << 30, strict=True)  # noqa: E731
    text_line = lambda size: "x" * (size - 1) + "\n"  # noqa: E731
    reference = lambda: LineSplitter(1 << 30, True)  # noqa: E731
    return long_line_growth(LINE_LIMIT.what, unlimited, reference, text_line, 64 * 1024, LIMIT_HINT)


LIMIT_HINT = (
    "Count the unfinished line's characters as they come, adding each read's count to a total: joining or "
    "counting what is held again on every feed grows with the line."
)
