"""The connection: a reconnecting event-stream client over httpx, sync and async.

It follows the WHATWG HTML processing model for ``EventSource``; it lives at
the I/O edge, beside :mod:`sse_course.httpx_adapter`, and the parser modules
never import it::

    with EventSourceClient(url, max_reconnects=10) as source:
        for event in source:          # Event (and Comment with comments=True)
            ...

    async with AsyncEventSourceClient(url, method="POST", json={"q": 1}) as source:
        async for event in source:
            ...

Its decisions (what to send, what to keep, how long to wait, when to stop)
are :class:`~sse_course.reconnect.ReconnectCore`'s, which owns all of the
connection's state; the two clients here are thin shells over it that do the
I/O and the waiting. The standard's rules, as the client applies them:

* every request carries ``Accept: text/event-stream``,
  ``Cache-Control: no-cache`` and ``Accept-Encoding: gzip, deflate``, plus the
  caller's headers; ``method`` and the body (``content=`` or ``json=``) are
  sent again on every reconnection; redirects are followed;
* a 200 whose media type is ``text/event-stream`` (parameters allowed, any
  letter case) is parsed by a new :class:`~sse_course.SSEParser` per
  connection (``browser`` profile by default), fed the body's bytes with
  their content codings undone by the client itself (gzip, ``x-gzip``,
  deflate, in any stack); a coding it cannot undo raises
  :class:`~sse_course.reconnect.UnsupportedCoding`, and none of its bytes reach the parser;
* when the connection drops or a network error happens, the client waits the
  reconnection time (the stream's last ``retry``, else
  :data:`INITIAL_RECONNECTION_MS`, never less than ``min_reconnection_ms``,
  :data:`MIN_RECONNECTION_MS` by default, nor more than :data:`MAX_WAIT_MS`)
  and reconnects with ``Last-Event-ID`` set to the last event ID (the parser
  of the new connection starts from it, so the ID persists); a partial event
  at a drop is discarded;
* events are the parser's, except that ``retry`` keeps the value the stream
  set on an earlier connection (the reconnection time persists; a new
  parser's would be ``None``);
* a 204 stops the client for good (``ended == "204"``); any other status or
  content type raises :class:`ConnectionFailed` and does not reconnect.
* a parser error (a line or event over its limit; invalid UTF-8 in the
  ``strict`` profile, wherever the parser finds it) is raised as it is:
  reconnecting would only replay it. A connection that ends inside a
  character or an event is a drop, not an error, in either profile: the
  network cut those bytes, the server sends them again;
* what the HTTP library raises is either a drop (:data:`DROPS`: the network,
  a timeout, a protocol error from the server, a body that cannot be decoded,
  whose events decoded before the corrupt byte are delivered first) or
  :class:`RequestFailed` (:data:`REFUSALS`: a request that cannot be made as it
  stands, such as a redirect loop), which does not reconnect;
* ``Last-Event-ID`` is sent as browsers send it: UTF-8, without the spaces and
  tabs at its ends; the ID itself (the events', the next parser's) keeps them.

Beyond the standard (each off unless asked for):

* ``backoff=Backoff(...)``: exponential backoff with jitter and a cap, reset
  after a connection that delivered events;
* ``read_timeout=`` seconds: a stream silent for that long counts as dropped;
* ``last_event_id=``: the ID to send on the first request;
* ``restart()``: cut the current connection now, idle or not, and reconnect at once;
* ``comments=True``: :class:`~sse_course.events.Comment` items among the events;
* ``notices=True``: a :class:`Reconnecting` item before each wait, saying why
  the connection ended and how long the client waits (a browser's ``error`` event);
* ``max_reconnects=``: end quietly (``ended == "max_reconnects"``) instead of
  reconnecting forever;
* ``sleep=``: the function that waits instead of the client's own wait, so
  tests run instantly and can see every delay (the client cannot cut it).

Every wait can be cut: connecting, the response head, the next chunk of the
body, and the wait before a reconnection end at once on ``close()`` /
``aclose()``, ``restart()`` or the cancellation of the iterating task, from
any thread (and any task of the client's event loop); a close or restart
during the backoff's random draw is seen as soon as the draw returns. The
request is sent by a thread of its own (sync) or a task of its own (async),
which the loop stops waiting for; the socket, which httpcore's ``trace``
extension reports as it connects, is shut down, so that a read blocked on it
returns. Breaking out of a sync loop closes its connection at once (the
generator is freed); an async loop's generator is closed by the event loop
soon after (``async with`` closes it at once).

One iteration at a time, in both clients: iterating while another thread or
task is inside an iteration of the same client raises ``RuntimeError`` at
``iter()`` / ``aiter()``; iterating again while an earlier iterator is only
suspended (it handed over an item and was not resumed) ends the earlier one
when the new one starts (it yields nothing more), and the new one continues
from the last event handed over, on a new connection.
"""

