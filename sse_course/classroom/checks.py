"""The lessons' checks: a whole parser, one of its layers, or a payload adapter, run over the fixtures.

Each exercise's own check lives with its inputs and its reference in
:mod:`sse_course.classroom.exercises`; the checks here are the ones a lesson calls.

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

import functools
import json
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from ..errors import SSEError
from ..parser import SSEParser
from ..payloads import JSONPayloads
from ..profiles import DEFAULT_PROFILE, PROFILES
from .checking import (
    CheckFailed,
    NotAttempted,
    StreamCheck,
    Trace,
    exercise,
    guarded,
    rules,
    trace,
    try_it,
)
from .checking.compare import carried_events, no_state
from .checking.inputs import all_fixtures, all_kept, without_option
from .checking.layers import (
    HANDED_TO_ASSEMBLER,
    HUGE_LIMIT,
    LAYER_FAMILIES,
    accepts_limits,
    by_strictness,
    event_trace,
    layer_check,
    reference_trace,
    refuses_huge_chunk,
)
from .fixtures import Fixture, load_fixtures
from .harness import (
    Partition,
    chunks_of,
)

__all__ = [
    "CheckFailed",
    "NotAttempted",
    "try_it",
    "check_event_assembler",
    "check_json_adapter",
    "check_line_splitter",
    "check_parser",
    "check_payloads",
]


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
