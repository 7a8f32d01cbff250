"""The reconnecting client, rule by rule, sync and async, against the demo server on loopback.

Sleeping is injected (the delays are recorded, not waited), so every test of
a reconnection delay runs at once and asserts the delay itself.
"""

from __future__ import annotations

import asyncio
import gzip
import re
import socket
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from sse_course import DecodeError, Event, SSEParser, iter_events
from sse_course.classroom.fixtures import get_fixture
from sse_course.classroom.server import SSEServer
from sse_course.client import (
    INITIAL_RECONNECTION_MS,
    AsyncEventSourceClient,
    Backoff,
    ConnectionFailed,
    EventSourceClient,
)
from sse_course.events import Comment
from sse_course.httpx_adapter import aiter_sse, iter_sse, sse_headers
from sse_course.reconnect import Body, ReconnectCore

TIMEOUT = 10.0
MODES = ("sync", "async")
THREE = b"retry: 40\nid: 1\ndata: a\n\nid: 2\ndata: b\n\nid: 3\ndata: c\n\n"
MID_SECOND = THREE.index(b"data: b") + 3  # a drop inside the second event


def read(mode: str, url: str, on_item: Callable[[Any, Any], None] | None = None, **options: Any):
    """Read ``url`` with the sync or async client until it ends; return (items, delays, client).

    ``on_item(client, item)`` runs in the loop body, as a caller's code would.
    The reconnection floor is off unless given: these tests read the stream's
    own ``retry`` in the delays (the floor has tests of its own).
    """
    options.setdefault("min_reconnection_ms", 0)
    delays: list[float] = []
    items: list[Any] = []
    if mode == "sync":
        with EventSourceClient(url, sleep=delays.append, **options) as source:
            for item in source:
                items.append(item)
                if on_item:
                    on_item(source, item)
        return items, delays, source

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    async def main() -> AsyncEventSourceClient:
        async with AsyncEventSourceClient(url, sleep=sleep, **options) as source:
            async for item in source:
                items.append(item)
                if on_item:
                    on_item(source, item)
        return source

    source = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    return items, delays, source


def datas(items: list[Any]) -> list[str]:
    return [item.data for item in items if isinstance(item, Event)]


def sent_ids(server: SSEServer) -> list[str | None]:
    return [headers.get("last-event-id") for headers in server.requests]


# --- requests -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_requests_carry_the_event_stream_headers_and_the_callers(mode: str) -> None:
    with SSEServer(b"data: a\n\n", end_with_204=True) as server:
        read(mode, server.url, headers={"X-Token": "t"}, max_reconnects=1)
    first = server.requests[0]
    assert first["accept"] == "text/event-stream" and first["cache-control"] == "no-cache"
    assert first["x-token"] == "t" and "last-event-id" not in first


@pytest.mark.parametrize("mode", MODES)
def test_an_initial_last_event_id_is_sent_on_the_first_request(mode: str) -> None:
    with SSEServer(THREE, end_with_204=True) as server:
        items, _, _ = read(mode, server.url, last_event_id="2")
    assert sent_ids(server) == ["2", "3"]
    assert datas(items) == ["c"]


@pytest.mark.parametrize("mode", MODES)
def test_post_body_and_method_are_sent_again_on_every_reconnection(mode: str) -> None:
    with SSEServer(THREE, methods=("POST",), drops=[MID_SECOND], end_with_204=True) as server:
        items, _, _ = read(mode, server.url, method="POST", json={"prompt": "hi"})
    assert datas(items) == ["a", "b", "c"]
    assert [(r.method, r.body) for r in server.log] == [("POST", b'{"prompt": "hi"}')] * 3
    assert {r.headers["content-type"] for r in server.log} == {"application/json"}


