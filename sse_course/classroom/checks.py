"""Exercise checks: run a learner's code over every fixture under the harness's partitions.

Each check is a declaration on the checking engine (:mod:`.checking`): its
inputs (the shipped fixtures, as data), its reference, what it observes and the
rules its task states; the engine runs it and words the verdict, so every
check behaves the same way:

* unattempted (``NotImplementedError`` anywhere in the learner's code): it
  prints that the exercise is not attempted yet, and does not raise, so an
  exercise notebook still runs top to bottom;
* wrong: it raises :class:`CheckFailed` (an ``AssertionError``) whose first
  line says what is wrong as a kind and a direction (``MISSING (late)``,
  ``EXTRA (early)``, ``WRONG VALUE``, ``WRONG ERROR``, ``MISSING ERROR``, ``NOT
  YOURS``), then the fixture that explains the case, the smallest split that
  still shows the same difference (fewest cuts, then the shortest input), and
  what each call returned, expected against got. In a notebook only that
  message is shown, not the frames of the engine;
* right: it prints what it verified (fixtures, partitions, profiles).

A layer is checked inside the package's parser (:func:`~sse_course.classroom.zoo.compose`):
the learner's decoder, line splitter or event assembler takes the place of the
package's own. Everything a caller can observe is compared with the package's
layered parser, read by read: the events each ``feed()`` and ``close()``
return, ``parser.last_event_id`` and ``parser.retry`` after each call (what a
reconnecting client relies on), and the error's class and ``offset``. Messages
are not compared, since a learner's wording may differ. Where a task says
"write X", the check also rejects code that reaches the package's X (NOT YOURS).

    from sse_course.classroom.checks import check_parser
    check_parser(lambda: MyParser(), profile="browser")
"""

from __future__ import annotations

import codecs
import encodings.utf_8
import functools
import inspect
import itertools
import json
import random
import re
import tracemalloc
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from .. import __version__, decoding, layered, lines, parser
from .. import events as package_events
from .. import payloads as payloads_module
from ..decoding import Utf8Decoder
from ..errors import DEFAULT_MAX_LINE_CHARS, LineTooLong, SSEError
from ..events import Event, EventAssembler
from ..layered import PROFILES, SLICE_BYTES, LayeredSSEParser
from ..lines import LineSplitter
from ..parser import SSEParser
from ..payloads import JSONPayloads
from ..profiles import DEFAULT_PROFILE, get_profile
from . import blocks
from .checking import (
    CheckFailed,
    Kind,
    NotAttempted,
    NotYours,
    Rule,
    StreamCheck,
    Trace,
    Watch,
    check_partitions,
    difference,
    exercise,
    failed,
    guarded,
    in_order,
    long_line_growth,
    many_lines_growth,
    not_yours,
    regrouped,
    rules,
    stand_in,
    trace,
    try_it,
    watched,
)
from .checking.compare import NO_STATE, carried_events, no_state, one_byte_reads, show_error
from .fixtures import Fixture, load_contract, load_fixtures
from .harness import (
    Partition,
    as_event,
    chunks_of,
    partitions,
    reference_outcome,
    show_split,
)
from .zoo import compose

__all__ = [
    "CheckFailed",
    "ContractError",
    "NotAttempted",
    "ProviderError",
    "try_it",
    "check_block_cutter",
    "check_byte_lines",
    "check_decoder",
    "check_encoder",
    "check_event_assembler",
    "check_json_adapter",
    "check_line_limit",
    "check_line_splitter",
    "check_named_events",
    "check_parser",
    "check_payloads",
    "check_safe_cut",
]

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


# --- what a caller observes, and the reference --------------------------------


def event_trace(factory: Callable[[], Any], chunks: Iterable[Any]) -> Trace:
    """A parser's trace: its events as tuples, its state after each call."""
    return trace(factory, chunks, normalise=as_event)


@regrouped
def reference_trace(chunks: list[bytes], profile: str, options: str) -> Trace:
    """What the package's layered parser gives: the oracle every parser check compares with."""
    return event_trace(lambda: compose(profile, json.loads(options)), chunks)


class StandIn:
    """Takes a layer's slot in the package's parser and keeps what the layers before it
    hand it (the lines, or the characters of the text); hands nothing on."""

    def __init__(self) -> None:
        self.handed: list = []

    def feed(self, value: Any) -> list:
        self.handed.extend(value)
        return []

    def close(self) -> list:
        return []

    def take(self) -> tuple:
        """What was handed since the last take."""
        taken, self.handed = tuple(self.handed), []
        return taken


