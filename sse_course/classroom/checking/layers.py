"""What a caller observes, the reference's traces, and the check of one layer inside the package's parser."""

from __future__ import annotations

import functools
import inspect
import itertools
import json
import tracemalloc
from collections.abc import Callable, Iterable
from typing import Any

from ...errors import SSEError
from ...layered import SLICE_BYTES
from ...profiles import get_profile
from ..fixtures import Fixture
from ..harness import (
    Partition,
    as_event,
)
from ..zoo import compose
from .compare import NO_STATE, Trace, no_state, one_byte_reads, trace
from .declare import Rule, StreamCheck, regrouped
from .inputs import all_fixtures, all_kept
from .verdict import Kind, failed

#: A chunk with no line end, far larger than the limit it is fed under.
HUGE_CHUNK_BYTES = 8 << 20


HUGE_LIMIT = 1024


#: What a parser may allocate while refusing the huge chunk: the limit plus a
#: slice of the chunk (the package's parser decodes 64 KiB at a time), with room.
HUGE_PEAK_BYTES = 2 << 20


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


def strict_in(profile: str) -> bool:
    """A layer's ``strict`` argument in ``profile``: does an unfinished line or event raise at the end?"""
    return get_profile(profile).incomplete_is_error


def in_slot(slot: str, arguments: Callable[[str, dict[str, Any]], dict[str, Any]]) -> Callable[..., Any]:
    """Build the package's parser with the learner's layer in ``slot``, made with ``arguments(profile, options)``."""
    return lambda make, profile, options: compose(profile, options, **{slot: make(**arguments(profile, options))})


def by_strictness(profile: str, options: dict[str, Any]) -> dict[str, Any]:
    """A layer of the lines or events kind is made ``factory(strict=...)``."""
    return {"strict": strict_in(profile)}


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


def value_trace(factory: Callable[[], Any], chunks: list) -> Trace:
    """An object fed chunks: what each call returned, and the error's class."""
    return trace(factory, chunks, state=no_state)
