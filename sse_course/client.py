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
  connection (``browser`` profile by default), fed ``response.iter_bytes()``
  so that content encodings (gzip, deflate) are already decoded;
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
  A drop mid-event is not an error, in either profile.

Beyond the standard (each off unless asked for, except where stated):

* ``backoff=Backoff(...)``: exponential backoff with jitter and a cap, reset
  after a connection that delivered events;
* ``read_timeout=`` seconds: a stream silent for that long counts as dropped;
* ``last_event_id=``: the ID to send on the first request;
* ``restart()``: drop the current connection and reconnect at once;
* ``comments=True``: :class:`~sse_course.events.Comment` items among the events;
* ``max_reconnects=``: end quietly (``ended == "max_reconnects"``) instead of
  reconnecting forever;
* ``sleep=``: the function that waits (``time.sleep`` / ``asyncio.sleep``),
  so tests run instantly and can see every delay.

Closing the client, leaving its ``with`` / ``async with`` block, or cancelling
the task that iterates it closes the connection; so does breaking out of a
sync loop (the loop's generator is freed at once; an async loop's is closed
later, by the event loop: use ``async with``). Iterating again continues from
the last event handed over, on a new connection.
"""

from __future__ import annotations

import asyncio
import json as jsonlib
import random
import time
import weakref
from contextlib import aclosing
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Union

import httpx

from .errors import IncompleteStream, SSEError
from .events import Comment, Event
from .httpx_adapter import NotAnEventStream, media_type, sse_headers
from .parser import SSEParser

#: The reconnection time before the stream sets ``retry`` (the standard leaves
#: it to the user agent). 3000 ms is what Chromium does: measured by
#: tests/test_chromium_eventsource.py (the gap between a dropped connection
#: and Chromium's next request), see the README's section on the client.
INITIAL_RECONNECTION_MS = 3000
#: Seconds to wait for a connection to open (and, without read_timeout, the
#: read timeout is off: a stream may rightly be quiet for a long time).
CONNECT_TIMEOUT = 10.0

Item = Union[Event, Comment]


class ConnectionFailed(NotAnEventStream):
    """The server answered, but not with a 200 ``text/event-stream`` (nor a 204):
    the standard's "fail the connection". The client does not reconnect."""

    def __init__(self, url: str, status_code: int, content_type: str) -> None:
        self.url = url
        self.status_code = status_code
        self.content_type = content_type
        super().__init__(f"expected 200 text/event-stream from {url}, got {status_code} {content_type or 'no content type'}")


@dataclass(frozen=True)
class Backoff:
    """Beyond the standard: wait longer after each connection that delivered nothing.

    The wait is ``reconnection time * factor ** failures``, stretched by up to
    ``jitter`` of itself at random (so that many clients cut off together do
    not come back together), at most ``cap_ms``, and never shorter than the
    reconnection time. ``failures`` is reset by a connection that delivered an event.
    """

    factor: float = 2.0
    cap_ms: float = 30_000
    jitter: float = 0.5
    random: Callable[[], float] = field(default=random.random, compare=False)

    def delay_ms(self, reconnection_ms: float, failures: int) -> float:
        grown = reconnection_ms * self.factor**failures * (1 + self.jitter * self.random())
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
        headers: dict[str, str | bytes] = {**extra, **sse_headers()}
        if self.last_event_id:  # any text but NUL, CR, LF: sent as UTF-8, as browsers do
            headers["Last-Event-ID"] = self.last_event_id.encode("utf-8")
        return headers

    def open(self, response: httpx.Response) -> SSEParser | None:
        """A new parser for a good response; ``None`` for a 204; raise for anything else."""
        if response.status_code == 204:
            return None
        kind = media_type(response)
        if response.status_code != 200 or kind != "text/event-stream":
            raise ConnectionFailed(str(response.url), response.status_code, kind)
        return SSEParser(self.profile, last_event_id=self.last_event_id, **self.parser_options)

    def items(self, parser: SSEParser, chunk: bytes | None) -> Iterator[Item]:
        """The items ``chunk`` completes (``None``: the stream ended), remembered as handed over.

        An event's ``retry`` is the stream's, whichever connection set it: the
        parser of a later connection has not seen it, the client has.
        """
        try:
            found = parser.close() if chunk is None else parser.feed(chunk)
        except IncompleteStream as err:  # strict profile: a drop mid-event; the partial event is discarded
            found = err.events
        except SSEError as err:  # the events before the error still reach the caller, then the error
            yield from self._hand_over(err.events)
            raise
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
        """Seconds to wait before reconnecting, or ``None`` when reconnecting is over."""
        if self.max_reconnects is not None and self.attempts > self.max_reconnects:
            return None
        self.failures = 0 if self.delivered or now else self.failures + 1
        if now:
            return 0.0
        if self.backoff is None:
            return self.reconnection_ms / 1000
        return self.backoff.delay_ms(self.reconnection_ms, max(0, self.failures - 1)) / 1000


def request_body(content: bytes | str | None, json: Any, headers: Mapping[str, str]) -> tuple[bytes | None, dict]:
    """The body to send (the same bytes on every reconnection) and the headers it needs."""
    headers = dict(headers)
    if json is not None:
        if content is not None:
            raise ValueError("give content= or json=, not both")
        headers.setdefault("Content-Type", "application/json")
        return jsonlib.dumps(json).encode("utf-8"), headers
    return (content.encode("utf-8") if isinstance(content, str) else content), headers


