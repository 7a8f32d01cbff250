"""Lesson 10's connection, simulated: a server that drops a stream and resumes it, with no I/O.

Whether a resume loop is right cannot depend on timing, so what the lesson and
the check compare runs here, sans-I/O: :class:`DroppingServer` is a callable
``connect(last_event_id) -> Reply`` that serves :data:`STREAM` from the event
after ``last_event_id``, drops its first connection after ``drop_at`` bytes,
answers ``204`` once nothing is left, and records every request. An injected
``sleep`` records the waits instead of waiting. The learner's loop
(``follow(connect, sleep) -> events``) meets the same callables a real client
meets over httpx, minus the socket.

:func:`planned_run` is the oracle: what a client following the standard does
at a given drop point, connection by connection. The explorer renders it
(:func:`render_resume`) and exercise 10's check
(:mod:`sse_course.classroom.exercises.ex10_reconnect_and_resume`) compares a
learner's loop with it at every drop point.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..events import Event
from ..parser import SSEParser
from .fixtures import load_contract

#: The reconnection time (ms) before any ``retry`` field: the standard leaves it
#: to the client; this course uses 3 seconds.
INITIAL_RETRY_MS = 3000


#: The size of the chunks each reply is cut into (small, so drops and chunk
#: ends fall everywhere, inside characters too).
CHUNK_BYTES = 5


#: More connections than any right loop makes on :data:`STREAM` (at most three).
MAX_CONNECTIONS = 6


#: The lesson's stream (fixtures/contracts/resume.json), one block per entry: a
#: ``retry`` and an ID in the first event; a multibyte character; a block with
#: no data that still commits its ID and changes ``retry``; a two-line event;
#: the last event.
RESUME = load_contract("resume")


BLOCKS = tuple(block.encode() for block in RESUME["blocks"])


STREAM = b"".join(BLOCKS)


#: What the check's server sends first on every connection: an event with no
#: ``id``, which takes the resumed ID only if the new parser starts from it.
HEARTBEAT = RESUME["heartbeat"].encode()


def committed_ids(blocks: Sequence[bytes]) -> list[str]:
    """The last event ID after each block (each block ends with its blank line)."""
    parser = SSEParser("browser")
    ids = []
    for block in blocks:
        parser.feed(block)
        ids.append(parser.last_event_id)
    return ids


def served_after(blocks: Sequence[bytes], last_event_id: str) -> bytes | None:
    """What a resuming server sends: the blocks after the one that committed
    ``last_event_id`` (all of them for ``""`` or an unknown ID), or None when
    nothing is left, which it answers with 204."""
    ids = committed_ids(blocks)
    start = ids.index(last_event_id) + 1 if last_event_id in ids else 0
    return b"".join(blocks[start:]) or None


def chunked(body: bytes, size: int = CHUNK_BYTES) -> tuple[bytes, ...]:
    return tuple(body[i : i + size] for i in range(0, len(body), size))


@dataclass(frozen=True)
class Reply:
    """One response: its status (200, 204, or another that fails the connection) and the body's chunks."""

    status: int
    chunks: tuple[bytes, ...] = ()


class KeptConnecting(BaseException):
    """The loop connected again after the server said stop (204, or another status), or far too often. A BaseException,
    so that a learner's ``except Exception`` cannot swallow it."""


class DroppingServer:
    """``connect(last_event_id) -> Reply`` over ``blocks``, dropping the first connection after ``drop_at`` bytes.

    ``requests`` records the ``Last-Event-ID`` of each request (``""``: none sent).
    """

    def __init__(
        self,
        drop_at: int | None = None,
        blocks: Sequence[bytes] = BLOCKS,
        heartbeat: bytes = b"",
        fails_with: int | None = None,
    ) -> None:
        self.blocks = tuple(blocks)
        self.drop_at = drop_at
        self.heartbeat = heartbeat
        self.fails_with = fails_with  # every connection after the first answers this status: stop
        self.requests: list[str] = []
        self.stopped_by: int | None = None

    def __call__(self, last_event_id: str = "") -> Reply:
        first = not self.requests
        self.requests.append(last_event_id)
        if self.stopped_by is not None:
            raise KeptConnecting(
                f"connected again (Last-Event-ID {last_event_id!r}) after the server answered {self.stopped_by}"
            )
        if len(self.requests) > MAX_CONNECTIONS:
            raise KeptConnecting(f"made {len(self.requests)} connections; a right loop needs at most 3 here")
        if not first and self.fails_with is not None:
            self.stopped_by = self.fails_with
            return Reply(self.fails_with)
        body = served_after(self.blocks, last_event_id)
        if body is None:
            self.stopped_by = 204
            return Reply(204)
        body = self.heartbeat + body
        if first and self.drop_at is not None:
            body = body[: self.drop_at]
        return Reply(200, chunked(body))


