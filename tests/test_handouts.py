"""The handouts recommend the read call lesson 08 shows to be right.

Lesson 08 reads a gzip-compressed stream both ways: ``iter_raw()`` hands the
parser compressed bytes (a ``DecodeError`` at byte 1), ``iter_bytes()`` gets the
events; its lessons learned say to feed the parser ``iter_bytes()``. The cheat
sheet, the glossary, the README and the exercises are read passage by passage
(a Markdown paragraph, a code cell): a passage that feeds the parser
``iter_raw()`` disagrees, and so does one that names ``iter_raw()`` without
``iter_bytes()`` beside it (naming both is how the lesson contrasts them).

The cheat sheet's field table lists ``retry`` values the standard ignores; each one listed
is checked against the package's ``parse_retry`` (its ``>>>`` examples run in
tests/test_markdown.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from sse_course.events import parse_retry

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "notebooks" / "08-real-streams.ipynb"
HANDOUTS = [
    ROOT / "README.md",
    ROOT / "docs" / "cheat-sheet.md",
    ROOT / "docs" / "glossary.md",
    *sorted((ROOT / "exercises").glob("*.ipynb")),
]
RAW = re.compile(r"\ba?iter_raw\(\)")
BYTES = re.compile(r"\ba?iter_bytes\(\)")
FEEDS_RAW = re.compile(r"a?iter_events\([^()]*\.a?iter_raw\(\)|\bfor \w+ in [\w.]+\.a?iter_raw\(\)")


def paragraphs(text: str) -> list[str]:
    return [part for part in re.split(r"\n\s*\n", text) if part.strip()]


def passages(path: Path) -> Iterator[str]:
    """Markdown paragraphs, and code cells whole."""
    if path.suffix != ".ipynb":
        yield from paragraphs(path.read_text(encoding="utf-8"))
        return
    for cell in nbformat.read(path, as_version=4).cells:
        yield from paragraphs(cell.source) if cell.cell_type == "markdown" else [cell.source]


def disagreements(passage: str) -> list[str]:
    """What in one passage disagrees with lesson 08's read call."""
    shown = " ".join(passage.split())[:160]
    if FEEDS_RAW.search(passage):
        return [f"feeds the parser iter_raw(): {shown}"]
    if RAW.search(passage) and not BYTES.search(passage):
        return [f"names iter_raw() without iter_bytes(): {shown}"]
    return []


def test_lesson_08_shows_iter_raw_failing_on_gzip_and_recommends_iter_bytes() -> None:
    cells = nbformat.read(LESSON, as_version=4).cells
    gzip = next(cell for cell in cells if cell.cell_type == "code" and 'encoding="gzip"' in cell.source)
    printed = "".join(output.get("text", "") for output in gzip.outputs)
    assert "fetch (iter_raw):  invalid UTF-8 at byte 1" in printed
    assert "iter_sse (iter_bytes): ['" in printed
    learned = next(cell.source for cell in cells if cell.source.startswith("## Lessons learned"))
    assert "Feed the parser `response.iter_bytes()`" in learned


@pytest.mark.parametrize("path", HANDOUTS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_a_handout_recommends_the_read_call_of_lesson_08(path: Path) -> None:
    assert [problem for passage in passages(path) for problem in disagreements(passage)] == []


def test_the_reference_pages_name_iter_bytes() -> None:
    for name in ("README.md", "docs/cheat-sheet.md", "docs/glossary.md"):
        assert BYTES.search((ROOT / name).read_text(encoding="utf-8")), name


@pytest.mark.parametrize(
    "passage",
    [
        "`for event in iter_events(response.iter_raw()): ...` does the same over any iterable",
        "One transport read: the bytes one call returned (`response.iter_raw()`).",
        "with client.stream('GET', url) as response:\n    for chunk in response.iter_raw():\n        parser.feed(chunk)",  # noqa: E501
        "async for chunk in response.aiter_raw():\n    events += parser.feed(chunk)  # iter_bytes() is elsewhere",
    ],
)
def test_the_check_rejects_a_passage_that_recommends_iter_raw(passage: str) -> None:
    assert disagreements(passage)


@pytest.mark.parametrize(
    "passage",
    [
        "`for event in iter_events(response.iter_bytes()): ...` does the same",
        "read `iter_bytes()`: it undoes gzip, which `iter_raw()` hands over as it came",
        "async for event in aiter_events(response.aiter_bytes()): ...",
    ],
)
def test_the_check_accepts_what_lesson_08_says(passage: str) -> None:
    assert disagreements(passage) == []


def ignored_retry_values(row: str) -> list[str]:
    """The values a field-table row lists after "anything else (": each in backticks, or "empty"."""
    listed = re.search(r"anything else \(([^)]*)\)", row)
    assert listed, row
    values = [value[1:-1] for value in re.findall(r"`[^`]*`", listed.group(1))]
    return values + ([""] if re.search(r"\bempty\b", listed.group(1)) else [])


def accepted_yet_listed_as_ignored(row: str) -> dict[str, int]:
    """The values the row says are ignored that the package's ``parse_retry`` accepts."""
    return {value: retry for value in ignored_retry_values(row) if (retry := parse_retry(value)) is not None}


def test_the_cheat_sheets_ignored_retry_values_are_ignored_by_the_package() -> None:
    text = (ROOT / "docs" / "cheat-sheet.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `retry` |"))
    assert len(ignored_retry_values(row)) >= 5 and "" in ignored_retry_values(row)
    assert accepted_yet_listed_as_ignored(row) == {}


def test_a_listed_retry_value_the_package_accepts_is_found() -> None:
    row = "| `retry` | digits only; anything else (`+5`, `07`, ` 5`, empty) is ignored |"
    assert ignored_retry_values(row) == ["+5", "07", " 5", ""]
    assert accepted_yet_listed_as_ignored(row) == {"07": 7}