class _ClientBase:
    """The options and state both clients share; the subclasses do the I/O."""

    def __init__(
        self,
        url: str,
        client: object = None,
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
        max_line_chars: int | None = None,
        max_event_chars: int | None = None,
    ) -> None:
        self.url = url
        self.owns_client = client is None  # ours to close; one given by the caller is not
        self.response: httpx.Response | None = None
        self.method = method
        self.body, self.extra_headers = request_body(content, json, headers or {})
        self.timeout = httpx.Timeout(CONNECT_TIMEOUT, read=read_timeout)
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
        """Beyond the standard: drop the connection after the current chunk's items and
        reconnect at once (optionally from another ID); after a 204 or the last
        reconnection, iterating again starts anew (``max_reconnects`` counted afresh)."""
        if self.closed:
            raise RuntimeError("this client is closed; create a new one")
        self.restart_from = last_event_id
        self.restarting = True
        if self.ended is not None:  # over: iterating again starts with a fresh max_reconnects
            self.ended = None
            self.state.attempts = 0

    def _request(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "url": self.url,
            "headers": self.state.headers(self.extra_headers),
            "content": self.body,
            "timeout": self.timeout,
            "follow_redirects": True,
        }

    def _opened(self, response: httpx.Response) -> SSEParser | None:
        """Keep the response (``close()`` may cut it); its parser, or None after a 204."""
        self.response = response
        parser = self.state.open(response)
        if parser is None:
            self.ended = "204"
        return parser

    def _stop_reading(self) -> bool:
        return self.closed or self.restarting

    def _after_connection(self) -> float | None:
        """Seconds to wait before the next connection, or None to end (recorded in ``ended``)."""
        if self.ended is not None:
            return None
        if self.closed:
            self.ended = "closed"
            return None
        delay = self.state.next_delay(now=self.restarting)
        self._take_restart()
        if delay is None:
            self.ended = "max_reconnects"
        return delay

    def _take_restart(self) -> None:
        """Apply a pending ``restart()``: its ID, if it gave one; the flag is spent."""
        if self.restart_from is not None:
            self.state.last_event_id = self.restart_from
        self.restarting, self.restart_from = False, None


class EventSourceClient(_ClientBase):
    """A reconnecting event-stream client (sync); iterate it for events."""

    def __init__(self, url: str, *, client: httpx.Client | None = None, sleep: Callable[[float], Any] = time.sleep, **options: Any) -> None:
        super().__init__(url, client, **options)
        self.http: httpx.Client = client if client is not None else httpx.Client()
        self.sleep = sleep
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
        self._take_restart()  # a restart() between two loops: this loop is the new start
        while not self.closed and self.ended is None:
            try:
                yield from self._one_connection()
            except httpx.TransportError:
                pass  # a network error, a read timeout, a drop mid-chunk: reconnect
            delay = self._after_connection()
            if delay:
                self.sleep(delay)

    def _one_connection(self) -> Iterator[Item]:
        with self.http.stream(**self._request()) as response:
            try:
                parser = self._opened(response)
                if parser is None:
                    return
                for chunk in response.iter_bytes():
                    yield from self.state.items(parser, chunk)
                    if self._stop_reading():
                        return
                yield from self.state.items(parser, None)
            finally:
                self.response = None

    def close(self) -> None:
        """End iterating and close the connection (and the httpx client, if it is ours)."""
        self.closed = True
        self.ended = self.ended or "closed"
        running = self.running()
        if running is not None:
            try:
                running.close()
            except ValueError:  # iterating in another thread right now: cut its connection instead
                if self.response is not None:
                    self.response.close()
        if self.owns_client:
            self.http.close()


class AsyncEventSourceClient(_ClientBase):
    """A reconnecting event-stream client (async); ``async for`` it for events."""

    def __init__(
        self,
        url: str,
        *,
        client: httpx.AsyncClient | None = None,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        **options: Any,
    ) -> None:
        super().__init__(url, client, **options)
        self.http: httpx.AsyncClient = client if client is not None else httpx.AsyncClient()
        self.sleep = sleep
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
        self._take_restart()  # a restart() between two loops: this loop is the new start
        while not self.closed and self.ended is None:
            try:
                async with aclosing(self._one_connection()) as items:  # closed at once, not when collected
                    async for item in items:
                        yield item
            except httpx.TransportError:
                pass  # a network error, a read timeout, a drop mid-chunk: reconnect
            delay = self._after_connection()
            if delay:
                await self.sleep(delay)

    async def _one_connection(self) -> AsyncIterator[Item]:
        async with self.http.stream(**self._request()) as response:
            try:
                parser = self._opened(response)
                if parser is None:
                    return
                async for chunk in response.aiter_bytes():
                    for item in self.state.items(parser, chunk):
                        yield item
                    if self._stop_reading():
                        return
                for item in self.state.items(parser, None):
                    yield item
            finally:
                self.response = None

    async def aclose(self) -> None:
        """End iterating and close the connection (and the httpx client, if it is ours)."""
        self.closed = True
        self.ended = self.ended or "closed"
        running = self.running()
        if running is not None:
            try:
                await running.aclose()
            except RuntimeError:  # another task is inside it right now: cut its connection instead
                if self.response is not None:
                    await self.response.aclose()
        if self.owns_client:
            await self.http.aclose()
