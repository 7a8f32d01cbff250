"""Growth checks: where a task implies linear time, the check times one long line in small reads at
n and 4n bytes and refuses work that grows faster (TOO SLOW). Each right answer passes; a version
that is right but quadratic (it copies or searches everything held on every read) is refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import learner_code
import pytest

from sse_course import IncompleteStream
from sse_course.classroom.checking import CheckFailed, Kind
from sse_course.classroom.exercises import ex01_chunks_are_not_events as ex01
from sse_course.classroom.exercises import ex03_text_to_lines as ex03
from sse_course.classroom.exercises import ex05_limits_and_failures as ex05
from sse_course.classroom.exercises import ex09_performance as ex09
from sse_course.errors import LineTooLong
from sse_course.lines import LineSplitter


class JsonLinesFromTheEnd(learner_code.JsonLines):
    """Right, but searches everything held for its last LF on every read."""

    def feed(self, chunk: bytes) -> list[Any]:
        self.held += chunk
        last_lf = self.held.rfind(b"\n")
        if last_lf < 0:
            return []
        complete, self.held = self.held[:last_lf], self.held[last_lf + 1 :]
        return [json.loads(line) for line in complete.split(b"\n") if line.strip()]


class ByteLinesJoined:
    """Right, but joins what it holds with each chunk (bytes + bytes) and searches it all again."""

    def __init__(self, strict: bool = True) -> None:
        self.strict, self.held, self.after_cr = strict, b"", False

    def feed(self, chunk: bytes) -> list[bytes]:
        if chunk and self.after_cr:
            self.after_cr, chunk = False, chunk.removeprefix(b"\n")
        self.held += chunk
        lines = []
        while (end := learner_code.line_end(self.held)) >= 0:
            lines.append(self.held[:end])
            crlf = self.held[end : end + 2] == b"\r\n"
            self.after_cr = not crlf and self.held[end:] == b"\r"
            self.held = self.held[end + (2 if crlf else 1) :]
        return lines

    def close(self) -> list[bytes]:
        if self.held and self.strict:
            raise IncompleteStream("the stream ended inside a line")
        return []


class LimitRecounted:
    """Right, but keeps the unfinished line's text and counts it all again on every feed."""

    def __init__(self, max_line_chars: int, strict: bool = True) -> None:
        self.max_line_chars = max_line_chars
        self.splitter = LineSplitter(strict=strict)
        self.partial = ""

    def feed(self, text: str) -> list[str]:
        pieces = learner_code.LINE_END_CHAR.split(self.partial + text)
        for i, piece in enumerate(pieces):
            if len(piece) > self.max_line_chars:
                start = sum(map(len, pieces[:i])) + i - len(self.partial)
                raise LineTooLong(self.max_line_chars, self.splitter.feed(text[: max(start, 0)]))
        self.partial = pieces[-1]
        return self.splitter.feed(text)

    def close(self) -> list[str]:
        return self.splitter.close()


def cut_searching_from(cutter: learner_code.BlockCutter, searched: int) -> list[bytes]:
    """The blocks ``cutter.held`` completes, its lines found by ``line_end`` from ``searched`` on:
    two fresh searches for every line, the step both slow cutters below share."""
    blocks = []
    while (end := learner_code.line_end(cutter.held, searched)) >= 0:
        after = end + 2 if cutter.held[end : end + 2] == b"\r\n" else end + 1
        if end == cutter.line:
            blocks.append(bytes(cutter.held[:after]))
            del cutter.held[:after]
            after = 0
        cutter.line = searched = after
    return blocks


class CutterRescans(learner_code.BlockCutter):
    """Right, but searches for line ends from the start of the unfinished line on every read."""

    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            return []
        if self.after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
            if self.held:
                self.held += b"\n"
                self.line = len(self.held)
        self.after_cr = chunk.endswith(b"\r")
        self.held += chunk
        return cut_searching_from(self, self.line)  # the whole unfinished line, searched again


class ByteLinesResearching(learner_code.ByteLines):
    """Right, but searches for the next CR and the next LF afresh for every line: where a read holds many
    lines and no CR, each line's CR search reads the rest of the read again."""

    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            return []
        pos = 1 if self.after_cr and chunk[0] == learner_code.LF else 0
        self.after_cr = chunk[-1] == learner_code.CR
        lines = []
        while (end := learner_code.line_end(chunk, pos)) >= 0:
            lines.append(b"".join([*self.pieces, chunk[pos:end]]))
            self.pieces = []
            pos = end + (2 if chunk.startswith(b"\r\n", end) else 1)
        if pos < len(chunk):
            self.pieces.append(chunk[pos:])
        return lines