from __future__ import annotations

import asyncio
import functools
import json as jsonlib
import socket
import ssl
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator, Iterator, Mapping
from contextlib import aclosing, suppress
from typing import Any, cast

# The httpx edge first: without httpx installed, its ImportError names the extra that brings it.
from .httpx_adapter import media_type  # isort: skip

import httpx

from .reconnect import (
    INITIAL_RECONNECTION_MS,
    MAX_WAIT_MS,
    MIN_RECONNECTION_MS,
    Backoff,
    Body,
    ConnectionFailed,
    Item,
    ReconnectCore,
    Reconnecting,
    UnsupportedCoding,
    check_number,
    check_type,
    codings_of,
)

__all__ = [
    "DROPS",
    "INITIAL_RECONNECTION_MS",
    "MAX_WAIT_MS",
    "MIN_RECONNECTION_MS",
    "REFUSALS",
    "AsyncEventSourceClient",
    "Backoff",
    "ConnectionFailed",
    "EventSourceClient",
    "Reconnecting",
    "RequestFailed",
    "UnsupportedCoding",
]

#: Seconds to wait for a connection to open (and, without read_timeout, the
#: read timeout is off: a stream may rightly be quiet for a long time).
CONNECT_TIMEOUT = 10.0

#: What the HTTP library raises that the client takes for the standard's
#: "network error": the connection is over, the client waits and reconnects.
DROPS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError, httpx.ProxyError, httpx.DecodingError)
#: What it raises when the request cannot be made as it stands (a header HTTP
#: cannot carry, a URL it cannot fetch, a redirect loop): reconnecting would
#: fail the same way, so the client raises :class:`RequestFailed`.
REFUSALS = (httpx.LocalProtocolError, httpx.UnsupportedProtocol, httpx.TooManyRedirects, httpx.InvalidURL)

ONE_AT_A_TIME = "this client is being iterated by another thread or task: one iteration at a time"


class RequestFailed(Exception):
    """The request cannot be made as it stands, so the client does not retry it
    (the HTTP library's error is the ``__cause__``): a redirect loop, a URL it
    cannot fetch, a header value HTTP cannot carry."""


def why_ended(error: Exception | None) -> str:
    """A notice's reason for a connection that ``error`` ended (``None``: the body
    ended); raise what reconnecting would not cure."""
    if error is None:
        return "ended"
    if isinstance(error, REFUSALS):
        raise RequestFailed(f"{type(error).__name__}: {error}") from error
    if isinstance(error, httpx.TimeoutException):
        return "timeout"
    if isinstance(error, httpx.DecodingError):
        return "undecodable body"
    if isinstance(error, DROPS):
        return "network error"
    raise error  # a parser error, ConnectionFailed, or a bug: not the network's


def request_body(
    content: bytes | str | None, json: Any, headers: Mapping[str, str]
) -> tuple[bytes | None, dict[str, str]]:
    """The body to send (the same bytes on every reconnection) and the headers it needs."""
    headers = dict(headers)
    if json is not None:
        if content is not None:
            raise ValueError("give content= or json=, not both")
        headers.setdefault("Content-Type", "application/json")
        return jsonlib.dumps(json).encode("utf-8"), headers
    if content is not None and not isinstance(content, (bytes, str)):
        raise TypeError(f"content must be bytes or str, got {content!r}")
    return (content.encode("utf-8") if isinstance(content, str) else content), headers


