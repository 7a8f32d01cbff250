"""Fault injection: what networks do to the reconnecting client, sync and async.

A raw loopback server (standard library sockets, one thread per connection)
plays a script per connection: bytes to send, pauses (a trickle), a stall (say
nothing and wait for the client to leave), then a cut (close). Each fault of
the client's rules has a test here; the server side records every request head
and whether the client closed the connection, and when.
"""

from __future__ import annotations

import asyncio
import gzip
import inspect
import re
import socket
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from sse_course import DecodeError, Event
from sse_course.client import (
    DROPS,
    MAX_WAIT_MS,
    MIN_RECONNECTION_MS,
    REFUSALS,
    AsyncEventSourceClient,
    Backoff,
    ConnectionFailed,
    EventSourceClient,
    Reconnecting,
    RequestFailed,
    UnsupportedCoding,
)
from sse_course.reconnect import Body

MODES = ("sync", "async")
TIMEOUT = 5.0
PROMPTLY = 1.0  # seconds within which a close, a restart or a cut must be seen

# --- the server -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Pause:
    seconds: float


STALL = "stall"  # say nothing more; wait until the client closes the connection
RESET = "reset"  # end with a TCP reset instead of a clean close


def head(status: int = 200, *headers: str) -> bytes:
    lines = [f"HTTP/1.1 {status} Status", *headers, "Connection: close", "", ""]
    return "\r\n".join(lines).encode("latin-1")


OK = head(200, "Content-Type: text/event-stream")
NO_CONTENT = head(204, "Content-Length: 0")


def trickle(data: bytes, pause: float = 0.001) -> list[Any]:
    """One byte per write, a pause between them."""
    steps: list[Any] = []
    for byte in data:
        steps += [bytes([byte]), Pause(pause)]
    return steps


def compressed(coding: str, *writes: bytes) -> list[bytes]:
    """Each write compressed by one compressor and flushed, so that it arrives at once."""
    encoder = zlib.compressobj(wbits=16 + zlib.MAX_WBITS if coding == "gzip" else zlib.MAX_WBITS)
    return [encoder.compress(write) + encoder.flush(zlib.Z_SYNC_FLUSH) for write in writes]


CORRUPT = b"\xff\xff\xff\xff"  # after a flush: a deflate block of an invalid type


def chunked(*writes: bytes) -> list[bytes]:
    """The writes in HTTP chunked coding (no last chunk: end the script there to cut mid-body)."""
    return [b"%x\r\n%s\r\n" % (len(write), write) for write in writes]


@dataclass
class Connection:
    head: dict[str, bytes] = field(default_factory=dict)  # request header names lower-cased, values as sent
    request_line: str = ""
    client_closed: threading.Event = field(default_factory=threading.Event)


class FaultServer:
    """Connection n plays ``scripts[n]`` (the last script for any later one)."""

    def __init__(self, *scripts: Sequence[Any]) -> None:
        self.scripts = scripts
        self.connections: list[Connection] = []
        self.arrived = threading.Condition()
        self.head_read = threading.Event()  # the first request's head has arrived
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/"
        self.open: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> FaultServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes accept(); close() alone would not
        self.listener.close()
        for conn in self.open:
            with suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self.thread.join(TIMEOUT)

    def wait_for(self, count: int) -> Connection:
        """The ``count``-th connection (1-based), once its request head has arrived."""
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.connections) >= count, TIMEOUT), f"no connection {count}"
            return self.connections[count - 1]

    def ids(self) -> list[bytes | None]:
        return [c.head.get("last-event-id") for c in self.connections]

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.open.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(TIMEOUT)
            try:
                record = self._read_head(conn)
                with self.arrived:
                    number = len(self.connections)
                    self.connections.append(record)
                    self.arrived.notify_all()
                self.head_read.set()
                self._play(conn, self.scripts[min(number, len(self.scripts) - 1)], record)
            except OSError:
                pass

    @staticmethod
    def _read_head(conn: socket.socket) -> Connection:
        data = b""
        while b"\r\n\r\n" not in data:
            more = conn.recv(4096)
            if not more:
                raise ConnectionError("the client left before its request head ended")
            data += more
        lines = data.split(b"\r\n\r\n")[0].split(b"\r\n")
        record = Connection(request_line=lines[0].decode("latin-1"))
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            record.head[name.decode("latin-1").lower()] = value.removeprefix(b" ")
        return record

    @staticmethod
    def _play(conn: socket.socket, script: Sequence[Any], record: Connection) -> None:
        for step in script:
            if isinstance(step, Pause):
                time.sleep(step.seconds)
            elif step == STALL:
                while conn.recv(4096):
                    pass
                record.client_closed.set()
                return
            elif step == RESET:
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return
            else:
                conn.sendall(step)
        conn.shutdown(socket.SHUT_RDWR)


# --- driving the client ---------------------------------------------------------------------


def read(mode: str, url: str, **options: Any) -> tuple[list[Any], Any]:
    """Read ``url`` until the client ends; (items, client). Waits are the client's own,
    without the reconnection floor unless given, so that ``retry: 1`` waits 1 ms."""
    options.setdefault("min_reconnection_ms", 0)
    if mode == "sync":
        with EventSourceClient(url, **options) as source:
            return list(source), source

    async def main() -> tuple[list[Any], Any]:
        async with AsyncEventSourceClient(url, **options) as source:
            return [item async for item in source], source

    return asyncio.run(asyncio.wait_for(main(), TIMEOUT))


