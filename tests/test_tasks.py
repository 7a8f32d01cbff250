"""The transfer tasks' checks (exercises 01, 04, 05, 07, 08): the solution passes, and for every
rule the task states a mutant that breaks only that rule is rejected, with the right kind and
direction; where the task says "write X", the package's X is rejected as NOT YOURS."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from sse_course import IncompleteStream, LayeredSSEParser, SSEParser
from sse_course.classroom.checking import CheckFailed, Kind
from sse_course.classroom.exercises import ex01_chunks_are_not_events as ex01
from sse_course.classroom.exercises import ex04_lines_to_events as ex04
from sse_course.classroom.exercises import ex05_limits_and_failures as ex05
from sse_course.classroom.exercises import ex07_evidence as ex07
from sse_course.classroom.exercises import ex08_real_streams as ex08
from sse_course.classroom.zoo import ZOO
from sse_course.events import EventAssembler, split_field
from sse_course.httpx_adapter import iter_sse, sse_headers


def rejected(check: Callable[..., None], *answer: Any) -> CheckFailed:
    with pytest.raises(CheckFailed) as caught:
        check(*answer)
    return caught.value


def verdict_of(check: Callable[..., None], *answer: Any) -> tuple[Kind, str]:
    failure = rejected(check, *answer)
    return failure.verdict.kind, failure.verdict.direction


# --- exercise 01: JSON Lines -------------------------------------------------------


class JsonLines:
    """The solution's reader (a bytearray, parsed line by line when complete)."""

    def __init__(self) -> None:
        self.held = bytearray()

    def values(self, complete: bytes) -> list:
        return [json.loads(line) for line in complete.split(b"\n") if line.strip()]

    def feed(self, chunk: bytes) -> list:
        last_lf = chunk.rfind(b"\n")  # only the new bytes: what is held has no LF
        if last_lf < 0:
            self.held += chunk
            return []
        complete = bytes(self.held) + chunk[:last_lf]
        self.held = bytearray(chunk[last_lf + 1 :])
        return self.values(complete)

    def close(self) -> list:
        rest, self.held = bytes(self.held), bytearray()
        return [json.loads(rest)] if rest.strip() else []


class FirstValueOnly(JsonLines):
    def feed(self, chunk: bytes) -> list:
        return super().feed(chunk)[:1]


class OneFeedLate(JsonLines):
    def __init__(self) -> None:
        super().__init__()
        self.waiting: list = []

    def feed(self, chunk: bytes) -> list:
        out, self.waiting = self.waiting, super().feed(chunk)
        return out

    def close(self) -> list:
        return self.waiting + super().close()


class PartialDropped(JsonLines):
    def feed(self, chunk: bytes) -> list:
        *complete, _rest = chunk.split(b"\n")
        return [json.loads(line) for line in complete if line.strip()]


class DecodesEachChunk(JsonLines):
    def feed(self, chunk: bytes) -> list:
        return super().feed(chunk.decode("utf-8").encode("utf-8"))


class BlankParsed(JsonLines):
    def values(self, complete: bytes) -> list:
        return [json.loads(line) for line in complete.split(b"\n")]


class SplitLines(JsonLines):
    """Splits the complete text with str.splitlines(), which ends lines at U+2028 and a lone CR too."""

    def values(self, complete: bytes) -> list:
        return [json.loads(line) for line in complete.decode("utf-8").splitlines() if line.strip()]


class LastLineLost(JsonLines):
    def close(self) -> list:
        return []


class BlankTailParsed(JsonLines):
    def close(self) -> list:
        rest, self.held = bytes(self.held), bytearray()
        return [json.loads(rest)] if rest else []


class HoldsTheReference:
    def __init__(self) -> None:
        self.reader = ex01.JsonLines()

    def feed(self, chunk: bytes) -> list:
        return self.reader.feed(chunk)

    def close(self) -> list:
        return self.reader.close()


@pytest.mark.parametrize(
    "answer, direction", [(type("Sub", (ex01.JsonLines,), {}), "subclass"), (HoldsTheReference, "calls")]
)
def test_json_lines_rejects_the_course_reference(answer: type, direction: str) -> None:
    assert verdict_of(ex01.check_json_lines, answer) == (Kind.NOT_YOURS, direction)


