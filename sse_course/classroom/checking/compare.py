"""The one comparator: what a caller observes of a run, read by read, against the reference.

A :class:`Trace` is everything a caller can see of one run: each call's items
(``feed`` per chunk, then ``close``), the object's state after each call (for
a parser: ``last_event_id`` and ``retry``), then the error's class and offset
with the items it carried. :func:`difference` names the first thing that
differs, as a kind and a direction. Items are numbered from 1 ("event 1" is
the first event), as reads are ("read 1").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .verdict import Kind

#: An object has no such state (a learner's parser may not offer it).
NO_STATE = None


@dataclass(frozen=True)
class Trace:
    """All a caller can observe of one run."""

    reads: int
    calls: tuple[tuple, ...]
    states: tuple[Any, ...]
    error: tuple[str, int | None] | None = None
    carried: tuple = ()

    def items(self) -> list:
        """Every item, in order: those returned, then those the error carried."""
        return [item for call in self.calls for item in call] + list(self.carried)


def state_of(parser: Any) -> Any:
    """What a reconnecting client reads from a parser, if it offers it."""
    try:
        return (parser.last_event_id, parser.retry)
    except AttributeError:
        return NO_STATE


def no_state(parser: Any) -> Any:
    return NO_STATE


def error_name(err: Exception) -> str:
    return type(err).__name__


def identity(item: Any) -> Any:
    return item


def carried_events(err: Exception) -> Iterable[Any]:
    """What an SSE error carries: the events completed before it (nothing is lost)."""
    return getattr(err, "events", None) or ()


def trace(
    factory: Callable[[], Any],
    chunks: Iterable[Any],
    normalise: Callable[[Any], Any] = identity,
    state: Callable[[Any], Any] = state_of,
    name: Callable[[Exception], str] = error_name,
    carries: Callable[[Exception], Iterable[Any]] = carried_events,
) -> Trace:
    """Run a fresh object over the chunks, then close it; record what came out."""
    chunks = list(chunks)
    calls: list[tuple] = []
    states: list[Any] = []
    try:
        parser = factory()
        for chunk in [*chunks, None]:
            out = parser.close() if chunk is None else parser.feed(chunk)
            if not isinstance(out, (list, tuple)):  # shown as what it is, not taken apart item by item
                out = [NotAList(out, "close()" if chunk is None else "feed()")]
            calls.append(tuple(normalise(item) for item in out))
            states.append(state(parser))
    except Exception as err:  # a wrong object may raise anything: that is what it did
        carried = tuple(normalise(item) for item in carries(err))
        return Trace(len(chunks), tuple(calls), tuple(states), (name(err), getattr(err, "offset", None)), carried)
    return Trace(len(chunks), tuple(calls), tuple(states))


@dataclass(frozen=True)
class NotAList:
    """What a feed() or close() returned that is not a list: one item that says so."""

    value: Any
    call: str

    def __repr__(self) -> str:
        return f"<{self.call} returned {self.value!r}, a {type(self.value).__name__}, not a list>"


def one_byte_reads(raw: bytes) -> list[bytes]:
    """An empty read (its state is the state before the stream), then one read per byte."""
    return [b"", *(raw[i : i + 1] for i in range(len(raw)))]


def regroup(steps: Trace, cuts: tuple[int, ...]) -> Trace:
    """The trace under ``cuts``, from ``steps``: the trace of :func:`one_byte_reads`.

    Exact for an object whose output depends only on the bytes fed so far, not on
    how they were cut: a read's items are its bytes' items, its state the state
    after its last byte, and a read that holds the byte that raised raises, carrying
    its earlier bytes' items. The package's parser is such an object (that is what
    the course proves of it), so a check runs it once per stream, not once per split.
    """
    size = steps.reads - 1
    bounds = [0, *cuts, size]
    raised_at = len(steps.calls) if steps.error else None  # the step that raised: byte raised_at - 1
    calls: list[tuple] = []
    states: list[Any] = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        if raised_at is not None and a < raised_at <= b:
            carried = tuple(item for call in steps.calls[a + 1 : raised_at] for item in call) + steps.carried
            return Trace(len(bounds) - 1, tuple(calls), tuple(states), steps.error, carried)
        calls.append(tuple(item for call in steps.calls[a + 1 : b + 1] for item in call))
        states.append(steps.states[b])
    if raised_at == size + 1:  # close() raised
        return Trace(len(bounds) - 1, tuple(calls), tuple(states), steps.error, steps.carried)
    return Trace(len(bounds) - 1, (*calls, steps.calls[-1]), (*states, steps.states[-1]))


def same_item(expected: Any, got: Any) -> bool:
    """Equal, on the fields a learner's event provides (a ``(type, data)`` pair is enough)."""
    if isinstance(expected, tuple) and isinstance(got, tuple) and len(got) >= 2:
        return expected[: len(got)] == got
    return expected == got


def same_items(expected: list, got: list) -> bool:
    return len(expected) == len(got) and all(same_item(e, g) for e, g in zip(expected, got, strict=False))


def contains(longer: list, shorter: list) -> bool:
    """Is ``shorter`` a subsequence of ``longer`` (the rest being extra items)?"""
    rest = iter(longer)
    return all(any(same_item(item, other) for other in rest) for item in shorter)