def datas(items: list[Any]) -> list[str]:
    return [item.data for item in items if isinstance(item, Event)]


class Background:
    """Iterate a client in another thread (sync) or another task (async), and act on it from here."""

    def __init__(self, mode: str, url: str, **options: Any) -> None:
        self.mode, self.url, self.options = mode, url, options
        self.source: Any = None
        self.items: list[Any] = []
        self.error: BaseException | None = None
        self.first = threading.Event()

    def run(self, act: Callable[[Any], Any]) -> bool:
        """Start the loop, call ``act(client)`` from here; True if the loop ended promptly after it."""
        return self._run_sync(act) if self.mode == "sync" else self._run_async(act)

    def _run_sync(self, act: Callable[[EventSourceClient], None]) -> bool:
        source = EventSourceClient(self.url, **self.options)

        def loop() -> None:
            try:
                for item in source:
                    self.items.append(item)
                    self.first.set()
            except BaseException as err:  # reported by the test
                self.error = err

        thread = threading.Thread(target=loop, daemon=True)
        thread.start()
        act(source)
        thread.join(PROMPTLY)
        self.source = source
        return not thread.is_alive()

    def _run_async(self, act: Callable[[AsyncEventSourceClient], Any]) -> bool:
        async def main() -> bool:
            source = AsyncEventSourceClient(self.url, **self.options)
            self.source = source

            async def loop() -> None:
                try:
                    async for item in source:
                        self.items.append(item)
                        self.first.set()
                except BaseException as err:  # reported by the test
                    self.error = err

            task = asyncio.create_task(loop())
            await act(source)
            done, _ = await asyncio.wait([task], timeout=PROMPTLY)
            if not done:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                await source.aclose()
            return bool(done)

        return asyncio.run(asyncio.wait_for(main(), TIMEOUT))


async def until(condition: threading.Event) -> None:
    """Wait, without blocking the event loop, for an event set by another thread."""
    deadline = time.monotonic() + TIMEOUT
    while not condition.is_set():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.005)


def act_after(mode: str, ready: Callable[[], threading.Event], how: str) -> Callable[[Any], Any]:
    """Once ``ready()`` is set: call ``close()`` / ``aclose()`` or ``restart()`` on the client."""
    if mode == "sync":

        def act(source: Any) -> None:
            assert ready().wait(TIMEOUT)
            time.sleep(0.05)  # let the loop block again
            if how == "close":
                source.close()
            else:
                source.restart()

        return act

    async def aact(source: Any) -> None:
        await until(ready())
        await asyncio.sleep(0.05)
        if how == "close":
            await source.aclose()
        else:
            source.restart()

    return aact


# --- 1. a cut inside a character or an event is a drop, in either profile ---------------------

CUT_BODY = "retry: 1\nid: 1\ndata: a\n\nid: 2\ndata: é\n\n".encode()
INSIDE = {"a character": CUT_BODY.index("é".encode()) + 1, "an event": CUT_BODY.index(b"data: \xc3")}


@pytest.mark.parametrize("where", sorted(INSIDE))
@pytest.mark.parametrize("profile", ["strict", "browser"])
@pytest.mark.parametrize("mode", MODES)
def test_a_cut_inside_a_character_or_an_event_is_a_drop_in_either_profile(mode: str, profile: str, where: str) -> None:
    resumed = CUT_BODY[CUT_BODY.index(b"id: 2") :]
    with FaultServer([OK, *trickle(CUT_BODY[: INSIDE[where]])], [OK, resumed], [NO_CONTENT]) as server:
        items, source = read(mode, server.url, profile=profile)
    assert datas(items) == ["a", "é"]  # nothing replayed, nothing lost
    assert server.ids() == [None, b"1", b"2"] and source.ended == "204"


# --- 2. an ID with spaces or tabs at its ends ---------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_an_id_with_spaces_or_tabs_at_its_ends_is_sent_trimmed_and_reconnecting_works(mode: str) -> None:
    with FaultServer([OK, b"retry: 1\nid: \t x y \t\ndata: a\n\n"], [OK, b"data: b\n\n"], [NO_CONTENT]) as server:
        items, source = read(mode, server.url, max_reconnects=5)
    assert [(e.data, e.last_event_id) for e in items] == [("a", "\t x y \t"), ("b", "\t x y \t")]  # the ID keeps them
    assert server.ids() == [None, b"x y", b"x y"]  # the header does not, as browsers send it
    assert source.ended == "204"


@pytest.mark.parametrize("mode", MODES)
def test_an_id_http_cannot_carry_fails_the_request_instead_of_retrying_it(mode: str) -> None:
    with FaultServer([OK, b"retry: 1\nid: a\x0bb\ndata: a\n\n"]) as server:
        with pytest.raises(RequestFailed, match="LocalProtocolError") as failed:
            read(mode, server.url, max_reconnects=5)
    assert isinstance(failed.value.__cause__, httpx.LocalProtocolError)
    assert len(server.connections) == 1


# --- 3. closing from another thread or task, wherever the loop is ------------------------------

#: Where the loop is when it is closed: the server's script for it.
PLACES = {
    "a quiet stream": [OK, b"data: a\n\n", STALL],
    "the response head": [STALL],
    "the wait": [OK, b"retry: 60000\ndata: a\n\n"],
}


def ready_at(place: str, server: FaultServer, background: Background) -> Callable[[], threading.Event]:
    """What to wait for before acting: the first event, or the request's head at the server."""
    return (lambda: server.head_read) if place == "the response head" else lambda: background.first


