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

The standard's rules, as this client applies them:

* every request carries ``Accept: text/event-stream`` and
  ``Cache-Control: no-cache``, plus the caller's headers; ``method`` and the
  body (``content=`` or ``json=``) are sent again on every reconnection;
  redirects are followed;
* a 200 whose media type is ``text/event-stream`` (parameters allowed, any
  letter case) is parsed by a new :class:`~sse_course.SSEParser` per
  connection (``browser`` profile by default), fed the body's bytes with
  their content coding undone (:func:`~sse_course.httpx_adapter.body_chunks`:
  gzip and deflate by the client itself, any other coding by httpx);
* when the connection drops or a network error happens, the client waits the
  reconnection time (the stream's last ``retry``, else
  :data:`INITIAL_RECONNECTION_MS`) and reconnects with ``Last-Event-ID`` set
  to the last event ID (the parser of the new connection starts from it, so
  the ID persists); a partial event at a drop is discarded;
* events are the parser's, except that ``retry`` keeps the value the stream
  set on an earlier connection (the reconnection time persists; a new
  parser's would be ``None``);
* a 204 stops the client for good (``ended == "204"``); any other status or
  content type raises :class:`ConnectionFailed` and does not reconnect.
* a parser error (a line or event over its limit; invalid UTF-8 in the
  ``strict`` profile) is raised as it is: reconnecting would only replay it.
  A connection that ends inside a character or an event is a drop, not an
  error, in either profile: the network cut those bytes, the server sends them again;
* what the HTTP library raises is either a drop (:data:`DROPS`: the network,
  a timeout, a protocol error from the server, a body that cannot be decoded,
  whose events decoded before the corrupt byte are delivered first) or
  :class:`RequestFailed` (:data:`REFUSALS`: a request that cannot be made as it
  stands, such as a redirect loop), which does not reconnect;
* ``Last-Event-ID`` is sent as browsers send it: UTF-8, without the spaces and
  tabs at its ends; the ID itself (the events', the next parser's) keeps them.
* the wait before a reconnection is at most :data:`MAX_WAIT_MS`.

Beyond the standard (each off unless asked for, except where stated):

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
  tests run instantly and can see every delay.

Closing the client (from any thread, for the sync one; from any task of its
event loop, for the async one), leaving its ``with`` / ``async with`` block,
or cancelling the task that iterates it closes the connection at once, even
while the loop waits for a response or for the next chunk: the client shuts
the connection's socket down (httpcore's ``trace`` extension reports the
socket as it connects). So does breaking out of a sync loop (the loop's generator is freed at once; an async loop's is closed
later, by the event loop: use ``async with``). Iterating again continues from
the last event handed over, on a new connection.
"""  # noqa: E501

from __future__ import annotations

import asyncio
import functools
import json as jsonlib
import math
import random
import socket
import ssl
import threading
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Generator, Iterator, Mapping
from contextlib import aclosing, suppress
from dataclasses import dataclass, field, replace
from typing import Any

import httpx

from .errors import DecodeError, IncompleteStream, SSEError
from .events import Comment, Event
from .httpx_adapter import ACCEPT_ENCODING, NotAnEventStream, abody_chunks, body_chunks, media_type, sse_headers
from .parser import SSEParser

#: The reconnection time before the stream sets ``retry`` (the standard leaves
#: it to the user agent). 3000 ms is what Chromium does: measured by
#: tests/test_chromium_eventsource.py (the gap between a dropped connection
#: and Chromium's next request), see the README's section on the client.
INITIAL_RECONNECTION_MS = 3000
#: The longest wait before a reconnection (one day), whatever ``retry`` or the
#: backoff say: the parser keeps a ``retry`` up to 2**64-1 ms, longer than
#: ``time.sleep`` can wait.
MAX_WAIT_MS = 24 * 60 * 60 * 1000
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


class ConnectionFailed(NotAnEventStream):
    """The server answered, but not with a 200 ``text/event-stream`` (nor a 204):
    the standard's "fail the connection". The client does not reconnect."""

    def __init__(self, url: str, status_code: int, content_type: str) -> None:
        self.url = url
        self.status_code = status_code
        self.content_type = content_type
        super().__init__(
            f"expected 200 text/event-stream from {url}, got {status_code} {content_type or 'no content type'}"
        )