def handed_trace(slot: str, chunks: list[bytes], profile: str, options: str) -> Trace:
    """What the package's layers before ``slot`` hand the layer in it, read by read:
    each read's lines (or characters), then the error they raise (its message too)
    with what they handed in that read. The layers before a slot never see what the
    layer in it returns, so this is all the layer is given, whatever it does."""
    stand_in = StandIn()
    parser = compose(profile, json.loads(options), **{slot: stand_in})
    handed: list[tuple] = []
    try:
        for chunk in chunks:
            parser.feed(chunk)
            handed.append(stand_in.take())
        parser.close()
    except SSEError as err:
        error = (f"{type(err).__name__}: {err}", getattr(err, "offset", None))
        return Trace(len(chunks), tuple(handed), (NO_STATE,) * len(handed), error, stand_in.take())
    return Trace(len(chunks), (*handed, stand_in.take()), (NO_STATE,) * (len(handed) + 1))


def handover(slot: str) -> Callable[[bytes, Partition, str, str], Any]:
    """What a layer in ``slot`` is handed under a split, as a key: two splits of a
    stream (in a profile, with options) with the same key hand the layer the same
    calls with the same arguments (a ``feed`` per read, then ``close()``), so a check
    runs it once for both.

    The layers before the slot run once per stream, a byte per read, as the reference
    does (:func:`regrouped`): a read is handed what its bytes complete, so the key is
    how many lines (or characters) the layer has been handed by the end of each read
    before the one that raises, if one does. Exact for the package's layers, which
    hand over what the bytes so far complete, not what the cuts make
    (tests/test_oracles.py compares the regrouped hand-over with direct runs). A read
    longer than ``SLICE_BYTES`` is fed in slices, a call each: such a split is its own key."""

    @functools.lru_cache(maxsize=1 << 12)
    def so_far(raw: bytes, profile: str, options: str) -> tuple[list[int], int]:
        """How much is handed by the end of each byte; the read that raised (byte
        ``raised - 1``), or one past the last byte."""
        steps = handed_trace(slot, one_byte_reads(raw), profile, options)
        counts = list(itertools.accumulate(len(call) for call in steps.calls[: len(raw) + 1]))
        return counts, len(steps.calls) if steps.error else len(raw) + 1

    def handed(raw: bytes, cuts: Partition, profile: str, options: str) -> tuple:
        ends = [*cuts, len(raw)]
        if any(b - a > SLICE_BYTES for a, b in zip([0, *cuts], ends, strict=False)):
            return ("sliced", *cuts)
        counts, raised = so_far(raw, profile, options)
        return tuple(counts[end] for end in ends if end < raised)

    return handed


#: What an event assembler is handed (a splitter is handed text that differs in nine
#: splits of ten: its key would cost more than the runs it saves).
HANDED_TO_ASSEMBLER = handover("assembler")


#: The fixture families that explain a layer's mistakes, searched first.
LAYER_FAMILIES = {
    "decoder": ("utf8", "bom"),
    "splitter": ("line_ends",),
    "assembler": ("fields", "ids", "retry", "eof"),
    "parser": ("utf8", "bom", "line_ends", "fields", "ids", "retry", "eof"),
}


def _strict(profile: str) -> bool:
    """A layer's ``strict`` argument in ``profile``: does an unfinished line or event raise at the end?"""
    return get_profile(profile).incomplete_is_error


def in_slot(slot: str, arguments: Callable[[str, dict[str, Any]], dict[str, Any]]) -> Callable[..., Any]:
    """Build the package's parser with the learner's layer in ``slot``, made with ``arguments(profile, options)``."""
    return lambda make, profile, options: compose(profile, options, **{slot: make(**arguments(profile, options))})


def by_strictness(profile: str, options: dict[str, Any]) -> dict[str, Any]:
    """A layer of the lines or events kind is made ``factory(strict=...)``."""
    return {"strict": _strict(profile)}


def layer_check(
    slot: str,
    what: str,
    rules_: tuple[Rule, ...],
    arguments: Callable[..., dict[str, Any]],
    keep: Callable[[Fixture], bool] = all_kept,
    first: tuple[str, ...] = (),
    **more: Any,
) -> StreamCheck:
    """A learner's layer in the package's parser, in place of its ``slot``, in both profiles."""
    return StreamCheck(
        what,
        rules_,
        lambda: all_fixtures(keep, first or LAYER_FAMILIES[slot]),
        in_slot(slot, arguments),
        reference_trace,
        event_trace,
        full_trace=True,
        **more,
    )


#: Strategies under which each read's events are compared, not only the totals.
PER_READ_STRATEGIES = ("single", "empty_reads", "one_byte", "interesting")


def per_read(factory: Callable[[], Any], chunks: list[bytes]) -> list[list]:
    """The events each ``feed`` returned, then ``close()``'s, up to an error."""
    return [list(call) for call in trace(factory, chunks).calls]


def accepts_limits(factory: Callable[..., Any]) -> bool:
    """Can ``factory`` take ``max_line_chars=`` and ``max_event_chars=``?"""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    names = {p.name for p in params}
    return any(p.kind is p.VAR_KEYWORD for p in params) or {"max_line_chars", "max_event_chars"} <= names