@pytest.mark.parametrize("place", ["a quiet stream", "the response head", "the wait"])
@pytest.mark.parametrize("mode", MODES)
def test_closing_from_elsewhere_ends_the_loop_and_the_connection_promptly(mode: str, place: str) -> None:
    script = PLACES[place]
    with FaultServer(script) as server:
        background = Background(mode, server.url)
        started = time.monotonic()
        ended = background.run(act_after(mode, ready_at(place, server, background), "close"))
        assert ended, f"the loop still runs {time.monotonic() - started:.1f} s after close()"
        assert background.error is None and background.source.ended == "closed"
        if STALL in script:  # the server side sees the connection closed
            assert server.connections[0].client_closed.wait(PROMPTLY)
        assert len(server.connections) == 1


# --- 4. the wait is bounded ---------------------------------------------------------------------

HUGE = b"retry: 18446744073709551615\nid: 1\ndata: a\n\n"


@pytest.mark.parametrize("mode", MODES)
def test_a_huge_retry_is_waited_at_most_the_maximum(mode: str) -> None:
    delays: list[float] = []

    async def record(seconds: float) -> None:
        delays.append(seconds)

    with FaultServer([OK, HUGE], [NO_CONTENT]) as server:
        items, _ = read(mode, server.url, sleep=delays.append if mode == "sync" else record)
    assert delays == [MAX_WAIT_MS / 1000]
    assert items[0].retry == 18446744073709551615  # the event still says what the stream said


@pytest.mark.parametrize("mode", MODES)
def test_a_huge_retry_is_waited_without_error_until_closed(mode: str) -> None:
    with FaultServer([OK, HUGE]) as server:
        background = Background(mode, server.url)
        assert background.run(act_after(mode, lambda: background.first, "close"))
    assert background.error is None and datas(background.items) == ["a"]


def test_a_backoff_after_many_failures_stays_at_its_cap() -> None:
    backoff = Backoff(factor=2, cap_ms=500, jitter=0)
    assert backoff.delay_ms(100, 5000) == 500 and backoff.delay_ms(0, 5000) == 500


# --- 5. every failure while reading the body is a drop or a documented error ------------------


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
@pytest.mark.parametrize("mode", MODES)
def test_a_corrupt_body_is_a_drop_and_the_event_decoded_in_the_same_read_is_kept(mode: str, coding: str) -> None:
    (event,) = compressed(coding, b"retry: 1\nid: 1\ndata: a\n\n")
    gzipped = head(200, "Content-Type: text/event-stream", f"Content-Encoding: {coding}")
    with FaultServer([gzipped, event + CORRUPT], [NO_CONTENT]) as server:  # one write: one read
        items, source = read(mode, server.url, notices=True)
    assert datas(items) == ["a"] and source.ended == "204"
    assert [item.reason for item in items if isinstance(item, Reconnecting)] == ["undecodable body"]
    assert server.ids() == [None, b"1"]


@pytest.mark.parametrize("mode", MODES)
def test_a_redirect_loop_fails_the_request_without_reconnecting(mode: str) -> None:
    with FaultServer([head(307, "Location: /", "Content-Length: 0")]) as server:
        with pytest.raises(RequestFailed, match="TooManyRedirects") as failed:
            read(mode, server.url, reconnection_ms=1)
    assert isinstance(failed.value.__cause__, httpx.TooManyRedirects)
    assert len(server.connections) == 21  # the request and httpx's 20 redirects, once


#: What httpx defines but the client never meets: raised only by calls it does
#: not make (``raise_for_status``, ``cookies.get``) or by misusing a response
#: (reading one twice, after closing it), which the client does not.
NOT_RAISED = (httpx.HTTPStatusError, httpx.CookieConflict, httpx.StreamError)


def unclassified(drops: tuple, refusals: tuple) -> list[str]:
    """httpx's concrete error types that are neither a drop, a refusal, nor never raised."""
    errors = [value for value in vars(httpx).values() if inspect.isclass(value) and issubclass(value, Exception)]
    leaves = [error for error in errors if not any(other is not error and issubclass(other, error) for other in errors)]
    return sorted(e.__name__ for e in leaves if not issubclass(e, drops + refusals + NOT_RAISED))


def test_every_error_httpx_raises_is_a_drop_or_a_refusal() -> None:
    assert unclassified(DROPS, REFUSALS) == []
    without_decoding = tuple(error for error in DROPS if error is not httpx.DecodingError)
    assert unclassified(without_decoding, REFUSALS) == ["DecodingError"]  # the check sees a gap


README = Path(__file__).resolve().parent.parent / "README.md"


def client_section() -> str:
    readme = README.read_text(encoding="utf-8")
    start = readme.index("## The reconnecting client")
    return readme[start : readme.index("\n## ", start + 1)]


def test_the_readme_names_every_error_the_client_raises_or_reconnects_after() -> None:
    section = client_section()
    named = [f"httpx.{error.__name__}" for error in DROPS + REFUSALS] + [
        "ConnectionFailed",
        "RequestFailed",
        "SSEError",
    ]
    assert [name for name in named if f"`{name}`" not in section] == []
    assert f"{MAX_WAIT_MS:_}" in section  # the maximum wait, as the code has it
    assert f"`MIN_RECONNECTION_MS` = {MIN_RECONNECTION_MS}" in section  # the floor, as the code has it


