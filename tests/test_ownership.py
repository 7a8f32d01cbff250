"""Checks that know who wrote the code: where a task says "write X", code that reaches the
package's X (a subclass, a wrapper holding it, a call into it) is rejected as NOT YOURS, with
the task's words; and a part is checked with the reference for the other parts."""

from __future__ import annotations

import codecs
import encodings.utf_8
import json
from collections.abc import Callable
from typing import Any

import httpx
import learner_code
import pytest
from mutants import WrapsTheCoursesCutter, handed_a_cutter

from sse_course.classroom import blocks, resume
from sse_course.classroom.checking import CheckFailed, Kind
from sse_course.classroom.checking.declare import reference_parts
from sse_course.classroom.exercises import ex01_chunks_are_not_events as ex01
from sse_course.classroom.exercises import ex02_bytes_to_text as ex02
from sse_course.classroom.exercises import ex03_text_to_lines as ex03
from sse_course.classroom.exercises import ex04_lines_to_events as ex04
from sse_course.classroom.exercises import ex05_limits_and_failures as ex05
from sse_course.classroom.exercises import ex06_payloads as ex06
from sse_course.classroom.exercises import ex08_real_streams as ex08
from sse_course.classroom.exercises import ex09_performance as ex09
from sse_course.classroom.exercises import ex10_reconnect_and_resume as ex10
from sse_course.decoding import Utf8Decoder
from sse_course.errors import LineTooLong
from sse_course.lines import LineSplitter
from sse_course.payloads import JSONPayloads


class WrapsUtf8Decoder:
    def __init__(self, errors: str = "strict") -> None:
        self.inner = Utf8Decoder(errors)

    def feed(self, chunk: bytes) -> str:
        return self.inner.feed(chunk)

    def close(self) -> str:
        return self.inner.close()


class SubclassesUtf8Decoder(Utf8Decoder):
    pass


class WrapsCodecs:
    def __init__(self, errors: str = "strict") -> None:
        self.errors = errors
        self.inner: Any = None

    def feed(self, chunk: bytes) -> str:
        self.inner = self.inner or codecs.getincrementaldecoder("utf-8")(self.errors)
        return self.inner.decode(chunk)

    def close(self) -> str:
        return (self.inner or codecs.getincrementaldecoder("utf-8")(self.errors)).decode(b"", True)


class SubclassesCodecs(encodings.utf_8.IncrementalDecoder):
    def feed(self, chunk: bytes) -> str:
        return self.decode(chunk)

    def close(self) -> str:
        return self.decode(b"", True)


class CallsUtf8Decoder(learner_code.Decoder):
    """Holds nothing of the package's: a fresh Utf8Decoder decodes each whole buffer."""

    def decode(self, chunk: bytes, final: bool) -> str:
        super().decode(b"", final=False)
        return Utf8Decoder(self.errors).feed(chunk) if chunk else ""


class WrapsLineSplitter:
    """The package's splitter on bytes read as Latin-1: a wrapper."""

    def __init__(self, strict: bool = True) -> None:
        self.inner = LineSplitter(strict=strict)

    def feed(self, chunk: bytes) -> list[bytes]:
        return [line.encode("latin-1") for line in self.inner.feed(chunk.decode("latin-1"))]

    def close(self) -> list[bytes]:
        return [line.encode("latin-1") for line in self.inner.close()]


class HoldsTheCoursesByteLines:
    """The check's own reference, held and delegated to."""

    def __init__(self, strict: bool = True) -> None:
        self.inner = ex03.LatinLines(strict)

    def feed(self, chunk: bytes) -> list[bytes]:
        return self.inner.feed(chunk)

    def close(self) -> list[bytes]:
        return self.inner.close()


class SubclassesLineSplitter(LineSplitter):
    def feed(self, chunk: bytes) -> list[bytes]:  # type: ignore[override]
        return [line.encode("latin-1") for line in super().feed(chunk.decode("latin-1"))]


class DelegatesTheLimit:
    """``LineSplitter(max_line_chars)`` with plain delegation: the package's limit, not one written."""

    def __init__(self, max_line_chars: int, strict: bool = True) -> None:
        self.splitter = LineSplitter(max_line_chars, strict)

    def feed(self, text: str) -> list[str]:
        return self.splitter.feed(text)

    def close(self) -> list[str]:
        return self.splitter.close()