@pytest.mark.parametrize("mode", MODES)
def test_redirects_are_followed_on_every_connection(mode: str) -> None:
    with SSEServer(THREE, drops=[MID_SECOND], end_with_204=True) as server:
        items, _, _ = read(mode, server.url + "redirect")
    assert datas(items) == ["a", "b", "c"]
    assert [r.path for r in server.log] == ["/redirect", "/"] * 3


# --- reconnecting -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_drop_reconnects_with_last_event_id_after_the_streams_retry(mode: str) -> None:
    with SSEServer(THREE, drops=[MID_SECOND], end_with_204=True) as server:
        items, delays, source = read(mode, server.url)
    assert datas(items) == ["a", "b", "c"]
    assert sent_ids(server) == [None, "1", "3"]
    assert delays == [0.04, 0.04]
    assert source.ended == "204" and source.reconnection_ms == 40


@pytest.mark.parametrize("mode", MODES)
def test_without_retry_the_initial_reconnection_time_is_waited(mode: str) -> None:
    body = THREE.removeprefix(b"retry: 40\n")
    with SSEServer(body, end_with_204=True) as server:
        _, delays, _ = read(mode, server.url)
    assert delays == [INITIAL_RECONNECTION_MS / 1000]


@pytest.mark.parametrize("mode", MODES)
def test_a_partial_event_at_a_drop_is_discarded_and_sent_again(mode: str) -> None:
    with SSEServer(THREE, drops=[MID_SECOND + 4], end_with_204=True) as server:
        items, _, _ = read(mode, server.url)
    assert [(e.data, e.last_event_id) for e in items] == [("a", "1"), ("b", "2"), ("c", "3")]


@pytest.mark.parametrize("mode", MODES)
def test_the_strict_profile_also_reconnects_after_a_drop_mid_event(mode: str) -> None:
    with SSEServer(THREE, drops=[MID_SECOND], end_with_204=True) as server:
        items, _, _ = read(mode, server.url, profile="strict")
    assert datas(items) == ["a", "b", "c"]


@pytest.mark.parametrize("mode", MODES)
def test_a_network_error_reconnects_until_max_reconnects(mode: str) -> None:
    with socket.socket() as unused:  # a port nobody listens on
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}/"
        items, delays, source = read(mode, url, max_reconnects=2, reconnection_ms=5)
    assert items == [] and delays == [0.005, 0.005]
    assert source.ended == "max_reconnects" and source.attempts == 3


@pytest.mark.parametrize("mode", MODES)
def test_a_204_stops_for_good(mode: str) -> None:
    with SSEServer(b"", status=204) as server:
        items, delays, source = read(mode, server.url)
    assert items == [] and delays == [] and source.ended == "204"
    assert len(server.requests) == 1


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "status,content_type",
    [(500, "text/event-stream"), (404, "text/event-stream"), (200, "text/plain"), (200, "application/json"), (200, "")],
)
def test_another_status_or_type_fails_without_reconnecting(mode: str, status: int, content_type: str) -> None:
    with SSEServer(THREE, status=status, content_type=content_type) as server:
        with pytest.raises(ConnectionFailed, match=f"got {status}") as failed:
            read(mode, server.url)
    assert failed.value.status_code == status
    assert len(server.requests) == 1


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "content_type", ["text/event-stream", "Text/Event-Stream; Charset=UTF-8", "text/event-stream;charset=utf-8"]
)
def test_the_media_type_may_carry_parameters_in_any_case(mode: str, content_type: str) -> None:
    with SSEServer(THREE, content_type=content_type, end_with_204=True) as server:
        items, _, _ = read(mode, server.url)
    assert datas(items) == ["a", "b", "c"]


@pytest.mark.parametrize("mode", MODES)
def test_a_silent_stream_counts_as_dropped_after_the_read_timeout(mode: str) -> None:
    with SSEServer(THREE[: MID_SECOND - 3], hold=True) as server:
        started = time.monotonic()
        items, delays, source = read(mode, server.url, read_timeout=0.2, max_reconnects=1)
    assert time.monotonic() - started < 3
    assert datas(items) == ["a"]  # the second connection resumes after it, then goes silent too
    assert sent_ids(server) == [None, "1"] and source.ended == "max_reconnects"