@dataclass(frozen=True)
class Difference:
    """How a run differs from the reference. ``key`` (kind, direction, detail)
    stays fixed while the split is shrunk; ``says`` is the sentence for the learner."""

    kind: Kind
    direction: str
    says: str
    detail: tuple = ()

    @property
    def key(self) -> tuple:
        return (self.kind, self.direction, self.detail)


def call_name(index: int, reads: int) -> str:
    return "close()" if index == reads else f"read {index + 1}"


def count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def items_difference(where: str, expected: list, got: list, total_e: list, total_g: list, noun: str) -> Difference:
    """The direction of the first difference, found at the call ``where``."""
    if len(got) < len(expected) and same_items(expected[: len(got)], got):
        if len(total_g) >= len(total_e):
            return Difference(
                Kind.MISSING,
                "late",
                f"{where} should give {noun} {len(got) + 1}, {expected[len(got)]!r}; your code gives it only in a later call",  # noqa: E501
            )
        return Difference(
            Kind.MISSING, "never", f"{noun} {len(got) + 1}, {expected[len(got)]!r}, expected from {where}, never comes"
        )
    if len(got) > len(expected):
        if contains(got, expected) and len(total_g) > len(total_e):
            return Difference(
                Kind.EXTRA,
                "more",
                f"by {where} your code gave {count(len(got), noun)} where the stream holds {len(expected)}",
            )
        return Difference(
            Kind.EXTRA,
            "early",
            f"by {where} your code gave {count(len(got), noun)} where {len(expected)} are complete: "
            f"one came out before the line end or blank line that completes it",
        )
    if len(got) < len(expected):
        return Difference(
            Kind.MISSING,
            "never",
            f"by {where} your code gave {count(len(got), noun)} where {len(expected)} are complete",
        )
    j = next(j for j, (e, g) in enumerate(zip(expected, got, strict=False)) if not same_item(e, g))
    return Difference(
        Kind.WRONG_VALUE, "", f"{noun} {j + 1} (from {where}) should be {expected[j]!r}, your code gives {got[j]!r}"
    )


def difference(expected: Trace, got: Trace, noun: str = "event") -> Difference | None:
    """The first thing a caller would see differ, or None: items read by read,
    the state after each call, then the error (class and offset)."""
    if expected == got:
        return None
    so_far_e: list = []
    so_far_g: list = []
    for i, (call_e, call_g) in enumerate(zip(expected.calls, got.calls, strict=False)):
        so_far_e += call_e
        so_far_g += call_g
        if not same_items(so_far_e, so_far_g):
            return items_difference(
                call_name(i, expected.reads), so_far_e, so_far_g, expected.items(), got.items(), noun
            )
        state_e, state_g = expected.states[i], got.states[i]
        if NO_STATE not in (state_e, state_g) and state_e != state_g:
            name = "last_event_id" if state_e[0] != state_g[0] else "retry"
            value_e, value_g = (state_e[0], state_g[0]) if name == "last_event_id" else (state_e[1], state_g[1])
            return Difference(
                Kind.WRONG_VALUE,
                "state",
                f"after {call_name(i, expected.reads)}, parser.{name} should be {value_e!r}, yours is {value_g!r}"
                + (" (what a reconnecting client sends as Last-Event-ID)" if name == "last_event_id" else ""),
                (name,),
            )
    if (expected.error and expected.error[0]) != (got.error and got.error[0]):
        return error_difference(expected.error, got.error)
    total_e, total_g = expected.items(), got.items()
    if not same_items(total_e, total_g):
        return items_difference("the whole stream", total_e, total_g, total_e, total_g, noun)
    return error_difference(expected.error, got.error)


def error_difference(expected: tuple | None, got: tuple | None) -> Difference | None:
    if expected == got:
        return None
    if got is None:
        assert expected is not None  # the two differ
        return Difference(
            Kind.MISSING_ERROR,
            "none raised",
            f"the stream should raise {show_error(expected)}, your code raises nothing",
            (expected[0],),
        )
    if expected is None:
        return Difference(
            Kind.WRONG_ERROR, "unexpected", f"your code raises {show_error(got)} where the stream is fine", (got[0],)
        )
    if expected[0] != got[0]:
        return Difference(
            Kind.WRONG_ERROR,
            "other class",
            f"expected {show_error(expected)}, your code raises {show_error(got)}",
            (expected[0], got[0]),
        )
    return Difference(
        Kind.WRONG_VALUE,
        "offset",
        f"{show_error(expected)} is right, your code says byte {got[1]}: count from the start of the stream, bytes held from earlier reads included",  # noqa: E501
    )


def show_error(error: tuple) -> str:
    return error[0] + ("" if error[1] is None else f" at byte {error[1]}")


def show_trace(found: Trace, states: bool = False) -> str:
    """Each call's items, then the error with the items it carried, as one line;
    with ``states``, the parser's (last_event_id, retry) after each call too, so
    that two traces that differ only there do not print alike."""
    calls = "[" + ", ".join("[" + ", ".join(repr(item) for item in call) + "]" for call in found.calls) + "]"
    carried = f" carrying [{', '.join(repr(item) for item in found.carried)}]" if found.carried else ""
    shown = calls + (f" then {show_error(found.error)}{carried}" if found.error else "")
    return shown + (f"; (last_event_id, retry) after each call: {list(found.states)}" if states else "")