def checked_url(url: object) -> str:
    """Refuse a URL the client could never fetch, now rather than at the first request."""
    check_type("url", url, (str, httpx.URL))
    try:
        parsed = httpx.URL(cast("str | httpx.URL", url))
    except httpx.InvalidURL as err:
        raise ValueError(f"url is not a URL: {url!r} ({err})") from None
    if parsed.scheme not in ("http", "https"):
        raise ValueError(f"url must be http or https, got {url!r}")
    return str(url)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default TLS context, made once: loading the CA bundle for every client costs
    a tenth of a second or more."""
    return httpx.create_ssl_context()


def own_client_options() -> dict[str, Any]:
    """For an httpx client of the client's own: no connection kept for reuse (each
    request connects anew, so the socket is always known, and a close or restart
    can cut it even before the response)."""
    return {"limits": httpx.Limits(max_keepalive_connections=0), "verify": tls_context()}


def shut_down(sock: socket.socket) -> None:
    """Shut a socket down: a read blocked on it, for the head or the body, returns at once
    (closing it would not)."""
    with suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)


def running_now(generator: object) -> bool:
    """Whether a thread or task is inside ``generator`` now (not suspended at a yield)."""
    return bool(getattr(generator, "gi_running", False) or getattr(generator, "ag_running", False))


class _ClientBase(ABC):
    """The options both clients share, and their steps that do no I/O; the subclasses do the I/O."""

    def __init__(
        self,
        url: str,
        *,
        method: str = "GET",
        headers: Mapping[str, str] | None = None,
        content: bytes | str | None = None,
        json: Any = None,
        profile: str = "browser",
        last_event_id: str = "",
        reconnection_ms: float = INITIAL_RECONNECTION_MS,
        min_reconnection_ms: float = MIN_RECONNECTION_MS,
        backoff: Backoff | None = None,
        max_reconnects: int | None = None,
        read_timeout: float | None = None,
        comments: bool = False,
        notices: bool = False,
        max_line_chars: int | None = None,
        max_event_chars: int | None = None,
    ) -> None:
        self.url = checked_url(url)
        check_type("method", method, str)
        check_type("headers", headers or {}, Mapping)
        check_type("comments", comments, bool)
        check_type("notices", notices, bool)
        self.method = method
        self.body, self.extra_headers = request_body(content, json, headers or {})
        read = None if read_timeout is None else check_number("read_timeout", read_timeout, positive=True)
        self.timeout = httpx.Timeout(CONNECT_TIMEOUT, read=read)
        self.notices = notices
        options: dict[str, Any] = {"comments": comments}
        if max_line_chars is not None:
            options["max_line_chars"] = max_line_chars
        if max_event_chars is not None:
            options["max_event_chars"] = max_event_chars
        self.core = ReconnectCore(
            profile=profile,
            last_event_id=last_event_id,
            reconnection_ms=reconnection_ms,
            min_reconnection_ms=min_reconnection_ms,
            backoff=backoff,
            max_reconnects=max_reconnects,
            parser_options=options,
            wake=self._wake,
        )

    @abstractmethod
    def _wake(self) -> None:
        """End the loop's current wait, whatever it waits for, so that it asks the core again."""

    @property
    def last_event_id(self) -> str:
        """The ID the next connection sends as ``Last-Event-ID``."""
        return self.core.last_event_id

    @property
    def reconnection_ms(self) -> float:
        """The reconnection time: the stream's last ``retry``, else the initial value."""
        return self.core.reconnection_ms

    @property
    def attempts(self) -> int:
        """How many connections this client has tried so far (reset by ``restart()`` after the end)."""
        return self.core.attempts

    @property
    def ended(self) -> str | None:
        """Why iterating ended: "204", "max_reconnects", "closed", or None while it may go on."""
        return self.core.ended

    @property
    def closed(self) -> bool:
        return self.core.closed

    def restart(self, last_event_id: str | None = None) -> None:
        """Beyond the standard: cut the connection now, idle or not, and reconnect at
        once (optionally from another ID); the items of a chunk already read are
        delivered first. After a 204 or the last reconnection, iterating again
        starts anew (``max_reconnects`` counted afresh). Any thread may call it."""
        self.core.restart(last_event_id)

    def _request_options(self, headers: dict[str, str | bytes], trace: Callable[..., Any]) -> dict[str, Any]:
        """What ``build_request`` takes for one connection (the caller's client adds its own defaults)."""
        return {
            "method": self.method,
            "url": self.url,
            "headers": headers,
            "content": self.body,
            "timeout": self.timeout,
            "extensions": {"trace": trace},
        }

    def _connected(self, connection: int, name: str, info: dict[str, Any]) -> None:
        """httpcore's trace: keep each new connection's socket as it connects."""
        if name in ("connection.connect_tcp.complete", "connection.connect_unix_socket.complete"):
            self._keep(connection, info["return_value"])

    def _keep(self, connection: int, stream: Any) -> None:
        """Give the core the cut of httpcore's network ``stream`` (none is reported for a
        connection reused from the pool of a caller's ``client=`` until its response arrives)."""
        sock = None if stream is None else stream.get_extra_info("socket")
        if sock is not None:
            self.core.attach(connection, functools.partial(shut_down, sock))

    def _opened(self, connection: int, response: httpx.Response) -> Body | None:
        """The response's body to read, or None after a 204."""
        self._keep(connection, response.extensions.get("network_stream"))
        codings = codings_of(response.headers.get_list("content-encoding", split_commas=True))
        return self.core.open(str(response.url), response.status_code, media_type(response), codings)

    def _read(self, body: Body, raw: bytes, request: httpx.Request, *, final: bool = False) -> Iterator[Item]:
        """The items of one raw read of the body (``final``: with what the codings held back)."""
        data, failure = body.decode(raw, final=final)
        yield from self.core.items(body, data)
        if failure is not None:  # what decoded before the corrupt byte was handed over first
            raise httpx.DecodingError(failure, request=request)

    def _after_connection(self, error: Exception | None) -> Reconnecting | None:
        """What follows a connection that ``error`` ended (``None``: the body ended):
        the reconnection's notice, or None to end (why, in ``ended``). Raises an
        error that reconnecting would not cure, unless a close or restart cut it."""
        cut = self.core.interrupted() or self.core.ended is not None  # the error, if any, is the cut's
        reason = "restart" if cut else why_ended(error)
        return self.core.after_connection(reason, error)


