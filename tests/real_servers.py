"""Real SSE servers on 127.0.0.1, the ones learners run, serving one planned stream.

Used by tests/test_real_servers.py and by tools/record_server_fixtures.py (which
records their bytes as the ``servers`` fixture family). Each framework serves:

* ``GET /stream``: the :data:`PLAN` events after the request's
  ``Last-Event-ID`` (all of them without one); ``?drop=N`` ends the response
  after N events, as a dropped connection would; a request whose
  ``Last-Event-ID`` is the last ID gets 204 ("nothing more: stop");
* ``GET /pings``: the first event, a pause of :data:`PING_PAUSE` s with
  keep-alive pings every :data:`PING_INTERVAL` s, then the second event.

Every request's ``Last-Event-ID`` is appended to the ``seen`` list given to
the server. Frameworks: sse-starlette on uvicorn (Starlette), FastAPI's own
SSE (``fastapi.sse.EventSourceResponse``, in FastAPI since 0.135) on uvicorn,
aiohttp with aiohttp-sse.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

from fastapi import Request  # at module level: FastAPI resolves the endpoint's annotations here

from sse_course import Event

PING_INTERVAL = 0.05
#: Eight ping intervals: a loaded machine may hold the server's ping task back
#: for a few of them, and the tests need one ping between the events.
PING_PAUSE = 0.4
START_SECONDS = 10.0


@dataclass(frozen=True)
class Planned:
    """One event the servers are asked to send; ``payload`` is sent as JSON."""

    id: str
    data: str = ""
    event: str | None = None
    retry: int | None = None
    payload: Any = None


PLAN = (
    Planned("1", "caf\u00e9", event="token", retry=25),
    Planned("2", "line one\nline two"),
    Planned("3", event="done", payload={"done": True, "text": "\u00e9\u2028!"}),
)
LAST_ID = PLAN[-1].id


def ensure_ascii_json(payload: Any) -> str:
    """FastAPI's rule for ``data=``: ``json.dumps`` (non-ASCII escaped)."""
    return json.dumps(payload)


def raw_json(payload: Any) -> str:
    """What many hand-written servers do: ``ensure_ascii=False`` (U+2028 goes out raw)."""
    return json.dumps(payload, ensure_ascii=False)


def expected_events(encode_json: Callable[[Any], str], plan: tuple[Planned, ...] = PLAN) -> list[Event]:
    """The events a client must see for ``plan`` (``retry`` persists once set)."""
    events, retry = [], None
    for planned in plan:
        retry = planned.retry if planned.retry is not None else retry
        data = planned.data if planned.payload is None else encode_json(planned.payload)
        events.append(Event(planned.event or "message", data, planned.id, retry))
    return events


def to_send(last_event_id: str | None, drop: str | None) -> list[Planned]:
    """The planned events after ``last_event_id``, at most ``drop`` of them."""
    ids = [p.id for p in PLAN]
    start = ids.index(last_event_id) + 1 if last_event_id in ids else 0
    end = len(PLAN) if drop is None else start + int(drop)
    return list(PLAN[start:end])


# --- Starlette + sse-starlette, and FastAPI's own SSE (both on uvicorn) --------------------------