@pytest.mark.parametrize("mode", MODES)
def test_each_failure_while_reading_is_a_drop_with_its_reason(mode: str) -> None:
    """Notices, in order: a clean end, a read timeout, a corrupt body, a cut chunked body, a reset."""
    gzipped = head(200, "Content-Type: text/event-stream", "Content-Encoding: gzip")
    scripts = [  # each in one write, so that only the stall is silent longer than the read timeout
        [OK + b"retry: 1\nid: 1\ndata: a\n\n"],
        [OK, STALL],
        [gzipped + compressed("gzip", b": hi\n\n")[0] + CORRUPT],
        [
            head(200, "Content-Type: text/event-stream", "Transfer-Encoding: chunked")
            + b"".join(chunked(b"data: b\n\n", b"data: c"))
        ],
        [OK, RESET],
        [NO_CONTENT],
    ]
    with FaultServer(*scripts) as server:
        items, source = read(mode, server.url, notices=True, read_timeout=0.3)
    assert [item if isinstance(item, Event) else (item.reason, type(item.error).__name__) for item in items] == [
        Event("message", "a", "1", 1),
        ("ended", "NoneType"),
        ("timeout", "ReadTimeout"),
        ("undecodable body", "DecodingError"),
        Event("message", "b", "1", 1),
        ("network error", "RemoteProtocolError"),
        ("network error", "ReadError"),
    ]
    notices = [item for item in items if isinstance(item, Reconnecting)]
    assert [(n.delay, n.last_event_id, n.attempt) for n in notices] == [(0.001, "1", n) for n in range(2, 7)]
    assert source.ended == "204" and len(server.connections) == 6


# --- 6. restart() cuts the connection now, idle or not -------------------------------------------


@pytest.mark.parametrize("place", ["a quiet stream", "the wait"])
@pytest.mark.parametrize("mode", MODES)
def test_restart_from_elsewhere_cuts_the_connection_now_and_reconnects(mode: str, place: str) -> None:
    first = [OK, b"retry: 60000\nid: 1\ndata: a\n\n", *([STALL] if place == "a quiet stream" else [])]
    with FaultServer(first, [OK, b"retry: 1\ndata: b\n\n"], [NO_CONTENT]) as server:
        background = Background(mode, server.url, notices=True)
        assert background.run(act_after(mode, lambda: background.first, "restart"))
        if place == "a quiet stream":
            assert server.connections[0].client_closed.wait(PROMPTLY)
    assert background.error is None and datas(background.items) == ["a", "b"]
    reasons = [n.reason for n in background.items if isinstance(n, Reconnecting)]
    assert reasons == (["restart", "ended"] if place == "a quiet stream" else ["ended", "ended"])  # no 60 s wait
    assert server.ids() == [None, b"1", b"1"] and background.source.ended == "204"


# --- 7. the notice: off by default, the same in both clients ---------------------------------------


NOTICE_SCRIPTS = ([OK, b"retry: 2\nid: 1\ndata: a\n\n"], [OK, b"data: b\n\nid: 2\ndata: c"], [NO_CONTENT])


@pytest.mark.parametrize("mode", MODES)
def test_notices_are_off_by_default(mode: str) -> None:
    with FaultServer(*NOTICE_SCRIPTS) as server:
        items, _ = read(mode, server.url)
    assert items == [Event("message", "a", "1", 2), Event("message", "b", "1", 2)]


@pytest.mark.parametrize("mode", MODES)
def test_breaking_on_a_notice_stops_reconnecting(mode: str) -> None:
    with FaultServer(*NOTICE_SCRIPTS) as server:
        if mode == "sync":
            with EventSourceClient(server.url, notices=True) as source:
                seen = next(item for item in source if isinstance(item, Reconnecting))
        else:

            async def main() -> Reconnecting:
                async with AsyncEventSourceClient(server.url, notices=True) as source:
                    async for item in source:
                        if isinstance(item, Reconnecting):
                            return item
                raise AssertionError("no notice")

            seen = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    assert seen == Reconnecting("ended", MIN_RECONNECTION_MS / 1000, "1", 2)  # retry: 2, raised to the floor
    assert len(server.connections) == 1


def outcome(mode: str, **options: Any) -> tuple:
    """All the client shows of a run over NOTICE_SCRIPTS and a corrupt body: items, errors, end, requests."""
    gzipped = head(200, "Content-Type: text/event-stream", "Content-Encoding: gzip")
    scripts = [*NOTICE_SCRIPTS[:2], [gzipped, compressed("gzip", b"data: d\n\n")[0] + CORRUPT], [NO_CONTENT]]
    with FaultServer(*scripts) as server:
        items, source = read(mode, server.url, **options)
    errors = [type(item.error).__name__ for item in items if isinstance(item, Reconnecting)]
    heads = [{name: value for name, value in c.head.items() if name != "host"} for c in server.connections]
    return items, errors, source.ended, source.attempts, heads


def test_the_sync_and_async_clients_agree() -> None:
    sync, asynchronous = outcome("sync", notices=True), outcome("async", notices=True)
    assert sync == asynchronous
    assert sync[1] == ["NoneType", "NoneType", "DecodingError"]
    assert outcome("async", notices=False) != sync  # the comparison sees a difference


