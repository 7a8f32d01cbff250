"""Each difference docs/migrating.md lists, shown on the same bytes: ours always, and
theirs (httpx-sse, the openai and anthropic SDKs' SSE decoders) wherever that
library is installed (httpx-sse is in requirements.txt; the SDKs in
benchmarks/requirements.txt)."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import httpx
import pytest

from sse_course import (
    DecodeError,
    Event,
    IncompleteStream,
    JSONPayloads,
    LineTooLong,
    NotAnEventStream,
    aconnect_sse,
    connect_sse,
    iter_events,
)
from sse_course.classroom.server import SSEServer

#: One event as every library can say it: (type, data, id, retry).
Seen = tuple[Any, str, Any, Any]
Peer = Callable[[list[bytes]], list[Seen]]


def event_stream(chunks: Iterable[bytes]) -> httpx.Response:
    """A streaming httpx response whose body arrives in ``chunks``, read as they come, with no network."""
    request = httpx.Request("GET", "http://127.0.0.1/")
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=iter(chunks), request=request)


def httpx_sse_events(chunks: list[bytes]) -> list[Seen]:
    from httpx_sse import EventSource

    return [(e.event, e.data, e.id, e.retry) for e in EventSource(event_stream(chunks)).iter_sse()]


def sdk_events(module: str) -> Peer:
    def events(chunks: list[bytes]) -> list[Seen]:
        decoder = importlib.import_module(module).SSEDecoder()
        return [(e.event, e.data, e.id, e.retry) for e in decoder.iter_bytes(iter(chunks))]

    return events


PEERS: dict[str, tuple[str, Peer]] = {
    "httpx-sse": ("httpx_sse", httpx_sse_events),
    "openai": ("openai", sdk_events("openai._streaming")),
    "anthropic": ("anthropic", sdk_events("anthropic._streaming")),
}


def installed(*names: str) -> list[Peer]:
    """The peers among ``names`` that are installed here (a missing one is left out, not skipped)."""
    return [PEERS[name][1] for name in names if importlib.util.find_spec(PEERS[name][0]) is not None]


SDKS = ("openai", "anthropic")
ALL = ("httpx-sse", *SDKS)


def ours(chunks: list[bytes], **options: Any) -> list[Seen]:
    return [(e.type, e.data, e.last_event_id, e.retry) for e in iter_events(chunks, **options)]


def test_connect_sse_sends_the_browsers_cache_header_and_leaves_the_callers_headers_alone() -> None:
    from_ours: dict[str, str] = {"X-Mine": "1"}
    with SSEServer(b"data: hi\n\n") as server, httpx.Client() as client:
        with connect_sse(client, "GET", server.url, headers=from_ours) as source:
            assert [event.data for event in source.iter_sse()] == ["hi"]
        ours_sent = server.requests[-1]
        if installed("httpx-sse"):
            import httpx_sse

            from_theirs = {"X-Mine": "1"}
            with httpx_sse.connect_sse(client, "GET", server.url, headers=from_theirs) as source:
                assert [event.data for event in source.iter_sse()] == ["hi"]
            theirs_sent = server.requests[-1]
            assert (theirs_sent["cache-control"], from_theirs["Cache-Control"]) == ("no-store", "no-store")
    assert (ours_sent["accept"], ours_sent["cache-control"], ours_sent["x-mine"]) == (
        "text/event-stream",
        "no-cache",
        "1",
    )
    assert from_ours == {"X-Mine": "1"}


def test_aconnect_sse_reads_the_same_events_as_connect_sse() -> None:
    async def read(url: str) -> list[str]:
        async with httpx.AsyncClient() as client, aconnect_sse(client, "POST", url, json={"q": 1}) as source:
            assert source.response.request.headers["accept"] == "text/event-stream"
            return [event.data async for event in source.aiter_sse()]

    with SSEServer(b"data: a\n\ndata: b\n\n", methods=("POST",), cuts=[3, 9]) as server:
        assert asyncio.run(read(server.url)) == ["a", "b"]
        assert server.log[-1].body == b'{"q":1}'


def test_a_response_that_is_not_a_200_is_refused_not_parsed() -> None:
    with SSEServer(b"data: oops\n\n", status=500) as server, httpx.Client() as client:
        with connect_sse(client, "GET", server.url) as source, pytest.raises(NotAnEventStream, match="got 500"):
            next(source.iter_sse())
        if installed("httpx-sse"):
            import httpx_sse

            with httpx_sse.connect_sse(client, "GET", server.url) as source:
                assert [event.data for event in source.iter_sse()] == ["oops"]


def test_the_field_names_and_json() -> None:
    chunks = [b'event: delta\nid: 7\ndata: {"text": "hi"}\n\n']
    event = next(iter_events(chunks))
    assert (event.type, event.last_event_id, json.loads(event.data)) == ("delta", "7", {"text": "hi"})
    assert JSONPayloads().feed([event]) == [{"text": "hi"}]
    for peer in installed(*ALL):
        assert peer(chunks) == [("delta", '{"text": "hi"}', "7", None)]


def test_an_unnamed_event_is_a_message_where_the_sdks_say_none() -> None:
    chunks = [b"data: x\n\n"]
    assert ours(chunks) == [("message", "x", "", None)]
    for peer in installed("httpx-sse"):
        assert peer(chunks) == [("message", "x", "", None)]
    for peer in installed(*SDKS):
        assert peer(chunks) == [(None, "x", None, None)]


def test_a_block_without_data_is_no_event() -> None:
    chunks = [b"event: ping\n\nid: 7\n\ndata: x\n\n\n"]
    assert ours(chunks) == [("message", "x", "7", None)]
    for peer in installed(*ALL):
        seen = peer(chunks)
        assert [data for _, data, _, _ in seen] == ["", "", "x", ""]  # one per blank line after an event type or an id


def test_retry_takes_ascii_digits_only_and_lasts_for_the_stream() -> None:
    chunks = [b"retry: 1_000\ndata: a\n\nretry: 50\ndata: b\n\nretry: +5\ndata: c\n\ndata: d\n\n"]
    assert [retry for *_, retry in ours(chunks)] == [None, 50, 50, 50]
    for peer in installed(*ALL):
        assert [retry for *_, retry in peer(chunks)] == [1000, 50, 5, None]


def test_invalid_utf8_is_an_error_with_its_offset_or_with_the_browser_profile_a_replacement() -> None:
    chunks = [b"data: a\n\ndata: \xff\n\n"]
    got: list[Event] = []
    with pytest.raises(DecodeError, match="at byte 15"):
        got.extend(iter_events(chunks))
    assert [event.data for event in got] == ["a"]
    assert [data for _, data, _, _ in ours(chunks, profile="browser")] == ["a", "\ufffd"]
    for peer in installed("httpx-sse"):
        assert [data for _, data, _, _ in peer(chunks)] == ["a", "\ufffd"]
    for peer in installed(*SDKS):
        with pytest.raises(UnicodeDecodeError, match="position 6"):  # in the line, not the stream
            peer(chunks)


def test_a_stream_cut_inside_an_event_is_an_error_or_with_the_browser_profile_dropped() -> None:
    chunks = [b"data: a\n\ndata: cut"]
    with pytest.raises(IncompleteStream):
        list(iter_events(chunks))
    assert ours(chunks, profile="browser") == [("message", "a", "", None)]
    for peer in installed(*ALL):
        assert [data for _, data, _, _ in peer(chunks)] == ["a"]


def test_a_bom_at_the_start_is_dropped_not_read_into_the_first_field_name() -> None:
    chunks = [b"\xef\xbb\xbfdata: first\n\ndata: second\n\n"]
    assert [data for _, data, _, _ in ours(chunks)] == ["first", "second"]
    for peer in installed(*ALL):
        assert [data for _, data, _, _ in peer(chunks)] == ["second"]


def test_an_event_whose_blank_line_ends_in_a_cr_comes_at_once_not_with_the_next_read() -> None:
    def delivered(read: Callable[[Iterator[bytes]], Iterator[str]]) -> list[tuple[int, str]]:
        """(reads made so far, data) for each event, as it comes."""
        reads = 0

        def chunks() -> Iterator[bytes]:
            nonlocal reads
            for chunk in (b"data: a\r\r", b"data: b\r\r"):
                reads += 1
                yield chunk

        return [(reads, data) for data in read(chunks())]

    assert delivered(lambda chunks: (event.data for event in iter_events(chunks))) == [(1, "a"), (2, "b")]
    if installed("httpx-sse"):
        from httpx_sse import EventSource

        def theirs(chunks: Iterator[bytes]) -> Iterator[str]:
            return (event.data for event in EventSource(event_stream(chunks)).iter_sse())

        assert delivered(theirs) == [(2, "a"), (2, "b")]


def test_limits_bound_a_line_and_an_event() -> None:
    chunks = [b"data: " + b"x" * 100 + b"\n\n"]
    with pytest.raises(LineTooLong):
        list(iter_events(chunks, max_line_chars=64))
    for peer in installed(*ALL):
        assert [len(data) for _, data, _, _ in peer(chunks)] == [100]
