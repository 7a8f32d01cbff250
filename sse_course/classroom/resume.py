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
(:func:`render_resume`) and :func:`check_follow` compares a learner's loop
with it at every drop point.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .. import client as client_module
from ..events import Event
from ..parser import SSEParser
from .checking import Kind, NotAttempted, NotYours, Watch, exercise, failed, not_yours, rules, show, watched
from .checking.printer import not_attempted
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


# --- the check for exercise 10 ---------------------------------------------------------

#: The rules exercise 10's task states (each has a mutant in tests/test_resume.py).
FOLLOW_RULES = rules(
    (
        "send-committed-id",
        "send the ID committed at the last dispatch (a block with no data commits its ID too); none at first",
    ),
    ("new-parser", "a new parser for each connection: the partial event of a dropped connection is discarded"),
    ("resumed-id", "the new parser starts from the resumed ID: an event with no id carries it"),
    ("drop-not-error", "a dropped connection is not an error (the browser profile)"),
    ("wait-retry", "wait the reconnection time from the last retry seen, in seconds"),
    ("retry-kept", "a retry seen on an earlier connection still counts"),
    ("stop-on-204", "stop for good when the server answers 204"),
    ("stop-on-other", "stop for good on any other answer that is not a 200 event stream (here a 503)"),
    ("once-in-order", "deliver every event once, in order"),
)

Follow = Callable[[Callable[[str], Reply], Callable[[float], None]], Any]


@dataclass(frozen=True)
class Outcome:
    """What a loop did at one drop point: its requests, waits, events, or what it raised."""

    requests: list[str]
    sleeps: list[float]
    events: tuple[Any, ...] = ()
    raised: BaseException | None = None


@dataclass(frozen=True)
class Problem:
    """One way a loop differs from the standard's client: the kind, direction and sentence."""

    kind: Kind
    says: str
    direction: str = ""


def run_loop(
    follow: Follow,
    drop_at: int,
    blocks: Sequence[bytes] = BLOCKS,
    heartbeat: bytes = b"",
    watch: Watch | None = None,
    fails_with: int | None = None,
) -> Outcome:
    """Run the learner's loop once against a fresh server (watched for NOT YOURS when ``watch`` is given)."""
    server, sleeps = DroppingServer(drop_at, blocks, heartbeat, fails_with), Sleeps()
    try:
        # inside the watch: a generator runs only when listed
        events = watched(watch or Watch(None), lambda: tuple(follow(server, sleeps) or []))
    except NotAttempted:
        raise
    except (Exception, KeptConnecting) as err:  # a wrong loop may raise anything: shown at its drop point
        return Outcome(server.requests, sleeps, raised=err)
    return Outcome(server.requests, sleeps, events)


def event_problems(expected: Sequence[Event], got: Sequence[Any]) -> list[Problem]:
    """Missing, duplicated, changed, out of order: compared as (type, data, last_event_id)."""
    key = lambda e: (getattr(e, "type", None), getattr(e, "data", e), getattr(e, "last_event_id", None))  # noqa: E731
    want, have = Counter(map(key, expected)), Counter(map(key, got))
    by_key = {key(e): e for e in expected}
    problems = [Problem(Kind.MISSING, f"missing: {typed(by_key[k])}", "never") for k in want if have[k] < want[k]]
    problems += [
        Problem(Kind.EXTRA, f"duplicated: {short(by_key[k])} delivered {have[k]} times", "more")
        for k in want
        if have[k] > want[k]
    ]
    problems += [
        Problem(Kind.EXTRA, f"never sent by the server: {typed(got_one)}", "more")
        for got_one in got
        if key(got_one) not in want
    ]
    if not problems and [key(e) for e in got] != [key(e) for e in expected]:
        problems.append(Problem(Kind.WRONG_VALUE, "out of order: " + ", ".join(map(short, got))))
    return problems


