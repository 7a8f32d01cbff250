"""The demo server and the httpx edge, over real loopback connections.

Whatever the server's writes and whatever the client's reads, the events must
be the fixture's expected events; a stream dropped mid-event must give
IncompleteStream in strict and the standard's discard in browser; the server
must refuse any host that is not loopback and leave no thread behind.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import httpx
import pytest

from sse_course import Event, IncompleteStream, SSEError
from sse_course.classroom.fixtures import Fixture, get_fixture
from sse_course.classroom.harness import Outcome, agrees, interesting_cuts
from sse_course.classroom.plan import planned_writes, resume_points, writes_between
from sse_course.classroom.recording import fetch
from sse_course.classroom.server import SSEServer, main
from sse_course.httpx_adapter import NotAnEventStream, aiter_sse, iter_sse, sse_headers

TIMEOUT = 5.0
FIXTURES = [
    "utf8/emoji-token-stream",
    "utf8/lone-continuation",
    "line_ends/cr-lf-split",
    "line_ends/mixed",
    "line_ends/not-line-ends",
    "bom/bom-split-three-reads",
    "ids/id-reset-by-empty",
    "eof/incomplete-final-event",
    "fields/json-split-across-reads",
]


def cut_plans(fixture: Fixture) -> dict[str, list[int]]:
    """Whole body, the fixture's own cuts, its interesting cuts, one-byte writes."""
    return {
        "whole": [],
        "fixture": list(fixture.cuts),
        "interesting": interesting_cuts(fixture.raw),
        "one-byte": list(range(1, len(fixture.raw))),
    }


CASES = [
    pytest.param(fixture_id, plan, profile, id=f"{fixture_id}-{plan}-{profile}")
    for fixture_id in FIXTURES
    for plan in cut_plans(get_fixture(fixture_id))
    for profile in ("strict", "browser")
]


def outcome_of(events: list[Event], error: SSEError | None) -> Outcome:
    return Outcome(tuple(events), None if error is None else (type(error).__name__, str(error)))


def read_sync(url: str, profile: str) -> Outcome:
    events: list[Event] = []
    try:
        with httpx.Client(timeout=TIMEOUT) as client, client.stream("GET", url, headers=sse_headers()) as response:
            events.extend(iter_sse(response, profile=profile))
    except SSEError as err:
        return outcome_of(events, err)
    return outcome_of(events, None)


async def read_async(url: str, profile: str) -> Outcome:
    events: list[Event] = []
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT) as client:
            async with client.stream("GET", url, headers=sse_headers()) as response:
                async for event in aiter_sse(response, profile=profile):
                    events.append(event)
    except SSEError as err:
        return outcome_of(events, err)
    return outcome_of(events, None)


def serve(fixture: Fixture, plan: str) -> SSEServer:
    return SSEServer(fixture.raw, cuts=cut_plans(fixture)[plan], pause=0.001)


@pytest.mark.parametrize("fixture_id,plan,profile", CASES)
def test_sync_round_trip_gives_the_fixture_outcome(fixture_id: str, plan: str, profile: str) -> None:
    fixture = get_fixture(fixture_id)
    with serve(fixture, plan) as server:
        outcome = read_sync(server.url, profile)
    assert agrees(fixture.expected[profile], outcome), outcome


@pytest.mark.parametrize("fixture_id,plan,profile", CASES)
def test_async_round_trip_gives_the_fixture_outcome(fixture_id: str, plan: str, profile: str) -> None:
    fixture = get_fixture(fixture_id)
    with serve(fixture, plan) as server:
        outcome = asyncio.run(asyncio.wait_for(read_async(server.url, profile), TIMEOUT))
    assert agrees(fixture.expected[profile], outcome), outcome


def test_reads_hold_exactly_the_bytes_written() -> None:
    fixture = get_fixture("utf8/emoji-token-stream")
    with SSEServer(fixture.raw, cuts=[7, 9], pause=0.01) as server:
        received = fetch(server.url)
    assert server.writes == [fixture.raw[:7], fixture.raw[7:9], fixture.raw[9:]]
    assert b"".join(received.reads) == fixture.raw
    assert received.events == fixture.expected["strict"].events


DROPPED = get_fixture("utf8/emoji-token-stream")
DROP_AT = 25  # inside the second event's data line


def test_a_stream_dropped_mid_event_is_incomplete_in_strict() -> None:
    with SSEServer(DROPPED.raw, cuts=[7, 20], drop_at=DROP_AT) as server:
        received = fetch(server.url, "strict")
    assert isinstance(received.error, IncompleteStream)
    assert received.events == DROPPED.expected["strict"].events[:1]


