"""course.toml is the one source of the course's structure; tools/course.py writes it out.

The repository agrees with the manifest (``--check`` passes); a hand-edited time, a lost marker
or a wrong header is found and rewritten; the manifest and the workshop plans are validated.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import course  # tools/course.py (pyproject.toml puts tools/ on the path)
import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_repository_agrees_with_course_toml() -> None:
    """The command maintainers run, as they run it."""
    result = subprocess.run([sys.executable, "tools/course.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the files tools/course.py reads and writes, and the tool itself."""
    manifest = course.load(ROOT)
    files = ["course.toml", "README.md", course.NOTES, course.SCHEDULE]
    files += [p for lesson in manifest.lessons for p in (lesson.notebook, lesson.exercise, lesson.solution) if p]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


@dataclass
class Checked:
    returncode: int
    stderr: str


@pytest.fixture
def check(capsys: pytest.CaptureFixture[str]) -> Callable[[Path], Checked]:
    """``tools/course.py --check --root REPO``, run in this process (a new one costs a second)."""

    def run(repo: Path) -> Checked:
        capsys.readouterr()
        code = course.main(["--check", "--root", str(repo)])
        return Checked(code, capsys.readouterr().err)

    return run


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_hand_edited_readme_time_fails_the_check(repo: Path, check: Callable[[Path], Checked]) -> None:
    assert check(repo).returncode == 0
    row = "| 03 | [Text to lines](notebooks/03-text-to-lines.ipynb) |"
    line = next(line for line in (repo / "README.md").read_text(encoding="utf-8").splitlines() if line.startswith(row))
    edit(repo / "README.md", line, line.replace("| 30 | [25]", "| 35 | [25]"))
    result = check(repo)
    assert result.returncode == 1
    assert "README.md differs from course.toml" in result.stderr
    assert f"-{line.replace('| 30 | [25]', '| 35 | [25]')}" in result.stderr and f"+{line}" in result.stderr
    assert "cells now -> from course.toml: '35' -> '30'" in result.stderr
    assert course.write(repo) == ["README.md"]
    assert check(repo).returncode == 0


def test_a_hand_edited_header_time_is_found_and_rewritten_without_touching_outputs(
    repo: Path, check: Callable[[Path], Checked]
) -> None:
    lesson = repo / "notebooks/03-text-to-lines.ipynb"
    before = json.loads(lesson.read_text(encoding="utf-8"))
    edit(lesson, "about 30 minutes reading, 25 minutes", "about 40 minutes reading, 25 minutes")
    edit(repo / "solutions/03-text-to-lines.ipynb", "**Time:** about 25 minutes.", "**Time:** about 20 minutes.")
    result = check(repo)
    assert result.returncode == 1
    assert "notebooks/03-text-to-lines.ipynb differs" in result.stderr
    assert "-**Time:** about 40 minutes reading" in result.stderr
    assert "solutions/03-text-to-lines.ipynb differs" in result.stderr
    assert sorted(course.write(repo)) == ["notebooks/03-text-to-lines.ipynb", "solutions/03-text-to-lines.ipynb"]
    assert json.loads(lesson.read_text(encoding="utf-8")) == before
    assert course.write(repo) == []


def test_a_changed_manifest_reaches_every_page(repo: Path, check: Callable[[Path], Checked]) -> None:
    manifest = repo / "course.toml"
    text = manifest.read_text(encoding="utf-8")
    lesson = text.index('id = "04"')
    at = text.index("reading_minutes = 35\n", lesson)  # lesson 04's own entry, whatever other lessons read
    manifest.write_text(
        text[:at] + "reading_minutes = 40\n" + text[at + len("reading_minutes = 35\n") :], encoding="utf-8"
    )
    assert check(repo).returncode == 1
    assert "notebooks/04-lines-to-events.ipynb" in course.write(repo)
    header = course._header_text((repo / "notebooks/04-lines-to-events.ipynb").read_text(encoding="utf-8"))
    assert (
        "**Time:** about 40 minutes reading, 30 minutes for the [exercise](../exercises/04-lines-to-events.ipynb)."
        in header
    )
    assert "| 04 | [Lines to events]" in (repo / "README.md").read_text(encoding="utf-8")
    assert "*40 minutes reading, 30 minutes exercise;" in (repo / course.NOTES).read_text(encoding="utf-8")
    assert check(repo).returncode == 0


def test_a_course_map_whose_markers_were_lost_is_found_by_its_table(
    repo: Path, check: Callable[[Path], Checked]
) -> None:
    readme = repo / "README.md"
    text = readme.read_text(encoding="utf-8")
    stripped = text.replace(course.MAP_BEGIN + "\n\n", "").replace("\n\n" + course.MAP_END, "")
    readme.write_text(stripped.replace("| 10 |", "| 10 | an old row |", 1), encoding="utf-8")
    assert check(repo).returncode == 1
    course.write(repo)
    assert readme.read_text(encoding="utf-8") == text