def wait_problems(plan: list[Connection], sleeps: list[float]) -> list[Problem]:
    waits = [conn.wait_ms / 1000 for conn in plan if conn.wait_ms is not None]
    if [round(s, 6) if isinstance(s, (int, float)) else s for s in sleeps] == waits:
        return []
    return [
        Problem(
            Kind.WRONG_VALUE,
            f"wrong wait: slept {sleeps} (seconds), expected {waits}: the reconnection time from the last retry seen",
        )
    ]


def id_problems(plan: list[Connection], requests: list[str]) -> list[Problem]:
    sent = [conn.sent for conn in plan]
    if requests == sent:
        return []
    for number, (want, got) in enumerate(zip(sent, requests, strict=False), 1):
        if want != got:
            what = "the ID committed at the last dispatch" if number > 1 else "nothing on the first request"
            return [
                Problem(
                    Kind.WRONG_VALUE,
                    f"wrong Last-Event-ID sent on request {number}: {got!r}, expected {want!r} ({what})",
                    "state",
                )
            ]
    if len(requests) > len(sent):
        return [
            Problem(
                Kind.EXTRA,
                f"kept connecting: {len(requests)} requests, expected {len(sent)} "
                "(stop when the server answers 204, or anything but a 200 event stream)",
                "more",
            )
        ]
    return [
        Problem(
            Kind.MISSING,
            f"stopped early: {len(requests)} requests, expected {len(sent)} "
            "(only a 204, or an answer that is not a 200 event stream, ends the stream for good)",
            "never",
        )
    ]


def planned_events(plan: list[Connection]) -> list[Event]:
    """What the standard's client delivers over the whole run."""
    return [event for conn in plan for event in conn.events]


def problems_at(
    follow: Follow,
    drop_at: int,
    blocks: Sequence[bytes] = BLOCKS,
    heartbeat: bytes = HEARTBEAT,
    watch: Watch | None = None,
    fails_with: int | None = None,
) -> list[Problem]:
    """Everything that differs from the standard's client at this drop point."""
    plan = planned_run(drop_at, blocks, heartbeat, fails_with)
    outcome = run_loop(follow, drop_at, blocks, heartbeat, watch, fails_with)
    problems = id_problems(plan, outcome.requests)
    if isinstance(outcome.raised, KeptConnecting):
        return [*problems, Problem(Kind.EXTRA, f"the check stopped your loop: it {outcome.raised}", "more")]
    if outcome.raised is not None:  # the error is the diagnosis; the requests it cut short follow from it
        return [
            Problem(
                Kind.WRONG_ERROR, f"your loop raised {type(outcome.raised).__name__}: {outcome.raised}", "unexpected"
            ),
            *problems,
        ]
    return problems + event_problems(planned_events(plan), outcome.events) + wait_problems(plan, outcome.sleeps)


def failure_details(
    drop_at: int,
    problems: list[Problem],
    others: list[int],
    blocks: Sequence[bytes],
    heartbeat: bytes,
    fails_with: int | None = None,
) -> str:
    plan = planned_run(drop_at, blocks, heartbeat, fails_with)
    delivered = plan[0].delivered if plan and plan[0].status == 200 else b""
    also = f"\n(the same loop also fails at {len(others)} other drop points: {others[:8]}{'...' if len(others) > 8 else ''})"  # noqa: E501
    ending = (
        "the whole stream, then closed" if delivered == heartbeat + b"".join(blocks) else f"{delivered!r}, then dropped"
    )
    lines = [
        f"at drop point {drop_at}: the first connection delivered {ending}",
        *(f"  {problem.says}" for problem in problems),
        "what the standard's client does there:",
        *(f"  {line}" for line in show_run(plan).splitlines()),
    ]
    return "\n".join(lines) + (also if others else "")


#: A stream whose first event asks for an immediate reconnection (``retry: 0``, a valid time), dropped after it.
RETRY_ZERO_BLOCKS = (b"retry: 0\nid: 1\ndata: a\n\n", b"id: 2\ndata: b\n\n")

#: The status the check's last run answers on the second connection: not a 200 event stream, so stop.
FAILS_WITH = 503