def test_the_sync_and_async_clients_offer_the_same_options_and_methods() -> None:
    def shape(cls: type, renames: dict[str, str]) -> tuple[set[str], list[str]]:
        names = {renames.get(name, name) for name in dir(cls) if not name.startswith("_") or name in renames}
        return names, list(inspect.signature(cls.__init__).parameters)

    assert shape(EventSourceClient, {"__iter__": "iterate", "__enter__": "enter", "close": "close"}) == shape(
        AsyncEventSourceClient, {"__aiter__": "iterate", "__aenter__": "enter", "aclose": "close"}
    )


# --- 8. the README's backoff formula is the code's ------------------------------------------------


def test_the_readme_backoff_formula_is_what_the_client_waits() -> None:
    row = next(line for line in client_section().splitlines() if line.startswith("| `backoff="))
    formula = re.search(r"wait `([^`]*failures[^`]*)`", row).group(1)
    delays: list[float] = []
    with FaultServer([OK]) as server:  # every connection empty
        read(
            "sync",
            server.url,
            reconnection_ms=100,
            backoff=Backoff(factor=2, cap_ms=10_000, jitter=0, base_ms=200),
            max_reconnects=4,
            sleep=delays.append,
        )
    values = {"retry": 100, "base_ms": 200, "factor": 2}  # grown from base_ms, above the reconnection time
    said = [eval(formula, {"max": max}, {**values, "failures": n}) / 1000 for n in range(1, 5)]
    assert delays == said == [0.2, 0.4, 0.8, 1.6]


# --- 9. every wait, cut every way, sync and async -------------------------------------------------
#
# The loop runs in a thread of its own (the async client in an event loop there); this thread
# waits until the loop is in the wait, then acts: close(), restart() and, for the async client,
# aclose() and cancelling its task, handed to its event loop from here (restart() is called
# directly: any thread may). A break comes from the loop's own body, so only where the loop hands
# over an item: at an event (the body) and at a notice (before the reconnection delay).

EVENT = b"retry: 60000\nid: 1\ndata: a\n\n"  # then a 60 s reconnection time: a wait that must be cut
WAITS = ("connect", "head", "body", "delay", "draw")
SCRIPTS = {"head": [STALL], "body": [OK, EVENT, STALL], "delay": [OK, EVENT], "draw": [OK, EVENT]}
CLOSERS = {"sync": ("close", "restart", "break"), "async": ("aclose", "restart", "cancel", "break")}
BREAK_AT = {"body": Event, "delay": Reconnecting}  # what the loop breaks on, where a break can come
CUTS = [
    (mode, wait, how) for mode in MODES for wait in WAITS for how in CLOSERS[mode] if how != "break" or wait in BREAK_AT
]


@contextmanager
def unreachable() -> Iterator[str]:
    """A URL whose TCP connect never completes: a listener whose accept queue is full."""
    with socket.create_server(("127.0.0.1", 0), backlog=0) as listener:
        port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)):  # fills the queue: the next SYN is dropped
            yield f"http://127.0.0.1:{port}/"


class Looping:
    """A client iterated in a thread of its own (the async one in an event loop of its own there)."""

    def __init__(self, mode: str, url: str, breaks_on: type | None = None, **options: Any) -> None:
        self.mode, self.breaks_on = mode, breaks_on
        self.items: list[Any] = []
        self.errors: list[BaseException] = []
        self.seen = {Event: threading.Event(), Reconnecting: threading.Event()}
        self.done, self.started = threading.Event(), threading.Event()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.task: asyncio.Task[None] | None = None
        client = EventSourceClient if mode == "sync" else AsyncEventSourceClient
        self.source: Any = client(url, notices=True, **options)
        threading.Thread(target=self._sync if mode == "sync" else self._async, daemon=True).start()
        assert self.started.wait(TIMEOUT)

    def _take(self, item: Any) -> bool:
        """Keep ``item``; True to break."""
        self.items.append(item)
        self.seen[type(item)].set()
        return self.breaks_on is not None and isinstance(item, self.breaks_on)

    def _sync(self) -> None:
        self.started.set()
        try:
            for item in self.source:
                if self._take(item):
                    break
        except BaseException as err:  # reported by the test
            self.errors.append(err)
        finally:
            self.done.set()

    def _async(self) -> None:
        async def iterate() -> None:
            async for item in self.source:
                if self._take(item):
                    break

        async def main() -> None:
            self.loop = asyncio.get_running_loop()
            self.task = asyncio.create_task(iterate())
            self.started.set()
            try:
                await self.task
            except BaseException as err:  # reported by the test
                self.errors.append(err)
            self.done.set()
            await self.stop.wait()  # the event loop goes on, as a program's does (it closes a loop left by break)

        self.stop = asyncio.Event()
        asyncio.run(main())

    def act(self, how: str) -> None:
        if how == "close":
            self.source.close()
        elif how == "restart":
            self.source.restart()
        elif how == "aclose":
            asyncio.run_coroutine_threadsafe(self.source.aclose(), self.loop).result(TIMEOUT)
        elif how == "cancel":
            self.loop.call_soon_threadsafe(self.task.cancel)

    def end(self) -> None:
        """Close what the test left running, wait until the loop is over, and end the event loop."""
        if self.mode == "sync":
            self.source.close()
        else:
            asyncio.run_coroutine_threadsafe(self.source.aclose(), self.loop).result(TIMEOUT)
            self.loop.call_soon_threadsafe(self.stop.set)
        assert self.done.wait(TIMEOUT)


def until_true(condition: Callable[[], bool], seconds: float = PROMPTLY) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def drawing_backoff(drawing: threading.Event) -> Backoff:
    """A backoff whose random draw takes a while (as a slow or remote source of randomness would)."""

    def slow() -> float:
        drawing.set()
        time.sleep(0.2)
        return 0.0

    return Backoff(random=slow)


