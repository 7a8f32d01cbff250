"""Exercise 06: a provider contract of named events, checked against :class:`NamedEventsReference`."""

from __future__ import annotations

import functools
import json
import random
import re
from collections.abc import Callable, Iterable
from typing import Any

from ... import __version__
from ... import payloads as payloads_module
from ...events import Event
from ...parser import SSEParser
from ...payloads import JSONPayloads
from ...profiles import DEFAULT_PROFILE
from ..checking import (
    Kind,
    NotYours,
    StreamCheck,
    Trace,
    exercise,
    failed,
    rules,
    trace,
)
from ..checking.compare import no_state
from ..checking.inputs import GENERATED_COUNT, GENERATED_SEED
from ..checks import AdapterPipeline
from ..fixtures import Fixture, load_contract
from ..harness import (
    Partition,
    chunks_of,
)

# --- a provider contract with named events ------------------------------------


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
