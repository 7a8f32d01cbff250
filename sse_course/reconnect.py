"""The reconnecting client's decisions, sans-I/O: what to send, what to keep, how long to wait, when to stop.

:class:`ReconnectCore` owns all of the connection's mutable state (the ID to
resume from, the reconnection time, the attempts, whether the client is closed
or ended, a pending ``restart()``, the current connection's cut); nothing else
writes it. The sync and async clients in :mod:`sse_course.client` are thin
shells over it: they open the connection, read the body, and wait, and ask the
core at each step. The core never touches a socket and never waits: the shell
gives it, per connection, a function that cuts that connection, and a function
that wakes the shell's wait.

``close()`` and ``restart()`` may come from any thread; the loop's own methods
are called by the one loop iterating. Both take the core's lock only to read
or write its state, and call the cut and the wake-up after releasing it.
"""

from __future__ import annotations

import codecs
import math
import random
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from numbers import Real
from typing import Any

from .errors import DecodeError, IncompleteStream, SSEError
from .events import Comment, Event, check_event_id
from .httpx_adapter import ACCEPT_ENCODING, Inflater, NotAnEventStream, sse_headers
from .parser import SSEParser

#: The reconnection time before the stream sets ``retry`` (the standard leaves
#: it to the user agent). 3000 ms is what Chromium does: measured by
#: tests/test_chromium_eventsource.py (the gap between a dropped connection
#: and Chromium's next request), see the README's section on the client.
INITIAL_RECONNECTION_MS = 3000
#: The shortest wait before a reconnection, whatever ``retry`` says, so that no
#: server can make the client spin: Firefox's floor (``MIN_RECONNECTION_TIME_VALUE``,
#: 500 ms, in ``dom/base/EventSource.cpp``, which raises any smaller ``retry`` to it).
#: Chromium has none (``EventSource::OnReconnectionTimeSet`` takes ``retry: 0`` as is).
MIN_RECONNECTION_MS = 500
#: The longest wait before a reconnection (one day), whatever ``retry`` or the
#: backoff say: the parser keeps a ``retry`` up to 2**64-1 ms, longer than
#: ``time.sleep`` can wait.
MAX_WAIT_MS = 24 * 60 * 60 * 1000
#: The content codings the client undoes (RFC 9110, 8.4.1: ``x-gzip`` is ``gzip``);
#: ``identity`` means none. It asks for gzip and deflate only (``ACCEPT_ENCODING``).
DECODABLE = {"gzip": "gzip", "x-gzip": "gzip", "deflate": "deflate"}


class ConnectionFailed(NotAnEventStream):
    """The server answered, but not with a 200 ``text/event-stream`` (nor a 204):
    the standard's "fail the connection". The client does not reconnect."""

    def __init__(self, url: str, status_code: int, content_type: str, message: str = "") -> None:
        self.url = url
        self.status_code = status_code
        self.content_type = content_type
        got = f"{status_code} {content_type or 'no content type'}"
        super().__init__(message or f"expected 200 text/event-stream from {url}, got {got}")


class UnsupportedCoding(ConnectionFailed):
    """A 200 ``text/event-stream`` in a content coding the client cannot undo
    (``br``, ``zstd``, ``compress``, ...): its bytes are never handed to the parser."""

    def __init__(self, url: str, content_type: str, codings: list[str]) -> None:
        self.codings = codings
        known = ", ".join(sorted(DECODABLE))
        message = f"cannot decode content coding {', '.join(codings)} from {url} (the client decodes {known})"
        super().__init__(url, 200, content_type, message)


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