@pytest.mark.parametrize("mode", MODES)
def test_restart_reconnects_at_once_from_the_id_given(mode: str) -> None:
    def restart_once(source: Any, item: Any) -> None:
        if item.data == "a" and source.attempts == 1:
            source.restart(last_event_id="2")

    with SSEServer(THREE, hold=True) as server:
        items, delays, _ = read(mode, server.url, on_item=restart_once, read_timeout=0.3, max_reconnects=1)
    assert datas(items) == ["a", "b", "c", "c"]  # the chunk already read is delivered first
    assert sent_ids(server) == [None, "2"]
    assert delays == []


@pytest.mark.parametrize("mode", MODES)
def test_restart_after_a_204_starts_anew_from_the_id_given(mode: str) -> None:
    def no_wait(_: float) -> None:
        pass

    async def no_wait_async(_: float) -> None:
        pass

    async def twice_async(url: str) -> tuple[list[Any], list[Any], str | None]:
        async with AsyncEventSourceClient(url, sleep=no_wait_async) as source:
            first = [item async for item in source]
            source.restart(last_event_id="1")
            return first, [item async for item in source], source.ended

    with SSEServer(THREE, end_with_204=True) as server:
        if mode == "sync":
            with EventSourceClient(server.url, sleep=no_wait) as source:
                first = list(source)
                source.restart(last_event_id="1")
                again, ended = list(source), source.ended
        else:
            first, again, ended = asyncio.run(asyncio.wait_for(twice_async(server.url), TIMEOUT))
    assert datas(first) == ["a", "b", "c"] and datas(again) == ["b", "c"] and ended == "204"
    assert sent_ids(server) == [None, "3", "1", "3"]


@pytest.mark.parametrize("mode", MODES)
def test_comments_are_delivered_only_on_request(mode: str) -> None:
    body = b": ping\r\ndata: a\r\n\r\n:\r\n"
    with SSEServer(body, end_with_204=True) as server:
        plain, _, _ = read(mode, server.url, max_reconnects=0)
        with_comments, _, _ = read(mode, server.url, comments=True, max_reconnects=0)
    assert plain == [Event("message", "a")]
    assert with_comments == [Comment("ping"), Event("message", "a"), Comment("")]


# --- backoff (beyond the standard) ------------------------------------------------------------


def test_backoff_grows_by_its_factor_up_to_its_cap_and_never_below_the_reconnection_time() -> None:
    backoff = Backoff(factor=2, cap_ms=500, jitter=0, base_ms=100)
    assert [backoff.delay_ms(100, n) for n in range(6)] == [100, 100, 200, 400, 500, 500]
    assert backoff.delay_ms(800, 3) == 800
    stretched = Backoff(factor=2, cap_ms=10_000, jitter=0.5, base_ms=100, random=lambda: 1.0)
    assert [stretched.delay_ms(100, n) for n in range(1, 4)] == [150, 300, 600]


@pytest.mark.parametrize("mode", MODES)
def test_backoff_is_reset_by_a_connection_that_delivered_events(mode: str) -> None:
    body = b"id: 1\ndata: a\n\n"
    with SSEServer(body, drops=[0, 0, 0, 0, len(body), 0, 0, 0]) as server:
        backoff = Backoff(factor=2, cap_ms=500, jitter=0, base_ms=100)
        items, delays, _ = read(mode, server.url, reconnection_ms=100, backoff=backoff, max_reconnects=7)
    assert datas(items) == ["a"]
    # four empty connections: 100, 200, 400, capped at 500; the fifth delivered:
    # back to 100, and the growth starts again from the next failure
    assert delays == [0.1, 0.2, 0.4, 0.5, 0.1, 0.1, 0.2]