def in_the_wait(wait: str, server: FaultServer | None, looping: Looping, drawing: threading.Event) -> None:
    """Return once the loop is in ``wait``."""
    if wait == "connect":
        time.sleep(0.1)  # nothing to observe: the connect has no socket to report yet
    elif wait == "head":
        assert server is not None and server.head_read.wait(TIMEOUT)
    elif wait == "body":
        assert looping.seen[Event].wait(TIMEOUT)
    elif wait == "delay":
        assert looping.seen[Reconnecting].wait(TIMEOUT)
    else:
        assert drawing.wait(TIMEOUT)
    time.sleep(0.02)  # let the loop block


@pytest.mark.parametrize("mode,wait,how", CUTS)
def test_every_wait_is_cut_at_once_by_every_way_of_closing(mode: str, wait: str, how: str) -> None:
    drawing = threading.Event()
    options: dict[str, Any] = {"backoff": drawing_backoff(drawing)} if wait == "draw" else {}
    with ExitStack() as stack:
        server = None if wait == "connect" else stack.enter_context(FaultServer(SCRIPTS[wait]))
        url = stack.enter_context(unreachable()) if server is None else server.url
        looping = Looping(mode, url, BREAK_AT.get(wait) if how == "break" else None, **options)
        try:
            if how != "break":
                in_the_wait(wait, server, looping, drawing)
            started = time.monotonic()
            looping.act(how)
            if how == "restart":  # the next connection is tried at once, whatever the wait was
                assert until_true(lambda: looping.source.attempts >= 2), f"no reconnection after {wait}'s restart"
            else:
                assert looping.done.wait(PROMPTLY), f"{how} left the loop in {wait}"
            assert time.monotonic() - started < PROMPTLY
            if server is not None and wait in ("head", "body"):  # the server sees its connection closed
                assert server.connections[0].client_closed.wait(PROMPTLY)
            assert looping.source.ended == ("closed" if how in ("close", "aclose") else None)  # else it may go on
        finally:
            looping.end()
    expected_errors = ["CancelledError"] if how == "cancel" else []
    assert [type(error).__name__ for error in looping.errors] == expected_errors


def test_the_cut_suite_covers_every_wait_and_every_way_of_closing() -> None:
    """Its size, waits x ways of closing x clients: a break only where an item is handed over."""
    assert {wait for _, wait, _ in CUTS} == set(WAITS)
    assert len(CUTS) == len(WAITS) * (2 + 3) + len(BREAK_AT) * 2 == 29


# --- 10. a close or a restart during the backoff's draw is never lost --------------------------------


@pytest.mark.parametrize("mode,how", [("sync", "close"), ("sync", "restart"), ("async", "restart")])
def test_a_close_or_restart_during_the_draw_is_not_lost(mode: str, how: str) -> None:
    """The draw itself closes or restarts the client: the wait that follows must not be waited."""
    box: list[Any] = []

    def draw() -> float:
        box[0].close() if how == "close" else box[0].restart()
        return 0.0

    scripts = ([OK, EVENT], [OK, b"data: b\n\n"], [NO_CONTENT])
    with FaultServer(*scripts) as server:
        started = time.monotonic()
        if mode == "sync":
            source = EventSourceClient(server.url, backoff=Backoff(random=draw))
            box.append(source)
            items = list(source)
        else:  # (aclose() is a coroutine, which a draw cannot call: the cut suite closes during the draw)
            items, source = read_with(server.url, box, backoff=Backoff(random=draw))
    assert time.monotonic() - started < PROMPTLY
    assert datas(items) == (["a"] if how == "close" else ["a", "b"])
    assert source.ended == ("closed" if how == "close" else "204")


def read_with(url: str, box: list[Any], **options: Any) -> tuple[list[Any], Any]:
    """Like ``read`` (async), with the client put in ``box`` first (for callbacks that act on it)."""

    async def main() -> tuple[list[Any], Any]:
        async with AsyncEventSourceClient(url, **options) as source:
            box.append(source)
            return [item async for item in source], source

    return asyncio.run(asyncio.wait_for(main(), TIMEOUT))


# --- 11. strict: an invalid byte at the end of a body is raised, a cut character is a drop -----------

#: The body's last write, after ``data: a`` was delivered, and whether it ends in a cut character.
LAST_WRITES = {
    "an invalid byte, then a line end": (b"data: b\xffc\n", False),
    "an invalid byte, last": (b"data: b\xff", False),
    "an invalid sequence, last": (b"data: \xe2\x82\xe2\x82", False),
    "a character cut after one byte": (b"data: b\xc3", True),
    "a character cut after two bytes": (b"data: \xe2\x82", True),
}


FIRST = b"retry: 1\nid: 1\ndata: a\n\n"


@pytest.mark.parametrize("last", sorted(LAST_WRITES))
@pytest.mark.parametrize("mode", MODES)
def test_strict_invalid_utf8_at_the_end_of_a_body_is_raised_and_a_cut_character_is_a_drop(mode: str, last: str) -> None:
    write, cut = LAST_WRITES[last]
    with FaultServer([OK, FIRST, Pause(0.02), write], [NO_CONTENT]) as server:  # two reads: the parser holds the last
        if cut:
            items, source = read(mode, server.url, profile="strict", max_reconnects=3)
            assert datas(items) == ["a"] and source.ended == "204"
        else:
            with pytest.raises(DecodeError) as raised:
                read(mode, server.url, profile="strict", max_reconnects=3)
            first_bad = next(at for at, byte in enumerate(write) if byte > 0x7F)
            assert raised.value.offset == len(FIRST) + first_bad
    assert len(server.connections) == (2 if cut else 1)