def refuses_huge_chunk(parser: Any, what: str, chunk: bytes | str = b"data: " + b"x" * HUGE_CHUNK_BYTES) -> str:
    """Feed one huge chunk (by default with no line end) under a small line limit: the
    limit must fire in that feed, before the chunk is buffered whole."""
    tracemalloc.start()
    try:
        parser.feed(chunk)
        got = "feed() returned: the line is being buffered"
    except Exception as err:  # a wrong parser may raise anything
        got = f"{type(err).__name__}: {err}"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    shown = f"one read of {len(chunk):,} {'bytes' if isinstance(chunk, bytes) else 'characters'}, max_line_chars={HUGE_LIMIT}\n    {chunk[:12]!r}...  (a single read)"  # noqa: E501
    if not got.startswith("LineTooLong"):
        raise failed(
            what,
            Kind.MISSING_ERROR,
            "the limit did not fire in the feed() that passed it.",
            f"{shown}\nexpected: LineTooLong raised by that feed()\n     got: {got[:200]}",
            direction="none raised",
        )
    if peak > HUGE_PEAK_BYTES:
        raise failed(
            what,
            Kind.MISSING_ERROR,
            f"LineTooLong came only after holding {peak // 1024} KiB for a {HUGE_LIMIT}-character limit "
            f"(allowed: {HUGE_PEAK_BYTES // 1024} KiB): check the limit before buffering the chunk.",
            shown,
            direction="none raised",
        )
    return f"and refuses one {len(chunk) >> 20} MiB chunk at max_line_chars={HUGE_LIMIT} holding under {HUGE_PEAK_BYTES >> 20} MiB"  # noqa: E501


# --- the whole parser -------------------------------------------------------

PARSER = StreamCheck(
    "your parser",
    rules(("standard", "every fixture's events and errors, read by read, as the package's parser gives them")),
    lambda: all_fixtures(first=LAYER_FAMILIES["parser"]),
    lambda make, _profile, options: make(**options),
    reference_trace,
    event_trace,
    full_trace=True,
)