def test_the_resume_state_sends_the_id_of_the_last_event_handed_over() -> None:
    state = ReconnectCore()
    items = state.items(Body(SSEParser("browser"), []), b"id: 1\ndata: a\n\nid: 2\ndata: b\n\n")
    assert next(items).data == "a" and state.last_event_id == "1"  # the caller may stop here
    assert list(items)[0].data == "b" and state.last_event_id == "2"


# --- closing leaves no connection ---------------------------------------------------------------


def wait_until_no_connection(server: SSEServer, left: int = 0) -> int:
    """The server's open connections, once they are down to ``left`` (or 3 s passed)."""
    deadline = time.monotonic() + 3
    while server.open_connections != left and time.monotonic() < deadline:
        time.sleep(0.01)
    return server.open_connections


@pytest.mark.parametrize("how", ["close in the loop", "break", "leave the with block", "iterate again"])
def test_sync_close_or_leaving_closes_the_connection(how: str) -> None:
    body = b"id: 1\ndata: a\n\nid: 2\ndata: b\n\n"
    with SSEServer(body, hold=True) as server, EventSourceClient(server.url) as source:
        for _ in source:
            assert server.open_connections == 1
            if how == "close in the loop":
                source.close()
            else:
                break
        if how == "iterate again":  # a new connection, from the last event handed over
            again = iter(source)
            assert next(again).data == "b"  # read before the break, not handed over: sent again
            assert wait_until_no_connection(server, left=1) == 1
            assert server.requests[-1]["last-event-id"] == "1"
            source.close()
        elif how == "leave the with block":
            source.__exit__(None, None, None)
        assert wait_until_no_connection(server) == 0
        # a break ends the loop, not the client: iterating again may go on; every other way closed it
        assert (source.ended, source.closed) == ((None, False) if how == "break" else ("closed", True))


@pytest.mark.parametrize("how", ["cancel", "aclose", "async with"])
def test_async_cancel_or_close_closes_the_connection(how: str) -> None:
    async def main(server: SSEServer) -> None:
        source = AsyncEventSourceClient(server.url)
        first = asyncio.Event()
        open_while_reading = []

        async def consume() -> None:
            async with source:
                async for _ in source:
                    open_while_reading.append(server.open_connections)
                    first.set()
                    if how == "async with":
                        break
            if how != "async with":
                await asyncio.sleep(60)

        task = asyncio.create_task(consume())
        await asyncio.wait_for(first.wait(), TIMEOUT)
        assert open_while_reading == [1]
        if how == "cancel":
            task.cancel()
        elif how == "aclose":
            await source.aclose()
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert source.closed

    with SSEServer(b"data: a\n\n", hold=True) as server:
        asyncio.run(asyncio.wait_for(main(server), TIMEOUT))
        assert wait_until_no_connection(server) == 0


# --- content codings at the httpx edge -----------------------------------------------------------

CODED = get_fixture("utf8/emoji-token-stream")


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
@pytest.mark.parametrize("mode", MODES)
def test_a_compressed_stream_reads_right_through_the_client(mode: str, encoding: str) -> None:
    with SSEServer(CODED.raw, cuts=[7, 9, 20], encoding=encoding, end_with_204=True) as server:
        items, _, _ = read(mode, server.url, max_reconnects=0)
    assert server.log[0].headers["accept-encoding"].startswith("gzip")
    assert items == list(CODED.expected["browser"].events)


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_compressed_stream_reads_right_through_the_edge(encoding: str) -> None:
    with SSEServer(CODED.raw, cuts=[7, 9, 20], encoding=encoding) as server, httpx.Client(timeout=TIMEOUT) as client:
        with client.stream("GET", server.url, headers=sse_headers()) as response:
            assert response.headers["content-encoding"] == encoding
            assert list(iter_sse(response)) == list(CODED.expected["strict"].events)

        async def read_async() -> list[Event]:
            async with httpx.AsyncClient(timeout=TIMEOUT) as aclient:
                async with aclient.stream("GET", server.url, headers=sse_headers()) as response:
                    return [event async for event in aiter_sse(response)]

        assert asyncio.run(read_async()) == list(CODED.expected["strict"].events)


