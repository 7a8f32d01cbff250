"""The workshop kit tells the truth about the lessons it is for.

``docs/instructor-notes.md`` and ``docs/live-coding.md`` have one section per lesson of
``course.toml`` (``## NN · Title``), and every reference they make to a lesson is a link to
one of its sections, so it is checked here:

- each link to a notebook names a heading that notebook has (a renamed section fails);
- each section refers to at least two sections of its own lesson, so a note is written
  against the lesson and not from memory;
- the notes use every *Predict* cell of a lesson's exercise, by link, and say "no *Predict*
  cells" exactly for an exercise that has none;
- the live-coding script's ``pycon`` blocks run, section by section, and print what they say
  (doctest), so what the instructor types works on today's package.

The tests at the end show each check rejecting the defect it looks for.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from course_tool import course
from test_markdown import links, markdown_cells, slugs, target_slugs

ROOT = Path(__file__).resolve().parent.parent
NOTES = ROOT / "docs" / "instructor-notes.md"
SCRIPT = ROOT / "docs" / "live-coding.md"
COURSE = course.load(ROOT)
NO_PREDICT = "no *Predict* cells"
SECTION = re.compile(r"^(?=## \d\d · )", re.M)


def sections(text: str) -> dict[str, str]:
    """Lesson id -> the text of its section (``## NN · Title`` to the next such heading)."""
    return {part[3:5]: part for part in SECTION.split(text)[1:]}


def heading_problems(text: str, lessons: tuple[course.Lesson, ...], name: str) -> list[str]:
    """Lessons without a section, or whose section's heading is not the manifest's."""
    found = sections(text)
    problems = [f"{name}: no section '## {lesson.name}'" for lesson in lessons if lesson.id not in found]
    problems += [
        f"{name}: section {heading!r} should be '## {lesson.name}'"
        for lesson in lessons
        if lesson.id in found and (heading := found[lesson.id].splitlines()[0]) != f"## {lesson.name}"
    ]
    return problems


def notebook_links(section: str, page: Path) -> list[tuple[Path, str]]:
    """(notebook path, anchor) of every link from ``section`` (on ``page``) into a notebook."""
    found = []
    for href in links(section):
        target, _, anchor = unquote(href).partition("#")
        if target.endswith(".ipynb"):
            found.append(((page.parent / target).resolve(), anchor))
    return found


def reference_problems(text: str, page: Path, lessons: tuple[course.Lesson, ...], root: Path = ROOT) -> list[str]:
    """Links to notebooks or headings that do not exist; sections that cite too little of their lesson."""
    problems = []
    found = sections(text)
    for lesson in lessons:
        section = found.get(lesson.id, "")
        own = 0
        for path, anchor in notebook_links(section, page):
            where = f"{page.name}, lesson {lesson.id}: {path.relative_to(root) if path.is_relative_to(root) else path}"
            if not path.exists():
                problems.append(f"{where} does not exist")
            elif not anchor:
                problems.append(f"{where}: link names no section (#anchor)")
            elif anchor not in target_slugs(path):
                problems.append(f"{where} has no section #{anchor}")
            elif path == (root / lesson.notebook).resolve():
                own += 1
        if own < 2:
            problems.append(f"{page.name}, lesson {lesson.id}: cites {own} section(s) of {lesson.notebook}, at least 2 expected")
    return problems


def predict_headings(path: Path) -> list[str]:
    """The anchors of an exercise's ``## Predict: ...`` headings."""
    parts = [part for part in markdown_cells(path) if part.startswith("## Predict")]
    return sorted(anchor for anchor in slugs(parts) if anchor.startswith("predict"))


def predict_problems(text: str, page: Path, lessons: tuple[course.Lesson, ...], root: Path = ROOT) -> list[str]:
    """Predict cells the notes do not use, and 'no Predict cells' said of an exercise that has some."""
    problems = []
    for lesson in lessons:
        if lesson.exercise is None:
            continue
        section = sections(text).get(lesson.id, "")
        exercise = (root / lesson.exercise).resolve()
        wanted = predict_headings(exercise)
        cited = {anchor for path, anchor in notebook_links(section, page) if path == exercise}
        problems += [f"{page.name}, lesson {lesson.id}: does not use {lesson.exercise}#{anchor}" for anchor in wanted if anchor not in cited]
        if wanted and NO_PREDICT in section:
            problems.append(f"{page.name}, lesson {lesson.id}: says '{NO_PREDICT}', but {lesson.exercise} has {len(wanted)}")
        if not wanted and NO_PREDICT not in section:
            problems.append(f"{page.name}, lesson {lesson.id}: {lesson.exercise} has no Predict cells; say '{NO_PREDICT}' and what to ask instead")
    return problems


def script_failures(text: str) -> dict[str, int]:
    """Lesson id -> how many of its ``pycon`` examples do not print what the script says."""
    failures = {}
    for lesson_id, section in sections(text).items():
        blocks = "\n".join(re.findall(r"```pycon\n(.*?)```", section, re.S))
        test = doctest.DocTestParser().get_doctest(blocks, {}, f"live-coding {lesson_id}", str(SCRIPT), 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test, out=lambda _: None)
        failures[lesson_id] = runner.failures
    return failures


# ---------------------------------------------------------------------------- the kit


@pytest.mark.parametrize("path", [NOTES, SCRIPT], ids=lambda p: p.name)
def test_every_lesson_has_its_section(path: Path) -> None:
    assert heading_problems(path.read_text(encoding="utf-8"), COURSE.lessons, path.name) == []


@pytest.mark.parametrize("path", [NOTES, SCRIPT], ids=lambda p: p.name)
def test_every_reference_names_a_section_of_the_lesson(path: Path) -> None:
    assert reference_problems(path.read_text(encoding="utf-8"), path, COURSE.lessons) == []


def test_the_notes_use_every_predict_cell() -> None:
    assert predict_problems(NOTES.read_text(encoding="utf-8"), NOTES, COURSE.lessons) == []


def test_the_live_coding_script_runs() -> None:
    text = SCRIPT.read_text(encoding="utf-8")
    failures = script_failures(text)
    assert failures == {lesson.id: 0 for lesson in COURSE.lessons}
    assert text.count(">>> ") >= 60


# ---------------------------------------------------------------------------- the checks reject each defect

LESSON = course.Lesson("03", "Text to lines", "notebooks/03-text-to-lines.ipynb", 30, 25, 30, ("02",), ("x",),
                       "exercises/03-text-to-lines.ipynb", "solutions/03-text-to-lines.ipynb")
GOOD = """\
## 03 · Text to lines

- See [The problem, live](../notebooks/03-text-to-lines.ipynb#the-problem-live) and
  [Lines across chunks](../notebooks/03-text-to-lines.ipynb#lines-across-chunks).
- Ask [Predict: `str.splitlines()`](../exercises/03-text-to-lines.ipynb#predict-strsplitlines) and
  [Predict: a CR](../exercises/03-text-to-lines.ipynb#predict-a-cr-at-the-end-of-a-read).

```pycon
>>> "a\\r\\nb".split("\\n")
['a\\r', 'b']
```
"""


def test_a_good_section_is_accepted() -> None:
    assert heading_problems(GOOD, (LESSON,), "notes") == []
    assert reference_problems(GOOD, NOTES, (LESSON,)) == []
    assert predict_problems(GOOD, NOTES, (LESSON,)) == []
    assert script_failures(GOOD) == {"03": 0}


@pytest.mark.parametrize(
    "old, new, expected",
    [
        ("#lines-across-chunks", "#lines-across-reads", "has no section #lines-across-reads"),
        ("03-text-to-lines.ipynb#the-problem-live", "03-text-to-line.ipynb#the-problem-live", "03-text-to-line.ipynb does not exist"),
        ("#the-problem-live", "", "link names no section"),
        ("../notebooks/03-text-to-lines.ipynb#lines-across-chunks", "../notebooks/04-lines-to-events.ipynb#from-a-line-to-a-field",
         "cites 1 section(s) of notebooks/03-text-to-lines.ipynb"),
    ],
)
def test_a_wrong_reference_is_rejected(old: str, new: str, expected: str) -> None:
    problems = reference_problems(GOOD.replace(old, new), NOTES, (LESSON,))
    assert any(expected in problem for problem in problems), problems


@pytest.mark.parametrize(
    "text, expected",
    [
        (GOOD.replace("## 03 · Text to lines", "## 03 · Lines"), "should be '## 03 · Text to lines'"),
        (GOOD.replace("## 03 · Text to lines", "## Text to lines"), "no section '## 03 · Text to lines'"),
    ],
)
def test_a_missing_or_renamed_lesson_section_is_rejected(text: str, expected: str) -> None:
    assert any(expected in problem for problem in heading_problems(text, (LESSON,), "notes"))


@pytest.mark.parametrize(
    "text, expected",
    [
        (GOOD.replace("#predict-strsplitlines", "#the-problem-live"), "does not use exercises/03-text-to-lines.ipynb#predict-strsplitlines"),
        (GOOD + f"\nThe exercise has {NO_PREDICT}.\n", "says 'no *Predict* cells', but exercises/03-text-to-lines.ipynb has 2"),
    ],
)
def test_a_false_predict_claim_is_rejected(text: str, expected: str) -> None:
    assert any(expected in problem for problem in predict_problems(text, NOTES, (LESSON,)))


def test_an_exercise_without_predict_cells_must_be_said() -> None:
    lesson = next(lesson for lesson in COURSE.lessons if lesson.exercise and not predict_headings(ROOT / lesson.exercise))
    section = GOOD.replace("## 03 · Text to lines", f"## {lesson.name}")
    assert any("has no Predict cells; say" in p for p in predict_problems(section, NOTES, (lesson,)))
    assert predict_problems(section + f"\n{NO_PREDICT}: ask in the lesson.\n", NOTES, (lesson,)) == []


def test_a_script_line_that_prints_something_else_is_rejected() -> None:
    assert script_failures(GOOD.replace("['a\\r', 'b']", "['a', 'b']")) == {"03": 1}