def test_a_wrong_title_is_reported(repo: Path, check: Callable[[Path], Checked]) -> None:
    edit(repo / "notebooks/06-payloads.ipynb", '"# 06 · Payloads\\n"', '"# 06 · JSON payloads\\n"')
    result = check(repo)
    assert "its title '# 06 · JSON payloads' does not name '06 · Payloads'" in result.stderr
    edit(repo / "solutions/06-payloads.ipynb", '"# Exercise 06 · Payloads\\n"', '"# Exercise 06 · JSON\\n"')
    assert (
        "solutions/06-payloads.ipynb: its title '# Exercise 06 · JSON' does not name '06 · Payloads'"
        in check(repo).stderr
    )


@pytest.mark.parametrize(
    "path, old, new, expected",
    [
        (
            "notebooks/00-welcome.ipynb",
            "| Text to lines |",
            "| Lines of text |",
            "[03](03-text-to-lines.ipynb) 'Lines of text', course.toml: 03 · Text to lines",
        ),
        (
            "notebooks/11-where-next.ipynb",
            "[07](07-evidence.ipynb) Evidence",
            "[07](07-proof.ipynb) Evidence",
            "[07](07-proof.ipynb) 'Evidence'",
        ),
    ],
)
def test_a_lesson_table_row_with_another_title_or_file_is_reported(
    repo: Path, check: Callable[[Path], Checked], path: str, old: str, new: str, expected: str
) -> None:
    assert check(repo).returncode == 0
    edit(repo / path, old, new)
    result = check(repo)
    assert result.returncode == 1 and expected in result.stderr, result.stderr


@pytest.mark.parametrize(
    "cell, expected",
    [
        ("# T\n\nText.\n\n**Time:** old.\n\n[Map](m)", "# T\n\nText.\n\n**Time:** new.\n\n[Map](m)"),
        ("# T\n\nText.\n\n[Map](m)", "# T\n\nText.\n\n**Prerequisites:** p.\n\n**Time:** new.\n\n[Map](m)"),
        ("# T\n\n**Time**: old style.\n\nMore.", "# T\n\n**Prerequisites:** p.\n\n**Time:** new.\n\nMore."),
        (
            "# T\n\n**Prerequisites:** a,\nb.\n\n**Time:** 1.\n\n**Time:** 2.",
            "# T\n\n**Prerequisites:** p.\n\n**Time:** new.",
        ),
    ],
)
def test_owned_paragraphs_are_replaced_or_placed(cell: str, expected: str) -> None:
    owned = {"**Prerequisites": "**Prerequisites:** p.", "**Time": "**Time:** new."}
    if "Prerequisites" not in expected:
        owned.pop("**Prerequisites")
    assert course.with_paragraphs(cell, owned, before="[") == expected


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("teaching_minutes = 15\n", "teaching_minutes = 15\nminutes = 3\n", "unknown keys ['minutes']"),
        ('title = "Welcome"\n', "", "missing keys ['title']"),
        ('prerequisites = ["00"]', 'prerequisites = ["02"]', "prerequisites ['02'] are not earlier lessons"),
        (
            'notebook = "notebooks/06-payloads.ipynb"',
            'notebook = "notebooks/06-json.ipynb"',
            "notebooks/06-json.ipynb does not exist",
        ),
        ('id = "02"', 'id = "03"', "expected 02"),
    ],
)
def test_a_wrong_manifest_is_refused(repo: Path, old: str, new: str, message: str) -> None:
    text = (repo / "course.toml").read_text(encoding="utf-8")
    (repo / "course.toml").write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(course.ManifestError, match=message.replace("[", r"\[").replace("]", r"\]")):
        course.load(repo)


def test_an_exercise_without_minutes_is_refused(repo: Path) -> None:
    edit(
        repo / "course.toml",
        "exercise_minutes = 30\nteaching_minutes = 25\n",
        "exercise_minutes = 0\nteaching_minutes = 25\n",
    )
    with pytest.raises(course.ManifestError, match="an exercise needs its solution and exercise_minutes > 0"):
        course.load(repo)


# ---------------------------------------------------------------------------- times that can be true

#: Today's lessons read at 45-90 words of prose a minute (code and outputs come on top) and are
#: taught at 45-100. A time much faster than that is a typo, or a lesson that grew.
MAX_WORDS_PER_READING_MINUTE = 150
MAX_WORDS_PER_TEACHING_MINUTE = 100


def prose_words(notebook: Path) -> int:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return sum(len("".join(cell["source"]).split()) for cell in cells if cell["cell_type"] == "markdown")


def pace_problems(lessons: tuple[course.Lesson, ...], root: Path = ROOT) -> list[str]:
    problems = []
    for lesson in lessons:
        words = prose_words(root / lesson.notebook)
        for minutes, limit, what in (
            (lesson.reading_minutes, MAX_WORDS_PER_READING_MINUTE, "reading"),
            (lesson.teaching_minutes, MAX_WORDS_PER_TEACHING_MINUTE, "teaching"),
        ):
            if words > minutes * limit:
                problems.append(
                    f"lesson {lesson.id}: {words} words in {minutes} minutes {what}; at most {limit} a minute"
                )
    return problems


