"""Exercise 10: ``follow``, the reconnect loop, checked against the standard's client.

The oracle (:func:`~sse_course.classroom.resume.planned_run`, lesson 10's) says what a
client following the standard does when the first connection drops at each byte;
the loop must deliver the same events, send the committed ``Last-Event-ID``, wait
the reconnection time, and stop on 204 and on any answer that is not a 200 event stream.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ... import client as client_module
from ...events import Event
from ..checking import (
    Kind,
    NotAttempted,
    NotYours,
    Watch,
    exercise,
    failed,
    not_yours,
    rules,
    show,
    watched,
)
from ..checking.printer import not_attempted
from ..resume import (
    BLOCKS,
    HEARTBEAT,
    Connection,
    DroppingServer,
    KeptConnecting,
    Reply,
    Sleeps,
    expected_events,
    planned_run,
    short,
    show_run,
    typed,
)

# --- the check ----------------------------------------------------------------

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


#: The status the check's last run answers on the second connection: not a 200 event stream, so stop.
FAILS_WITH = 503

#: A stream whose first event asks for an immediate reconnection (``retry: 0``, a valid time), dropped after it.
RETRY_ZERO_BLOCKS = (b"retry: 0\nid: 1\ndata: a\n\n", b"id: 2\ndata: b\n\n")


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
    wait the reconnection time, and stop on 204 and on any answer that is not a 200
    event stream. Fails at the smallest drop point
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