@exercise("your parser")
def check_parser(factory: Callable[..., Any], profile: str = "strict") -> str:
    """Check a whole parser: ``factory()`` returns an object with ``feed(bytes)``
    and ``close()`` returning ``Event``s, objects with ``.type``/``.data``, or
    ``(type, data)`` tuples. If ``factory`` accepts ``max_line_chars`` and
    ``max_event_chars`` keywords, the limit fixtures run too, and a huge chunk."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
    limits = accepts_limits(factory)
    keep = all_kept if limits else without_option("max_line_chars", "max_event_chars")
    declared = replace(PARSER, profiles=(profile,), fixtures=lambda: all_fixtures(keep, LAYER_FAMILIES["parser"]))
    verified = declared.verify(factory)
    if not limits:
        return verified + " (limit fixtures skipped: the factory takes no max_line_chars/max_event_chars)"
    return verified + " " + refuses_huge_chunk(guarded(factory)(max_line_chars=HUGE_LIMIT), "your parser")


# --- the layers -------------------------------------------------------------


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


def not_ascii(fixture: Fixture) -> bool:
    """A stream a decoder has work in: a byte that is not ASCII, or the end of the stream to report.
    (A stream of ASCII alone decodes the same whatever the decoder does with held bytes.)"""
    return fixture.family in ("eof", "limits") or any(byte >= 0x80 for byte in fixture.raw)


DECODER = layer_check(
    "decoder",
    "your decoder",
    rules(
        ("whole-characters", "decode the whole characters; hold the bytes of one cut by a read for the next read"),
        ("final", "at the end of the stream (close), decode all that is held: a cut character is an error or U+FFFD"),
        ("bom-once", "U+FEFF is dropped once, from the stream's first text"),
        ("strict-raises", "in the strict profile an invalid byte raises DecodeError"),
        ("replace", "with errors='replace' an invalid byte becomes U+FFFD"),
        ("offset-in-stream", "DecodeError's offset counts from the start of the stream"),
        ("completed", "DecodeError's completed is the text before the bad byte"),
    ),
    lambda profile, _options: {"errors": get_profile(profile).decode_errors},
    not_ascii,
    empty="",
    not_yours=NotYours(
        "write the decoder yourself, with bytes.decode and your safe_cut: no codecs incremental decoder, "
        "no Utf8Decoder, not the course's own safe_cut (not subclassed, held or called)",
        classes=(Utf8Decoder, codecs.IncrementalDecoder),
        code=(codecs, encodings.utf_8, decoding, codecs.utf_8_decode, codecs.getincrementaldecoder, whole_characters),
    ),
    parts=(("safe_cut", stand_in(whole_characters, "safe_cut")),),
)


@exercise("your decoder")
def check_decoder(factory: Callable[..., Any]) -> str:
    """Exercise 02: ``factory(errors="strict" | "replace")`` returns a decoder with
    ``feed(bytes) -> str`` and ``close() -> str`` (BOM dropped once, at the
    start; strict errors raise ``DecodeError`` carrying the text before them)."""
    return DECODER.verify(factory)


LINE_SPLITTER = layer_check(
    "splitter",
    "your line splitter",
    rules(("line-ends", "CR, LF and CRLF end a line; a CR ends it at once; one LF after a CR is skipped")),
    by_strictness,
    without_option("max_line_chars"),
    empty=[],
)


@exercise("your line splitter")
def check_line_splitter(factory: Callable[..., Any]) -> str:
    """Lesson 03: ``factory(strict=True | False)`` returns a splitter with
    ``feed(text) -> list[str]`` and ``close() -> list[str]``; limits come later."""
    return LINE_SPLITTER.verify(factory)


EVENT_ASSEMBLER = layer_check(
    "assembler",
    "your event assembler",
    rules(("fields", "fields, dispatch, id and retry as the standard says")),
    by_strictness,
    without_option("max_event_chars"),
    empty=[],
    same_calls=HANDED_TO_ASSEMBLER,
)


@exercise("your event assembler")
def check_event_assembler(factory: Callable[..., Any]) -> str:
    """Lesson 04: ``factory(strict=True | False)`` returns an assembler with
    ``feed(lines) -> list[Event]`` and ``close() -> list[Event]``."""
    return EVENT_ASSEMBLER.verify(factory)


def limit_arguments(profile: str, options: dict[str, Any]) -> dict[str, Any]:
    return {"max_line_chars": options.get("max_line_chars", DEFAULT_MAX_LINE_CHARS), "strict": _strict(profile)}


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


def carried_payloads(err: Exception) -> Iterable[Any]:
    """A payload error carries the payloads its ``feed()`` completed before it, in
    ``payloads`` (nothing is lost); an SSE error from the parser in front, its events."""
    payloads = getattr(err, "payloads", None)
    return carried_events(err) if payloads is None else payloads


def payload_trace(factory: Callable[[], Any], chunks: list) -> Trace:
    return trace(
        factory,
        chunks,
        normalise=lambda value: value,
        state=no_state,
        name=payload_error_name,
        carries=carried_payloads,
    )


def payload_oracle(reference: Callable[..., Any]) -> Callable[[bytes, Partition, str, str], Trace]:
    """The trace of the package's parser, then ``reference(**config)``, fed each read's events."""

    @functools.lru_cache(maxsize=1 << 14)
    def oracle(raw: bytes, cuts: Partition, profile: str, config: str) -> Trace:
        return payload_trace(lambda: AdapterPipeline(reference(**json.loads(config))), chunks_of(raw, cuts))

    return oracle


def payload_fixtures() -> list[Fixture]:
    """The payload fixtures, their adapter's config as their options."""
    return [
        replace(fixture, options=fixture.payload.config) for fixture in load_fixtures() if fixture.payload is not None
    ]


JSON_ORACLE = payload_oracle(JSONPayloads)

ADAPTER_RULES = rules(
    ("event-types", "only the configured event types carry JSON; others are skipped"),
    ("required-keys", "a payload lacking a required key raises the payload error"),
    ("end-marker", "the end marker yields no payload; an event after it, or no marker at close(), is an error"),
    ("own-error", "a broken payload raises a payload error of its own, not JSONDecodeError or an SSE error"),
    ("empty-data", "an event with empty data is a broken payload, not skipped"),
    ("nothing-lost", "a payload error carries, in its payloads attribute, the payloads its feed() completed before it"),
)

PAYLOADS = StreamCheck(
    "your payload pipeline",
    rules(("complete-events-only", "JSON is parsed from complete events only, never from a chunk")) + ADAPTER_RULES,
    payload_fixtures,
    lambda make, _p, config: make(**config),
    JSON_ORACLE,
    payload_trace,
    profiles=(DEFAULT_PROFILE,),
    noun="payload",
)
JSON_ADAPTER = replace(
    PAYLOADS,
    what="your JSON adapter",
    rules=ADAPTER_RULES,
    build=lambda make, _p, config: AdapterPipeline(make(**config)),
)


@exercise("your payload pipeline")
def check_payloads(factory: Callable[..., Any]) -> str:
    """``factory(**config)`` returns a bytes -> payloads pipeline with ``feed(chunk)``
    and ``close()``; ``config`` is ``JSONPayloads``'s (event_types, required_keys, end_marker)."""
    return PAYLOADS.verify(factory)