class SubclassesTheSplitter(LineSplitter):
    pass


class ReraisesTheLimit:
    """Holds ``LineSplitter(max_line_chars)`` and raises its LineTooLong again as a new one."""

    def __init__(self, max_line_chars: int, strict: bool = True) -> None:
        self.max_line_chars = max_line_chars
        self.splitter = LineSplitter(max_line_chars, strict)

    def feed(self, text: str) -> list[str]:
        try:
            return self.splitter.feed(text)
        except LineTooLong as err:
            raise LineTooLong(self.max_line_chars, err.completed) from None

    def close(self) -> list[str]:
        return self.splitter.close()


class DecoderOnTheCoursesSafeCut(learner_code.Decoder):
    """Exercise 02's decoder, asking the check's own safe_cut where each read may be cut."""

    def decode(self, chunk: bytes, final: bool) -> str:
        buffer = self.held + chunk
        if not final and ex02.whole_characters(buffer) == len(buffer):
            self.held, chunk = b"", buffer
        return super().decode(chunk, final)


def safe_cut_by_the_course(buffer: bytes) -> int:
    return ex02.whole_characters(buffer)


def safe_cut_by_decoding(buffer: bytes) -> int:
    """Lets an incremental decoder find the cut: what it holds back is what a read must keep."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    decoder.decode(buffer)
    return len(buffer) - len(decoder.getstate()[0])


class JsonLinesOnTheCoursesStages:
    """Exercise 01 put together from the course's own stages and the package's decoder."""

    def __init__(self) -> None:
        self.pipeline = ex05.Pipeline(Utf8Decoder("replace"), ex05.TailLines(), ex05.JsonValues())

    def feed(self, chunk: bytes) -> list[Any]:
        return self.pipeline.feed(chunk)

    def close(self) -> list[Any]:
        return self.pipeline.close()


class JsonLinesOnTheDecoder:
    """Exercise 01 on the package's decoder: splits the decoded text itself."""

    def __init__(self) -> None:
        self.decoder, self.rest = Utf8Decoder("replace"), ""

    def feed(self, chunk: bytes) -> list[Any]:
        *lines, self.rest = (self.rest + self.decoder.feed(chunk)).split("\n")
        return [json.loads(line) for line in lines if line.strip()]

    def close(self) -> list[Any]:
        tail = self.rest + self.decoder.close()
        return [json.loads(tail)] if tail.strip() else []


def resume_state_by_the_course(lines: list[str]) -> tuple[str, int | None]:
    return ex04.resume_state(lines)


def encode_by_starlette(data: str, event: str | None = None, id: str | None = None, retry: int | None = None) -> bytes:
    from sse_starlette import ServerSentEvent

    return ServerSentEvent(data=data, event=event, id=id, retry=retry).encode()


class PipelineHoldsTheCourses:
    def __init__(self, *stages: Any) -> None:
        self.inner = ex05.Pipeline(*stages)

    def feed(self, value: Any) -> list[Any]:
        return self.inner.feed(value)

    def close(self) -> list[Any]:
        return self.inner.close()


class SubclassesTheNamedEventsReference(ex06.NamedEventsReference):
    pass


class HoldsTheNamedEventsReference:
    def __init__(self) -> None:
        self.inner = ex06.NamedEventsReference()

    def feed(self, events: list[Any]) -> list[str]:
        return self.inner.feed(events)

    def close(self) -> list[str]:
        return self.inner.close()


class NamedEventsOnJsonPayloads:
    """The package's JSON adapter does the parsing; errors are renamed."""

    def __init__(self) -> None:
        self.inner = JSONPayloads(event_types=("delta",), required_keys=("text",), end_marker=None)

    def feed(self, events: list[Any]) -> list[str]:
        return [payload["text"] for payload in self.inner.feed(events)]

    def close(self) -> list[str]:
        return self.inner.close()


def answer_by_the_course(client: httpx.Client, url: str) -> tuple[str, bool]:
    return ex08.answer_of(client.get(url).content)