class Sending:
    """A request sent by a thread of its own, so that the loop's wait for its response
    can be cut; a response that comes after the loop stopped waiting is closed. Where
    no thread can start (the browser), it is sent at once, and that wait cannot be cut."""

    def __init__(self, http: httpx.Client, request: httpx.Request, wake: Callable[[], None]) -> None:
        self.lock = threading.Lock()
        self.outcome: httpx.Response | BaseException | None = None
        self.left = False
        try:
            threading.Thread(target=self._send, args=(http, request, wake), daemon=True).start()
        except RuntimeError:  # no threads here (Pyodide, in the browser): sent in the loop's own thread
            self._send(http, request, wake)

    def _send(self, http: httpx.Client, request: httpx.Request, wake: Callable[[], None]) -> None:
        try:
            outcome: httpx.Response | BaseException = http.send(request, stream=True, follow_redirects=True)
        except BaseException as err:  # the loop raises it, or sorts it as a drop
            outcome = err
        with self.lock:
            left = self.left
            self.outcome = outcome
        if left and isinstance(outcome, httpx.Response):
            outcome.close()
        wake()

    def done(self) -> bool:
        return self.outcome is not None

    def drop(self) -> None:
        """The loop waits no more (an interrupt): the response is closed, now or when it comes."""
        with self.lock:
            outcome = self.outcome
            self.left = True
        if isinstance(outcome, httpx.Response):
            outcome.close()

    def take(self) -> httpx.Response | None:
        """The response (or raise the error); ``None`` if it has not come: it is left to close itself."""
        with self.lock:
            outcome = self.outcome
            self.left = outcome is None
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


