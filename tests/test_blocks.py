"""Exercise 09's block cutter: the reference follows the agreed task, the solution
passes the check, and the check rejects each way of getting the task wrong with
the direction right, and rejects a cutter that is not the learner's own."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from mutants import CutterCrWaits, Holder, OnlyLfLf, WrapsTheCoursesCutter

from sse_course.classroom.blocks import BlockCutter
from sse_course.classroom.checking import CheckFailed, Kind
from sse_course.classroom.exercises import check_block_cutter
from sse_course.classroom.exercises import ex09_performance as ex09
from sse_course.classroom.fixtures import load_fixtures
from sse_course.classroom.harness import STRATEGIES, chunks_of, partitions
from sse_course.classroom.render import render_blocks
from sse_course.classroom.widgets import split_explorer
from sse_course.lines import LineSplitter

ROOT = Path(__file__).resolve().parent.parent

#: The task's examples: chunks -> what each feed returns, then close().
EXAMPLES = [
    ([b"data: a\n\ndata: b\n"], [[b"data: a\n\n"]], b"data: b\n"),
    ([b"data: a\r", b"\r", b"", b"\ndata: b\r\n\r\n"], [[], [b"data: a\r\r"], [], [b"data: b\r\n\r\n"]], b""),
    ([b"\n\n"], [[b"\n", b"\n"]], b""),
    ([b"data: a\r\n", b"\r", b"\n"], [[], [b"data: a\r\n\r"], []], b""),
]


def feeds(cutter: Any, chunks: list[bytes]) -> tuple[list[list[bytes]], bytes]:
    return [cutter.feed(chunk) for chunk in chunks], cutter.close()


@pytest.mark.parametrize("chunks, expected, tail", EXAMPLES)
def test_the_reference_gives_the_tasks_examples(chunks: list[bytes], expected: list, tail: bytes) -> None:
    assert feeds(BlockCutter(), chunks) == (expected, tail)


def without_some_crlf_lfs(raw: bytes, kept: bytes) -> bool:
    """Is ``kept`` ``raw`` with some LFs left out, each one right after a CR?"""
    reached = {0}  # how much of ``kept`` the bytes of ``raw`` so far can account for
    for position, byte in enumerate(raw):
        droppable = byte == 10 and position > 0 and raw[position - 1] == 13
        reached = {j + 1 for j in reached if j < len(kept) and kept[j] == byte} | (reached if droppable else set())
    return len(kept) in reached


def test_the_reference_keeps_every_byte_but_the_lfs_it_may_drop() -> None:
    """In one chunk nothing is dropped; under any split, only LFs right after a CR are."""
    assert not without_some_crlf_lfs(b"a\nb", b"ab") and without_some_crlf_lfs(b"a\r\nb", b"a\rb")
    for fixture in load_fixtures():
        for cuts in partitions(fixture.raw, ("whole", "single", "one_byte") if b"\r" in fixture.raw else ("whole",)):
            out, tail = feeds(BlockCutter(), chunks_of(fixture.raw, cuts))
            kept = b"".join(block for feed in out for block in feed) + tail
            assert kept == fixture.raw if not cuts else without_some_crlf_lfs(fixture.raw, kept), (fixture.id, cuts)


def solution_source() -> str:
    """The solution notebook's cells that define ``line_ends`` and ``BlockCutter``."""
    cells = json.loads((ROOT / "solutions" / "09-performance.ipynb").read_text(encoding="utf-8"))["cells"]
    sources = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    return "\n\n".join(source for source in sources if "def line_end" in source or "class BlockCutter" in source)


SOLUTION_SOURCE = solution_source()


def solution_with(old: str = "", new: str = "") -> type:
    """The solution's BlockCutter, with one piece of its source replaced (a mutant)."""
    assert old in SOLUTION_SOURCE, f"the solution no longer holds {old!r}"
    namespace: dict[str, Any] = {"__name__": "solution09"}
    exec(SOLUTION_SOURCE.replace(old, new, 1), namespace)
    return namespace["BlockCutter"]


Solution = solution_with()


@pytest.mark.parametrize("chunks, expected, tail", EXAMPLES)
def test_the_solution_gives_the_tasks_examples(chunks: list[bytes], expected: list, tail: bytes) -> None:
    assert feeds(Solution(), chunks) == (expected, tail)


def test_a_stub_is_not_attempted(capsys: pytest.CaptureFixture[str]) -> None:
    stub = solution_with(
        "        self.held = bytearray()", "        raise NotImplementedError\n        self.held = bytearray()"
    )
    check_block_cutter(stub)
    assert capsys.readouterr().out.startswith("Not attempted yet: your block cutter still raises NotImplementedError")


# --- the mutants: each rule the task states, broken once ----------------------


class DecodesBlocks(Solution):  # type: ignore[misc, valid-type]
    """Decodes each block to look at it: invalid UTF-8 raises."""

    def feed(self, chunk: bytes) -> list[bytes]:
        return [block.decode("utf-8").encode("utf-8") for block in super().feed(chunk)]