def follow_replays_the_plan(connect: Any, sleep: Callable[[float], None]) -> list[Any]:
    """Replays the check's own run, which it reads off the server's drop point."""
    plan = resume.planned_run(connect.drop_at, connect.blocks, connect.heartbeat)
    for connection in plan:
        connect(connection.sent)
        if connection.wait_ms is not None:
            sleep(connection.wait_ms / 1000)
    return ex10.planned_events(plan)


class CutterOnTheSplitter(LineSplitter):
    """A block cutter built on the package's line splitter (bytes read as Latin-1)."""

    def feed(self, chunk: bytes) -> list[bytes]:  # type: ignore[override]
        return [line.encode("latin-1") for line in super().feed(chunk.decode("latin-1"))]


#: check -> (the code that is not the learner's, the direction NOT YOURS states, the task's words shown).
NOT_YOURS: dict[str, tuple[Callable[..., Any], str, str]] = {
    "decoder-wrapper": (ex02.check_decoder, WrapsUtf8Decoder, "calls", "no Utf8Decoder"),
    "decoder-subclass": (ex02.check_decoder, SubclassesUtf8Decoder, "subclass", "no Utf8Decoder"),
    "decoder-codecs-wrapper": (ex02.check_decoder, WrapsCodecs, "calls", "no codecs incremental decoder"),
    "decoder-codecs-subclass": (ex02.check_decoder, SubclassesCodecs, "subclass", "no codecs incremental decoder"),
    "decoder-call": (ex02.check_decoder, CallsUtf8Decoder, "calls", "no Utf8Decoder"),
    "byte-lines-wrapper": (ex03.check_byte_lines, WrapsLineSplitter, "calls", "on bytes with bytes.find"),
    "byte-lines-reference-held": (ex03.check_byte_lines, HoldsTheCoursesByteLines, "calls", "bytes.find"),
    "byte-lines-reference-subclass": (
        ex03.check_byte_lines,
        type("SubclassesTheCourses", (ex03.LatinLines,), {}),
        "subclass",
        "bytes.find",
    ),
    "byte-lines-subclass": (
        ex03.check_byte_lines,
        SubclassesLineSplitter,
        "subclass",
        "not the package's LineSplitter",
    ),
    "line-limit-wrapper": (ex05.check_line_limit, DelegatesTheLimit, "raised by", "write the limit yourself"),
    "line-limit-subclass": (ex05.check_line_limit, SubclassesTheSplitter, "subclass", "must not subclass it"),
    "line-limit-reraised": (ex05.check_line_limit, ReraisesTheLimit, "raised by", "write the limit yourself"),
    "decoder-reference-safe-cut": (ex02.check_decoder, DecoderOnTheCoursesSafeCut, "calls", "course's own safe_cut"),
    "safe-cut-reference": (ex02.check_safe_cut, ex02.whole_characters, "calls", "course's own safe_cut"),
    "safe-cut-reference-wrapped": (ex02.check_safe_cut, safe_cut_by_the_course, "calls", "course's own safe_cut"),
    "safe-cut-decoder": (ex02.check_safe_cut, safe_cut_by_decoding, "calls", "not with a decoder"),
    "json-lines-course-stages": (ex01.check_json_lines, JsonLinesOnTheCoursesStages, "calls", "course's"),
    "json-lines-package-decoder": (ex01.check_json_lines, JsonLinesOnTheDecoder, "calls", "its layers"),
    "json-lines-reference-subclass": (
        ex01.check_json_lines,
        type("SubclassesTheCourses", (ex01.JsonLines,), {}),
        "subclass",
        "course's",
    ),
    "resume-state-reference": (ex04.check_resume_state, ex04.resume_state, "calls", "course's own resume_state"),
    "resume-state-reference-wrapped": (
        ex04.check_resume_state,
        resume_state_by_the_course,
        "calls",
        "course's own resume_state",
    ),
    "encoder-library": (ex04.check_encoder, encode_by_starlette, "calls", "not a library's encoder"),
    "pipeline-reference-held": (ex05.check_pipeline, PipelineHoldsTheCourses, "calls", "the check's own Pipeline"),
    "pipeline-reference-subclass": (
        ex05.check_pipeline,
        type("SubclassesTheCourses", (ex05.Pipeline,), {}),
        "subclass",
        "the check's own Pipeline",
    ),
    "named-events-reference-subclass": (
        ex06.check_named_events,
        SubclassesTheNamedEventsReference,
        "subclass",
        "course's own reference",
    ),
    "named-events-reference-held": (
        ex06.check_named_events,
        HoldsTheNamedEventsReference,
        "calls",
        "course's own reference",
    ),
    "named-events-package-adapter": (
        ex06.check_named_events,
        NamedEventsOnJsonPayloads,
        "calls",
        "JSON payload adapter",
    ),
    "read-answer-reference": (ex08.check_read_answer, answer_by_the_course, "calls", "course's own answer_of"),
    "follow-replays-the-reference": (ex10.check_follow, follow_replays_the_plan, "calls", "planned_run"),
    "block-cutter-wrapper": (ex09.check_block_cutter, WrapsTheCoursesCutter, "calls", "bytes alone"),
    "block-cutter-subclass": (ex09.check_block_cutter, CutterOnTheSplitter, "subclass", "line splitter or parsers"),
    "block-cutter-handed-in": (ex09.check_block_cutter, handed_a_cutter, "calls", "bytes alone"),
    "block-cutter-the-reference": (ex09.check_block_cutter, blocks.BlockCutter, "subclass", "bytes alone"),
}