def test_raw_reads_of_a_gzip_stream_are_what_the_edge_must_not_parse() -> None:
    """The mutant: ``iter_raw()`` in place of ``iter_bytes()`` fails on gzip as issue 13 reports."""
    with SSEServer(CODED.raw, encoding="gzip") as server, httpx.Client(timeout=TIMEOUT) as client:
        with client.stream("GET", server.url, headers=sse_headers()) as response:
            raw = b"".join(response.iter_raw())
    assert gzip.decompress(raw) == CODED.raw
    with pytest.raises(DecodeError, match=r"invalid UTF-8 at byte 1: b'\\x8b'"):
        list(iter_events([raw]))


def test_the_edge_test_fails_on_an_edge_that_reads_iter_raw(monkeypatch: pytest.MonkeyPatch) -> None:
    """The edge test above, run against the old edge (``iter_raw()``): it must fail."""
    monkeypatch.setattr(httpx.Response, "iter_bytes", httpx.Response.iter_raw)
    with pytest.raises(DecodeError, match=r"invalid UTF-8 at byte 1: b'\\x8b'"):
        test_a_compressed_stream_reads_right_through_the_edge("gzip")


def test_the_server_compresses_each_write_so_it_arrives_at_once() -> None:
    encoder = zlib.compressobj(wbits=16 + zlib.MAX_WBITS)
    first = encoder.compress(b"data: a\n\n") + encoder.flush(zlib.Z_SYNC_FLUSH)
    assert zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(first) == b"data: a\n\n"


# --- exactly once, whatever the drop point ---------------------------------------------------------

#: Streams with an ID on every event (so that resuming is exact): line ends of
#: every kind, multibyte characters, a BOM, comments, retry, a data-less block.
HAND_MADE = {
    "mixed": b"retry: 5\r\nid: 1\r\ndata: caf\xc3\xa9\r\n\r\n: keep-alive\nid: 2\ndata: b\ndata: b2\n\nid: 3\rdata: c\r\r",  # noqa: E501
    "id-only-block": b"id: 1\ndata: a\n\nid: 2\n\nid: 3\nevent: e\ndata: \xf0\x9f\x91\x8b\n\n",
    "bom-and-multibyte": "\ufeffid: 1\ndata: é€\n\nid: 2\ndata: 👋\n\nid: 3\ndata: ü\n\n".encode(),
}


#: Recorded real-server streams with an ID on every event: CRLF (sse-starlette) and LF (FastAPI).
#: (Not ids/id-spaces-and-unicode: HTTP strips the spaces around a header's
#: value, so an ID ' x ' cannot come back as Last-Event-ID, nor from a browser.)
RECORDED = ("servers/sse-starlette-stream", "servers/fastapi-stream")


def id_streams() -> dict[str, bytes]:
    streams = dict(HAND_MADE)
    for fixture_id in RECORDED:
        fixture = get_fixture(fixture_id)
        ids = [event.last_event_id for event in fixture.expected["browser"].events]
        assert len(set(ids)) == len(ids) and all(ids), fixture_id  # resuming is exact only with unique IDs
        streams[fixture_id] = fixture.raw
    return streams


def visible(events: list[Any]) -> list[Event]:
    return [e for e in events if isinstance(e, Event)]