@exercise("your JSON adapter")
def check_json_adapter(factory: Callable[..., Any]) -> str:
    """Lesson 06: ``factory(**config)`` returns an adapter with ``feed(events) ->
    list`` and ``close() -> list``, raising its own error for a broken payload,
    which carries in ``payloads`` what the same ``feed()`` completed before it."""
    return JSON_ADAPTER.verify(factory)


# --- exercise 02: where a buffer can be cut ---------------------------------


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


SAFE_CUT_RULES = rules(
    ("promise-not-kept", "a lead byte that promises more bytes than follow it is held, with what follows it"),
    ("promise-kept", "a buffer that ends on a whole character is decodable whole"),
    ("invalid-not-held", "bytes invalid whatever follows (0xF8-0xFF, a continuation byte with no lead) are not held"),
)


SAFE_CUT_NOT_YOURS = NotYours(
    "work out the cut from the bytes yourself (which bytes are lead bytes, how many they promise): "
    "not with a decoder (codecs, Utf8Decoder) nor the course's own safe_cut",
    classes=(Utf8Decoder, codecs.IncrementalDecoder),
    code=(whole_characters, codecs, encodings.utf_8, decoding, codecs.utf_8_decode, codecs.getincrementaldecoder),
)


def safe_cut_rule(buffer: bytes, got: Any, expected: int) -> str:
    """Which rule a wrong cut breaks, in the task's words, and what it does to the bytes."""
    if not isinstance(got, int) or not 0 <= got <= len(buffer):
        return f"the cut is a number of bytes, from 0 to len(buffer) ({len(buffer)})."
    if got > expected:
        return (
            f"{buffer[expected:got]!r} would be decoded now, but it starts a character whose last bytes have "
            "not arrived (a lead byte that promises more bytes than follow it is held, with what follows it)."
        )
    held = buffer[got:expected]
    if _valid_so_far(held):
        return f"{held!r} would wait for nothing: those bytes end on a whole character and can be decoded now."
    return (
        f"{held!r} would be held, but no later byte can make it valid (bytes invalid whatever follows, "
        "0xF8-0xFF or a continuation byte with no lead, are not held: the decoder reports them now)."
    )


@exercise("your safe_cut")
def check_safe_cut(safe_cut: Callable[[bytes], int]) -> str:
    """Exercise 02: ``safe_cut(buffer)`` is the number of leading bytes that end
    on a character boundary (a lead byte's promise kept, or broken beyond repair)."""
    cases = safe_cut_cases()
    watch = Watch(SAFE_CUT_NOT_YOURS)
    for buffer in cases:
        expected, got = whole_characters(buffer), watched(watch, safe_cut, buffer)
        if watch.reached:
            raise not_yours("your safe_cut", SAFE_CUT_NOT_YOURS, watch.reached[0])
        if got != expected:
            low = isinstance(got, int) and got < expected
            raise failed(
                "your safe_cut",
                Kind.WRONG_VALUE,
                f"safe_cut({buffer!r}) should be {expected}, yours is {got!r}: {safe_cut_rule(buffer, got, expected)}",
                f"    decodable now: {buffer[:expected]!r}, held for the next read: {buffer[expected:]!r}",
                direction="too low" if low else "too high",
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


@regrouped
def line_oracle(chunks: list[bytes], profile: str, options: str) -> Trace:
    return line_trace(lambda: LatinLines(_strict(profile)), chunks)


#: The package's line splitting, which a "your own line splitter" task may not reach.
PACKAGE_LINES = (LineSplitter, lines, layered, parser)

BYTE_LINES = StreamCheck(
    "your byte line splitter",
    rules(
        ("lf", "an LF alone ends a line"),
        ("cr", "a CR alone ends a line"),
        ("crlf", "CRLF is one line end"),
        ("cr-at-once", "a CR that ends a chunk ends its line at once"),
        ("lf-after-cr-skipped", "one LF that starts the next chunk after a CR is skipped"),
        ("empty-chunk", "an empty chunk changes nothing (the LF after a CR is still skipped)"),
        ("unfinished-kept", "the unfinished line is kept for the next feed"),
        ("close-strict", "close(): an unfinished line raises IncompleteStream when strict"),
        ("close-browser", "close(): an unfinished line is dropped otherwise"),
        ("bytes-only", "lines are bytes, never decoded (invalid UTF-8 passes through)"),
    ),
    lambda: all_fixtures(without_option("max_line_chars"), ("line_ends",)),
    lambda make, profile, _options: make(strict=_strict(profile)),
    line_oracle,
    line_trace,
    noun="line",
    empty=[],
    not_yours=NotYours(
        "write the line splitter yourself, on bytes with bytes.find: not the package's LineSplitter "
        "(not subclassed, held or called) nor its parsers",
        classes=(LineSplitter, LatinLines),
        code=PACKAGE_LINES,
    ),
)


@exercise("your byte line splitter")
def check_byte_lines(factory: Callable[..., Any]) -> str:
    """Exercise 03: ``factory(strict=...)`` returns a splitter with ``feed(bytes)
    -> list[bytes]`` and ``close() -> list[bytes]``."""
    return f"{BYTE_LINES.verify(factory)}, {byte_lines_growth(factory)}"


def byte_lines_growth(factory: Callable[..., Any]) -> str:
    """Exercise 03's growth: one long line in small reads, at n and 4n bytes; and many short lines in one read."""
    make, reference = (lambda: factory(strict=True)), (lambda: LatinLines(True))
    grows = long_line_growth(BYTE_LINES.what, make, reference, data_line, 128 * 1024, HELD_LINE_HINT)
    many_lines_growth(BYTE_LINES.what, make, reference, b"data: x\n", MANY_LINES_BYTES)  # second: slower to refuse
    return grows


#: The size of the read that holds many lines (or blocks), in exercises 03's and 09's growth checks.
MANY_LINES_BYTES = 256 * 1024


#: Where a splitter's or cutter's work usually stops being linear.
HELD_LINE_HINT = (
    "Keep the unfinished line as pieces (a list) or in a bytearray, and search only the new chunk for a "
    "line end: held + chunk copies everything held on every read, and searching what is held from its "
    "start reads it all again."
)


def data_line(size: int, end: bytes = b"\n") -> bytes:
    """One data line of ``size`` bytes in all, then ``end``."""
    return b"data: " + b"x" * (size - 6) + end


# --- exercise 04: fields, and the server's side -----------------------------


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
ENCODE_TYPES = [None, "add", " add ", "", "\u00e9v", "message", "a:b", " ", "\t", "\u2028"]
ENCODE_IDS = [None, "7", "", " 8 ", "a:b", "\u2026", " ", "\u2028", "id: 9"]
ENCODE_RETRY = [None, 0, 7, 3000, 10**12]
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
                "no stream can carry this value.",
                f"{_call(refused)} should raise ValueError, yours gives {refusal!r}",
                direction="none raised",
            )
    return f"round-trips {2 * len(cases)} streams through the package's parser in both profiles, and refuses {len(ENCODE_REFUSED)} values no stream can carry"  # noqa: E501


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
                raise ContractError(f"event {index + 1}: {event.type!r} after done")
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
            raise ContractError(f"event {index + 1}: {event.type} data is not JSON") from None
        if not isinstance(value, dict) or not isinstance(value.get(key), str):
            raise ContractError(f"event {index + 1}: {event.type} needs a string {key!r}")
        return value[key]

    def close(self) -> list[str]:
        if not self.done:
            raise ContractError(f"the stream ended after {self.count} events without done")
        return []


