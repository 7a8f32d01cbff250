"""Live streams for lesson 08: the recording client (from :mod:`.recording`), and the check for its exercise.

The check serves real streams with the demo server; the demo server's
command line uses the recording client. Keeping the client in its own module
keeps the two from importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..events import Event
from ..parser import SSEParser
from .checking import Kind, attempted, exercise, failed, rules
from .checking.compare import items_difference, same_items
from .fixtures import get_fixture
from .harness import as_event, interesting_cuts
from .recording import TIMEOUT, Received, fetch, show_received
from .server import SSEServer

__all__ = ["TIMEOUT", "Received", "fetch", "show_received", "check_resume_point", "stream_cases", "StreamCase"]

# --- the check for exercise 08 -------------------------------------------------------

#: The streams the check serves: IDs in every position, a character split
#: across writes, CR/LF pairs split, and characters that are not line ends.
CHECK_FIXTURES = (
    "ids/id-persists",
    "ids/id-reset-by-empty",
    "ids/id-with-nul-ignored",
    "ids/id-in-data-less-block",
    "ids/id-after-data",
    "ids/id-uncommitted-at-eof",
    "fields/no-data-block",
    "utf8/emoji-token-stream",
    "line_ends/cr-lf-split",
    "line_ends/not-line-ends",
)
#: The rules exercise 08's task states (each has a mutant in tests/test_server.py).
RESUME_POINT_RULES = rules(
    ("drop-not-error", "a stream cut short is not an error: the browser profile keeps the events before the cut"),
    ("one-parser", "one parser reads the whole response, whatever the writes cut"),
    ("committed-id", "the ID to resume from is the one committed at the last dispatch, a block with no data included"),
)
#: Seconds between the server's writes in the check: long enough that a
#: loopback client reads most writes separately, short enough to stay quick.
CHECK_PAUSE = 0.002


@dataclass(frozen=True)
class StreamCase:
    """One served stream: a fixture's bytes, cut short at ``drop_at``, written at ``cuts``."""

    fixture: str
    body: bytes
    drop_at: int

    @property
    def served(self) -> bytes:
        return self.body[: self.drop_at]

    @property
    def cuts(self) -> list[int]:
        return interesting_cuts(self.served)

    def expected(self) -> tuple[tuple[Event, ...], str]:
        """The browser profile's events and resume ID for the served bytes, in one read."""
        parser = SSEParser("browser")
        events = parser.feed(self.served) + parser.close()
        return tuple(events), parser.last_event_id

    def show(self) -> str:
        writes = " | ".join(repr(chunk) for chunk in SSEServer(self.served, cuts=self.cuts).writes)
        dropped = "" if self.drop_at == len(self.body) else f", dropped after byte {self.drop_at} of {len(self.body)}"
        return f"{self.fixture}{dropped}; the server wrote\n    {writes or '(nothing)'}"


def stream_cases() -> list[StreamCase]:
    """Every check fixture dropped after each line end and just before it, smallest first."""
    cases = set()
    for fixture_id in CHECK_FIXTURES:
        body = get_fixture(fixture_id).raw
        ends = [i + 1 for i, byte in enumerate(body) if byte in b"\r\n"]
        drops = {len(body), *ends, *(end - 1 for end in ends)}
        cases.update(StreamCase(fixture_id, body, drop) for drop in drops if drop > 0)
    return sorted(cases, key=lambda case: (case.drop_at, len(case.cuts), case.fixture))


Resume = Callable[[str], tuple[Any, str]]


@exercise("resume_point")
def check_resume_point(resume_point: Resume) -> str:
    """Serve every case for real; ``resume_point(url)`` must return the browser
    profile's events and the ``Last-Event-ID`` a reconnecting client would send."""
    cases = stream_cases()
    for case in cases:
        with SSEServer(case.served, cuts=case.cuts, pause=CHECK_PAUSE) as server:
            try:
                got = attempted(resume_point, server.url)
            except Exception as err:  # a wrong answer may raise anything; show it with the case
                raise failed(
                    "your resume_point", Kind.WRONG_ERROR, f"it raised {type(err).__name__}: {err}.", case.show(), direction="unexpected"
                ) from err
        _compare(case, got)
    return (
        f"on {len(cases)} real streams from {len(CHECK_FIXTURES)} fixtures, each dropped after "
        "every line end and just before it, written at its interesting cuts"
    )


def _compare(case: StreamCase, got: Any) -> None:
    events, resume_id = case.expected()
    got_events, got_id = got
    expected, found = [as_event(e) for e in events], [as_event(e) for e in got_events]
    if same_items(expected, found) and got_id == resume_id:
        return
    if same_items(expected, found):
        kind, direction, says = Kind.WRONG_VALUE, "state", f"the ID to resume from should be {resume_id!r}, yours is {got_id!r}"
    else:
        difference = items_difference("the stream", expected, found, expected, found, "event")
        kind, direction, says = difference.kind, difference.direction, difference.says
    raise failed(
        "your resume_point", kind, says + ".",
        f"{case.show()}\nevents as (type, data, last_event_id, retry), then the ID to resume from:\n"
        f"expected: {expected}, Last-Event-ID {resume_id!r}\n"
        f"     got: {found}, Last-Event-ID {got_id!r}",
        direction=direction,
    )