class LosesTail(Solution):  # type: ignore[misc, valid-type]
    """close() forgets the bytes after the last block."""

    def close(self) -> bytes:
        super().close()
        return b""


#: Each mutant, and the kind and direction of the check's verdict on it.
MUTANTS = {
    "waits-for-the-next-chunk-after-a-cr": (CutterCrWaits, (Kind.MISSING, "late")),
    "forgets-the-dropped-lf-across-chunks": (
        solution_with("if self.after_cr and chunk.startswith(LF):", "if False:"),
        (Kind.EXTRA, "more"),
    ),
    "forgets-the-dropped-lf-across-empty-chunks": (
        solution_with(
            "        if not chunk:\n            return []",
            "        if not chunk:\n            self.after_cr = False\n            return []",
        ),
        (Kind.EXTRA, "more"),
    ),
    "finds-only-lf-lf": (OnlyLfLf, (Kind.MISSING, "never")),
    "drops-the-lf-of-a-crlf-inside-a-block": (
        solution_with("                self.held += LF\n", ""),
        (Kind.WRONG_VALUE, ""),
    ),
    "duplicates-a-block-it-gave": (
        solution_with("                first = after\n", ""),
        (Kind.WRONG_VALUE, ""),
    ),
    "decodes": (DecodesBlocks, (Kind.WRONG_ERROR, "unexpected")),
    "close-loses-the-tail": (LosesTail, (Kind.WRONG_VALUE, "")),
}


@pytest.mark.parametrize("name", MUTANTS)
def test_the_check_rejects_each_mutant_with_the_direction_right(name: str) -> None:
    mutant, (kind, direction) = MUTANTS[name]
    with pytest.raises(CheckFailed) as caught:
        check_block_cutter(mutant)
    message = str(caught.value)
    assert (caught.value.verdict.kind, caught.value.verdict.direction) == (kind, direction), message
    assert message.startswith("your block cutter is wrong: " + kind.value), message
    assert "under the split" in message and "expected: " in message and "     got: " in message
    found = caught.value
    assert found.recheck(found.raw, found.cuts) is not None, "the split shown must still show the bug"


# --- not the learner's own ------------------------------------------------------


class SplitterBased(LineSplitter):
    """A subclass of the package's line splitter."""

    def feed(self, chunk: bytes) -> list[bytes]:  # type: ignore[override]
        return [line.encode("latin-1") for line in super().feed(chunk.decode("latin-1"))]


def handed(inner: Any = BlockCutter) -> Holder:
    return Holder(inner())


NOT_YOURS = {
    "subclass": (SplitterBased, "your class is a subclass of sse_course.lines.LineSplitter"),
    "wrapper": (WrapsTheCoursesCutter, "it runs sse_course.classroom.blocks.BlockCutter.__init__"),
    "object-handed-in": (handed, "it runs sse_course.classroom.blocks.BlockCutter.__init__"),
    "the-reference-itself": (BlockCutter, "your class is a subclass of sse_course.classroom.blocks.BlockCutter"),
}


@pytest.mark.parametrize("name", NOT_YOURS)
def test_the_check_rejects_a_cutter_that_is_not_the_learners(name: str) -> None:
    cutter, how = NOT_YOURS[name]
    with pytest.raises(CheckFailed, match="NOT YOURS") as caught:
        check_block_cutter(cutter)
    assert how in str(caught.value) and "bytes alone" in str(caught.value)


def test_every_rule_case_is_a_strategy_input_too() -> None:
    """The rule cases' own splits are among what the check runs, and they separate the mutants."""
    for fixture, own in ex09.rule_fixtures():
        assert chunks_of(fixture.raw, own) == ex09.RULE_CASES[fixture.name][1]
        assert fixture.checked_under == tuple(STRATEGIES)


# --- lesson 09's explorer -------------------------------------------------------


def test_the_block_table_shows_each_feeds_blocks_and_held_bytes() -> None:
    rows = re.findall(
        r"<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td></tr>",
        render_blocks(b"data: a\r\r\ndata: b", [8]),
    )
    assert [row[0] for row in rows] == ["chunk 1", "chunk 2", "close()"]
    assert rows[0][2] == "<i>none</i>" and html.unescape(rows[0][3]) == "<code>b'data: a\\r'</code>"
    assert (
        html.unescape(rows[1][2]) == "<code>b'data: a\\r\\r\\n'</code>"
        and html.unescape(rows[1][3]) == "<code>b'data: b'</code>"
    )
    assert html.unescape(rows[2][2]).startswith("<code>b'data: b'</code>")


def test_the_block_explorer_redraws_when_its_slider_moves() -> None:
    raw = b"data: a\r\r\ndata: b\n\n"
    explorer = split_explorer(raw, [8], render=render_blocks)
    before = explorer.view.value
    explorer.sliders[0].value = 9
    assert explorer.view.value != before and explorer.view.value == render_blocks(raw, [9])