def test_reading_and_teaching_times_fit_the_lessons_length() -> None:
    assert pace_problems(course.load(ROOT).lessons) == []


def test_a_time_too_short_for_the_lesson_is_rejected() -> None:
    lesson = course.load(ROOT).lesson("09")
    rushed = replace(lesson, reading_minutes=10, teaching_minutes=15)
    words = prose_words(ROOT / lesson.notebook)
    assert pace_problems((rushed,)) == [
        f"lesson 09: {words} words in 10 minutes reading; at most 150 a minute",
        f"lesson 09: {words} words in 15 minutes teaching; at most 100 a minute",
    ]


# ---------------------------------------------------------------------------- workshop plans


def lesson(lesson_id: str, teaching: int, exercise: int, prerequisites: tuple[str, ...] = ()) -> course.Lesson:
    files = (f"exercises/{lesson_id}.ipynb", f"solutions/{lesson_id}.ipynb") if exercise else (None, None)
    return course.Lesson(
        lesson_id,
        f"Lesson {lesson_id}",
        f"notebooks/{lesson_id}.ipynb",
        20,
        exercise,
        teaching,
        prerequisites,
        (),
        *files,
    )


#: A small course with round times, so that the plans below can be timed by hand.
SMALL = course.Course(
    (lesson("00", 15, 0), lesson("01", 20, 15, ("00",)), lesson("02", 25, 30, ("01",)), lesson("03", 30, 25, ("02",))),
    (),
)


def workshop(**changes: object) -> course.Workshop:
    plan = ("lesson 00", "lesson 01", "exercise 01", "lesson 02", "exercise 02", "lesson 03", "exercise 03")
    values = {
        "name": "Test day",
        "start": "09:00",
        "end": "17:00",
        "plan": plan,
        "break_minutes": 15,
        "max_session_minutes": 60,
    }
    return course.Workshop(**{**values, **changes})


def test_the_plans_fit_their_day_with_breaks() -> None:
    manifest = course.load(ROOT)
    assert {w.name for w in manifest.workshops} == {"Half day", "Full day"}
    for plan in manifest.workshops:
        assert course.plan_problems(manifest, plan) == []
        slots = course.schedule(manifest, plan)
        assert any(slot.what == "Break" for slot in slots)
        session = 0
        for slot in slots:
            session = 0 if slot.lesson is None else session + slot.minutes
            assert session <= plan.max_session_minutes, (plan.name, slot)


def test_breaks_and_lunch_are_placed_by_the_clock() -> None:
    slots = course.schedule(SMALL, workshop(lunch_after="10:00", lunch_minutes=45))
    pauses = [(course._clock(s.start), s.minutes, s.what) for s in slots if s.lesson is None]
    assert pauses == [("09:50", 15, "Break"), ("10:30", 45, "Lunch"), ("12:15", 15, "Break")]
    assert all(a.end == b.start for a, b in zip(slots, slots[1:], strict=False))


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"end": "10:30"}, "Test day: ends at 12:10, after 10:30"),
        ({"plan": ("lesson 00", "lesson 02")}, "lesson 02 comes before its prerequisites ['01']"),
        ({"plan": ("lesson 00", "exercise 01", "lesson 01")}, "exercise 01 comes before its lesson"),
        ({"cut_first": ("lesson 04",)}, "cut_first names 'lesson 04', not in the plan"),
    ],
)
def test_a_plan_that_cannot_work_is_reported(changes: dict, message: str) -> None:
    problems = course.plan_problems(SMALL, workshop(**changes))
    assert any(message in problem for problem in problems), problems


def test_a_plan_item_that_names_nothing_is_refused() -> None:
    with pytest.raises(course.ManifestError, match="'exercise 00' names no lesson or exercise"):
        course.schedule(SMALL, workshop(plan=("lesson 00", "exercise 00")))


def test_the_schedule_and_the_notes_name_the_same_cuts_and_what_comes_next(
    repo: Path, check: Callable[[Path], Checked]
) -> None:
    """Both come from course.toml's plans: a cut moved in the manifest moves in both pages,
    and a hand edit of the notes' plan line fails the check."""
    notes, schedule = repo / course.NOTES, repo / course.SCHEDULE
    assert "Full day: taught; its exercise in the room, cut second when running late." in notes.read_text()
    assert "exercise 07 (25 min)" in schedule.read_text()
    assert "After the half day, lessons 06, 07, 08, 09 and 10 come next." in notes.read_text()
    edit(repo / "course.toml", 'cut_first = ["lesson 06", "exercise 07", "lesson 01"]', 'cut_first = ["lesson 06"]')
    assert course.write(repo) == [course.NOTES, course.SCHEDULE]
    assert "Full day: taught; its exercise in the room." in notes.read_text()
    assert "exercise 07 (25 min)" not in schedule.read_text()
    head, section = notes.read_text().split("## 07 · ")
    notes.write_text(head + "## 07 · " + section.replace("its exercise in the room.", "its exercise cut first.", 1))
    result = check(repo)
    assert result.returncode == 1 and f"{course.NOTES} differs from course.toml" in result.stderr
