"""The workshop kit tells the truth about the lessons it is for.

``docs/instructor-notes.md`` and ``docs/live-coding.md`` have one section per lesson of
``course.toml`` (``## NN · Title``), and every reference they make to a lesson is a link to
one of its sections, so it is checked here:

- each link to a notebook names a heading that notebook has (a renamed section fails);
- each section refers to at least two sections of its own lesson, so a note is written
  against the lesson and not from memory;
- each lesson's note says how many *Predict* cells its exercise has ("two *Predict* cells",
  "no *Predict* cells" and what to ask instead), and that number is the exercise's;
- the live-coding script's ``pycon`` blocks run, section by section, and print what they say
  (doctest), so what the instructor types works on today's package.

The tests at the end show each check rejecting the defect it looks for.
"""

from __future__ import annotations

import dataclasses
import doctest
import re
from pathlib import Path
from urllib.parse import unquote

import course  # tools/course.py (pyproject.toml puts tools/ on the path)
import nbformat
import pytest
from markdown_pages import links, markdown_cells, target_slugs

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
            elif anchor and anchor not in target_slugs(path):
                problems.append(f"{where} has no section #{anchor}")
            elif anchor and path == (root / lesson.notebook).resolve():
                own += 1
        if own < 2:
            problems.append(
                f"{page.name}, lesson {lesson.id}: cites {own} section(s) of {lesson.notebook}, at least 2 expected"
            )
    return problems


def predict_count(path: Path) -> int:
    """How many ``## Predict: ...`` sections an exercise has (its solution is the source)."""
    return sum(part.startswith("## Predict") for part in markdown_cells(path))


def predict_claim(count: int) -> str:
    """What a note says about an exercise with ``count`` Predict cells."""
    words = {0: "no", 1: "one", 2: "two", 3: "three", 4: "four"}
    return f"{words.get(count, count)} *Predict* cell{'' if count == 1 else 's'}"


def predict_problems(text: str, lessons: tuple[course.Lesson, ...], root: Path = ROOT) -> list[str]:
    """A lesson section that does not say how many Predict cells its exercise has, or says
    another number."""
    problems = []
    found = sections(text)
    for lesson in lessons:
        if lesson.solution is None:
            continue
        section = " ".join(found.get(lesson.id, "").split())
        count = predict_count(root / lesson.solution)
        claims = set(re.findall(r"\b(\w+) \*Predict\* cells?\b", section))
        if claims != {predict_claim(count).split()[0]}:
            problems.append(
                f"lesson {lesson.id}: {lesson.solution} has {predict_claim(count)}; the note says {sorted(claims) or 'nothing'}"  # noqa: E501
            )
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


def test_the_notes_count_each_exercises_predict_cells() -> None:
    assert predict_problems(NOTES.read_text(encoding="utf-8"), COURSE.lessons) == []


def test_the_live_coding_script_runs() -> None:
    text = SCRIPT.read_text(encoding="utf-8")
    failures = script_failures(text)
    assert failures == {lesson.id: 0 for lesson in COURSE.lessons}
    assert text.count(">>> ") >= 60


# ---------------------------------------------------------------------------- the checks reject each defect

LESSON = course.Lesson(
    "03",
    "Text to lines",
    "notebooks/03-text-to-lines.ipynb",
    30,
    25,
    30,
    ("02",),
    ("x",),
    "exercises/03-text-to-lines.ipynb",
    "solutions/03-text-to-lines.ipynb",
)
GOOD = """\
## 03 · Text to lines

- See [The problem, live](../notebooks/03-text-to-lines.ipynb#the-problem-live) and
  [Lines across chunks](../notebooks/03-text-to-lines.ipynb#lines-across-chunks).
- Ask the [exercise](../exercises/03-text-to-lines.ipynb)'s two *Predict* cells.

```pycon
>>> "a\\r\\nb".split("\\n")
['a\\r', 'b']
```
"""


def test_a_good_section_is_accepted() -> None:
    assert heading_problems(GOOD, (LESSON,), "notes") == []
    assert reference_problems(GOOD, NOTES, (LESSON,)) == []
    assert predict_problems(GOOD, (LESSON,)) == []
    assert script_failures(GOOD) == {"03": 0}


@pytest.mark.parametrize(
    "old, new, expected",
    [
        ("#lines-across-chunks", "#lines-across-reads", "has no section #lines-across-reads"),
        (
            "03-text-to-lines.ipynb#the-problem-live",
            "03-text-to-line.ipynb#the-problem-live",
            "03-text-to-line.ipynb does not exist",
        ),
        (
            "../notebooks/03-text-to-lines.ipynb#lines-across-chunks",
            "../notebooks/04-lines-to-events.ipynb#from-a-line-to-a-field",
            "cites 1 section(s) of notebooks/03-text-to-lines.ipynb",
        ),
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
        (
            GOOD.replace("two *Predict* cells", "three *Predict* cells"),
            "has two *Predict* cells; the note says ['three']",
        ),
        (GOOD.replace("two *Predict* cells", "some *Predict* cells"), "the note says ['some']"),
        (GOOD.replace("'s two *Predict* cells", ""), "the note says nothing"),
        (GOOD + "\nThe exercise has no *Predict* cells.\n", "the note says ['no', 'two']"),
    ],
)
def test_a_false_predict_count_is_rejected(text: str, expected: str) -> None:
    problems = predict_problems(text, (LESSON,))
    assert any(expected in problem for problem in problems), problems


def test_an_exercise_without_predict_cells_must_be_said(tmp_path: Path) -> None:
    """Every exercise has Predict cells today, so the case is made: lesson 03 with a solution that has none."""
    solution = tmp_path / "solution.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")]), solution)
    lesson = dataclasses.replace(LESSON, solution=str(solution))
    assert any("has no *Predict* cells" in p for p in predict_problems(GOOD, (lesson,)))
    assert predict_problems(GOOD.replace("two *Predict* cells", "no *Predict* cells"), (lesson,)) == []


def test_a_script_line_that_prints_something_else_is_rejected() -> None:
    assert script_failures(GOOD.replace("['a\\r', 'b']", "['a', 'b']")) == {"03": 1}