# --- exercise 04, part 1: the state a client resumes with ---------------------------


def fields(line: str) -> tuple[str, str]:
    colon = line.find(":")
    name, value = (line, "") if colon < 0 else (line[:colon], line[colon + 1 :])
    return name, value[1:] if value.startswith(" ") else value


def retry_of(value: str) -> int | None:
    digits = value.lstrip("0") or "0"
    ok = value and not value.strip("0123456789") and len(digits) <= 20 and int(digits) < 2**64
    return int(digits) if ok else None


def resume(
    lines: list[str],
    split=fields,
    retry=retry_of,
    commit_at_once=False,
    keep_nul=False,
    data_needed=False,
    retry_at_dispatch=False,
) -> tuple[str, int | None]:
    """The solution, with one switch per rule to break it."""
    last = buffer = ""
    retry_now = retry_later = None
    has_data = False
    for line in lines:
        if not line:
            if has_data or not data_needed:
                last = buffer
            has_data = False
            retry_now = retry_later if retry_at_dispatch and retry_later is not None else retry_now
            continue
        if line.startswith(":"):
            continue
        name, value = split(line)
        has_data |= name == "data"
        if name == "id" and (keep_nul or "\0" not in value):
            buffer = value
            last = value if commit_at_once else last
        elif name == "retry" and retry(value) is not None:
            if retry_at_dispatch:
                retry_later = retry(value)
            else:
                retry_now = retry(value)
    return last, retry_now


def solution(lines: list[str]) -> tuple[str, int | None]:
    return resume(lines)


def test_resume_state_solution_passes(capsys: pytest.CaptureFixture[str]) -> None:
    ex04.check_resume_state(solution)
    assert capsys.readouterr().out.startswith("Correct: your resume_state")


def split_every_colon(line: str) -> tuple[str, str]:
    parts = line.split(":")
    return parts[0], (parts[1] if len(parts) > 1 else "").removeprefix(" ")


def lstripped(line: str) -> tuple[str, str]:
    name, _, value = line.partition(":")
    return name, value.lstrip()


def colon_needed(line: str) -> tuple[str, str]:
    return fields(line) if ":" in line else ("", "")


def lowercased(line: str) -> tuple[str, str]:
    name, value = fields(line)
    return name.lower().strip(), value


def isdigit_retry(value: str) -> int | None:
    return int(value) if value.isdigit() else None


def unbounded_retry(value: str) -> int | None:
    return int(value) if value and not value.strip("0123456789") else None


def int_bounded_retry(value: str) -> int | None:
    """Bounded, but int() runs on any run of ASCII digits first."""
    return int(value) if value and not value.strip("0123456789") and int(value) <= 2**64 - 1 else None


def zeros_unstripped_retry(value: str) -> int | None:
    """Bounds the digits after the leading zeros, then runs int() on the value with its zeros."""
    ok = value and not value.strip("0123456789") and len(value.lstrip("0")) <= 20
    return int(value) if ok and int(value) <= 2**64 - 1 else None


def twenty_chars_retry(value: str) -> int | None:
    """Guards int() by the value's length, so a small value with leading zeros is ignored."""
    return retry_of(value) if len(value) <= 20 else None


def comment_as_field(lines: list[str]) -> tuple[str, int | None]:
    return resume([line.removeprefix(":") if line.startswith(":id") else line for line in lines])


@pytest.mark.parametrize(
    "mutant, rule",
    [
        (lambda lines: resume(lines, split=split_every_colon), "id-with-colons"),
        (lambda lines: resume(lines, split=lstripped), "two-spaces"),
        (lambda lines: resume(lines, split=colon_needed), "name-alone"),
        (lambda lines: resume(lines, split=lowercased), "names-cased"),
        (lambda lines: resume(lines, commit_at_once=True), "id-at-dispatch"),
        (lambda lines: resume(lines, data_needed=True), "id-without-data"),
        (lambda lines: resume(lines, keep_nul=True), "id-with-nul"),
        (lambda lines: resume(lines, retry=isdigit_retry), "retry-not-digits"),
        (lambda lines: resume(lines, retry_at_dispatch=True), "retry-at-once"),
        (lambda lines: resume(lines, retry=unbounded_retry), "retry-too-large"),
        (lambda lines: resume(lines, retry=twenty_chars_retry), "retry-leading-zeros"),
        (comment_as_field, "comment"),
    ],
)
def test_resume_state_rejects_each_rule_broken(mutant: Callable[[list[str]], Any], rule: str) -> None:
    failure = rejected(ex04.check_resume_state, mutant)
    assert (failure.verdict.kind, failure.verdict.direction) == (Kind.WRONG_VALUE, "state")
    assert rule in ex04.RESUME_STREAMS
    assert failure.verdict.fixture == f"case {rule}"