def check_number(name: str, value: object, *, positive: bool = False) -> float:
    """Refuse a number of milliseconds or seconds that is not a finite real ``>= 0`` (``> 0`` if ``positive``)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    number = float(value)
    if math.isnan(number) or number < 0 or (positive and number == 0) or math.isinf(number):
        raise ValueError(f"{name} must be a finite number {'>' if positive else '>='} 0, got {value!r}")
    return number


def check_type(name: str, value: object, kind: type | tuple[type, ...]) -> None:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise TypeError(f"{name} must be {getattr(kind, '__name__', kind)}, got {value!r}")


@dataclass(frozen=True)
class Backoff:
    """Beyond the standard: wait longer after each connection that delivered nothing.

    The wait is ``max(retry, base_ms) * factor ** max(0, failures - 1)``, where
    ``retry`` is the reconnection time and ``failures`` counts the connections
    in a row that delivered no event, stretched by up to ``jitter`` of itself at
    random (so that many clients cut off together do not come back together),
    at most ``cap_ms``, and never shorter than the reconnection time. It grows
    from ``base_ms`` when the reconnection time is shorter, even from 0.
    """

    factor: float = 2.0
    cap_ms: float = 30_000
    jitter: float = 0.5
    base_ms: float = MIN_RECONNECTION_MS
    random: Callable[[], float] = field(default=random.random, compare=False)

    def __post_init__(self) -> None:
        if check_number("factor", self.factor) < 1:
            raise ValueError(f"factor must be at least 1, got {self.factor!r}")
        check_number("cap_ms", self.cap_ms)
        check_number("jitter", self.jitter)
        check_number("base_ms", self.base_ms, positive=True)
        if not callable(self.random):
            raise TypeError(f"random must be callable, got {self.random!r}")

    def delay_ms(self, reconnection_ms: float, failures: int) -> float:
        try:
            growth = float(self.factor) ** max(0, failures - 1)
        except OverflowError:  # grown past any cap
            growth = math.inf
        grown = max(reconnection_ms, self.base_ms) * growth * (1 + self.jitter * self.random())
        return max(reconnection_ms, min(self.cap_ms, grown))


def carried_by_http(value: str) -> bool:
    """Whether a header value can hold ``value`` (no control character but a tab)."""
    return not any(ord(c) < 0x20 and c != "\t" or c == "\x7f" for c in value)


def codings_of(header_values: Iterable[str]) -> list[str]:
    """The content codings of a ``Content-Encoding`` header, in the order applied, ``identity`` left out."""
    codings = [value.strip().lower() for value in header_values]
    return [coding for coding in codings if coding not in ("", "identity")]


class Body:
    """One response body: its content codings undone, then fed to its own parser.

    It counts the bytes the parser was fed, so that an end inside a character
    (the network cut it) is told apart from an invalid byte earlier in the body.
    """

    def __init__(self, parser: SSEParser[Any], codings: list[str]) -> None:
        # SSEParser[Any]: its items are Event, or Event | Comment when the options ask for comments.
        self.parser = parser
        self.inflaters = [Inflater(DECODABLE[coding]) for coding in reversed(codings)]  # the last applied, first undone
        self.fed = 0

    def decode(self, raw: bytes, *, final: bool = False) -> tuple[bytes, str | None]:
        """What ``raw`` decodes to (with what the codings held back, if ``final``), and why
        decoding failed (``None``: it did not). An inflater is fed only bytes, so that
        deflate's first read can still tell a zlib wrapper from raw deflate."""
        for inflater in self.inflaters:
            if raw:
                raw, failure = inflater.decode(raw)
                if failure is not None:
                    return raw, failure
            if final:
                raw += inflater.flush()
        return raw, None

    def feed(self, data: bytes) -> list[Event | Comment]:
        self.fed += len(data)
        events: list[Event | Comment] = [*self.parser.feed(data)]
        return events

    def close(self) -> list[Event | Comment]:
        """The end of the body. An end inside a character or an event is a drop in
        either profile (the partial event is discarded; the server sends it again);
        an invalid byte is raised, even when the strict parser finds it only now."""
        try:
            events: list[Event | Comment] = [*self.parser.close()]
            return events
        except IncompleteStream as err:
            return list(err.events)
        except DecodeError as err:
            if not self.cut_at_the_end(err):
                raise
            return list(err.events)

    def cut_at_the_end(self, err: DecodeError) -> bool:
        """Whether ``err`` is a character cut by the end of the body: its bytes are
        the last ones fed, and they begin a valid UTF-8 sequence."""
        if err.offset + len(err.bad_bytes) != self.fed:
            return False
        try:
            return codecs.getincrementaldecoder("utf-8")().decode(err.bad_bytes) == ""
        except UnicodeDecodeError:
            return False