def stop_when_done(app: Any, seen: list) -> Any:
    """ASGI wrapper: record each Last-Event-ID; answer 204 once the client has the last event."""
    from starlette.responses import Response

    async def asgi(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1"): v.decode("utf-8") for k, v in scope["headers"]}
            seen.append(headers.get("last-event-id"))
            if scope["path"] == "/stream" and headers.get("last-event-id") == LAST_ID:
                await Response(status_code=204)(scope, receive, send)
                return
        await app(scope, receive, send)

    return asgi


def starlette_app(seen: list) -> Any:
    from sse_starlette import EventSourceResponse, ServerSentEvent
    from starlette.applications import Starlette
    from starlette.routing import Route

    def message(planned: Planned) -> ServerSentEvent:
        data = planned.data if planned.payload is None else raw_json(planned.payload)
        return ServerSentEvent(data, id=planned.id, event=planned.event, retry=planned.retry)

    async def stream(request: Any) -> Any:
        planned = to_send(request.headers.get("last-event-id"), request.query_params.get("drop"))

        async def events() -> Any:
            for item in planned:
                yield message(item)

        return EventSourceResponse(events(), ping=0)

    async def pings(request: Any) -> Any:
        async def events() -> Any:
            yield message(PLAN[0])
            await asyncio.sleep(PING_PAUSE)
            yield message(PLAN[1])

        return EventSourceResponse(events(), ping=PING_INTERVAL)

    app = Starlette(routes=[Route("/stream", stream), Route("/pings", pings)])
    return stop_when_done(app, seen)


def fastapi_app(seen: list) -> Any:
    import fastapi.routing
    from fastapi import FastAPI
    from fastapi.sse import EventSourceResponse, ServerSentEvent

    # FastAPI pings only when the generator is idle this long (15 s by default);
    # the module documents this name as patchable for tests.
    fastapi.routing._PING_INTERVAL = PING_INTERVAL
    app = FastAPI()

    def message(planned: Planned) -> ServerSentEvent:
        if planned.payload is not None:  # FastAPI JSON-encodes data= itself
            return ServerSentEvent(data=planned.payload, id=planned.id, event=planned.event, retry=planned.retry)
        return ServerSentEvent(raw_data=planned.data, id=planned.id, event=planned.event, retry=planned.retry)

    @app.get("/stream", response_class=EventSourceResponse)
    async def stream(request: Request, drop: str | None = None) -> Any:
        for item in to_send(request.headers.get("last-event-id"), drop):
            yield message(item)

    @app.get("/pings", response_class=EventSourceResponse)
    async def pings() -> Any:
        yield message(PLAN[0])
        await asyncio.sleep(PING_PAUSE)
        yield message(PLAN[1])

    return stop_when_done(app, seen)


@contextmanager
def uvicorn_serving(app: Any) -> Iterator[str]:
    """Run ``app`` on uvicorn in a thread, on a free loopback port; yield its base URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        app, log_level="warning", lifespan="off", loop="asyncio", http="h11", timeout_graceful_shutdown=2
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="uvicorn-test", daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started, "uvicorn")
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(START_SECONDS)
        sock.close()


# --- aiohttp + aiohttp-sse ----------------------------------------------------------------------


def aiohttp_app(seen: list) -> Any:
    from aiohttp import web
    from aiohttp_sse import sse_response

    async def send(response: Any, planned: Planned) -> None:
        data = planned.data if planned.payload is None else raw_json(planned.payload)
        await response.send(data, id=planned.id, event=planned.event, retry=planned.retry)

    async def stream(request: Any) -> Any:
        last_event_id = request.headers.get("Last-Event-ID")
        seen.append(last_event_id)
        if last_event_id == LAST_ID:
            return web.Response(status=204)
        async with sse_response(request, ping_interval=3600) as response:
            for item in to_send(last_event_id, request.query.get("drop")):
                await send(response, item)
        return response

    async def pings(request: Any) -> Any:
        seen.append(request.headers.get("Last-Event-ID"))
        async with sse_response(request, ping_interval=PING_INTERVAL) as response:
            await send(response, PLAN[0])
            await asyncio.sleep(PING_PAUSE)
            await send(response, PLAN[1])
        return response

    app = web.Application()
    app.router.add_get("/stream", stream)
    app.router.add_get("/pings", pings)
    return app


@contextmanager
def aiohttp_serving(app: Any) -> Iterator[str]:
    """Run an aiohttp app in a thread with its own loop, on a free loopback port."""
    from aiohttp import web

    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app)
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", 0).start())
        ready.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    thread = threading.Thread(target=run, name="aiohttp-test", daemon=True)
    thread.start()
    try:
        wait_for(ready.is_set, "aiohttp")
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(START_SECONDS)


def wait_for(condition: Callable[[], bool], what: str) -> None:
    event = threading.Event()
    for _ in range(int(START_SECONDS / 0.01)):
        if condition():
            return
        event.wait(0.01)
    raise RuntimeError(f"{what} did not start within {START_SECONDS} s")


@dataclass(frozen=True)
class Framework:
    """One real server: how to start it, and how its JSON ``data`` is written."""

    name: str
    package: str
    server: str
    app: Callable[[list], Any]
    serving: Callable[[Any], Any]
    encode_json: Callable[[Any], str]

    @property
    def version(self) -> str:
        return version(self.package)

    def versions(self) -> dict[str, str]:
        """What the fixture records: the framework and the server under it."""
        server_package = self.server.split()[0]
        return {"name": self.name, "version": self.version, "server": f"{server_package} {version(server_package)}"}

    @contextmanager
    def running(self, seen: list) -> Iterator[str]:
        with self.serving(self.app(seen)) as url:
            yield url


FRAMEWORKS = {
    "sse-starlette": Framework(
        "sse-starlette", "sse-starlette", "uvicorn (Starlette)", starlette_app, uvicorn_serving, raw_json
    ),
    "fastapi": Framework("fastapi", "fastapi", "uvicorn", fastapi_app, uvicorn_serving, ensure_ascii_json),
    "aiohttp-sse": Framework("aiohttp-sse", "aiohttp-sse", "aiohttp", aiohttp_app, aiohttp_serving, raw_json),
}
