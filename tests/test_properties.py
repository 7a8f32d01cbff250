"""Properties over generated streams: chunking never changes the outcome, the
browser profile never raises, the profiles agree on valid complete input, and
the browser profile equals a transcription of the WHATWG algorithm, on the
whole input and after every feed."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from sse_course import Event, LayeredSSEParser, SSEParser
from sse_course.classroom.harness import Outcome, chunks_of, run

LINE_ENDS = st.sampled_from(["\n", "\r", "\r\n"])
NAMES = st.sampled_from(["data", "event", "id", "retry", "Data", "foo", "", "\ufeffdata"])
TEXTS = st.text(alphabet=st.sampled_from(list("ab :0123456789+_\u00e9\u20ac\U0001f600\u2028\x00\ufeff\t")), max_size=8)
VALUES = TEXTS | TEXTS | TEXTS | st.text(alphabet="0123456789", min_size=1, max_size=3)  # a valid retry, often


@st.composite
def lines(draw) -> str:
    kind = draw(st.sampled_from(["field", "field", "field", "nocolon", "comment", "blank"]))
    if kind == "blank":
        return ""
    if kind == "comment":
        return ":" + draw(VALUES)
    if kind == "nocolon":
        return draw(NAMES)
    return draw(NAMES) + ":" + draw(st.sampled_from(["", " ", "  "])) + draw(VALUES)


@st.composite
def streams(draw, complete: bool = False) -> bytes:
    body = "".join(line + draw(LINE_ENDS) for line in draw(st.lists(lines(), max_size=12)))
    if complete:
        body += "\n\n"  # ends any line, then a blank line (after a CR, '\n' completes a CRLF)
    bom = "\ufeff" if draw(st.booleans()) else ""
    return (bom + body).encode()


@st.composite
def cuts(draw, raw: bytes) -> tuple[int, ...]:
    positions = st.integers(min_value=0, max_value=len(raw))
    return tuple(sorted(draw(st.lists(positions, max_size=8))))


def outcome(profile: str, raw: bytes, partition: tuple[int, ...] = ()) -> Outcome:
    return run(lambda: SSEParser(profile), chunks_of(raw, partition))


@given(st.data(), st.sampled_from(["strict", "browser"]))
def test_chunking_never_changes_the_outcome(data, profile: str) -> None:
    raw = data.draw(streams())
    if data.draw(st.booleans()):  # sometimes damage the UTF-8
        at = data.draw(st.integers(0, len(raw)))
        raw = raw[:at] + data.draw(st.sampled_from([b"\xff", b"\xf0\x9f", b"\x80", b"\xed\xa0\x80"])) + raw[at:]
    assert outcome(profile, raw, data.draw(cuts(raw))) == outcome(profile, raw)


@given(st.data())
def test_browser_profile_never_raises_on_any_bytes(data) -> None:
    raw = data.draw(st.binary(max_size=200) | streams())
    assert outcome("browser", raw, data.draw(cuts(raw))).error is None


@given(st.data())
def test_profiles_agree_on_valid_complete_input(data) -> None:
    raw = data.draw(streams(complete=True))
    partition = data.draw(cuts(raw))
    strict = outcome("strict", raw, partition)
    assert strict.error is None
    assert strict == outcome("browser", raw, partition)


def whatwg(raw: bytes) -> tuple[list[Event], str, int | None]:
    """The standard's algorithm transcribed, independent of the package: the events, the last event ID
    and the reconnection time after the lines that ``raw`` ends (the unfinished tail is discarded)."""
    text = raw.decode("utf-8", "replace").removeprefix("\ufeff")
    events, data, event_type, id_buffer, last_id, retry = [], "", "", "", "", None
    *complete, _unfinished = re.split(r"\r\n|\r|\n", text)
    for line in complete:
        if line == "":
            last_id = id_buffer
            if data:
                events.append(Event(event_type or "message", data.removesuffix("\n"), last_id, retry))
            data, event_type = "", ""
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ") if ":" in line else ""
        if name == "event":
            event_type = value
        elif name == "data":
            data += value + "\n"
        elif name == "id" and "\x00" not in value:
            id_buffer = value
        elif name == "retry" and value and all(c in "0123456789" for c in value):
            retry = int(value)
    return events, last_id, retry


@given(st.data())
def test_browser_profile_is_the_whatwg_algorithm(data) -> None:
    raw = data.draw(streams() | st.binary(max_size=60))
    assert list(outcome("browser", raw, data.draw(cuts(raw))).events) == whatwg(raw)[0]


@given(st.data())
def test_browser_state_after_every_feed_is_the_whatwg_state(data) -> None:
    """After each feed, the events returned so far and ``last_event_id`` / ``retry`` are the standard's
    after the lines ended so far (an event comes from the feed with its blank line, the ID changes at a
    blank line, ``retry`` at its own line); after ``close()`` the discarded tail has changed nothing.
    A prefix's decoded text differs from the stream's only in its unfinished line, which is discarded."""
    raw = data.draw(streams() | st.binary(max_size=60))
    partition = data.draw(cuts(raw))
    for parser in (SSEParser("browser"), LayeredSSEParser("browser")):
        events: list[Event] = []
        for start, end in zip((0, *partition), (*partition, len(raw)), strict=True):
            events += parser.feed(raw[start:end])
            assert (events, parser.last_event_id, parser.retry) == whatwg(raw[:end])
        events += parser.close()
        assert (events, parser.last_event_id, parser.retry) == whatwg(raw)
