"""events -> payloads: JSON from complete events only; the provider's contract is configuration."""

from __future__ import annotations

import json

import pytest

from sse_course import Event, PayloadError, SSEParser
from sse_course.classroom.fixtures import load_family
from sse_course.classroom.harness import chunks_of, partitions
from sse_course.payloads import JSONPayloads, excerpt, json_type, parse_json

PAYLOAD_FIXTURES = [f for f in load_family("payloads") if f.payload is not None]


def payloads_of(chunks: list[bytes], config: dict) -> tuple[list, str | None]:
    """Parse the chunks, then the payloads, as a client would: values and the error message."""
    parser, adapter, values = SSEParser(), JSONPayloads(**config), []
    try:
        for chunk in chunks:
            values += adapter.feed(parser.feed(chunk))
        values += adapter.feed(parser.close()) + adapter.close()
    except PayloadError as err:
        return values + err.payloads, str(err)
    return values, None


@pytest.mark.parametrize("fixture", PAYLOAD_FIXTURES, ids=lambda f: f.name)
def test_payload_fixture_under_every_partition(fixture) -> None:
    expected = (list(fixture.payload.values), fixture.payload.error)
    for cuts in partitions(fixture.raw, fixture.checked_under, fixture.cuts):
        assert payloads_of(chunks_of(fixture.raw, cuts), fixture.payload.config) == expected, cuts


def test_every_payload_fixture_has_a_payload_expectation() -> None:
    assert len(PAYLOAD_FIXTURES) == len(load_family("payloads"))


def test_per_chunk_json_parsing_fails_where_the_adapter_does_not() -> None:
    """The naive approach the adapter replaces: json.loads on each chunk."""
    raw = b'data: {"text": "hi"}\n\n'
    with pytest.raises(json.JSONDecodeError):
        [json.loads(chunk.decode().removeprefix("data: ")) for chunk in chunks_of(raw, (12,))]
    assert payloads_of(chunks_of(raw, (12,)), {}) == ([{"text": "hi"}], None)


def test_payload_error_is_not_an_sse_error_and_says_where() -> None:
    with pytest.raises(PayloadError) as caught:
        parse_json(Event("delta", "{oops"), 3)
    message = str(caught.value)
    assert message.startswith("event 4 (type 'delta', data '{oops')")  # index 3: the fourth event
    assert caught.value.index == 3 and caught.value.event == Event("delta", "{oops")


def test_excerpt_is_short() -> None:
    assert excerpt("x" * 100) == repr("x" * 40 + "...")
    assert excerpt("short") == "'short'"


@pytest.mark.parametrize(
    "value,name",
    [({}, "object"), ([], "array"), ("", "string"), (1, "number"), (1.5, "number"), (True, "boolean"), (None, "null")],
)
def test_json_type_names(value, name: str) -> None:
    assert json_type(value) == name


def test_adapter_counts_events_across_feeds() -> None:
    adapter = JSONPayloads()
    assert adapter.feed([Event("message", "1")]) == [1]
    with pytest.raises(PayloadError, match="^event 2 "):  # the second event fed, in a later feed()
        adapter.feed([Event("message", "nope")])