class ReconnectCore:
    """The one owner of a reconnecting client's state, and its decisions."""

    def __init__(
        self,
        *,
        profile: str = "browser",
        last_event_id: str = "",
        reconnection_ms: float = INITIAL_RECONNECTION_MS,
        min_reconnection_ms: float = MIN_RECONNECTION_MS,
        backoff: Backoff | None = None,
        max_reconnects: int | None = None,
        parser_options: Mapping[str, Any] | None = None,
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        check_type("last_event_id", last_event_id, str)
        if not carried_by_http(check_event_id(last_event_id)):
            raise ValueError(f"last_event_id must hold no control character but a tab, got {last_event_id!r}")
        self.reconnection_floor = check_number("min_reconnection_ms", min_reconnection_ms)
        if backoff is not None:
            check_type("backoff", backoff, Backoff)
        if max_reconnects is not None:
            check_type("max_reconnects", max_reconnects, int)
            if max_reconnects < 0:
                raise ValueError(f"max_reconnects must be >= 0, got {max_reconnects!r}")
        self.profile = profile
        self.parser_options = dict(parser_options or {})
        SSEParser(profile, last_event_id=last_event_id, **self.parser_options)  # its options checked now, not later
        self.backoff = backoff
        self.max_reconnects = max_reconnects
        self.wake = wake
        self.lock = threading.Lock()
        self._last_event_id = last_event_id
        self._reconnection_ms = check_number("reconnection_ms", reconnection_ms)
        self._stream_retry: int | None = None  # the last retry the stream sent, on any connection
        self._attempts = 0
        self._failures = 0
        self._delivered = False
        self._ended: str | None = None
        self._closed = False
        self._restart: tuple[str | None] | None = None  # a pending restart(), with the ID it gave
        self._connection = 0  # the current connection's number
        self._cut: Callable[[], None] | None = None  # cuts the current connection

    # --- what the client shows -------------------------------------------------------

    @property
    def last_event_id(self) -> str:
        return self._last_event_id

    @property
    def reconnection_ms(self) -> float:
        return self._reconnection_ms

    @property
    def attempts(self) -> int:
        return self._attempts

    @property
    def ended(self) -> str | None:
        return self._ended

    @property
    def closed(self) -> bool:
        return self._closed

    def interrupted(self) -> bool:
        """A close or a restart is pending: every wait of the loop ends."""
        return self._closed or self._restart is not None

    # --- from any thread ----------------------------------------------------------------

    def close(self) -> None:
        """The client is closed for good: cut the connection, end any wait."""
        with self.lock:
            self._closed = True
            self._ended = self._ended or "closed"
            cut = self._cut
        self._interrupt(cut)

    def restart(self, last_event_id: str | None = None) -> None:
        """Cut the connection and reconnect at once (from ``last_event_id`` if given);
        after the end, iterating again starts anew."""
        if last_event_id is not None:
            check_type("last_event_id", last_event_id, str)
            check_event_id(last_event_id)
        with self.lock:
            if self._closed:
                raise RuntimeError("this client is closed; create a new one")
            self._restart = (last_event_id,)
            if self._ended is not None:  # over: iterating again starts with a fresh max_reconnects
                self._ended = None
                self._attempts = 0
            cut = self._cut
        self._interrupt(cut)

    def _interrupt(self, cut: Callable[[], None] | None) -> None:
        if cut is not None:
            cut()
        self.wake()

    # --- the loop -------------------------------------------------------------------------

    def begin(self, extra_headers: Mapping[str, str | bytes]) -> tuple[int, dict[str, str | bytes]] | None:
        """Start a connection: its number and its request headers; ``None`` when the
        loop is over. A pending restart is applied (its ID, if it gave one)."""
        with self.lock:
            if self._closed or self._ended is not None:
                return None
            if self._restart is not None:
                (restart_from,) = self._restart
                self._last_event_id = self._last_event_id if restart_from is None else restart_from
                self._restart = None
            self._attempts += 1
            self._connection += 1
            self._cut = None
            self._delivered = False
            own = {**sse_headers(self._last_event_id), "Accept-Encoding": ACCEPT_ENCODING}
            ours = {name.lower() for name in own}
            headers = {name: value for name, value in extra_headers.items() if name.lower() not in ours}
            return self._connection, {**headers, **own}

    def attach(self, connection: int, cut: Callable[[], None]) -> None:
        """Keep the function that cuts ``connection``; cut it at once if it is no
        longer the current one, or a close or a restart came meanwhile."""
        with self.lock:
            current = connection == self._connection and not self.interrupted()
            if current:
                self._cut = cut
        if not current:
            cut()

    def detach(self, connection: int) -> None:
        with self.lock:
            if connection == self._connection:
                self._cut = None

    def open(self, url: str, status_code: int, content_type: str, codings: list[str]) -> Body | None:
        """A body to read for a good response; ``None`` for a 204 (the end); raise for anything else."""
        if status_code == 204:
            with self.lock:
                self._ended = "204"
            return None
        if status_code != 200 or content_type != "text/event-stream":
            raise ConnectionFailed(url, status_code, content_type)
        unknown = [coding for coding in codings if coding not in DECODABLE]
        if unknown:
            raise UnsupportedCoding(url, content_type, unknown)
        return Body(SSEParser(self.profile, last_event_id=self._last_event_id, **self.parser_options), codings)

    def items(self, body: Body, data: bytes) -> Iterator[Item]:
        """The items ``data`` completes, remembered as handed over."""
        try:
            found = body.feed(data)
        except SSEError as err:  # the events before the error still reach the caller, then the error
            yield from self._hand_over(err.events, self._stream_retry)
            raise
        yield from self._remember(body.parser, found)

    def finish(self, body: Body) -> Iterator[Item]:
        """What the end of the body completes (a cut character or event is a drop)."""
        try:
            found = body.close()
        except SSEError as err:
            yield from self._hand_over(err.events, self._stream_retry)
            raise
        yield from self._remember(body.parser, found)

    def stop_reading(self) -> bool:
        return self.interrupted()

    def _remember(self, parser: SSEParser[Any], found: list[Event | Comment]) -> Iterator[Item]:
        """Keep the parser's ``retry`` (it holds from the moment its line was read), hand
        ``found`` over, then keep the parser's ID for the next connection.

        An event's ``retry`` is the stream's, whichever connection set it: the
        parser of a later connection has not seen it, the client has.
        """
        earlier = self._stream_retry
        if parser.retry is not None:  # before the hand-over, which the caller may leave at any item
            self._reconnection_ms = self._stream_retry = parser.retry
        yield from self._hand_over(found, earlier)
        self._last_event_id = parser.last_event_id

    def _hand_over(self, found: list[Event | Comment], stream_retry: int | None) -> Iterator[Item]:
        """Yield each item, remembering each event's ID as it goes (the caller may stop at
        any one); an event without ``retry`` gets the one an earlier connection set."""
        for item in found:
            if isinstance(item, Event):
                if item.retry is None and stream_retry is not None:
                    item = replace(item, retry=stream_retry)
                self._last_event_id = item.last_event_id
                self._delivered = True
            yield item

    def wait_ms(self) -> float:
        """The reconnection time as waited: at least the floor, at most :data:`MAX_WAIT_MS`."""
        return min(max(self._reconnection_ms, self.reconnection_floor), MAX_WAIT_MS)

    def after_connection(self, reason: str, error: Exception | None) -> Reconnecting | None:
        """What follows a connection that ended for ``reason``: the reconnection's
        notice (its delay the wait), or ``None`` when the loop is over (why, in
        ``ended``). A close or a restart during the backoff's draw is not lost."""
        with self.lock:
            if self._closed or self._ended is not None:
                return None
            if self.max_reconnects is not None and self._attempts > self.max_reconnects:
                self._ended = "max_reconnects"
                return None
            restarting = self._restart is not None
            self._failures = 0 if self._delivered or restarting else self._failures + 1
            failures, waited = self._failures, self.wait_ms()
        if not restarting and self.backoff is not None:
            waited = min(self.backoff.delay_ms(waited, failures), MAX_WAIT_MS)  # may take long: outside the lock
        with self.lock:
            if self._closed:
                return None
            if self._restart is not None:
                reason, waited = "restart", 0.0
            return Reconnecting(reason, waited / 1000, self._last_event_id, self._attempts + 1, error)