def test_resume_state_rejects_int_of_thousands_of_digits() -> None:
    """int() of a 5000-digit value raises ValueError: the check reports it, shortening the line it shows."""
    failure = rejected(ex04.check_resume_state, lambda lines: resume(lines, retry=int_bounded_retry))
    assert (failure.verdict.kind, failure.verdict.direction) == (Kind.WRONG_ERROR, "unexpected")
    assert failure.verdict.fixture == "case retry-thousands-of-digits"
    assert "(5,007 characters in all)" in str(failure) and "9" * 100 not in str(failure)


def test_resume_state_rejects_int_of_thousands_of_leading_zeros() -> None:
    """Leading zeros count for nothing, but int() counts them: 5000 zeros before a 7 make it raise."""
    failure = rejected(ex04.check_resume_state, lambda lines: resume(lines, retry=zeros_unstripped_retry))
    assert (failure.verdict.kind, failure.verdict.direction) == (Kind.WRONG_ERROR, "unexpected")
    assert failure.verdict.fixture == "case retry-thousands-of-zeros"
    assert "(5,008 characters in all)" in str(failure) and "0" * 100 not in str(failure)


def test_resume_state_names_the_rule_case_that_shows_it() -> None:
    failure = rejected(ex04.check_resume_state, lambda lines: resume(lines, commit_at_once=True))
    assert failure.verdict.fixture == "case id-at-dispatch"
    assert "Last-Event-ID should be '3', yours is '4'" in str(failure)


@pytest.mark.parametrize("package_code", [split_field, lambda lines: None])
def test_resume_state_rejects_the_package_field_rules(package_code: Any) -> None:
    def with_split_field(lines: list[str]) -> tuple[str, int | None]:
        return resume(lines, split=split_field)

    def with_assembler(lines: list[str]) -> tuple[str, int | None]:
        assembler = EventAssembler()
        assembler.feed(lines)
        return assembler.last_event_id, assembler.retry

    answer = with_split_field if package_code is split_field else with_assembler
    assert verdict_of(ex04.check_resume_state, answer) == (Kind.NOT_YOURS, "calls")


# --- exercise 05, part 1: any chain of stages ------------------------------------------


class Pipeline:
    """The solution's composition, written as two folds (without its refusal of no stage)."""

    def __init__(self, *stages: Any) -> None:
        self.stages = list(stages)

    def feed(self, value: Any) -> Any:
        return functools.reduce(lambda fed, stage: stage.feed(fed), self.stages, value)

    def close(self) -> Any:
        return functools.reduce(
            lambda ended, stage: stage.feed(ended) + stage.close(), self.stages[1:], self.stages[0].close()
        )


class ThreeStages(Pipeline):
    def __init__(self, first: Any, second: Any, third: Any) -> None:
        super().__init__(first, second, third)


class LastStageSkipped(Pipeline):
    def feed(self, value: Any) -> Any:
        return functools.reduce(lambda fed, stage: stage.feed(fed), self.stages[:-1], value)


class ClosedLastToFirst(Pipeline):
    def close(self) -> Any:
        ends = [stage.close() for stage in reversed(self.stages)][::-1]
        ended = ends[0]
        for later, end in zip(self.stages[1:], ends[1:], strict=False):
            ended = later.feed(ended) + end
        return ended


class EndsThrownAway(Pipeline):
    def close(self) -> Any:
        out: Any = []
        for stage in self.stages:
            out = stage.close()
        return out