class Sleeps(list):
    """An injected ``sleep(seconds)`` that records each wait instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


# --- the oracle: what a client following the standard does ---------------------------


@dataclass(frozen=True)
class Connection:
    """One connection of a right run: the request, what it delivered, and what comes next."""

    sent: str  # the Last-Event-ID header ('' = none)
    status: int
    delivered: bytes = b""
    kept: int = 0  # how many delivered bytes ended in a dispatched block
    events: tuple[Event, ...] = ()
    resume_from: str = ""  # the Last-Event-ID the next request sends
    wait_ms: int | None = None  # the wait before the next request; None after a 204


def planned_run(
    drop_at: int | None, blocks: Sequence[bytes] = BLOCKS, heartbeat: bytes = b"", fails_with: int | None = None
) -> list[Connection]:
    """The standard's client on a :class:`DroppingServer`: connection by connection. It stops for
    good on 204, and on any other answer that is not a 200 event stream (the standard's "fail")."""
    server = DroppingServer(drop_at, blocks, heartbeat, fails_with)
    connections: list[Connection] = []
    last_event_id, stream_retry = "", None
    while True:
        reply = server(last_event_id)
        if reply.status != 200:
            return [*connections, Connection(last_event_id, reply.status)]
        delivered = b"".join(reply.chunks)
        parser = SSEParser("browser", last_event_id=last_event_id)
        events = [with_retry(event, stream_retry) for event in parser.feed(delivered) + parser.close()]
        stream_retry = stream_retry if parser.retry is None else parser.retry
        retry = INITIAL_RETRY_MS if stream_retry is None else stream_retry
        kept = delivered.rfind(b"\n\n") + 2 if b"\n\n" in delivered else 0  # blocks end with LF LF
        sent, last_event_id = last_event_id, parser.last_event_id
        connections.append(Connection(sent, 200, delivered, kept, tuple(events), last_event_id, retry))


def with_retry(event: Event, stream_retry: int | None) -> Event:
    """An event's ``retry`` is the stream's, even when an earlier connection set it
    (as the package's client reports it): a new parser alone would say None."""
    return event if event.retry is not None or stream_retry is None else replace(event, retry=stream_retry)


def expected_events(blocks: Sequence[bytes] = BLOCKS) -> list[Event]:
    parser = SSEParser("browser")
    return parser.feed(b"".join(blocks)) + parser.close()


def short(event: Any) -> str:
    """An event as the check and the explorer name it: its ID and data (anything else: its repr)."""
    if not isinstance(event, Event):
        return repr(event)
    return f"[id {event.last_event_id!r}] {event.data!r}"


def typed(event: Any) -> str:
    """:func:`short`, then the event's type: a missing event and one never sent may differ only in it."""
    return f"{short(event)} (type {event.type!r})" if isinstance(event, Event) else short(event)


#: The statuses a run may end on, as a client would show them.
REASONS = {204: "No Content", 503: "Service Unavailable"}


def show_run(connections: Iterable[Connection]) -> str:
    """A run as text, one connection a line or two."""
    lines = []
    for number, conn in enumerate(connections, 1):
        header = f"Last-Event-ID: {conn.sent!r}" if conn.sent else "no Last-Event-ID"
        if conn.status != 200:
            lines.append(f"connection {number}: {header} -> {conn.status} {REASONS.get(conn.status, '')}: stop")
            continue
        dropped = conn.delivered[conn.kept :]
        tail = f", discarded at the end: {dropped!r}" if dropped else ""
        lines.append(f"connection {number}: {header} -> 200, {len(conn.delivered)} bytes{tail}")
        lines.append(f"    events: {', '.join(map(short, conn.events)) or '(none)'}")
        lines.append(f"    then wait {conn.wait_ms} ms and send Last-Event-ID {conn.resume_from!r}")
    return "\n".join(lines)


# --- the explorer ------------------------------------------------------------------


def render_resume(drop_at: int, blocks: Sequence[bytes] = BLOCKS) -> str:
    """HTML for one drop point: each connection's bytes (the discarded tail struck
    through), its events, and the wait and ``Last-Event-ID`` that follow."""
    line = '<div style="margin: 0.15em 0 0.15em {indent}em">{text}</div>'.format
    parts = [f'<div class="sse-resume" data-drop="{drop_at}" style="font-family: monospace">']
    parts.append(
        line(indent=0, text=f"<b>the first connection drops after byte {drop_at} of {len(b''.join(blocks))}</b>")
    )
    for number, conn in enumerate(planned_run(drop_at, blocks), 1):
        header = f"Last-Event-ID: {conn.sent!r}" if conn.sent else "no Last-Event-ID"
        parts.append(
            line(indent=0, text=f"<b>connection {number}</b> · sends {html.escape(header)} · status {conn.status}")
        )
        if conn.status == 204:
            parts.append(line(indent=2, text="204 No Content: the client stops for good."))
            continue
        kept, dropped = conn.delivered[: conn.kept], conn.delivered[conn.kept :]
        struck = f' <s style="color: #b00" title="discarded">{html.escape(repr(dropped))}</s> (discarded)'
        parts.append(line(indent=2, text=f"bytes: {html.escape(repr(kept))}{struck if dropped else ''}"))
        events = ", ".join(html.escape(short(event)) for event in conn.events) or "(none)"
        parts.append(line(indent=2, text=f"events: {events}"))
        wait = f"then waits {conn.wait_ms} ms and sends Last-Event-ID {html.escape(repr(conn.resume_from))}"
        parts.append(line(indent=2, text=wait))
    parts.append("</div>")
    return "\n".join(parts)