class RequestFailed(Exception):
    """The request cannot be made as it stands, so the client does not retry it
    (the HTTP library's error is the ``__cause__``): a redirect loop, a URL it
    cannot fetch, a header value HTTP cannot carry."""


@dataclass(frozen=True)
class Reconnecting:
    """Beyond the standard, with ``notices=True``: the connection ended and the
    client will reconnect (what fires a browser's ``error`` event). It comes
    among the events, after the last one of the connection, before the wait.

    ``reason`` is ``"ended"`` (the body ended), ``"network error"``,
    ``"timeout"`` (connecting, or ``read_timeout``), ``"undecodable body"`` or
    ``"restart"``; ``delay`` the seconds the client now waits;
    ``last_event_id`` what it will send; ``attempt`` the number of the
    connection it will open; ``error`` the HTTP library's error, if one ended it.
    """

    reason: str
    delay: float
    last_event_id: str
    attempt: int
    error: Exception | None = field(default=None, compare=False)


Item = Event | Comment | Reconnecting


@dataclass(frozen=True)
class Backoff:
    """Beyond the standard: wait longer after each connection that delivered nothing.

    The wait is ``reconnection time * factor ** max(0, failures - 1)``, where
    ``failures`` counts the connections in a row that delivered no event,
    stretched by up to ``jitter`` of itself at random (so that many clients cut
    off together do not come back together), at most ``cap_ms``, and never
    shorter than the reconnection time.
    """

    factor: float = 2.0
    cap_ms: float = 30_000
    jitter: float = 0.5
    random: Callable[[], float] = field(default=random.random, compare=False)

    def delay_ms(self, reconnection_ms: float, failures: int) -> float:
        try:
            growth = float(self.factor) ** max(0, failures - 1)
        except OverflowError:  # grown past any cap
            growth = math.inf
        grown = reconnection_ms * growth * (1 + self.jitter * self.random()) if reconnection_ms else 0.0
        return max(reconnection_ms, min(self.cap_ms, grown))