#: Exercise 06's streams, as data (fixtures/contracts/named_events.json).
NAMED_EVENTS_STREAMS = load_contract("named_events")


@functools.cache
def contract_fixtures() -> tuple[Fixture, ...]:
    strategies = tuple(NAMED_EVENTS_STREAMS["checked_under"])
    return tuple(
        Fixture(
            "contract", stream["name"], stream["about"], stream["input"].encode(), (), {}, {}, strategies, __version__
        )
        for stream in NAMED_EVENTS_STREAMS["streams"]
    )


#: The events a generated contract stream is made of, each aimed at a rule of the contract.
CONTRACT_EVENTS: tuple[tuple[str, str], ...] = (
    ("delta", '{"text": "a"}'),
    ("delta", '{"text": ""}'),  # an empty text is a text
    ("delta", '{"text": "\\u00e9", "more": 1}'),  # other keys are allowed
    ("delta", '{"text": 1}'),  # not a string
    ("delta", '{"text": null}'),
    ("delta", '["text"]'),  # not an object
    ("delta", '"text"'),
    ("delta", "not json"),
    ("delta", '{"message": "m"}'),  # the other key
    ("error", '{"message": "overloaded"}'),
    ("error", '{"message": 5}'),
    ("error", "{}"),
    ("error", '{"text": "a"}'),
    ("done", "{}"),
    ("done", "not json"),  # done's data is anything
    ("ping", "{}"),
    ("usage", '{"text": "not a delta"}'),
    ("Delta", '{"text": "a"}'),  # types are compared exactly
    ("message", '{"text": "a"}'),
)