def read_every_drop(
    mode: str, server: SSEServer, drops: range, state: type = ReconnectCore, profile: str = "browser"
) -> list[list[Any]]:
    """For each drop point: what the client delivered (one httpx client for all, no waiting).

    ``state`` swaps in a mutant of the client's memory, to show the harness rejects it.
    """
    options: dict[str, Any] = {"max_reconnects": 1, "profile": profile}  # the drop, then the rest: no third connection
    if mode == "sync":
        results = []
        with httpx.Client(timeout=TIMEOUT) as http:
            for drop in drops:
                server.replan(drops=[drop])
                source = EventSourceClient(server.url, client=http, sleep=lambda _: None, **options)
                source.core.__class__ = state
                results.append(list(source))
        return results

    async def no_wait(_: float) -> None:
        pass

    async def main() -> list[list[Any]]:
        results = []
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            for drop in drops:
                server.replan(drops=[drop])
                source = AsyncEventSourceClient(server.url, client=http, sleep=no_wait, **options)
                source.core.__class__ = state
                results.append([item async for item in source])
        return results

    return asyncio.run(asyncio.wait_for(main(), 4 * TIMEOUT))


#: (stream, profile): every stream in the browser profile; the strict profile,
#: whose parser raises at a cut character or event, on the hand-made streams
#: (multibyte characters and a BOM at the drop points), to keep the suite fast.
DROP_RUNS = [(name, "browser") for name in sorted(id_streams())] + [(name, "strict") for name in sorted(HAND_MADE)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name,profile", DROP_RUNS)
def test_every_event_exactly_once_in_order_whatever_the_drop_point(mode: str, name: str, profile: str) -> None:
    body = id_streams()[name]
    parser = SSEParser(profile)
    expected = visible(parser.feed(body) + parser.close())
    with SSEServer(body, end_with_204=True) as server:
        for drop, items in enumerate(read_every_drop(mode, server, range(len(body)), profile=profile)):
            assert visible(items) == expected, f"{name} ({profile}): dropped after byte {drop}: {body[:drop]!r}"


class ForgetsTheId(ReconnectCore):
    """Mutant: reconnects without ``Last-Event-ID``."""

    def begin(self, extra):
        begun = super().begin(extra)
        if begun is not None:
            begun[1].pop("Last-Event-ID", None)
        return begun


class DispatchesThePartialEvent(ReconnectCore):
    """Mutant: at a drop, dispatches the half-received event instead of discarding it."""

    def finish(self, body):
        yield from super().items(body, b"\n\n")
        yield from super().finish(body)


@pytest.mark.parametrize("mutant", [ForgetsTheId, DispatchesThePartialEvent])
def test_the_drop_point_harness_rejects_a_wrong_client(mutant: type) -> None:
    body = HAND_MADE["id-only-block"]
    parser = SSEParser("browser")
    expected = visible(parser.feed(body) + parser.close())
    with SSEServer(body, end_with_204=True) as server:
        results = read_every_drop("sync", server, range(len(body)), state=mutant)
    wrong = [drop for drop, items in enumerate(results) if visible(items) != expected]
    assert wrong, f"{mutant.__name__} passed the harness"


# --- the README section's example runs and prints what it says -------------------------------------

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_example_prints_what_the_readme_shows(capsys: pytest.CaptureFixture[str]) -> None:
    readme = README.read_text(encoding="utf-8")
    text = readme[readme.index("## The reconnecting client") :]
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    shown = re.search(r"```text\n(.*?)```", text, re.S).group(1)
    exec(compile(code, str(README), "exec"), {})
    assert capsys.readouterr().out == shown


@pytest.mark.parametrize("mode", MODES)
def test_a_parser_error_is_raised_not_reconnected(mode: str) -> None:
    from sse_course import LineTooLong

    delivered: list[Any] = []
    with SSEServer(b"data: a\n\ndata: " + b"x" * 100 + b"\n\n", end_with_204=True) as server:
        with pytest.raises(LineTooLong):
            read(mode, server.url, on_item=lambda source, item: delivered.append(item), max_line_chars=50)
    assert delivered == [Event("message", "a")]  # what came before the error is not lost
    assert len(server.requests) == 1
