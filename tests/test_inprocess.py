"""The course server's two forms carry out one plan: the in-process transport
(the browser's: no thread, no socket) answers as the loopback server does.

For each plan, both forms are asked the same requests and must give the same
status, headers, body bytes, events and ending (a close-delimited drop just
ends; a cut chunked body raises ``httpx.RemoteProtocolError``); in process,
each read is one planned write.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import inspect
import sys
from typing import Any

import httpx
import pytest

from sse_course.classroom import inprocess, plan
from sse_course.classroom.exercises import ex08_real_streams as ex08
from sse_course.classroom.fixtures import get_fixture
from sse_course.classroom.inprocess import InProcessServer, course_server
from sse_course.classroom.recording import fetch
from sse_course.classroom.resume import STREAM, Sleeps
from sse_course.classroom.server import SSEServer
from sse_course.client import AsyncEventSourceClient, EventSourceClient
from sse_course.httpx_adapter import aiter_sse, iter_sse, sse_headers

RAW = get_fixture("utf8/emoji-token-stream").raw
DROP_AT = 25  # inside the second event

PLANS: dict[str, dict[str, Any]] = {
    "whole": {"cuts": [7, 20]},
    "close-delimited drop": {"cuts": [7, 20], "drop_at": DROP_AT},
    "chunked whole": {"cuts": [7, 20], "chunked": True},
    "chunked drop": {"cuts": [7, 20], "drop_at": DROP_AT, "chunked": True},
    "gzip drop": {"cuts": [7, 20], "drop_at": DROP_AT, "encoding": "gzip"},
    "gzip chunked": {"cuts": [7], "encoding": "deflate", "chunked": True},
    "500": {"status": 500},
    "text/plain": {"content_type": "text/plain"},
}
#: (method, path, headers) asked of every plan, in order.
REQUESTS = [
    ("GET", "/", sse_headers()),
    ("GET", "/", sse_headers("x")),
    ("POST", "/", {}),
    ("GET", "/favicon.ico", {}),
    ("GET", "/redirect", {}),
]


def exchange(client: httpx.Client, url: str, method: str, path: str, headers: dict) -> tuple:
    """Status, headers, the decoded body's bytes, and the error that ended it (type, message)."""
    with client.stream(method, url.rstrip("/") + path, headers=headers) as response:
        body = b""
        try:
            for chunk in response.iter_bytes():
                body += chunk
        except httpx.HTTPError as err:
            return response.status_code, list(response.headers.items()), body, (type(err), str(err))
        return response.status_code, list(response.headers.items()), body, None


def answers(server: SSEServer | InProcessServer) -> list[tuple]:
    with server, server.client() as client:
        return [exchange(client, server.url, *request) for request in REQUESTS]


@pytest.mark.parametrize("options", PLANS.values(), ids=PLANS)
def test_both_forms_answer_every_request_alike(options: dict[str, Any]) -> None:
    real, in_process = SSEServer(RAW, **options), InProcessServer(RAW, **options)
    assert answers(in_process) == answers(real)
    assert without_host(in_process.requests) == without_host(real.requests)
    assert [(r.method, r.path) for r in in_process.log] == [(r.method, r.path) for r in real.log]


def without_host(requests: list[dict[str, str]]) -> list[dict[str, str]]:
    """The recorded headers, but ``Host`` (a port on loopback, a name in process)."""
    return [{name: value for name, value in request.items() if name != "host"} for request in requests]


def test_a_cut_chunked_body_raises_remote_protocol_error_after_the_writes_that_came() -> None:
    server = InProcessServer(RAW, cuts=[7, 20], drop_at=DROP_AT, chunked=True)
    with server.client() as client, client.stream("GET", server.url) as response:
        reads = []
        with pytest.raises(httpx.RemoteProtocolError, match="incomplete chunked read"):
            reads.extend(response.iter_raw())
    assert reads == server.writes


def test_a_close_delimited_drop_just_ends_and_the_parser_tells() -> None:
    for form in (SSEServer, InProcessServer):
        with form(RAW, cuts=[7, 20], drop_at=DROP_AT) as server, server.client() as client:
            strict, browser = fetch(server.url, client=client), fetch(server.url, "browser", client=client)
        assert type(strict.error).__name__ == "IncompleteStream", form
        assert [event.data for event in strict.events] == [event.data for event in browser.events] == ["👋"]
        assert browser.error is None


def test_in_process_each_read_is_one_planned_write() -> None:
    with InProcessServer(RAW, cuts=[7, 9]) as server, server.client() as client:
        assert list(fetch(server.url, client=client).reads) == server.writes