def contract_stream(rng: random.Random) -> bytes:
    """One to five events from :data:`CONTRACT_EVENTS`, often ending with done, sometimes with more after it."""
    events = [rng.choice(CONTRACT_EVENTS) for _ in range(rng.randint(1, 5))]
    if rng.random() < 0.6:
        events.insert(rng.randint(len(events) // 2, len(events)), ("done", "{}"))
    return "".join(f"event: {kind}\ndata: {data}\n\n" for kind, data in events).encode()


@functools.cache
def generated_contract_fixtures(count: int = GENERATED_COUNT, seed: int = GENERATED_SEED) -> tuple[Fixture, ...]:
    """Seeded streams of named events aimed at the contract's rules (the reference gives their outcome)."""
    rng = random.Random(seed)
    strategies = ("whole", "single", "one_byte")
    return tuple(
        Fixture(
            "generated-contract",
            f"stream-{i}",
            "generated: deltas, errors, done and other types, with data right and wrong",
            contract_stream(rng),
            (),
            {},
            {},
            strategies,
            __version__,
        )
        for i in range(count)
    )


def contract_error_name(err: Exception) -> str:
    return (
        type(err).__name__
        if isinstance(err, (ContractError, ProviderError))
        else f"{type(err).__name__} (not ContractError or ProviderError)"
    )


def contract_trace(factory: Callable[[], Any], chunks: list) -> Trace:
    return trace(factory, chunks, normalise=lambda value: value, state=no_state, name=contract_error_name)


@functools.lru_cache(maxsize=1 << 14)
def contract_oracle(raw: bytes, cuts: Partition, profile: str, options: str) -> Trace:
    return contract_trace(lambda: AdapterPipeline(NamedEventsReference()), chunks_of(raw, cuts))


NAMED_EVENTS = StreamCheck(
    "your named-events adapter",
    rules(
        ("delta-text", "a delta event gives the string under its 'text' key"),
        ("error-raises", "an error event raises ProviderError with its 'message', after the texts before it"),
        ("done-ends", "done ends the stream and gives no text"),
        ("others-skipped", "events of other types give nothing"),
        ("nothing-after-done", "an event after done raises ContractError"),
        ("done-required", "close() without done raises ContractError"),
        ("not-json", "data that is not JSON, or a delta without a string text, raises ContractError"),
    ),
    lambda: [*contract_fixtures(), *generated_contract_fixtures()],
    lambda make, _p, _o: AdapterPipeline(make()),
    contract_oracle,
    contract_trace,
    profiles=(DEFAULT_PROFILE,),
    noun="text",
    not_yours=NotYours(
        "write the adapter yourself: not the course's own reference, nor the package's JSON payload adapter "
        "(not subclassed, held or called)",
        classes=(NamedEventsReference, JSONPayloads, AdapterPipeline),
        code=(payloads_module,),
    ),
)


@exercise("your named-events adapter")
def check_named_events(factory: Callable[[], Any]) -> str:
    """Exercise 06: ``factory()`` returns an adapter with ``feed(events) -> list[str]``
    and ``close()``, raising the exercise's ContractError and ProviderError."""
    verified = NAMED_EVENTS.verify(factory)
    for about, feeds in NUMBERED_FEEDS:
        check_event_number(factory, about, feeds)
    return f"{verified}, and names the event a ContractError is about by its number among all the events fed"


#: Streams fed over several feeds (one stream each), whose last event breaks the contract: the
#: ContractError's message must name that event by its number among ALL the events fed, not this feed's.
NUMBERED_FEEDS: tuple[tuple[str, tuple[bytes, ...]], ...] = (
    (
        "a delta that is not JSON, in the third feed",
        (
            b'event: delta\ndata: {"text": "a"}\n\nevent: ping\ndata:\n\n',
            b"event: usage\ndata:\n\n",
            b"event: delta\ndata: x\n\n",
        ),
    ),
    (
        "an event after done, in a feed of its own",
        (b'event: delta\ndata: {"text": "a"}\n\nevent: done\ndata:\n\n', b"event: ping\ndata:\n\n"),
    ),
)


def check_event_number(factory: Callable[[], Any], about: str, feeds: tuple[bytes, ...]) -> None:
    """WRONG VALUE if the ContractError the last event raises does not carry its number among all the
    events fed (a count restarted on each feed says 1); any other outcome the stream check has judged."""
    parser, adapter = SSEParser(), factory()
    events = [parser.feed(stream) for stream in feeds]
    number = sum(map(len, events))
    try:
        for fed in events:
            adapter.feed(fed)
    except ContractError as err:
        if str(number) not in re.findall(r"\d+", str(err)):
            raise failed(
                NAMED_EVENTS.what,
                Kind.WRONG_VALUE,
                f"the ContractError should name event {number}, its number among all the events fed "
                f"(counting from 1 across feeds), and yours says {str(err)!r}.",
                f"{about}: {len(feeds)} feeds, each the events of these bytes:\n"
                + "\n".join(f"  feed {i}: {stream!r}" for i, stream in enumerate(feeds, 1)),
                direction="state",
            ) from None


# --- exercise 09: blocks cut on the bytes -------------------------------------


class Rest(bytes):
    """What a cutter's close() returns: the bytes after the last block, shown as such."""

    def __repr__(self) -> str:
        return f"rest {bytes.__repr__(self)}"


class CloseAsRest:
    """A block cutter as the engine observes it: close()'s bytes are its one item."""

    def __init__(self, cutter: Any) -> None:
        self.cutter = cutter

    def feed(self, chunk: bytes) -> list[Any]:
        return self.cutter.feed(chunk)

    def close(self) -> list[Rest]:
        return [Rest(self.cutter.close())]


def as_block(item: Any) -> Any:
    return item if isinstance(item, Rest) else bytes(item) if isinstance(item, (bytearray, memoryview)) else item


def block_trace(factory: Callable[[], Any], chunks: list) -> Trace:
    return trace(factory, chunks, normalise=as_block, state=no_state)


@functools.lru_cache(maxsize=1 << 16)
def block_oracle(raw: bytes, cuts: Partition, profile: str, options: str) -> Trace:
    return block_trace(lambda: CloseAsRest(blocks.BlockCutter()), chunks_of(raw, cuts))


def block_partitions(fixture: Fixture) -> list[Partition]:
    """A rule case's own split first, then every strategy of the harness."""
    own = [cuts for case, cuts in blocks.rule_fixtures() if case.id == fixture.id]
    return own + check_partitions(fixture)


BLOCK_CUTTER = StreamCheck(
    "your block cutter",
    rules(
        (
            "cr-at-once",
            "a block is complete as soon as the line end of its blank line arrives: a CR ends a line at once",
        ),
        ("lf-after-cr-dropped", "the LF right after a blank line's CR is in no block, even in a later chunk"),
        ("lf-after-empty-chunks", "that LF is still the CR's after any number of empty chunks"),
        ("every-blank-line", "CR, LF and CRLF each end a line: \\r\\r, \\n\\r\\n and \\r\\n\\r\\n end a block too"),
        (
            "every-byte-once",
            "every byte of the stream is in one block or in close()'s rest, once (but those dropped LFs)",
        ),
        ("bytes-only", "bytes only, never decoded: invalid UTF-8 passes through"),
        ("close-rest", "close() returns the bytes after the last block"),
    ),
    lambda: [*blocks.block_fixtures(), *generated_fixtures()],
    lambda make, _profile, _options: CloseAsRest(make()),
    block_oracle,
    block_trace,
    profiles=("",),
    noun="block",
    partitions=block_partitions,
    says=lambda fixtures, count: (
        f"gives the expected blocks read by read and the expected close() on "
        f"{len(fixtures) - len(blocks.RULE_CASES) - GENERATED_COUNT} fixtures, {GENERATED_COUNT} generated streams "
        f"and {len(blocks.RULE_CASES)} inputs chosen to separate the rules, under {count} partitions in all"
    ),
    not_yours=NotYours(
        "a cutter written on bytes alone: bytes.find / index / split and slicing, no decoding, "
        "and none of the package's decoder, line splitter or parsers (not subclassed, held or called)",
        classes=(blocks.BlockCutter, Utf8Decoder, LineSplitter, EventAssembler, SSEParser, LayeredSSEParser),
        code=(blocks, decoding, lines, package_events, layered, parser, codecs),
    ),
)


@exercise("your block cutter")
def check_block_cutter(factory: Callable[[], Any]) -> str:
    """Exercise 09: ``factory()`` returns a cutter with ``feed(bytes) -> list[bytes]``
    (the blocks the chunk completes) and ``close() -> bytes`` (the bytes after the
    last block), compared feed by feed with the course's (blocks.py)."""
    return f"{BLOCK_CUTTER.verify(factory)}, {block_cutter_growth(factory)}"


def block_cutter_growth(factory: Callable[[], Any]) -> str:
    """Exercise 09's growth: one long line, then a blank line, in small reads, at n and 4n bytes;
    and many short blocks in one read."""
    block = functools.partial(data_line, end=b"\n\n")
    grows = long_line_growth(BLOCK_CUTTER.what, factory, blocks.BlockCutter, block, 512 * 1024, HELD_LINE_HINT)
    many_lines_growth(BLOCK_CUTTER.what, factory, blocks.BlockCutter, b"data: x\n\n", MANY_LINES_BYTES)
    return grows


#: Every check's stated rules, by the name notebooks call it: tests/test_rules.py
#: holds a mutant per rule (the tasks of exercises 01, 04, 05, 07 and 08 list theirs in tasks.py, tests/test_tasks.py; lesson 10 in resume.py).  # noqa: E501
CHECK_RULES: dict[str, tuple[Rule, ...]] = {
    "check_safe_cut": SAFE_CUT_RULES,
    "check_decoder": DECODER.rules,
    "check_byte_lines": BYTE_LINES.rules,
    "check_encoder": ENCODER_RULES,
    "check_line_limit": LINE_LIMIT.rules,
    "check_named_events": NAMED_EVENTS.rules,
    "check_json_adapter": JSON_ADAPTER.rules,
    "check_payloads": PAYLOADS.rules,
    "check_block_cutter": BLOCK_CUTTER.rules,
}