#: What exercise 10's task forbids: replaying the course's own run, or the package's reconnecting client.
FOLLOW_NOT_YOURS = NotYours(
    "write the loop yourself, with one parser per connection: not the course's planned_run, "
    "nor the package's EventSourceClient",
    code=(planned_run, planned_events, expected_events, client_module),
)


@exercise("follow")
def check_follow(follow: Follow, blocks: Sequence[bytes] = BLOCKS, heartbeat: bytes = HEARTBEAT) -> str:
    """Drop the first connection at every byte offset; the loop must deliver what the
    standard's client delivers (every event once and in order, the heartbeat that
    opens each connection with the resumed ID), send the right ``Last-Event-ID``,
    wait the reconnection time, and stop on 204. Fails at the smallest drop point
    that shows a bug, its first problem as the headline."""
    offsets = range(len(heartbeat + b"".join(blocks)) + 1)
    watch = Watch(FOLLOW_NOT_YOURS)
    failing = {}
    for drop_at in offsets:
        problems = problems_at(follow, drop_at, blocks, heartbeat, watch)
        if watch.reached:
            raise not_yours("your follow loop", FOLLOW_NOT_YOURS, watch.reached[0])
        if problems:
            failing[drop_at] = problems
    middle = len(offsets) // 2  # then once more, the second connection answered 503: the loop must stop there too
    if not failing and (problems := problems_at(follow, middle, blocks, heartbeat, watch, FAILS_WITH)):
        raise failed(
            "your follow loop",
            problems[0].kind,
            f"{problems[0].says} (the server answered {FAILS_WITH} on the second connection).",
            failure_details(middle, problems, [], blocks, heartbeat, FAILS_WITH),
            direction=problems[0].direction,
        )
    zero_drop = len(heartbeat + RETRY_ZERO_BLOCKS[0])
    if not failing and (problems := problems_at(follow, zero_drop, RETRY_ZERO_BLOCKS, heartbeat, watch)):
        raise failed(
            "your follow loop",
            problems[0].kind,
            problems[0].says + ".",
            failure_details(zero_drop, problems, [], RETRY_ZERO_BLOCKS, heartbeat),
            direction=problems[0].direction,
        )
    if failing:
        first, *others = sorted(failing)
        problem = failing[first][0]
        raise failed(
            "your follow loop",
            problem.kind,
            problem.says + ".",
            failure_details(first, failing[first], others, blocks, heartbeat),
            direction=problem.direction,
        )
    beat = ", and the heartbeat event that opens each connection, carrying the resumed ID" if heartbeat else ""
    return (
        f", with the first connection dropped at each of the {len(offsets)} byte offsets "
        f"0..{len(offsets) - 1}, delivered every event once and in order (the stream's "
        f"{len(expected_events(blocks))}{beat}), "
        "sent the committed Last-Event-ID, waited the reconnection time from retry, and stopped on 204 "
        f"and on a {FAILS_WITH}"
    )


def try_follow(follow: Follow, drop_at: int, blocks: Sequence[bytes] = BLOCKS) -> None:
    """Run ``follow`` once, the first connection dropped at ``drop_at``, and print what it did."""
    try:
        outcome = run_loop(follow, drop_at, blocks)
    except NotAttempted:
        show(not_attempted("try_follow", "follow", "this cell again"))
        return
    print("Last-Event-ID sent:", outcome.requests)
    print("waits (seconds):   ", outcome.sleeps)
    if outcome.raised is not None:
        print(f"raised {type(outcome.raised).__name__}: {outcome.raised}")
    else:
        print("events:            ", ", ".join(map(short, outcome.events)) or "(none)")


def __getattr__(name: str) -> Any:
    """``ResumeExplorer`` (lesson 10's widget) lives with ipywidgets, imported only when it is asked for:
    the check must import without them."""
    if name == "ResumeExplorer":
        from .resume_explorer import ResumeExplorer

        return ResumeExplorer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