class CutterResearching(learner_code.BlockCutter):
    """Right, but calls ``line_end`` (two fresh searches) for every line, as the course's own cutter once did."""

    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            return []
        searched = len(self.held)
        if self.after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
            if self.held:
                self.held += b"\n"
                searched = self.line = len(self.held)
        self.after_cr = chunk.endswith(b"\r")
        self.held += chunk
        return cut_searching_from(self, searched)


#: part -> (its growth step, the right answer, a right but quadratic answer, its check)
PARTS: dict[str, tuple[Callable[[Any], str], Any, Any, Callable[..., None]]] = {
    "01-json-lines": (ex01.json_lines_growth, learner_code.JsonLines, JsonLinesFromTheEnd, ex01.check_json_lines),
    "03-byte-lines": (ex03.byte_lines_growth, learner_code.ByteLines, ByteLinesJoined, ex03.check_byte_lines),
    "05.2-line-limit": (ex05.line_limit_growth, learner_code.LineLimit, LimitRecounted, ex05.check_line_limit),
    "09-block-cutter": (
        ex09.block_cutter_growth,
        learner_code.BlockCutter,
        CutterRescans,
        ex09.check_block_cutter,
    ),
}


@pytest.mark.parametrize("part", sorted(PARTS))
def test_a_right_but_quadratic_answer_is_too_slow(part: str) -> None:
    growth, _right, quadratic, _check = PARTS[part]
    with pytest.raises(CheckFailed) as caught:
        growth(quadratic)
    verdict = caught.value.verdict
    assert (verdict.kind, verdict.direction) == (Kind.TOO_SLOW, "grows"), str(caught.value)
    assert "4 times the input takes" in verdict.headline


#: part -> (its growth step, an answer right but quadratic where one read holds many lines)
MANY_LINES = {
    "03-byte-lines": (ex03.byte_lines_growth, ByteLinesResearching),
    "09-block-cutter": (ex09.block_cutter_growth, CutterResearching),
}


def rejection(growth: Callable[[Any], str], answer: Any, tries: int = 3) -> CheckFailed:
    """The growth check's rejection of ``answer``, asked up to ``tries`` times: it is a timing, and
    for many lines in one read the wrong answer grows 10 to 15 times against a limit of 8, so a
    burst of noise on a shared machine can hide it once. A check that never rejects still fails."""
    for _ in range(tries):
        try:
            growth(answer)
        except CheckFailed as failed:
            return failed
    pytest.fail(f"the growth check accepted {answer.__name__} {tries} times in a row")


@pytest.mark.parametrize("part", sorted(MANY_LINES))
def test_searching_the_rest_of_a_read_again_for_every_line_is_too_slow(part: str) -> None:
    growth, researching = MANY_LINES[part]
    caught = rejection(growth, researching)
    verdict = caught.verdict
    assert (verdict.kind, verdict.direction) == (Kind.TOO_SLOW, "grows"), str(caught)
    assert "many times in one read" in str(caught)
    assert replace(DECLARED[part], fixtures=lambda: DECLARED[part].fixtures()[:FIRST_FIXTURES]).verify(researching)


@pytest.mark.parametrize("part", sorted(PARTS))
def test_a_right_linear_answer_grows_linearly(part: str) -> None:
    growth, right, _quadratic, _check = PARTS[part]
    assert growth(right).startswith("and its work grows linearly")


@pytest.mark.parametrize("part", sorted(PARTS))
def test_the_quadratic_answers_are_right_but_for_growth(part: str) -> None:
    """Each quadratic answer is right on its check's first inputs (those that separate its rules),
    so growth alone refuses it."""
    _growth, _right, quadratic, _check = PARTS[part]
    declared = DECLARED[part]
    assert replace(declared, fixtures=lambda: declared.fixtures()[:FIRST_FIXTURES]).verify(quadratic)


DECLARED = {
    "01-json-lines": ex01.JSON_LINES,
    "03-byte-lines": ex03.BYTE_LINES,
    "05.2-line-limit": ex05.LINE_LIMIT,
    "09-block-cutter": ex09.BLOCK_CUTTER,
}
FIRST_FIXTURES = 12