class ResumeState:
    """What a reconnecting client remembers between connections, and its decisions.

    Sans-I/O: the sync and async clients do the I/O and ask this object what
    to send, how to read a response, and how long to wait.
    """

    def __init__(
        self,
        *,
        profile: str = "browser",
        last_event_id: str = "",
        reconnection_ms: float = INITIAL_RECONNECTION_MS,
        backoff: Backoff | None = None,
        max_reconnects: int | None = None,
        parser_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.profile = profile
        self.last_event_id = last_event_id
        self.reconnection_ms = reconnection_ms
        self.backoff = backoff
        self.max_reconnects = max_reconnects
        self.parser_options = dict(parser_options or {})
        self.stream_retry: int | None = None  # the last retry the stream sent, on any connection
        self.attempts = 0
        self.failures = 0
        self.delivered = False

    def headers(self, extra: Mapping[str, str]) -> dict[str, str | bytes]:
        """Start an attempt: the caller's headers, the event-stream ones, and ``Last-Event-ID`` if there is one."""
        self.attempts += 1
        self.delivered = False
        return {**extra, **sse_headers(self.last_event_id)}

    def open(self, response: httpx.Response) -> SSEParser | None:
        """A new parser for a good response; ``None`` for a 204; raise for anything else."""
        if response.status_code == 204:
            return None
        kind = media_type(response)
        if response.status_code != 200 or kind != "text/event-stream":
            raise ConnectionFailed(str(response.url), response.status_code, kind)
        return SSEParser(self.profile, last_event_id=self.last_event_id, **self.parser_options)

    def items(self, parser: SSEParser, chunk: bytes) -> Iterator[Item]:
        """The items ``chunk`` completes, remembered as handed over."""
        try:
            found = parser.feed(chunk)
        except SSEError as err:  # the events before the error still reach the caller, then the error
            yield from self._hand_over(err.events)
            raise
        yield from self._remember(parser, found)

    def finish(self, parser: SSEParser) -> Iterator[Item]:
        """What the end of the body completes. An end inside a character or an
        event is a drop in either profile (``strict`` raises at ``close()``; at
        the end, a ``DecodeError`` is a cut character): the partial event is
        discarded, the server sends it again."""
        try:
            found = parser.close()
        except (IncompleteStream, DecodeError) as err:
            found = err.events
        yield from self._remember(parser, found)

    def _remember(self, parser: SSEParser, found: list) -> Iterator[Item]:
        """Hand ``found`` over, then keep the parser's ID and ``retry`` for the next connection.

        An event's ``retry`` is the stream's, whichever connection set it: the
        parser of a later connection has not seen it, the client has.
        """
        yield from self._hand_over(found)
        self.last_event_id = parser.last_event_id
        if parser.retry is not None:
            self.reconnection_ms = self.stream_retry = parser.retry

    def _hand_over(self, found: list) -> Iterator[Item]:
        """Yield each item, remembering each event's ID as it goes (the caller may stop at any one)."""
        for item in found:
            if isinstance(item, Event):
                if item.retry is None and self.stream_retry is not None:  # set on an earlier connection
                    item = replace(item, retry=self.stream_retry)
                self.last_event_id = item.last_event_id
                self.delivered = True
            yield item

    def next_delay(self, *, now: bool = False) -> float | None:
        """Seconds to wait before reconnecting (at most :data:`MAX_WAIT_MS`), or ``None`` when reconnecting is over."""
        if self.max_reconnects is not None and self.attempts > self.max_reconnects:
            return None
        self.failures = 0 if self.delivered or now else self.failures + 1
        if now:
            return 0.0
        waited = (
            self.reconnection_ms if self.backoff is None else self.backoff.delay_ms(self.reconnection_ms, self.failures)
        )
        return min(waited, MAX_WAIT_MS) / 1000


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


def request_body(content: bytes | str | None, json: Any, headers: Mapping[str, str]) -> tuple[bytes | None, dict]:
    """The body to send (the same bytes on every reconnection) and the headers it needs."""
    headers = dict(headers)
    if json is not None:
        if content is not None:
            raise ValueError("give content= or json=, not both")
        headers.setdefault("Content-Type", "application/json")
        return jsonlib.dumps(json).encode("utf-8"), headers
    return (content.encode("utf-8") if isinstance(content, str) else content), headers


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default TLS context, made once: loading the CA bundle for every client costs
    a tenth of a second or more."""
    return httpx.create_ssl_context()


def own_client_options() -> dict[str, Any]:
    """For an httpx client of the client's own: only the codings it undoes itself, and
    no connection kept for reuse (each request connects anew, so the socket is
    always known, and a close or restart can cut it even before the response)."""
    return {
        "headers": {"Accept-Encoding": ACCEPT_ENCODING},
        "limits": httpx.Limits(max_keepalive_connections=0),
        "verify": tls_context(),
    }


class _ClientBase:
    """The options and state both clients share; the subclasses do the I/O."""

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
        backoff: Backoff | None = None,
        max_reconnects: int | None = None,
        read_timeout: float | None = None,
        comments: bool = False,
        notices: bool = False,
        max_line_chars: int | None = None,
        max_event_chars: int | None = None,
    ) -> None:
        self.url = url
        self.method = method
        self.body, self.extra_headers = request_body(content, json, headers or {})
        self.timeout = httpx.Timeout(CONNECT_TIMEOUT, read=read_timeout)
        self.notices = notices
        options: dict[str, Any] = {"comments": comments}
        if max_line_chars is not None:
            options["max_line_chars"] = max_line_chars
        if max_event_chars is not None:
            options["max_event_chars"] = max_event_chars
        self.state = ResumeState(
            profile=profile,
            last_event_id=last_event_id,
            reconnection_ms=reconnection_ms,
            backoff=backoff,
            max_reconnects=max_reconnects,
            parser_options=options,
        )
        #: Why iterating ended: "204", "max_reconnects", "closed", or None while it may go on.
        self.ended: str | None = None
        self.closed = False
        self.restarting = False
        self.restart_from: str | None = None
        self.lock = threading.Lock()  # between the loop, recording its socket, and a cut from elsewhere
        self.socket: Any = None  # the socket of the current connection, as httpcore reports it

    @property
    def last_event_id(self) -> str:
        """The ID the next connection sends as ``Last-Event-ID``."""
        return self.state.last_event_id

    @property
    def reconnection_ms(self) -> float:
        """The reconnection time: the stream's last ``retry``, else the initial value."""
        return self.state.reconnection_ms

    @property
    def attempts(self) -> int:
        """How many connections this client has tried so far (reset by ``restart()``)."""
        return self.state.attempts

    def restart(self, last_event_id: str | None = None) -> None:
        """Beyond the standard: cut the connection now, idle or not, and reconnect at
        once (optionally from another ID); the items of a chunk already read are
        delivered first. After a 204 or the last reconnection, iterating again
        starts anew (``max_reconnects`` counted afresh)."""
        if self.closed:
            raise RuntimeError("this client is closed; create a new one")
        self.restart_from = last_event_id
        self.restarting = True
        if self.ended is not None:  # over: iterating again starts with a fresh max_reconnects
            self.ended = None
            self.state.attempts = 0
        self._interrupt()

    def _stop(self) -> None:
        """Mark the client closed and cut its connection (the loop, wherever it is, ends)."""
        self.closed = True
        self.ended = self.ended or "closed"
        self._interrupt()

    def _interrupt(self) -> None:
        """End a wait, and shut the current connection's socket down: a read blocked
        on it, for the head or the body, returns at once (closing it would not)."""
        self.wake.set()
        with self.lock:
            sock = self.socket
        if sock is not None:
            with suppress(OSError):  # already closed
                sock.shutdown(socket.SHUT_RDWR)

    def _connected(self, name: str, info: dict[str, Any]) -> None:
        """httpcore's trace: keep each new connection's socket as it connects."""
        if name in ("connection.connect_tcp.complete", "connection.connect_unix_socket.complete"):
            self._keep(info["return_value"])

    def _keep(self, stream: Any) -> None:
        """Keep the socket of httpcore's network ``stream``, and cut it if a close or a
        restart came meanwhile (none is reported for a connection reused from the
        pool of a caller's ``client=``, until its response arrives)."""
        if stream is None:
            return
        with self.lock:
            self.socket = stream.get_extra_info("socket")
        if self.closed or self.restarting:
            self._interrupt()

    def _request(self, trace: Callable[..., Any]) -> dict[str, Any]:
        return {
            "method": self.method,
            "url": self.url,
            "headers": self.state.headers(self.extra_headers),
            "content": self.body,
            "timeout": self.timeout,
            "follow_redirects": True,
            "extensions": {"trace": trace},
        }

    def _opened(self, response: httpx.Response) -> SSEParser | None:
        """The response's parser, or None after a 204."""
        self._keep(response.extensions.get("network_stream"))
        parser = self.state.open(response)
        if parser is None:
            self.ended = "204"
        return parser

    def _stop_reading(self) -> bool:
        return self.closed or self.restarting

    def _after_connection(self, error: Exception | None) -> Reconnecting | None:
        """What follows a connection that ``error`` ended (``None``: the body ended):
        the reconnection's notice, or None to end (why, in ``ended``). Raises an
        error that reconnecting would not cure; after a close, nothing does."""
        if self.closed or self.ended is not None:
            self.ended = self.ended or "closed"
            return None
        reason = "restart" if self.restarting else why_ended(error)
        delay = self.state.next_delay(now=self.restarting)
        self._take_restart()
        if delay is None:
            self.ended = "max_reconnects"
            return None
        return Reconnecting(reason, delay, self.state.last_event_id, self.state.attempts + 1, error)

    def _take_restart(self) -> None:
        """Apply a pending ``restart()``: its ID, if it gave one; the flag is spent."""
        self.wake.clear()
        if self.restart_from is not None:
            self.state.last_event_id = self.restart_from
        self.restarting, self.restart_from = False, None


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
        super().__init__(url, **options)
        self.owns_client = client is None  # ours to close; one given by the caller is not
        self.http: httpx.Client = client if client is not None else httpx.Client(**own_client_options())
        self.sleep = sleep
        self.wake = threading.Event()  # set by close() and restart(): the wait ends at once
        self.running: Callable[[], Generator[Item, None, None] | None] = lambda: None

    def __enter__(self) -> EventSourceClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Item]:
        previous = self.running()
        if previous is not None:  # a loop still held somewhere: one connection at a time
            previous.close()
        events = self.events()
        self.running = weakref.ref(events)  # weak: a loop left with break frees it, and its connection
        return events

    def events(self) -> Generator[Item, None, None]:
        """Every event of every connection, until a 204, ``max_reconnects``, or ``close()``."""
        try:
            while not self.closed and self.ended is None:
                self._take_restart()  # a restart() between two loops, or during the wait
                error = None
                try:
                    yield from self._one_connection()
                except Exception as err:  # sorted below: a drop, a refusal, or an error to raise
                    error = err
                notice = self._after_connection(error)
                if notice is None:
                    break
                if self.notices:
                    yield notice
                if notice.delay:
                    self._wait(notice.delay)
        finally:
            if self.closed and self.owns_client:  # closed from another thread: the loop closes it as it ends
                self.http.close()

    def _wait(self, seconds: float) -> None:
        if self.sleep is not None:
            self.sleep(seconds)
        else:
            self.wake.wait(seconds)

    def _one_connection(self) -> Iterator[Item]:
        with self.http.stream(**self._request(self._connected)) as response:
            parser = self._opened(response)
            if parser is None:
                return
            for chunk in body_chunks(response):
                yield from self.state.items(parser, chunk)
                if self._stop_reading():
                    return
            yield from self.state.finish(parser)

    def close(self) -> None:
        """End iterating and close the connection (and the httpx client, if it is ours); any thread may call it."""
        self._stop()
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
        super().__init__(url, **options)
        self.owns_client = client is None  # ours to close; one given by the caller is not
        self.http: httpx.AsyncClient = client if client is not None else httpx.AsyncClient(**own_client_options())
        self.sleep = sleep
        self.wake = asyncio.Event()  # set by aclose() and restart(): the wait ends at once
        self.running: Callable[[], AsyncGenerator[Item, None] | None] = lambda: None

    async def __aenter__(self) -> AsyncEventSourceClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __aiter__(self) -> AsyncIterator[Item]:
        events = self.events()
        self.running = weakref.ref(events)  # weak: a loop left with break is finalised by the event loop
        return events

    async def events(self) -> AsyncGenerator[Item, None]:
        """Every event of every connection, until a 204, ``max_reconnects``, or ``aclose()``."""
        try:
            while not self.closed and self.ended is None:
                self._take_restart()  # a restart() between two loops, or during the wait
                error = None
                try:
                    async with aclosing(self._one_connection()) as items:  # closed at once, not when collected
                        async for item in items:
                            yield item
                except Exception as err:  # sorted below: a drop, a refusal, or an error to raise
                    error = err
                notice = self._after_connection(error)
                if notice is None:
                    break
                if self.notices:
                    yield notice
                if notice.delay:
                    await self._wait(notice.delay)
        finally:
            if self.closed and self.owns_client:  # closed from another task: the loop closes it as it ends
                await self.http.aclose()

    async def _wait(self, seconds: float) -> None:
        if self.sleep is not None:
            await self.sleep(seconds)
        else:
            with suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.wake.wait(), seconds)

    async def _traced(self, name: str, info: dict[str, Any]) -> None:
        self._connected(name, info)

    async def _one_connection(self) -> AsyncIterator[Item]:
        async with self.http.stream(**self._request(self._traced)) as response:
            parser = self._opened(response)
            if parser is None:
                return
            async with aclosing(abody_chunks(response)) as chunks:
                async for chunk in chunks:
                    for item in self.state.items(parser, chunk):
                        yield item
                    if self._stop_reading():
                        return
            for item in self.state.finish(parser):
                yield item

    async def aclose(self) -> None:
        """End iterating and close the connection (and the httpx client, if it is ours)."""
        self._stop()
        running = self.running()
        if running is not None:
            try:
                await running.aclose()
            except RuntimeError:  # another task is inside it right now: the cut ends it, and it closes the rest
                return
        if self.owns_client:
            await self.http.aclose()