def test_resuming_and_204_follow_the_same_plan_for_the_reconnecting_client() -> None:
    runs = []
    for form in (SSEServer, InProcessServer):
        sleeps = Sleeps()
        with form(STREAM, drops=[98], end_with_204=True) as server, server.client() as client:
            with EventSourceClient(server.url, client=client, sleep=sleeps, max_reconnects=5) as source:
                events = list(source)
        runs.append(([r.get("last-event-id", "") for r in server.requests], list(sleeps), events, source.ended))
    assert runs[0] == runs[1]
    assert runs[0][:2] == (["", "3", "5"], [0.5, 0.5])


def test_the_async_transport_serves_the_same_events_and_ending() -> None:
    async def read(server: SSEServer | InProcessServer) -> tuple:
        async with server.async_client() as client:
            async with client.stream("GET", server.url, headers=sse_headers()) as response:
                events = []
                try:
                    async for event in aiter_sse(response, profile="browser"):
                        events.append(event)
                except httpx.RemoteProtocolError as err:
                    return events, str(err)
                return events, None

    async def both() -> list[tuple]:
        with SSEServer(RAW, cuts=[7], drop_at=DROP_AT, chunked=True) as real:
            return [await read(real), await read(InProcessServer(RAW, cuts=[7], drop_at=DROP_AT, chunked=True))]

    real, in_process = asyncio.run(both())
    assert real == in_process and real[1] is not None


def test_the_async_reconnecting_client_runs_in_process() -> None:
    waits: list[float] = []

    async def wait(seconds: float) -> None:
        waits.append(seconds)

    async def run() -> list[str]:
        server = InProcessServer(STREAM, drops=[98], end_with_204=True)
        async with (
            server.async_client() as http,
            AsyncEventSourceClient(server.url, client=http, sleep=wait, max_reconnects=5) as source,
        ):
            return [event.data async for event in source]

    assert asyncio.run(run()) == ["Hello", "👋", "two\nlines", "bye"]
    assert waits == [0.5, 0.5]


def test_course_server_is_in_process_in_the_browser_and_on_loopback_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSE_COURSE_IN_PROCESS", raising=False)
    assert isinstance(course_server(RAW), SSEServer)
    monkeypatch.setattr(sys, "platform", "emscripten")
    assert isinstance(course_server(RAW), InProcessServer)


def test_the_in_process_form_refuses_what_needs_a_connection() -> None:
    with pytest.raises(ValueError, match="only the loopback server"):
        InProcessServer(RAW, hold=True)


def imported_on_import(source: str, package: str) -> set[str]:
    """The modules a module's source imports when it is imported (its top-level import
    statements), relative imports resolved: ``from ..server import`` in
    ``sse_course.classroom.exercises`` is ``sse_course.classroom.server``. An import inside
    a function, or under ``if TYPE_CHECKING:``, is left out: it runs only where it is reached."""
    imported = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            name = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            imported |= {name} if node.module else {f"{name}.{alias.name}" for alias in node.names}
    return imported


#: What the browser's form must not import: threads, sockets, an event loop, or the loopback server.
NOT_IN_THE_BROWSER = {"threading", "socket", "asyncio", "sse_course.classroom.server"}


@pytest.mark.parametrize("module", [inprocess, plan, ex08])
def test_the_browsers_form_imports_no_thread_socket_or_event_loop(module: Any) -> None:
    assert not imported_on_import(inspect.getsource(module), module.__package__) & NOT_IN_THE_BROWSER


def test_the_import_check_sees_relative_imports() -> None:
    """A check module that reached for the loopback server by a relative import is seen;
    the same import inside a function is not (it runs only where threads exist)."""
    package = ex08.__package__
    assert imported_on_import("from ..server import SSEServer\n", package) == {"sse_course.classroom.server"}
    assert imported_on_import("from .. import server\n", package) == {"sse_course.classroom.server"}
    assert not imported_on_import("def serve():\n    from ..server import SSEServer\n", package)


def test_iter_sse_reads_the_same_events_in_either_form() -> None:
    got = []
    for form in (SSEServer, InProcessServer):
        with form(RAW, cuts=[7, 9]) as server, server.client() as client:
            with client.stream("GET", server.url, headers=sse_headers()) as response:
                got.append(list(iter_sse(response)))
    assert got[0] == got[1] == list(get_fixture("utf8/emoji-token-stream").expected["strict"].events)


def test_the_in_process_form_needs_no_thread_and_no_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in the browser: starting a thread or connecting a socket fails, and lesson 10's run still works."""
    import socket
    import threading

    def refused(*args: object, **kwargs: object) -> None:
        raise RuntimeError("no threads and no sockets here")

    monkeypatch.setattr(threading.Thread, "start", refused)
    monkeypatch.setattr(socket.socket, "connect", refused)
    server = InProcessServer(STREAM, drops=[98], end_with_204=True, chunked=True)
    with server.client() as http, EventSourceClient(server.url, client=http, sleep=Sleeps()) as source:
        assert [event.data for event in source] == ["Hello", "👋", "two\nlines", "bye"]
    with pytest.raises(RuntimeError, match="no threads"), SSEServer(STREAM):  # the check is not vacuous
        pass