def test_a_stream_dropped_mid_event_is_discarded_in_browser() -> None:
    with SSEServer(DROPPED.raw, cuts=[7, 20], drop_at=DROP_AT) as server:
        received = fetch(server.url, "browser")
    assert received.error is None
    assert received.events == DROPPED.expected["browser"].events[:1]


def test_the_resume_id_is_the_one_committed_at_the_last_dispatch() -> None:
    body = b"id: 1\ndata: a\n\nid: 2\ndata: b\n\nid: 3\ndata: c"
    with SSEServer(body, drop_at=len(body)) as server:
        received = fetch(server.url, "browser")
        fetch(server.url, "browser", last_event_id=received.last_event_id)
    assert [e.data for e in received.events] == ["a", "b"]
    assert received.last_event_id == "2"
    assert server.requests[-1]["last-event-id"] == "2"
    assert "last-event-id" not in server.requests[0]


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "localhost", "example.com", ""])
def test_refuses_to_bind_a_host_that_is_not_loopback(host: str) -> None:
    threads = threading.active_count()
    with pytest.raises(ValueError, match="loopback only"):
        SSEServer(b"data: x\n\n", host=host)
    assert threading.active_count() == threads


def test_binds_loopback_and_leaves_nothing_behind() -> None:
    with SSEServer(b"data: x\n\n") as server:
        assert server.url.startswith("http://127.0.0.1:")
        address = ("127.0.0.1", server.port)
        assert fetch(server.url).events == (Event("message", "x"),)
    assert not [t for t in threading.enumerate() if t.name == "sse-demo-server"]
    with pytest.raises(ConnectionRefusedError), socket.create_connection(address, timeout=TIMEOUT):
        pass


def test_stops_promptly_while_a_client_is_mid_stream(caplog: pytest.LogCaptureFixture) -> None:
    with httpx.Client(timeout=TIMEOUT) as client:
        server = SSEServer(b"data: a\n\ndata: b\n\n", cuts=[9], pause=60).__enter__()
        with client.stream("GET", server.url) as response:
            chunks = response.iter_raw()
            assert next(chunks) == b"data: a\n\n"
            started = time.monotonic()
            server.__exit__(None, None, None)
            assert time.monotonic() - started < 2
            assert list(chunks) == []
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


def test_the_adapter_refuses_a_response_that_is_not_an_event_stream() -> None:
    with SSEServer(b"data: x\n\n") as server, httpx.Client(timeout=TIMEOUT) as client:
        with client.stream("POST", server.url) as response, pytest.raises(NotAnEventStream, match="405"):
            iter_sse(response)


@pytest.mark.parametrize("cuts,drop_at", [([0], None), ([9], None), ([5], 4), ([], 10)])
def test_refuses_a_write_plan_outside_the_body(cuts: list[int], drop_at: int | None) -> None:
    with pytest.raises(ValueError, match="outside"):
        planned_writes(b"data: x\n\n", cuts, drop_at)