@pytest.mark.parametrize("case", sorted(NOT_YOURS))
def test_code_that_reaches_the_package_is_not_yours(case: str) -> None:
    check, code, direction, task = NOT_YOURS[case]
    with pytest.raises(CheckFailed) as caught:
        check(code)
    verdict = caught.value.verdict
    assert (verdict.kind, verdict.direction) == (Kind.NOT_YOURS, direction), str(caught.value)
    headline, asks = str(caught.value).splitlines()
    assert headline.startswith("your ") and " is wrong: NOT YOURS (" in headline
    assert asks.startswith("The task asks: ") and task in asks


#: Every part's check; those whose answer is a class are also refused a subclass.
PARTS = {
    ex01.check_json_lines: True,
    ex02.check_safe_cut: False,
    ex02.check_decoder: True,
    ex03.check_byte_lines: True,
    ex04.check_resume_state: False,
    ex04.check_encoder: False,
    ex05.check_pipeline: True,
    ex05.check_line_limit: True,
    ex06.check_named_events: True,
    ex08.check_read_answer: False,
    ex09.check_block_cutter: True,
    ex10.check_follow: False,
}


@pytest.mark.parametrize("check", PARTS, ids=lambda check: check.__name__)
def test_every_part_refuses_code_that_is_not_the_learners(check: Callable[..., Any]) -> None:
    """A call (wrapped or held) for every part; a subclass too where the answer is a class.
    (Exercise 07's answer subclasses a package layer by design: its check refuses the zoo's members.)"""
    directions = {direction for found, _, direction, _ in NOT_YOURS.values() if found is check}
    assert directions - {"subclass"}, check.__name__
    assert "subclass" in directions or not PARTS[check], check.__name__


def test_a_guard_may_hold_the_package_splitter_when_the_task_builds_on_it() -> None:
    """Exercise 05's guard stands in front of LineSplitter: holding one is not a reach."""
    assert ex05.LINE_LIMIT.not_yours.held(learner_code.LineLimit(10)) is None
    assert (
        ex03.BYTE_LINES.not_yours.held(WrapsLineSplitter(True))
        == "your object.inner is a sse_course.lines.LineSplitter"
    )


def wrong_safe_cut(buffer: bytes) -> int:
    return 0


def test_a_part_is_checked_with_the_reference_for_the_other_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Exercise 02's decoder calls the learner's safe_cut by name: while the decoder is
    checked, the reference stands in, so a wrong safe_cut is reported once, by its own check."""
    monkeypatch.setattr(learner_code, "safe_cut", wrong_safe_cut)
    decoder = learner_code.Decoder()
    assert decoder.feed("café".encode()) == ""  # the wrong safe_cut holds everything
    with reference_parts(learner_code.Decoder, ex02.DECODER.parts):
        assert learner_code.Decoder().feed("café".encode()) == "café"
    assert learner_code.safe_cut is wrong_safe_cut, "the learner's own part is put back"