# --- 12. the reconnection floor: no server makes the client spin -------------------------------------

SPINNER = [OK, b"retry: 0\n\n"]  # every connection: retry 0, then closed at once


def reconnects_per_second(mode: str, seconds: float, **options: Any) -> float:
    """Run a client against SPINNER for ``seconds``, with its own waits; its reconnections per second."""
    with FaultServer(SPINNER) as server:
        looping = Looping(mode, server.url, **options)
        time.sleep(seconds)
        looping.end()
    return (len(server.connections) - 1) / seconds


@pytest.mark.parametrize("mode", MODES)
def test_a_server_that_says_retry_0_and_closes_cannot_make_the_client_spin(mode: str) -> None:
    window = 1.2 * MIN_RECONNECTION_MS / 1000  # long enough for one reconnection, not two
    assert reconnects_per_second(mode, window) <= 1 / window  # one: the floor was waited
    # no floor: the rate the floor prevents (hundreds a second on an idle machine; a loaded one still
    # gives tens, over ten times the bound above)
    spinning = reconnects_per_second(mode, 0.2, min_reconnection_ms=0)
    assert spinning > 20, f"without the floor the client reconnects only {spinning:.0f} times a second"


@pytest.mark.parametrize("retry", [0, 1, MIN_RECONNECTION_MS - 1, MIN_RECONNECTION_MS, MIN_RECONNECTION_MS + 1])
@pytest.mark.parametrize("mode", MODES)
def test_zero_and_tiny_reconnection_times_are_raised_to_the_floor(mode: str, retry: int) -> None:
    delays: list[float] = []

    async def record(seconds: float) -> None:
        delays.append(seconds)

    body = b"retry: %d\nid: 1\ndata: a\n\n" % retry
    with FaultServer([OK, body], [NO_CONTENT]) as server:
        items, source = read(
            mode, server.url, min_reconnection_ms=MIN_RECONNECTION_MS, sleep=delays.append if mode == "sync" else record
        )
    assert delays == [max(retry, MIN_RECONNECTION_MS) / 1000]
    assert items[0].retry == retry and source.reconnection_ms == retry  # the stream's value, as it said it


def test_a_backoff_grows_even_from_a_reconnection_time_of_0() -> None:
    backoff = Backoff(factor=2, cap_ms=10_000, jitter=0)
    assert [backoff.delay_ms(0, failures) for failures in range(1, 6)] == [500, 1000, 2000, 4000, 8000]
    with FaultServer(SPINNER) as server:
        delays: list[float] = []
        read("sync", server.url, backoff=backoff, max_reconnects=3, sleep=delays.append)  # no floor: the backoff's
    assert delays == [0.5, 1.0, 2.0]


# --- 13. one iteration at a time ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_second_iteration_while_another_thread_or_task_iterates_is_refused(mode: str) -> None:
    with FaultServer([OK, EVENT, STALL]) as server:
        looping = Looping(mode, server.url)
        try:
            assert looping.seen[Event].wait(TIMEOUT)
            with pytest.raises(RuntimeError, match="one iteration at a time"):
                iter(looping.source) if mode == "sync" else aiter(looping.source)
            assert not looping.done.is_set() and looping.errors == []  # the first goes on
        finally:
            looping.end()
    assert datas(looping.items) == ["a"] and len(server.connections) == 1


TWO = b"retry: 1\nid: 1\ndata: a\n\nid: 2\ndata: b\n\n"


@pytest.mark.parametrize("mode", MODES)
def test_a_second_iterator_ends_a_suspended_first_and_resumes_after_its_last_event(mode: str) -> None:
    """The first iterator handed over ``a`` and was not resumed: the second ends it, and
    continues from ``a`` on a new connection (``b``, read but not handed over, comes again)."""
    with FaultServer([OK, TWO, STALL], [OK, b"id: 2\ndata: b\n\n"], [NO_CONTENT]) as server:
        if mode == "sync":
            with EventSourceClient(server.url, min_reconnection_ms=0) as source:
                first = iter(source)
                assert next(first).data == "a"
                second = iter(source)
                rest = list(second)
                assert list(first) == []  # ended: it yields nothing more
        else:

            async def main() -> list[Any]:
                async with AsyncEventSourceClient(server.url, min_reconnection_ms=0) as source:
                    first = aiter(source)
                    assert (await anext(first)).data == "a"
                    rest = [item async for item in source]
                    assert [item async for item in first] == []
                    return rest

            rest = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    assert datas(rest) == ["b"]
    assert server.ids() == [None, b"1", b"2"]
    assert server.connections[0].client_closed.wait(PROMPTLY)


# --- 14. content codings as HTTP defines them ----------------------------------------------------------

CODED = b"retry: 1\nid: 1\ndata: caf\xc3\xa9\n\nid: 2\ndata: b\n\n"


def encode(codings: str, data: bytes) -> bytes:
    """``data`` in the codings of a Content-Encoding value, applied in their order."""
    for coding in [c.strip().lower() for c in codings.split(",")]:
        if coding in ("gzip", "x-gzip"):
            data = gzip.compress(data)
        elif coding == "deflate":
            data = zlib.compress(data)
        elif coding == "raw deflate":  # what some servers send as deflate
            encoder = zlib.compressobj(wbits=-zlib.MAX_WBITS)
            data = encoder.compress(data) + encoder.flush()
    return data