def test_the_command_line_demo_shows_writes_reads_and_events(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--fixture", "utf8/emoji-token-stream", "--cuts", "7,9", "--pause", "0"])
    out = capsys.readouterr().out
    assert "server wrote: b'data: \\xf0' | b'\\x9f\\x91' | " in out
    for event in DROPPED.expected["strict"].events:
        assert f"data={event.data!r}" in out


@pytest.mark.parametrize("argv", [["--fixture", "utf8/no-such-fixture"], ["--cuts", "999"]])
def test_the_command_line_demo_refuses_bad_arguments_plainly(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(argv)
    assert "error:" in capsys.readouterr().err


# --- resuming, and what the client's tests need ----------------------------------------------


@pytest.mark.parametrize(
    "body,points",
    [
        (b"id: 1\ndata: a\n\nid: 2\ndata: b\n\n", {"1": 15, "2": 30}),
        (b"id: 1\r\ndata: a\r\n\r\nid: 2\r\n\r\n", {"1": 18, "2": 27}),  # after the LF of a CRLF, not between
        (b"id: 1\rdata: a\r\rdata: b\r\r", {"1": 15}),  # an ID that persists is resumed after its first block
        (b"data: a\n\nid: x\ndata: b", {}),  # never dispatched: nothing to resume after
    ],
)
def test_resume_points_are_just_after_the_block_that_committed_each_id(body: bytes, points: dict) -> None:
    assert resume_points(body) == points


def test_the_server_resumes_after_the_id_sent_and_replays_an_unknown_one() -> None:
    body = b"id: 1\ndata: a\n\nid: 2\ndata: b\n\n"
    with SSEServer(body) as server:
        resumed = fetch(server.url, "browser", last_event_id="1")
        unknown = fetch(server.url, "browser", last_event_id="nope")
    assert [e.data for e in resumed.events] == ["b"]
    assert [e.data for e in unknown.events] == ["a", "b"]


def test_writes_between_cut_a_resumed_part_at_the_bodys_offsets() -> None:
    assert writes_between(b"abcdefgh", [2, 5, 7], 3, 8) == [b"de", b"fg", b"h"]
    assert writes_between(b"abcdefgh", [2], 4, 4) == []


def test_other_paths_are_404_and_redirect_is_307_to_the_stream() -> None:
    with SSEServer(b"data: x\n\n") as server, httpx.Client(timeout=TIMEOUT) as client:
        assert client.get(server.url + "favicon.ico").status_code == 404
        redirect = client.get(server.url + "redirect")
        assert (redirect.status_code, redirect.headers["location"]) == (307, "/")
        assert client.get(server.url + "page").status_code == 404  # no page given
    assert len(server.requests) == 0  # only requests for the stream are recorded there
    assert [r.path for r in server.log] == ["/favicon.ico", "/redirect", "/page"]


def test_refuses_an_unknown_content_coding() -> None:
    with pytest.raises(ValueError, match="encoding must be one of"):
        SSEServer(b"data: x\n\n", encoding="br")


def test_compresses_only_when_the_request_accepts_the_coding() -> None:
    with SSEServer(b"data: x\n\n", encoding="gzip") as server, httpx.Client(timeout=TIMEOUT) as client:
        plain = client.get(server.url, headers={"Accept-Encoding": "identity"})
        coded = client.get(server.url)
    assert "content-encoding" not in plain.headers and plain.content == b"data: x\n\n"
    assert coded.headers["content-encoding"] == "gzip" and coded.content == b"data: x\n\n"


def test_the_recording_client_does_not_import_the_server() -> None:
    """The server's command line uses the recording client; the client must not need the server."""
    import ast
    import inspect

    from sse_course.classroom import recording

    tree = ast.parse(inspect.getsource(recording))
    assert "server" not in {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}


# --- the two ways a body ends: closed connection, or chunked coding ------------------------------


def raw_reads(server: SSEServer) -> tuple[list[bytes], BaseException | None]:
    """The decoded body's reads as httpx gives them, and the error that ended them (if any)."""
    reads: list[bytes] = []
    with httpx.Client(timeout=TIMEOUT) as client, client.stream("GET", server.url) as response:
        try:
            reads.extend(response.iter_bytes())
        except httpx.HTTPError as err:
            return reads, err
        headers = response.headers
    assert ("transfer-encoding" in headers) == server.chunked
    return reads, None


@pytest.mark.parametrize("chunked", [False, True], ids=["close-delimited", "chunked"])
def test_a_whole_body_ends_cleanly_in_either_mode(chunked: bool) -> None:
    with SSEServer(DROPPED.raw, cuts=[7, 20], chunked=chunked) as server:
        reads, error = raw_reads(server)
    assert error is None
    assert b"".join(reads) == DROPPED.raw


def test_a_drop_just_ends_a_close_delimited_body() -> None:
    with SSEServer(DROPPED.raw, cuts=[7, 20], drop_at=DROP_AT) as server:
        reads, error = raw_reads(server)
    assert error is None
    assert b"".join(reads) == DROPPED.raw[:DROP_AT]


def test_a_drop_cuts_a_chunked_body_and_httpx_says_so() -> None:
    with SSEServer(DROPPED.raw, cuts=[7, 20], drop_at=DROP_AT, chunked=True) as server:
        reads, error = raw_reads(server)
    assert isinstance(error, httpx.RemoteProtocolError)
    assert b"".join(reads) == DROPPED.raw[:DROP_AT]


def test_chunked_mode_sends_one_http_chunk_per_planned_write() -> None:
    with SSEServer(b"data: ab\n\n", cuts=[4, 7], chunked=True) as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT) as conn:
            conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            received = b""
            while chunk := conn.recv(4096):
                received += chunk
    body = received.partition(b"\r\n\r\n")[2]
    assert body == b"4\r\ndata\r\n3\r\n: a\r\n3\r\nb\n\n\r\n0\r\n\r\n"


def test_the_command_line_demo_reports_a_cut_chunked_body(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--chunked", "--cuts", "7,20", "--drop-at", str(DROP_AT), "--pause", "0"])
    assert "the chunked body was cut (RemoteProtocolError" in capsys.readouterr().out