class LastFeedDropped(Pipeline):
    def close(self) -> Any:
        ended = self.stages[0].close()
        for later in self.stages[1:-1]:
            ended = later.feed(ended) + later.close()
        self.stages[-1].feed(ended)
        return self.stages[-1].close()


class EndsPushedOneStage(Pipeline):
    """Pushes each stage's end through the next stage only: what that gives is kept only from the last stage."""

    def close(self) -> Any:
        out: list = []
        for stage, after in zip(self.stages, self.stages[1:], strict=False):
            pushed = after.feed(stage.close())
            out += pushed if after is self.stages[-1] else []
        return out + self.stages[-1].close()


class PairwiseClose(Pipeline):
    """Closes stage by stage in pairs, each end pushed through the next: right for two stages
    or more, nothing at all for one."""

    def close(self) -> Any:
        ended = None
        for stage, later in zip(self.stages, self.stages[1:], strict=False):
            ended = later.feed(stage.close() if ended is None else ended) + later.close()
        return ended


#: (check, the solution, the rules the task states, [(mutant, rule, kind, direction)]).
STREAM_TASKS = {
    "json-lines": (
        ex01.check_json_lines,
        JsonLines,
        ex01.JSON_LINES.rules,
        [
            (FirstValueOnly, "several", Kind.MISSING, "never"),
            (OneFeedLate, "at-once", Kind.MISSING, "late"),
            (PartialDropped, "kept", Kind.WRONG_ERROR, "unexpected"),
            (DecodesEachChunk, "bytes-kept", Kind.WRONG_ERROR, "unexpected"),
            (BlankParsed, "blank", Kind.WRONG_ERROR, "unexpected"),
            (SplitLines, "lf-only", Kind.WRONG_ERROR, "unexpected"),
            (LastLineLost, "last-line", Kind.MISSING, "never"),
            (BlankTailParsed, "blank-tail", Kind.WRONG_ERROR, "unexpected"),
        ],
    ),
    "pipeline": (
        ex05.check_pipeline,
        Pipeline,
        ex05.PIPELINE_RULES,
        [
            (LastStageSkipped, "feed-through", Kind.WRONG_VALUE, ""),
            (ClosedLastToFirst, "close-in-order", Kind.MISSING, "never"),
            (EndsThrownAway, "ends-pushed-on", Kind.MISSING, "never"),
            (EndsPushedOneStage, "ends-pushed-on", Kind.MISSING, "never"),
            (LastFeedDropped, "close-returns-all", Kind.MISSING, "never"),
            (ThreeStages, "any-length", Kind.WRONG_ERROR, "unexpected"),
            (PairwiseClose, "any-length", Kind.WRONG_VALUE, ""),
        ],
    ),
}


@pytest.mark.parametrize("task", STREAM_TASKS)
def test_stream_task_solution_passes_and_every_rule_has_a_mutant(task: str, capsys: pytest.CaptureFixture[str]) -> None:
    check, solution, stated, mutants = STREAM_TASKS[task]
    check(solution)
    assert capsys.readouterr().out.startswith("Correct: ")
    assert {rule for _m, rule, _k, _d in mutants} == {rule.name for rule in stated}


@pytest.mark.parametrize(
    "task, mutant, kind, direction",
    [
        (task, mutant, kind, direction)
        for task, (_c, _s, _r, mutants) in STREAM_TASKS.items()
        for mutant, _rule, kind, direction in mutants
    ],
    ids=lambda value: getattr(value, "__name__", str(value)),
)
def test_stream_task_rejects_each_rule_broken(task: str, mutant: type, kind: Kind, direction: str) -> None:
    assert verdict_of(STREAM_TASKS[task][0], mutant) == (kind, direction)


def test_pipeline_that_drops_the_end_fails_where_the_end_matters() -> None:
    """The browser profile's SSE layers cannot show a thrown-away end; the chains can."""
    failure = rejected(ex05.check_pipeline, EndsThrownAway)
    assert failure.verdict.fixture.startswith(tuple(ex05.CHAINS))


def test_the_reference_pipeline_refuses_to_chain_nothing() -> None:
    """With no stage there is nothing to chain, and no close() to start from: a clear error at once."""
    with pytest.raises(ValueError, match="at least one stage"):
        ex05.Pipeline()