class EventSourceClient(_ClientBase):
    """A reconnecting event-stream client (sync); iterate it for events."""

    def __init__(
        self,
        url: str,
        *,
        client: httpx.Client | None = None,
        sleep: Callable[[float], Any] | None = None,
        **options: Any,
    ) -> None:
        if client is not None:
            check_type("client", client, httpx.Client)
        if sleep is not None and not callable(sleep):
            raise TypeError(f"sleep must be callable, got {sleep!r}")
        self.signal = threading.Condition()  # notified by close() and restart(), and when a response comes
        super().__init__(url, **options)
        self.owns_client = client is None  # ours to close; one given by the caller is not
        self.http: httpx.Client = client if client is not None else httpx.Client(**own_client_options())
        self.sleep = sleep
        self.running: Callable[[], Generator[Item, None, None] | None] = lambda: None

    def __enter__(self) -> EventSourceClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Item]:
        previous = self.running()
        if running_now(previous):
            raise RuntimeError(ONE_AT_A_TIME)
        events = self._events(previous)
        self.running = weakref.ref(events)  # weak: a loop left with break frees it, and its connection
        return events

    def _events(self, previous: Generator[Item, None, None] | None) -> Generator[Item, None, None]:
        """Every event of every connection, until a 204, ``max_reconnects``, or ``close()``."""
        if previous is not None:  # an earlier iterator, suspended: it ends here
            try:
                previous.close()
            except ValueError:  # resumed by another thread meanwhile
                raise RuntimeError(ONE_AT_A_TIME) from None
        try:
            while (begun := self.core.begin(self.extra_headers)) is not None:
                connection, headers = begun
                error = None
                try:
                    yield from self._one_connection(connection, headers)
                except Exception as err:  # sorted below: a drop, a refusal, or an error to raise
                    error = err
                finally:
                    self.core.detach(connection)
                notice = self._after_connection(error)
                if notice is None:
                    break
                if self.notices:
                    yield notice
                if notice.delay:
                    self._wait(notice.delay)
        finally:
            if self.core.closed and self.owns_client:  # closed from another thread: the loop closes it as it ends
                self.http.close()

    def _wake(self) -> None:
        with self.signal:
            self.signal.notify_all()

    def _wait_until(self, done: Callable[[], bool], seconds: float | None) -> None:
        """Wait until ``done()``, a close or a restart, or ``seconds`` passed (no wake-up is lost:
        the core's state is read under the lock its wake-up takes)."""
        with self.signal:
            self.signal.wait_for(lambda: done() or self.core.interrupted(), seconds)

    def _wait(self, seconds: float) -> None:
        if self.sleep is not None:
            self.sleep(seconds)
        else:
            self._wait_until(lambda: False, seconds)

    def _one_connection(self, connection: int, headers: dict[str, str | bytes]) -> Iterator[Item]:
        trace = functools.partial(self._connected, connection)
        sending = Sending(self.http, self.http.build_request(**self._request_options(headers, trace)), self._wake)
        try:
            self._wait_until(sending.done, None)
        except BaseException:  # KeyboardInterrupt, say: nothing reads the response
            sending.drop()
            raise
        response = sending.take()
        if response is None:  # cut while connecting or waiting for the head
            return
        try:
            body = self._opened(connection, response)
            if body is None:
                return
            for raw in response.iter_raw():
                yield from self._read(body, raw, response.request)
                if self.core.stop_reading():
                    return
            yield from self._read(body, b"", response.request, final=True)
            yield from self.core.finish(body)
        finally:
            response.close()

    def close(self) -> None:
        """End iterating and close the connection (and the httpx client, if it is ours); any thread may call it."""
        self.core.close()
        running = self.running()
        if running is not None:
            try:
                running.close()
            except ValueError:  # iterating in another thread right now: the cut ends it, and it closes the rest
                return
        if self.owns_client:
            self.http.close()


