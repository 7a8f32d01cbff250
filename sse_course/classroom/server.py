"""The course's demo SSE server: one body as ``text/event-stream``, written in chosen chunks.

Fixtures show the parser every split on purpose; this server shows what a real
connection does to the writes. It is a classroom tool on the standard
library's asyncio (no framework). What it sends is decided by its plan
(:mod:`sse_course.classroom.plan`), which the in-process form for the browser
(:mod:`sse_course.classroom.inprocess`) carries out too:

* it binds loopback only (127.0.0.1 by default, on a free port) and refuses
  any other host, so a lesson never opens a port to the network;
* it cuts its writes at chosen byte offsets, drains each write, and can pause
  between them ("half an emoji now, the rest in 50 ms");
* it can close the connection early, mid-event, to simulate a dropped stream.
  By default the body's end is marked by closing the connection (HTTP/1.1 allows
  that when there is no Content-Length and no chunked coding), so to the HTTP
  client a drop looks exactly like a clean end: only the SSE parser can tell.
  With ``chunked=True`` the body is sent with ``Transfer-Encoding: chunked``,
  one HTTP chunk per planned write, and ends with the last-chunk marker: a drop
  then leaves the chunked body cut, which httpx reports as
  ``httpx.RemoteProtocolError``;
* it resumes: a request's ``Last-Event-ID`` starts the body just after the
  block that committed that ID, so a reconnecting client gets each event
  once; ``drops`` drops the n-th connection at its own offset, and
  ``end_with_204`` answers 204 when nothing is left (the standard's "stop");
* for the client's tests it can answer another status or content type,
  compress (gzip, deflate), redirect (``/redirect``), hold a silent
  connection open, serve a page for a browser (``/page``), and it records
  every request (``log``) and the connections still open.

The asyncio loop runs in a background thread, so ``with SSEServer(...)`` works
the same from a script, a test, or a notebook cell (whose kernel already runs
an event loop of its own). Leaving the block stops the loop, closes every
connection and joins the thread, each within a bounded time::

    with SSEServer(get_fixture("utf8/emoji-token-stream").raw, cuts=[7, 9], pause=0.05) as server:
        ...  # GET server.url with any HTTP client

Run ``python -m sse_course.classroom.server --help`` for the one-command demo.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import threading
from collections.abc import Sequence
from typing import Any

import httpx

from ..profiles import DEFAULT_PROFILE, PROFILES
from .fixtures import get_fixture
from .plan import REASONS, Answer, ServerPlan

#: Seconds allowed for starting, stopping, and reading a request's head.
TIMEOUT = 5.0
#: The request head (request line and headers) must fit in this many bytes.
MAX_HEAD_BYTES = 16 * 1024


def response_head(status: int, headers: Sequence[tuple[str, str]] = ()) -> bytes:
    """A response head: the status line and ``headers``."""
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}", *(f"{k}: {v}" for k, v in headers)]
    return ("\r\n".join([*lines, "", ""])).encode("latin-1")


def http_chunk(data: bytes) -> bytes:
    """``data`` framed as one HTTP/1.1 chunk (size in hex, CRLF, data, CRLF); empty data frames nothing.

    An empty chunk would be the last-chunk marker, so it is never sent for an empty write.
    """
    return f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n" if data else b""


#: The chunked coding's last chunk: the body ended cleanly.
LAST_CHUNK = b"0\r\n\r\n"


def wire_body(answer: Answer) -> list[bytes]:
    """What goes on the wire after the head, write by write: each write as it is, or
    framed as one HTTP chunk, then the last chunk when a chunked body is whole."""
    if not answer.chunked:
        return list(answer.writes)
    last = [LAST_CHUNK] if answer.whole and not answer.hold else []
    return [*(http_chunk(write) for write in answer.writes), *last]


def loopback_host(host: str) -> str:
    """Return ``host`` if it is a loopback IP address; refuse anything else.

    Names are refused too ("localhost" may resolve elsewhere): a demo server
    bound to a public interface would serve anyone on the network.
    """
    try:
        if ipaddress.ip_address(host).is_loopback:
            return host
    except ValueError:
        pass
    raise ValueError(f"the demo SSE server binds loopback only (e.g. 127.0.0.1 or ::1), not {host!r}")


async def read_head(reader: asyncio.StreamReader) -> tuple[str, dict[str, str]]:
    """Read a request head; return its method and headers (names lower-cased)."""
    method, _, headers = await read_request_head(reader)
    return method, headers


async def read_request_head(reader: asyncio.StreamReader) -> tuple[str, str, dict[str, str]]:
    """Read a request head; return its method, path (no query) and headers (names lower-cased).

    Header values are read as UTF-8: a ``Last-Event-ID`` may hold any text.
    """
    head = await reader.readuntil(b"\r\n\r\n")
    request_line, *lines = head.decode("utf-8", errors="replace").split("\r\n")[:-2]
    headers = dict(line.split(":", 1) for line in lines if ":" in line)
    method, _, rest = request_line.partition(" ")
    path = rest.partition(" ")[0].partition("?")[0]
    return method, path, {k.strip().lower(): v.strip() for k, v in headers.items()}


class SSEServer(ServerPlan):
    """The plan (:class:`~sse_course.classroom.plan.ServerPlan`: the body, its
    writes, drops, resuming, 204, the options) served on a loopback socket by an
    asyncio loop in a thread; ``host`` must be a loopback address."""

    def __init__(self, body: bytes, *, host: str = "127.0.0.1", **options: Any) -> None:
        super().__init__(body, **options)
        self.host = loopback_host(host)
        self.port = 0
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._startup_error: BaseException | None = None
        self._tasks: set[asyncio.Task] = set()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def client(self, **options: Any) -> httpx.Client:
        """An httpx client for this server (``timeout`` 5 s unless given): httpx's own transport, a real socket."""
        return httpx.Client(**{"timeout": TIMEOUT, **options})

    def async_client(self, **options: Any) -> httpx.AsyncClient:
        """The async twin of :meth:`client`."""
        return httpx.AsyncClient(**{"timeout": TIMEOUT, **options})

    @property
    def open_connections(self) -> int:
        """Connections being served right now (a client that closed is noticed at once)."""
        return len(self._tasks)

    # --- lifecycle ---------------------------------------------------------

    def __enter__(self) -> SSEServer:
        if self._thread is not None:
            raise RuntimeError("this SSEServer was already started; create a new one")
        self._thread = threading.Thread(target=self._run_loop, name="sse-demo-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(TIMEOUT):
            self._stop_thread()
            raise RuntimeError(f"the SSE server did not start within {TIMEOUT} s")
        if self._startup_error is not None:
            self._thread.join(TIMEOUT)
            raise self._startup_error
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop_thread()

    def _stop_thread(self) -> None:
        """Ask the loop to stop, then wait (bounded) for the thread to end."""
        assert self._thread is not None
        if self._loop is not None and self._stop is not None and not self._loop.is_closed():
            try:
                self._loop.call_soon_threadsafe(self._stop.set)
            except RuntimeError:  # the loop closed in between: nothing left to stop
                pass
        self._thread.join(TIMEOUT)
        if self._thread.is_alive():
            raise RuntimeError(f"the SSE server thread did not stop within {TIMEOUT} s")

    def _run_loop(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        """The server thread's whole life: bind, signal ready, serve until stopped."""
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            server = await asyncio.start_server(self._track, self.host, 0, limit=MAX_HEAD_BYTES)
        except BaseException as err:  # reported to the thread that called __enter__
            self._startup_error = err
            self._ready.set()
            return
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stop.wait()
            server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    # --- one connection -----------------------------------------------------

    async def _track(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve one connection, registered so that stopping can cancel it."""
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._respond(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError):
            pass  # the client went away or sent no proper request head: nothing to serve
        except asyncio.CancelledError:
            pass  # the server is stopping; ending quietly keeps asyncio from logging the cancelled task
        finally:
            writer.close()
            try:
                await asyncio.wait_for(writer.wait_closed(), TIMEOUT)
            except (ConnectionError, asyncio.TimeoutError):
                pass
            self._tasks.discard(task)

    async def _respond(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Read one request, ask the plan, and send its answer: the head, then the writes, paused apart."""
        method, path, headers = await asyncio.wait_for(read_request_head(reader), TIMEOUT)
        length = int(headers.get("content-length", "0") or 0)
        body = await asyncio.wait_for(reader.readexactly(length), TIMEOUT) if length else b""
        answer = self.answer(method, path, headers, body)
        await self._send(writer, response_head(answer.status, answer.headers))
        client_gone = asyncio.ensure_future(reader.read())  # EOF: the client closed the connection
        try:
            for index, data in enumerate(wire_body(answer)):
                if index and self.pause and await self._client_left(client_gone, self.pause):
                    return
                await self._send(writer, data)
            if answer.hold:
                await client_gone
        finally:
            client_gone.cancel()
            if client_gone.done() and not client_gone.cancelled():
                client_gone.exception()  # a reset connection: seen, so asyncio does not log it

    async def _send(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(data)
        await writer.drain()

    @staticmethod
    async def _client_left(client_gone: asyncio.Future, pause: float) -> bool:
        """Pause between writes; True if the client closed the connection meanwhile."""
        await asyncio.wait([client_gone], timeout=pause)
        return client_gone.done()


# --- the one-command demo ---------------------------------------------------------


def parse_cuts(text: str) -> list[int]:
    """'7,9' -> [7, 9]; '' -> []."""
    return [int(part) for part in text.split(",") if part.strip()]


def main(argv: Sequence[str] | None = None) -> None:
    """Serve a fixture on loopback, read it once with httpx, and show writes, reads and events."""
    from .recording import fetch, show_received

    arguments = _arguments()
    args = arguments.parse_args(argv)
    try:
        fixture = get_fixture(args.fixture)
        server = SSEServer(fixture.raw, cuts=args.cuts, pause=args.pause, drop_at=args.drop_at, chunked=args.chunked)
    except (KeyError, ValueError, FileNotFoundError) as err:
        arguments.error(f"{type(err).__name__}: {err}")
    with server:
        print(f"serving {fixture.id} at {server.url} ({len(server.writes)} writes, {args.pause} s apart)")
        print(f"server wrote: {server.describe()}")
        if args.forever:
            print(f"try: curl -N {server.url}   (Ctrl-C stops the server)")
            try:
                threading.Event().wait()
            except KeyboardInterrupt:
                print("stopped")
            return
        try:
            with server.client() as client:
                print(show_received(fetch(server.url, args.profile, client=client)))
        except httpx.RemoteProtocolError as err:  # a chunked body cut by --drop-at
            print(f"client: the chunked body was cut ({type(err).__name__}: {err})")


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sse_course.classroom.server",
        description="Serve a fixture as a real SSE stream on 127.0.0.1, cut into chosen writes, "
        "and show what an httpx client actually read and which events the parser made of it.",
    )
    parser.add_argument("--fixture", default="utf8/emoji-token-stream", help="family/name (default: %(default)s)")
    parser.add_argument("--cuts", type=parse_cuts, default=[], help="byte offsets where writes end, e.g. 7,9")
    parser.add_argument("--pause", type=float, default=0.05, help="seconds between writes (default: %(default)s)")
    parser.add_argument("--drop-at", type=int, default=None, help="close the connection after this many bytes")
    parser.add_argument(
        "--chunked",
        action="store_true",
        help="send the body with Transfer-Encoding: chunked (a drop is then a cut body to the client)",
    )
    parser.add_argument(
        "--profile",
        choices=tuple(PROFILES),
        default=DEFAULT_PROFILE,
        help="; ".join(f"{name}: {rules.summary}" for name, rules in PROFILES.items()),
    )
    parser.add_argument("--forever", action="store_true", help="keep serving (for curl) until Ctrl-C")
    return parser


if __name__ == "__main__":
    main()