class WrapsTheParser:
    def __init__(self, *stages: Any) -> None:
        self.parser = LayeredSSEParser(decoder=stages[0], splitter=stages[1], assembler=stages[2])

    def feed(self, chunk: bytes) -> Any:
        return self.parser.feed(chunk)

    def close(self) -> Any:
        return self.parser.close()


class SubclassesTheParser(LayeredSSEParser):
    def __init__(self, *stages: Any) -> None:
        super().__init__(decoder=stages[0], splitter=stages[1], assembler=stages[2])


@pytest.mark.parametrize("answer, direction", [(WrapsTheParser, "calls"), (SubclassesTheParser, "subclass")])
def test_pipeline_rejects_the_package_parser(answer: type, direction: str) -> None:
    assert verdict_of(ex05.check_pipeline, answer) == (Kind.NOT_YOURS, direction)


# --- exercise 07: a gap in the evidence ---------------------------------------------------


class LowercaseType(EventAssembler):
    def feed_line(self, line: str) -> Any:
        return super().feed_line(line.lower() if line.startswith("event:") else line)


def fixture(input_: str, events: list[dict]) -> Callable[[], dict]:
    return lambda: {"about": "a case", "input": input_, "expect": {"events": events}}


GOOD = fixture("event: Update\ndata: x\n\n", [{"type": "Update", "data": "x"}])


class StripsType(EventAssembler):
    def dispatch(self) -> Any:
        self.event_type = self.event_type.strip()
        return super().dispatch()


class StripsId(EventAssembler):
    def feed_line(self, line: str) -> Any:
        event = super().feed_line(line)
        self.id_buffer = self.id_buffer.strip()
        return event


def test_own_mistake_solution_passes(capsys: pytest.CaptureFixture[str]) -> None:
    ex07.check_own_mistake(LowercaseType, GOOD)
    assert capsys.readouterr().out.startswith("Correct: your answer")


@pytest.mark.parametrize(
    "mistake, spec, kind, direction",
    [
        (
            LowercaseType,
            fixture("event: Update\ndata: x\n\n", [{"type": "update", "data": "x"}]),
            Kind.WRONG_VALUE,
            "",
        ),  # fixture wrong
        (
            LowercaseType,
            fixture("event: add\ndata: x\n\n", [{"type": "add", "data": "x"}]),
            Kind.MISSING,
            "never",
        ),  # misses the mistake
        (ZOO["event-type-stripped"].part, GOOD, Kind.NOT_YOURS, "subclass"),  # the zoo's own class
        (
            StripsType,
            fixture("event:  add \ndata: x\n\n", [{"type": " add ", "data": "x"}]),
            Kind.NOT_YOURS,
            "",
        ),  # the zoo's mistake retyped
        (
            StripsId,
            fixture("id:  7 \ndata: x\n\n", [{"data": "x", "last_event_id": " 7 "}]),
            Kind.WRONG_VALUE,
            "",
        ),  # a shipped fixture catches it
        (dict, GOOD, Kind.WRONG_VALUE, ""),  # not a layer
    ],
)
def test_own_mistake_rejects(mistake: type, spec: Callable[[], dict], kind: Kind, direction: str) -> None:
    assert verdict_of(ex07.check_own_mistake, mistake, spec) == (kind, direction)


# --- exercise 08: an answer read from a real stream -----------------------------------------


def read_answer(
    client: httpx.Client,
    url: str,
    iterate: str = "sse",
    profile: str = "strict",
    keep: bool = True,
    types: tuple = ("message",),
    cut_body: tuple[type[Exception], ...] = (httpx.RemoteProtocolError,),
) -> tuple[str, bool]:
    """The solution, with one switch per rule to break it."""
    texts, whole = [], True
    with client.stream("GET", url, headers=sse_headers()) as response:
        events = iter_sse(response, profile=profile) if iterate == "sse" else raw_events(response, profile)
        try:
            for event in events:
                if event.type in types:
                    texts.append(event.data)
        except IncompleteStream:
            whole = False
            texts = texts if keep else []
        except cut_body:
            whole = False
    return "".join(texts), whole


