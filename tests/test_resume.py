"""Lesson 10: the dropping server, the oracle, the explorer, and the check that must reject wrong resume loops."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sse_course import Event, SSEParser
from sse_course.classroom.checking import CheckFailed, Kind
from sse_course.classroom.exercises.ex10_reconnect_and_resume import (
    FOLLOW_RULES,
    check_follow,
    event_problems,
    try_follow,
)
from sse_course.classroom.resume import (
    BLOCKS,
    HEARTBEAT,
    INITIAL_RETRY_MS,
    STREAM,
    DroppingServer,
    KeptConnecting,
    Reply,
    Sleeps,
    expected_events,
    planned_run,
    render_resume,
)
from sse_course.classroom.resume_explorer import ResumeExplorer

ROOT = Path(__file__).resolve().parent.parent
END_OF = {number: len(b"".join(BLOCKS[:number])) for number in range(len(BLOCKS) + 1)}
#: The check's first connection opens with the heartbeat: its drop points count it.
BEAT = len(HEARTBEAT)


def last_id_line(chunks: tuple[bytes, ...], last_event_id: str) -> str:
    """The value of the last ``id:`` line on the wire: what a client scanning lines would send."""
    for line in b"".join(chunks).split(b"\n")[:-1]:
        if line.startswith(b"id: "):
            last_event_id = line[4:].decode()
    return last_event_id


def make_follow(
    *,
    send_id: bool = True,
    resume_from: str = "committed",
    new_parser: bool = True,
    keep_id: bool = True,
    remember_retry: bool = True,
    use_retry: bool = True,
    retry_if_truthy: bool = False,
    ms_as_seconds: bool = False,
    stop_on_204: bool = True,
    stop_on_other: bool = True,
    profile: str = "browser",
) -> Callable[[Callable[[str], Reply], Callable[[float], None]], list[Event]]:
    """The reference loop, or (with one option changed) a realistic wrong one."""

    def follow(connect: Callable[[str], Reply], sleep: Callable[[float], None]) -> list[Event]:
        events: list[Event] = []
        last_event_id, retry = "", INITIAL_RETRY_MS
        parser = None
        while True:
            reply = connect(last_event_id if send_id else "")
            if (reply.status == 204 and stop_on_204) or (reply.status not in (200, 204) and stop_on_other):
                return events
            if new_parser or parser is None:
                parser = SSEParser(profile, last_event_id=last_event_id if keep_id else "")
                if not remember_retry:
                    retry = INITIAL_RETRY_MS
            for chunk in reply.chunks:
                events += parser.feed(chunk)
            if new_parser:
                events += parser.close()
            if resume_from == "committed":
                last_event_id = parser.last_event_id
            elif resume_from == "line":
                last_event_id = last_id_line(reply.chunks, last_event_id)
            else:
                last_event_id = events[-1].last_event_id if events else last_event_id
            if use_retry and (parser.retry if retry_if_truthy else parser.retry is not None):
                retry = parser.retry
            sleep(retry if ms_as_seconds else retry / 1000)

    return follow


def failure(follow: Any) -> str:
    """The message after its headline: from 'at drop point N:' on."""
    with pytest.raises(CheckFailed) as caught:
        check_follow(follow)
    headline, rest = str(caught.value).split("\n", 1)
    assert headline.startswith("your follow loop is wrong: ") and headline.split(": ", 2)[2].rstrip(".") in rest
    return rest


def verdict(follow: Any) -> tuple[Kind, str]:
    with pytest.raises(CheckFailed) as caught:
        check_follow(follow)
    return caught.value.verdict.kind, caught.value.verdict.direction


#: One mutant per rule exercise 10 states, and the kind and direction its verdict says.
RULE_MUTANTS = {
    "send-committed-id": ({"resume_from": "event"}, (Kind.WRONG_VALUE, "state")),
    "new-parser": ({"new_parser": False}, (Kind.MISSING, "never")),
    "resumed-id": ({"keep_id": False}, (Kind.MISSING, "never")),
    "drop-not-error": ({"profile": "strict"}, (Kind.WRONG_ERROR, "unexpected")),
    "wait-retry": ({"use_retry": False}, (Kind.WRONG_VALUE, "")),
    "retry-kept": ({"remember_retry": False}, (Kind.WRONG_VALUE, "")),
    "stop-on-204": ({"stop_on_204": False}, (Kind.EXTRA, "more")),
    "stop-on-other": ({"stop_on_other": False}, (Kind.EXTRA, "more")),
    "once-in-order": ({"send_id": False}, (Kind.WRONG_VALUE, "state")),
}


def test_every_rule_of_the_task_has_a_mutant() -> None:
    assert set(RULE_MUTANTS) == {rule.name for rule in FOLLOW_RULES}


@pytest.mark.parametrize("rule", sorted(RULE_MUTANTS))
def test_each_rule_mutant_is_rejected_with_its_direction(rule: str) -> None:
    option, expected = RULE_MUTANTS[rule]
    assert verdict(make_follow(**option)) == expected


def test_a_loop_that_forgets_the_resumed_id_is_caught_by_the_heartbeat() -> None:
    message = failure(make_follow(keep_id=False))
    assert "missing: [id '1'] \"event: ping\"" not in message
    assert re.search(r"missing: \[id '\d'\] '\{\}'", message), message


def test_the_reference_loop_passes(capsys: pytest.CaptureFixture[str]) -> None:
    check_follow(make_follow())
    out = capsys.readouterr().out
    assert out.startswith("Correct: follow, with") and f"0..{BEAT + len(STREAM)}" in out


def test_a_stub_is_not_attempted(capsys: pytest.CaptureFixture[str]) -> None:
    def follow(connect: Any, sleep: Any) -> list[Event]:
        raise NotImplementedError

    check_follow(follow)
    assert capsys.readouterr().out.startswith("Not attempted yet: follow")


def test_no_last_event_id_duplicates_the_stream() -> None:
    message = failure(make_follow(send_id=False))
    assert message.startswith("at drop point 0:")
    assert "wrong Last-Event-ID sent on request 3: '', expected '5'" in message


def test_the_id_of_the_last_line_skips_an_event() -> None:
    message = failure(make_follow(resume_from="line"))
    drop = BEAT + len(b"retry: 1500\nid: 1\n")
    assert message.startswith(f"at drop point {drop}:")
    assert "wrong Last-Event-ID sent on request 2: '1', expected ''" in message
    assert "missing: [id '1'] 'Hello'" in message


def test_the_id_of_the_last_event_misses_a_data_less_block() -> None:
    message = failure(make_follow(resume_from="event"))
    assert message.startswith(f"at drop point {BEAT + END_OF[3]}:")
    assert "wrong Last-Event-ID sent on request 2: '2', expected '3'" in message


def test_a_parser_kept_across_the_drop_joins_a_partial_event() -> None:
    message = failure(make_follow(new_parser=False))
    assert message.startswith("at drop point 1: the first connection delivered b'e', then dropped")
    assert "missing: [id ''] '{}'" in message  # 'e' joins the resent 'event: ping': an unknown field
    assert "never sent by the server" in message


def test_a_retry_of_0_is_a_reconnection_time() -> None:
    """``if parser.retry:`` ignores ``retry: 0`` and waits the old time: the retry-0 stream shows it."""
    message = failure(make_follow(retry_if_truthy=True))
    assert "wrong wait: slept [3.0, 3.0] (seconds), expected [0.0, 0.0]" in message, message
    assert "retry: 0\\nid: 1" in message


def test_a_missing_event_and_an_event_never_sent_show_their_types() -> None:
    message = failure(make_follow(new_parser=False))
    assert "missing: [id ''] '{}' (type 'ping')" in message
    assert "never sent by the server: [id ''] '{}' (type 'message')" in message


def test_the_strict_profile_raises_at_a_drop() -> None:
    message = failure(make_follow(profile="strict"))
    assert message.startswith("at drop point 1:") and "your loop raised IncompleteStream" in message


@pytest.mark.parametrize(
    ("option", "drop", "slept"),
    [
        ({"use_retry": False}, 0, "[3.0, 3.0]"),
        ({"ms_as_seconds": True}, 0, "[3000, 500]"),
        ({"remember_retry": False}, END_OF[3], "[0.5, 3.0]"),
    ],
)
def test_a_wrong_wait_is_named(option: dict, drop: int, slept: str) -> None:
    message = failure(make_follow(**option))
    assert message.startswith(f"at drop point {BEAT + drop if drop else 0}:")
    assert f"wrong wait: slept {slept} (seconds)" in message


def test_a_loop_that_ignores_204_is_stopped_and_named() -> None:
    message = failure(make_follow(stop_on_204=False))
    assert message.startswith("at drop point 0:")
    assert "kept connecting: 4 requests, expected 3 (stop when the server answers 204," in message
    assert "after the server answered 204" in message


def test_the_message_shows_the_right_run_and_only_itself_in_a_notebook() -> None:
    with pytest.raises(CheckFailed) as caught:
        check_follow(make_follow(resume_from="line"))
    rendered = "\n".join(caught.value._render_traceback_()).splitlines()
    assert rendered[0].startswith(
        "CheckFailed: your follow loop is wrong: WRONG VALUE (state): wrong Last-Event-ID sent on request 2"
    )
    assert rendered[1].startswith(f"at drop point {BEAT + 18}:")
    assert "what the standard's client does there:" in rendered
    assert not any("resume.py" in line for line in rendered)


def test_the_server_resumes_after_the_committed_id_and_answers_204_at_the_end() -> None:
    server = DroppingServer(drop_at=3)
    assert server("").chunks == (b"ret",)
    assert b"".join(server("2").chunks) == b"".join(BLOCKS[2:])
    assert server("5") == Reply(204) and server.requests == ["", "2", "5"]
    with pytest.raises(KeptConnecting, match="after the server answered 204"):
        server("5")


def test_sleeps_records_instead_of_waiting() -> None:
    sleeps = Sleeps()
    sleeps(1.5)
    assert sleeps == [1.5]


def test_the_plan_discards_a_partial_event_and_resumes_from_the_committed_id() -> None:
    first, second, stop = planned_run(END_OF[3] + len(b"id: 4\n"))
    assert first.delivered[first.kept :] == b"id: 4\n" and first.resume_from == "3" and first.wait_ms == 500
    assert [e.data for e in second.events] == ["two\nlines", "bye"] and second.sent == "3"
    assert (stop.sent, stop.status) == ("5", 204)


def test_render_shows_each_connection_and_the_discarded_bytes() -> None:
    rendered = render_resume(40)
    assert 'data-drop="40"' in rendered and rendered.count("<b>connection") == 3
    assert 'title="discarded"' in rendered and "id: 2\\neve" in rendered
    assert "sends Last-Event-ID: &#x27;1&#x27;" in rendered and "204 No Content" in rendered
    assert 'title="discarded"' not in render_resume(END_OF[1])


def test_the_explorer_redraws_from_the_pure_function(capsys: pytest.CaptureFixture[str]) -> None:
    explorer = ResumeExplorer(10)
    assert (explorer.slider.min, explorer.slider.max) == (0, len(STREAM))
    assert explorer.view.value == render_resume(10)
    explorer.slider.value = 60
    assert re.search(r'data-drop="60"', explorer.view.value) and explorer.view.value == render_resume(60)
    assert capsys.readouterr() == ("", "")


def test_trying_a_loop_shows_what_it_did(capsys: pytest.CaptureFixture[str]) -> None:
    try_follow(make_follow(), 98)
    assert capsys.readouterr().out.splitlines() == [
        "Last-Event-ID sent: ['', '3', '5']",
        "waits (seconds):    [0.5, 0.5]",
        "events:             [id '1'] 'Hello', [id '2'] '👋', [id '4'] 'two\\nlines', [id '5'] 'bye'",
    ]
    try_follow(make_follow(profile="strict"), 98)
    assert "raised IncompleteStream" in capsys.readouterr().out


def test_event_problems_name_each_direction() -> None:
    one, two, three = expected_events()[:3]

    def said(expected: list, got: list) -> list[tuple[str, str, str]]:
        return [(problem.kind.value, problem.direction, problem.says) for problem in event_problems(expected, got)]

    assert said([one, two], [one, two]) == []
    assert said([one, two], [one, one, two]) == [("EXTRA", "more", "duplicated: [id '1'] 'Hello' delivered 2 times")]
    assert said([one, two], [two, one]) == [("WRONG VALUE", "", "out of order: [id '2'] '👋', [id '1'] 'Hello'")]
    assert said([one, two], [one]) == [("MISSING", "never", "missing: [id '2'] '👋' (type 'token')")]
    assert said([one, two], [one, two, three]) == [
        ("EXTRA", "more", f"never sent by the server: [id '4'] 'two\\nlines' (type {three.type!r})")
    ]


def test_the_initial_wait_is_the_package_clients() -> None:
    from sse_course.client import INITIAL_RECONNECTION_MS

    assert INITIAL_RETRY_MS == INITIAL_RECONNECTION_MS


def test_every_right_run_delivers_the_whole_stream_once_whatever_the_drop() -> None:
    for drop in range(len(STREAM) + 1):
        run = planned_run(drop)
        assert [event for conn in run for event in conn.events] == expected_events(), drop
        assert run[-1].status == 204 and all(conn.status == 200 for conn in run[:-1])


def test_a_generator_loop_is_run_and_its_stub_is_not_attempted(capsys: pytest.CaptureFixture[str]) -> None:
    def as_generator(connect: Any, sleep: Any) -> Any:
        yield from make_follow()(connect, sleep)

    check_follow(as_generator)
    assert capsys.readouterr().out.startswith("Correct: follow")

    def stub_generator(connect: Any, sleep: Any) -> Any:
        raise NotImplementedError
        yield

    check_follow(stub_generator)
    assert capsys.readouterr().out.startswith("Not attempted yet")


def test_lesson_10_tags_its_explorer_for_the_browser_test() -> None:
    cells = json.loads((ROOT / "notebooks" / "10-reconnect-and-resume.ipynb").read_text(encoding="utf-8"))["cells"]
    tagged = [cell for cell in cells if "explorer" in cell["metadata"].get("tags", [])]
    assert len(tagged) == 1 and "ResumeExplorer(" in "".join(tagged[0]["source"])