class AsyncEventSourceClient(_ClientBase):
    """A reconnecting event-stream client (async); ``async for`` it for events."""

    def __init__(
        self,
        url: str,
        *,
        client: httpx.AsyncClient | None = None,
        sleep: Callable[[float], Awaitable[Any]] | None = None,
        **options: Any,
    ) -> None:
        if client is not None:
            check_type("client", client, httpx.AsyncClient)
        if sleep is not None and not callable(sleep):
            raise TypeError(f"sleep must be callable, got {sleep!r}")
        self.signal = asyncio.Event()  # set by aclose() and restart(), and when a response comes
        self.loop: asyncio.AbstractEventLoop | None = None  # the loop that iterates, once it does
        super().__init__(url, **options)
        self.owns_client = client is None  # ours to close; one given by the caller is not
        self.http: httpx.AsyncClient = client if client is not None else httpx.AsyncClient(**own_client_options())
        self.sleep = sleep
        self.running: Callable[[], AsyncGenerator[Item, None] | None] = lambda: None

    async def __aenter__(self) -> AsyncEventSourceClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __aiter__(self) -> AsyncGenerator[Item, None]:
        previous = self.running()
        if running_now(previous):
            raise RuntimeError(ONE_AT_A_TIME)
        events = self._events(previous)
        self.running = weakref.ref(events)  # weak: a loop left with break is finalised by the event loop
        return events

    async def _events(self, previous: AsyncGenerator[Item, None] | None) -> AsyncGenerator[Item, None]:
        """Every event of every connection, until a 204, ``max_reconnects``, or ``aclose()``."""
        self.loop = asyncio.get_running_loop()
        if previous is not None:  # an earlier iterator, suspended: it ends here
            try:
                await previous.aclose()
            except RuntimeError:  # resumed by another task meanwhile
                raise RuntimeError(ONE_AT_A_TIME) from None
        try:
            while (begun := self.core.begin(self.extra_headers)) is not None:
                connection, headers = begun
                error = None
                try:
                    async with aclosing(self._one_connection(connection, headers)) as items:
                        async for item in items:
                            yield item
                except Exception as err:  # sorted below: a drop, a refusal, or an error to raise
                    error = err
                finally:
                    self.core.detach(connection)
                notice = self._after_connection(error)
                if notice is None:
                    break
                if self.notices:
                    yield notice
                if notice.delay:
                    await self._wait(notice.delay)
        finally:
            if self.core.closed and self.owns_client:  # closed from another task: the loop closes it as it ends
                await self.http.aclose()

    def _wake(self) -> None:
        """Set the event in the loop's own thread (``restart()`` may come from another thread)."""
        loop = self.loop
        if loop is None:
            self.signal.set()
            return
        with suppress(RuntimeError):  # the loop is closed: nothing waits
            loop.call_soon_threadsafe(self.signal.set)

    async def _wait_until(self, done: Callable[[], bool], seconds: float | None) -> None:
        """Wait until ``done()``, a close or a restart, or ``seconds`` passed (no wake-up is lost:
        the event is cleared before the state is read, and set only after it changed)."""
        loop = asyncio.get_running_loop()
        deadline = None if seconds is None else loop.time() + seconds
        while True:
            self.signal.clear()
            left = None if deadline is None else deadline - loop.time()
            if done() or self.core.interrupted() or (left is not None and left <= 0):
                return
            with suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.signal.wait(), left)

    async def _wait(self, seconds: float) -> None:
        if self.sleep is not None:
            await self.sleep(seconds)
        else:
            await self._wait_until(lambda: False, seconds)

    async def _traced(self, connection: int, name: str, info: dict[str, Any]) -> None:
        self._connected(connection, name, info)

    async def _send(self, request: httpx.Request) -> httpx.Response | None:
        """The response, from a task of its own so that the wait for it can be cut; ``None`` if it was."""
        sending = asyncio.ensure_future(self.http.send(request, stream=True, follow_redirects=True))
        sending.add_done_callback(self._sent)
        try:
            await self._wait_until(sending.done, None)
        finally:
            if not sending.done():  # cut, or this task cancelled: httpx closes what it opened
                sending.cancel()
        return sending.result() if sending.done() else None

    def _sent(self, sending: asyncio.Future[httpx.Response]) -> None:
        """Wake the wait; an error of a send no one waits for any more is taken, not logged."""
        self.signal.set()
        if not sending.cancelled():
            sending.exception()

    async def _one_connection(self, connection: int, headers: dict[str, str | bytes]) -> AsyncGenerator[Item, None]:
        trace = functools.partial(self._traced, connection)
        response = await self._send(self.http.build_request(**self._request_options(headers, trace)))
        if response is None:  # cut while connecting or waiting for the head
            return
        try:
            body = self._opened(connection, response)
            if body is None:
                return
            async with aclosing(cast(AsyncGenerator[bytes, None], response.aiter_raw())) as raws:
                async for raw in raws:
                    for item in self._read(body, raw, response.request):
                        yield item
                    if self.core.stop_reading():
                        return
            for item in self._read(body, b"", response.request, final=True):
                yield item
            for item in self.core.finish(body):
                yield item
        finally:
            await response.aclose()

    async def aclose(self) -> None:
        """End iterating and close the connection (and the httpx client, if it is ours)."""
        self.core.close()
        running = self.running()
        if running is not None:
            try:
                await running.aclose()
            except RuntimeError:  # another task is inside it right now: the cut ends it, and it closes the rest
                return
        if self.owns_client:
            await self.http.aclose()