def raw_events(response: httpx.Response, profile: str) -> Any:
    parser = SSEParser(profile)
    for chunk in response.iter_raw():
        yield from parser.feed(chunk)
    yield from parser.close()


def parser_per_chunk(client: httpx.Client, url: str) -> tuple[str, bool]:
    texts, whole = [], True
    with client.stream("GET", url) as response:
        for chunk in response.iter_bytes():
            parser = SSEParser("browser")
            texts += [event.data for event in parser.feed(chunk) + parser.close() if event.type == "message"]
    return "".join(texts), whole


def own_client(client: httpx.Client, url: str) -> tuple[str, bool]:
    """Ignores the client it is given and GETs the url with one of its own."""
    with httpx.Client() as own, own.stream("GET", url, headers=sse_headers()) as response:
        return "".join(event.data for event in iter_sse(response) if event.type == "message"), True


def test_read_answer_solution_passes(capsys: pytest.CaptureFixture[str]) -> None:
    ex08.check_read_answer(read_answer)
    assert capsys.readouterr().out.startswith("Correct: your read_answer")


def test_read_answer_is_checked_as_in_the_browser(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No thread starts and no socket connects (Pyodide's limits): the solution passes, and a reader
    that opens a connection of its own, which finds no server, is told to use the client it is given."""
    import socket
    import threading

    def refused(*args: object, **kwargs: object) -> None:
        raise RuntimeError("no threads and no sockets here")

    def unknown_name(*args: object, **kwargs: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(threading.Thread, "start", refused)
    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(socket, "getaddrinfo", unknown_name)
    ex08.check_read_answer(read_answer)
    assert capsys.readouterr().out.startswith("Correct: your read_answer")
    failure = rejected(ex08.check_read_answer, own_client)
    assert (failure.verdict.kind, failure.verdict.direction) == (Kind.WRONG_ERROR, "unexpected")
    assert "ConnectError" in failure.verdict.headline and "the client you are given" in failure.verdict.headline


@pytest.mark.parametrize(
    "mutant, kind, direction, says",
    [
        (lambda c, u: read_answer(c, u, iterate="raw"), Kind.WRONG_ERROR, "unexpected", "iter_bytes()"),
        (lambda c, u: read_answer(c, u, profile="browser"), Kind.MISSING_ERROR, "none raised", "IncompleteStream"),
        (lambda c, u: read_answer(c, u, cut_body=()), Kind.WRONG_ERROR, "unexpected", "RemoteProtocolError"),
        (lambda c, u: read_answer(c, u, keep=False), Kind.MISSING, "never", "arrived in whole events"),
        (lambda c, u: read_answer(c, u, types=("message", "ping")), Kind.EXTRA, "more", "more than the message events"),
        (parser_per_chunk, Kind.MISSING_ERROR, "none raised", "IncompleteStream"),
    ],
)
def test_read_answer_rejects_each_rule_broken(
    mutant: Callable[..., Any], kind: Kind, direction: str, says: str
) -> None:
    failure = rejected(ex08.check_read_answer, mutant)
    assert (failure.verdict.kind, failure.verdict.direction) == (kind, direction)
    assert says in failure.verdict.headline


def test_pipeline_rejects_the_checks_own_reference() -> None:
    assert verdict_of(ex05.check_pipeline, type("Sub", (ex05.Pipeline,), {})) == (Kind.NOT_YOURS, "subclass")


class MagicLine(EventAssembler):
    """Drops one event whose data is an exact, made-up value: no rule of the standard is broken."""

    def feed_line(self, line: str) -> Any:
        return super().feed_line(": dropped" if line == "data: magic-9f2" else line)


def magic_fixture() -> dict:
    return {"about": "this exact data", "input": "data: magic-9f2\n\n", "expect": {"events": [{"data": "magic-9f2"}]}}


def test_own_mistake_rejects_a_mistake_that_only_one_exact_input_shows() -> None:
    failure = rejected(ex07.check_own_mistake, MagicLine, magic_fixture)
    assert (failure.verdict.kind, failure.verdict.direction) == (Kind.WRONG_VALUE, "")
    assert "only on this exact input" in failure.verdict.headline