#: Content-Encoding values the client undoes, and what the bytes are (for "raw deflate").
DECODED = {
    "gzip": "gzip",
    "x-gzip": "x-gzip",
    "X-GZip": "x-gzip",
    "deflate": "deflate",
    "deflate (raw)": "raw deflate",
    "identity": "identity",
    "gzip, deflate": "gzip, deflate",
    "deflate, x-gzip": "deflate, x-gzip",
    "identity, gzip": "identity, gzip",
}
REFUSED = ["br", "zstd", "compress", "x-compress", "exi", "pack200-gzip", "unknown", "gzip, br"]


@pytest.mark.parametrize("header", sorted(DECODED))
@pytest.mark.parametrize("mode", MODES)
def test_every_content_coding_the_client_asks_for_or_http_equates_is_undone(mode: str, header: str) -> None:
    value = header.removesuffix(" (raw)")
    coded = head(200, "Content-Type: text/event-stream", f"Content-Encoding: {value}")
    with FaultServer([coded, encode(DECODED[header], CODED)], [NO_CONTENT]) as server:
        items, source = read(mode, server.url, profile="strict")
    assert datas(items) == ["café", "b"] and source.ended == "204"
    assert server.connections[0].head["accept-encoding"] == b"gzip, deflate"


@pytest.mark.parametrize("coding", REFUSED)
@pytest.mark.parametrize("mode", MODES)
def test_a_coding_the_client_cannot_undo_is_refused_and_never_parsed(mode: str, coding: str) -> None:
    coded = head(200, "Content-Type: text/event-stream", f"Content-Encoding: {coding}")
    with FaultServer([coded, CODED]) as server:  # the bytes are plain: a parser fed them would find events
        with pytest.raises(UnsupportedCoding, match="cannot decode content coding") as refused:
            read(mode, server.url)
    assert refused.value.status_code == 200 and refused.value.codings == [c.strip() for c in coding.split(",")][-1:]
    assert isinstance(refused.value, ConnectionFailed) and len(server.connections) == 1


# --- 15. arguments are checked at construction ----------------------------------------------------------

BAD_ARGUMENTS = [
    ({"last_event_id": 5}, TypeError),
    ({"last_event_id": "a\rb"}, ValueError),
    ({"last_event_id": "a\x0bb"}, ValueError),
    ({"reconnection_ms": -1}, ValueError),
    ({"reconnection_ms": "3000"}, TypeError),
    ({"min_reconnection_ms": float("nan")}, ValueError),
    ({"max_reconnects": -1}, ValueError),
    ({"max_reconnects": 1.5}, TypeError),
    ({"read_timeout": 0}, ValueError),
    ({"backoff": 2}, TypeError),
    ({"profile": "lenient"}, ValueError),
    ({"max_line_chars": 0}, ValueError),
    ({"comments": "yes"}, TypeError),
    ({"notices": 1}, TypeError),
    ({"headers": [("a", "b")]}, TypeError),
    ({"content": 5}, TypeError),
    ({"content": b"x", "json": {}}, ValueError),
    ({"method": None}, TypeError),
    ({"sleep": 5}, TypeError),
    ({"client": object()}, TypeError),
    ({"url": "ftp://127.0.0.1/"}, ValueError),
    ({"url": 5}, TypeError),
]


# ids without object addresses, so that every xdist worker collects the same tests
@pytest.mark.parametrize(
    "options,error", BAD_ARGUMENTS, ids=[re.sub(r" at 0x[0-9a-f]+", "", repr(options)) for options, _ in BAD_ARGUMENTS]
)
@pytest.mark.parametrize("mode", MODES)
def test_bad_arguments_fail_at_construction(mode: str, options: dict[str, Any], error: type) -> None:
    client = EventSourceClient if mode == "sync" else AsyncEventSourceClient
    options = {"url": "http://127.0.0.1:9/", **options}
    with pytest.raises(error):
        client(**options)


@pytest.mark.parametrize(
    "options",
    [{"factor": 0.5}, {"cap_ms": -1}, {"jitter": float("inf")}, {"base_ms": 0}, {"random": 0.5}, {"factor": "2"}],
)
def test_a_bad_backoff_fails_at_construction(options: dict[str, Any]) -> None:
    with pytest.raises((ValueError, TypeError)):
        Backoff(**options)


@pytest.mark.parametrize("mode", MODES)
def test_a_bad_restart_id_fails_at_the_call(mode: str) -> None:
    client = EventSourceClient if mode == "sync" else AsyncEventSourceClient
    source = client("http://127.0.0.1:9/")
    with pytest.raises(TypeError):
        source.restart(last_event_id=5)
    with pytest.raises(ValueError):
        source.restart(last_event_id="a\nb")


def test_the_end_of_body_test_rejects_a_client_that_takes_every_decode_error_for_a_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The mutant: every DecodeError at the end of a body taken for a cut character (a drop)."""
    monkeypatch.setattr(Body, "cut_at_the_end", lambda self, err: True)
    with pytest.raises(pytest.fail.Exception, match="DID NOT RAISE"):
        test_strict_invalid_utf8_at_the_end_of_a_body_is_raised_and_a_cut_character_is_a_drop(
            "sync", "an invalid byte, then a line end"
        )
