"""Write the course's structure from ``course.toml`` into the pages that state it.

Usage (from the repository root)::

    python tools/course.py            # rewrite every generated part that differs
    python tools/course.py --check    # exit 1 and say what differs; change nothing

``course.toml`` is the one place where a lesson's title, files, times, prerequisites and
objectives are written. This script owns, and rewrites from it:

* the README's course map (between the ``course map`` marker comments; without them, the
  first table under ``## Course map``), and the README's one-line workshop summaries
  (between the ``workshop summary`` markers);
* in the header cell of every lesson, exercise and solution notebook (the first markdown
  cell that starts with ``# ``), the paragraphs that start with ``**Prerequisites:**`` (lessons
  only) and ``**Time:**``; the rest of the cell is the authors'. Only markdown changes, so no
  notebook needs re-running;
* in ``docs/instructor-notes.md``, each lesson's heading (``## NN · Title``) and the italic
  times line under it;
* ``docs/schedule.md`` whole: the lessons' times and the timed plans, with breaks, of the
  ``[[workshop]]`` tables.

Running it twice changes nothing the second time; after other changes land, running it is all
that is needed to bring these parts back in line with the manifest.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = "course.toml"
LESSON_KEYS = {
    "id",
    "title",
    "notebook",
    "exercise",
    "solution",
    "reading_minutes",
    "exercise_minutes",
    "teaching_minutes",
    "prerequisites",
    "objectives",
}
OPTIONAL_KEYS = {"exercise", "solution"}
WORKSHOP_KEYS = {
    "name",
    "start",
    "end",
    "plan",
    "cut_first",
    "break_minutes",
    "max_session_minutes",
    "lunch_after",
    "lunch_minutes",
}
OPTIONAL_WORKSHOP_KEYS = {"cut_first", "lunch_after", "lunch_minutes"}

MAP_BEGIN = "<!-- course map: generated from course.toml by tools/course.py -->"
MAP_END = "<!-- end of course map -->"
SUMMARY_BEGIN = "<!-- workshop summary: generated from course.toml by tools/course.py -->"
SUMMARY_END = "<!-- end of workshop summary -->"
NOTES = "docs/instructor-notes.md"
SCHEDULE = "docs/schedule.md"


class ManifestError(ValueError):
    """course.toml, or a page it must be written into, cannot be used as it is."""


# ---------------------------------------------------------------------------- the manifest


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    notebook: str
    reading_minutes: int
    exercise_minutes: int
    teaching_minutes: int
    prerequisites: tuple[str, ...]
    objectives: tuple[str, ...]
    exercise: str | None = None
    solution: str | None = None

    @property
    def name(self) -> str:
        return f"{self.id} · {self.title}"


@dataclass(frozen=True)
class Workshop:
    name: str
    start: str
    end: str
    plan: tuple[str, ...]
    break_minutes: int
    max_session_minutes: int
    cut_first: tuple[str, ...] = ()
    lunch_after: str | None = None
    lunch_minutes: int = 0


@dataclass(frozen=True)
class Course:
    lessons: tuple[Lesson, ...]
    workshops: tuple[Workshop, ...]

    def lesson(self, lesson_id: str) -> Lesson:
        return next(lesson for lesson in self.lessons if lesson.id == lesson_id)

    @property
    def closing(self) -> Lesson:
        """The closing page: the last lesson."""
        return self.lessons[-1]


def _check_keys(table: dict, required: set[str], optional: set[str], where: str) -> None:
    missing = required - optional - table.keys()
    unknown = table.keys() - required
    if missing or unknown:
        raise ManifestError(f"{where}: missing keys {sorted(missing)}, unknown keys {sorted(unknown)}")


def load(root: Path = ROOT) -> Course:
    """Read and validate course.toml: the shape of each table, ids, files and prerequisites."""
    data = tomllib.loads((root / MANIFEST).read_text(encoding="utf-8"))
    lessons: list[Lesson] = []
    for index, table in enumerate(data.get("lesson", [])):
        _check_keys(table, LESSON_KEYS, OPTIONAL_KEYS, f"{MANIFEST}, lesson {index}")
        lesson = Lesson(
            **{**table, "prerequisites": tuple(table["prerequisites"]), "objectives": tuple(table["objectives"])}
        )
        _validate_lesson(lesson, [earlier.id for earlier in lessons], root)
        lessons.append(lesson)
    if not lessons:
        raise ManifestError(f"{MANIFEST}: no [[lesson]] table")
    workshops = []
    for index, table in enumerate(data.get("workshop", [])):
        _check_keys(table, WORKSHOP_KEYS, OPTIONAL_WORKSHOP_KEYS, f"{MANIFEST}, workshop {index}")
        workshops.append(
            Workshop(**{**table, "plan": tuple(table["plan"]), "cut_first": tuple(table.get("cut_first", ()))})
        )
    return Course(tuple(lessons), tuple(workshops))


def _validate_lesson(lesson: Lesson, earlier: list[str], root: Path) -> None:
    where = f"{MANIFEST}, lesson {lesson.id}"
    if lesson.id != f"{len(earlier):02d}":
        raise ManifestError(f"{where}: ids run 00, 01, ... in order; expected {len(earlier):02d}")
    for path in (lesson.notebook, lesson.exercise, lesson.solution):
        if path is not None and not (root / path).is_file():
            raise ManifestError(f"{where}: {path} does not exist")
    if (lesson.exercise is None) != (lesson.solution is None) or (lesson.exercise is None) != (
        lesson.exercise_minutes == 0
    ):
        raise ManifestError(
            f"{where}: an exercise needs its solution and exercise_minutes > 0, and no exercise means 0"
        )
    later = [p for p in lesson.prerequisites if p not in earlier]
    if later:
        raise ManifestError(f"{where}: prerequisites {later} are not earlier lessons")


# ---------------------------------------------------------------------------- header lines


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _link(target: str, page: str) -> str:
    """``target`` (from the top of the repository) relative to the folder of ``page``."""
    return Path(os.path.relpath(target, Path(page).parent)).as_posix()


def prerequisites_line(course: Course, lesson: Lesson, page: str) -> str:
    if not lesson.prerequisites:
        return "**Prerequisites:** none among the lessons: the course starts here."
    needed = [course.lesson(p) for p in lesson.prerequisites]
    return (
        "**Prerequisites:** " + _join([f"[lesson {n.id}]({_link(n.notebook, page)}) ({n.title})" for n in needed]) + "."
    )


def lesson_time_line(lesson: Lesson) -> str:
    if lesson.exercise is None:
        return f"**Time:** about {lesson.reading_minutes} minutes reading; this lesson has no exercise."
    return (
        f"**Time:** about {lesson.reading_minutes} minutes reading, {lesson.exercise_minutes} minutes for the "
        f"[exercise]({_link(lesson.exercise, lesson.notebook)})."
    )


def exercise_time_line(lesson: Lesson) -> str:
    return f"**Time:** about {lesson.exercise_minutes} minutes."


def with_paragraphs(cell: str, owned: dict[str, str], before: str) -> str:
    """``cell`` with each paragraph starting with a key of ``owned`` replaced by its value.

    A repeated one is dropped. A missing one goes next to its neighbours in the order of
    ``owned``, else before the first paragraph starting with ``before``, else at the end.
    """
    paragraphs = cell.split("\n\n")

    def where(prefix: str) -> list[int]:
        return [i for i, p in enumerate(paragraphs) if p.startswith(prefix)]

    for prefix, text in owned.items():
        for extra in reversed(where(prefix)[1:]):
            del paragraphs[extra]
        for i in where(prefix):
            paragraphs[i] = text
    keys = list(owned)
    for n, prefix in enumerate(keys):
        if where(prefix):
            continue
        later = [i for key in keys[n + 1 :] for i in where(key)]
        earlier = [i + 1 for key in keys[:n] for i in where(key)]
        anchor = next((i for i, p in enumerate(paragraphs) if p.startswith(before)), len(paragraphs))
        paragraphs.insert(min(later) if later else max(earlier) if earlier else anchor, owned[prefix])
    return "\n\n".join(paragraphs)


def header_cell(cells: list[dict]) -> dict | None:
    """A notebook's header: its first markdown cell that starts with a title (``# ``)."""
    return next((c for c in cells if c["cell_type"] == "markdown" and "".join(c["source"]).startswith("# ")), None)


def with_header(notebook_text: str, owned: dict[str, str], where: str) -> str:
    """A notebook's JSON text with its header cell's owned paragraphs written."""
    notebook = json.loads(notebook_text)
    cell = header_cell(notebook["cells"])
    if cell is None:
        raise ManifestError(f"{where}: no header cell (a markdown cell starting with '# ')")
    source = "".join(cell["source"])
    trailing = source[len(source.rstrip("\n")) :]
    new = with_paragraphs(source.rstrip("\n"), owned, before="[") + trailing
    if new == source:
        return notebook_text
    cell["source"] = new.splitlines(keepends=True)
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


#: A lesson's row in a notebook's table: ``| [NN](NN-name.ipynb) | Title |`` or ``| [NN](NN-name.ipynb) Title |``.
TABLE_ROW = re.compile(r"^\| *\[(\d\d)\]\(([^)#]+\.ipynb)\) *\|? *([^|]*?) *\|", re.M)


def table_problems(course: Course, texts: dict[str, str]) -> list[str]:
    """Rows of the lessons' own tables (lesson 00's map, the closing page's recap) that
    name a lesson by another title or file than the manifest's."""
    problems = []
    for lesson in course.lessons:
        cells = json.loads(texts[lesson.notebook])["cells"]
        markdown = "\n\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
        for lesson_id, target, title in TABLE_ROW.findall(markdown):
            named = next((n for n in course.lessons if n.id == lesson_id), None)
            if named is None or title != named.title or Path(target).name != Path(named.notebook).name:
                problems.append(
                    f"{lesson.notebook}: table row [{lesson_id}]({target}) {title!r}, course.toml: {named.name if named else 'no such lesson'}"  # noqa: E501
                )
    return problems


def title_problems(course: Course, texts: dict[str, str]) -> list[str]:
    """Header titles that do not name the lesson as the manifest does: a lesson's starts with
    ``# NN · Title`` (a subtitle may follow), an exercise's or solution's holds ``NN · Title``."""
    problems = table_problems(course, texts)
    for lesson in course.lessons:
        for path in (lesson.notebook, lesson.solution, lesson.exercise):
            if path is None:
                continue
            title = _header_text(texts[path]).split("\n")[0]
            if not (title.startswith(f"# {lesson.name}") if path == lesson.notebook else lesson.name in title):
                problems.append(f"{path}: its title {title!r} does not name {lesson.name!r} (course.toml's title)")
    return problems


# ---------------------------------------------------------------------------- README


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def course_map(course: Course) -> str:
    """The README's course map: a table, then the totals."""
    rows = [
        "| # | Lesson | What you'll learn | Needs | Reading (min) | Exercise (min) |",
        "|---|---|---|---|---|---|",
    ]
    for lesson in course.lessons:
        needs = ", ".join(lesson.prerequisites) or "-"
        exercise = f"[{lesson.exercise_minutes}]({lesson.exercise})" if lesson.exercise else "-"
        learn = _cell("; ".join(lesson.objectives))
        rows.append(
            f"| {lesson.id} | [{lesson.title}]({lesson.notebook}) | {learn} | {needs} | {lesson.reading_minutes} | {exercise} |"  # noqa: E501
        )
    reading = sum(lesson.reading_minutes for lesson in course.lessons)
    exercises = sum(lesson.exercise_minutes for lesson in course.lessons)
    rows.append(f"| | **All lessons** | | | **{reading}** | **{exercises}** |")
    return "\n".join(rows)


def workshop_summary(course: Course) -> str:
    lines = []
    for workshop in course.workshops:
        slots = schedule(course, workshop)
        taught = [item.split()[1] for item in workshop.plan if item.startswith("lesson ")]
        done = [item.split()[1] for item in workshop.plan if item.startswith("exercise ")]
        lines.append(
            f"- **{workshop.name} ({_clock(slots[0].start)}-{_clock(slots[-1].end)}, breaks included):** "
            f"lessons {', '.join(taught)}; exercises {', '.join(done) or 'none'} in the room. "
            f"[Timed plan and cut list](docs/schedule.md#{_anchor(workshop.name)})."
        )
    return "\n".join(lines)


def between_markers(
    text: str, begin: str, end: str, body: str, where: str, fallback: Callable[[str, str], str] | None = None
) -> str:
    """``text`` with what lies between the markers replaced by ``body``."""
    block = f"{begin}\n\n{body}\n\n{end}"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        return head + block + rest.split(end, 1)[1]
    if fallback is None:
        raise ManifestError(f"{where}: no markers {begin!r} ... {end!r}")
    return fallback(text, block)


def _replace_first_table_under(heading: str) -> Callable[[str, str], str]:
    """Put the block in place of the first table after ``heading`` (markers lost in a merge)."""

    def replace(text: str, block: str) -> str:
        if heading not in text:
            raise ManifestError(f"README.md: no {heading!r} section for the course map")
        head, rest = text.split(heading, 1)
        table = re.search(r"^\|.*\n(?:\|.*\n?)*", rest, re.M)
        if table is None:
            raise ManifestError(f"README.md: no table under {heading!r}")
        return head + heading + rest[: table.start()] + block + "\n" + rest[table.end() :]

    return replace


def readme(course: Course, text: str) -> str:
    text = between_markers(
        text, MAP_BEGIN, MAP_END, course_map(course), "README.md", _replace_first_table_under("## Course map")
    )
    return between_markers(text, SUMMARY_BEGIN, SUMMARY_END, workshop_summary(course), "README.md")


# ---------------------------------------------------------------------------- instructor notes


def notes_time_line(lesson: Lesson) -> str:
    exercise = f"{lesson.exercise_minutes} minutes exercise" if lesson.exercise else "no exercise"
    return f"*{lesson.reading_minutes} minutes reading, {exercise}; {lesson.teaching_minutes} minutes to teach.*"


def _cut_rank(workshop: Workshop, item: str) -> str:
    if item not in workshop.cut_first:
        return ""
    return f", cut {_ordinal(workshop.cut_first.index(item) + 1)} when running late"


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")


def plan_part(lesson: Lesson, workshop: Workshop) -> str:
    """What a plan does with a lesson and its exercise, and what it cuts first of them."""
    taught = f"lesson {lesson.id}"
    if taught not in workshop.plan:
        return f"{workshop.name}: not taught (learners take it alone)"
    text = f"{workshop.name}: taught{_cut_rank(workshop, taught)}"
    exercise = f"exercise {lesson.id}"
    if lesson.exercise and exercise in workshop.plan:
        text += f"; its exercise in the room{_cut_rank(workshop, exercise)}"
    elif lesson.exercise:
        text += "; its exercise left to learners"
    return text


def after(course: Course, workshop: Workshop) -> list[str]:
    """The lessons a plan leaves for afterwards, in course order."""
    return [lesson.id for lesson in course.lessons if f"lesson {lesson.id}" not in workshop.plan]


def notes_plan_line(course: Course, lesson: Lesson) -> str:
    """The lesson's place in each workshop plan, as docs/schedule.md times it (one source: course.toml)."""
    parts = [plan_part(lesson, workshop) + "." for workshop in course.workshops]
    if lesson == course.closing:
        for workshop in course.workshops:
            left = after(course, workshop)
            if left:
                lessons = f"lesson {left[0]} comes" if len(left) == 1 else f"lessons {_join(left)} come"
                parts.append(f"After the {workshop.name.lower()}, {lessons} next.")
    return "*In the [schedule](schedule.md):* " + " ".join(parts)


def instructor_notes(course: Course, text: str) -> str:
    """Each lesson's heading, the italic times line under it, and its place in the workshop plans."""
    for lesson in course.lessons:
        pattern = re.compile(
            rf"^## {lesson.id} · [^\n]*\n(?:\n\*[^\n]*minutes[^\n]*\*\n)?(?:\n\*In the \[schedule\][^\n]*\n)?",
            re.M,
        )
        if not pattern.search(text):
            raise ManifestError(f"{NOTES}: no section '## {lesson.id} · ...'")
        block = f"## {lesson.name}\n\n{notes_time_line(lesson)}\n\n{notes_plan_line(course, lesson)}\n"
        text = pattern.sub(lambda _: block, text, count=1)  # noqa: B023
    return text


# ---------------------------------------------------------------------------- schedule


@dataclass(frozen=True)
class Slot:
    start: int  # minutes since midnight
    minutes: int
    what: str
    lesson: Lesson | None = None

    @property
    def end(self) -> int:
        return self.start + self.minutes


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _anchor(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def item_slot(course: Course, item: str, start: int) -> Slot:
    """One plan item: ``lesson NN`` (taught) or ``exercise NN`` (done in the room)."""
    kind, _, lesson_id = item.partition(" ")
    lesson = next((lesson for lesson in course.lessons if lesson.id == lesson_id), None)
    if lesson is None or kind not in ("lesson", "exercise") or (kind == "exercise" and lesson.exercise is None):
        raise ManifestError(f"{MANIFEST}: plan item {item!r} names no lesson or exercise")
    if kind == "lesson":
        return Slot(start, lesson.teaching_minutes, f"Lesson {lesson.name}", lesson)
    return Slot(start, lesson.exercise_minutes, f"Exercise {lesson.id}", lesson)


def schedule(course: Course, workshop: Workshop) -> list[Slot]:
    """The plan in time, with a break whenever a session would pass its longest, and lunch."""
    clock = _minutes(workshop.start)
    session = 0
    lunch_due = workshop.lunch_after is not None
    slots: list[Slot] = []
    for item in workshop.plan:
        minutes = item_slot(course, item, clock).minutes
        pause = None
        if lunch_due and workshop.lunch_after is not None and clock >= _minutes(workshop.lunch_after):
            pause, lunch_due = Slot(clock, workshop.lunch_minutes, "Lunch"), False
        elif session and session + minutes > workshop.max_session_minutes:
            pause = Slot(clock, workshop.break_minutes, "Break")
        if pause is not None:
            slots.append(pause)
            clock, session = pause.end, 0
        slot = item_slot(course, item, clock)
        slots.append(slot)
        session += slot.minutes
        clock = slot.end
    return slots


def plan_problems(course: Course, workshop: Workshop) -> list[str]:
    """A plan that ends late, teaches a lesson before its prerequisites, or cuts what it lacks."""
    slots = schedule(course, workshop)
    problems = []
    if slots[-1].end > _minutes(workshop.end):
        problems.append(f"{workshop.name}: ends at {_clock(slots[-1].end)}, after {workshop.end}: shorten the plan")
    taught: set[str] = set()
    for item in workshop.plan:
        kind, _, lesson_id = item.partition(" ")
        missing = [p for p in course.lesson(lesson_id).prerequisites if p not in taught]
        if kind == "lesson" and missing:
            problems.append(f"{workshop.name}: lesson {lesson_id} comes before its prerequisites {missing}")
        if kind == "exercise" and lesson_id not in taught:
            problems.append(f"{workshop.name}: exercise {lesson_id} comes before its lesson")
        if kind == "lesson":
            taught.add(lesson_id)
    problems += [
        f"{workshop.name}: cut_first names {item!r}, not in the plan"
        for item in workshop.cut_first
        if item not in workshop.plan
    ]
    return problems


def _left_out(course: Course, workshop: Workshop) -> list[str]:
    """What a plan leaves to learners alone, with their own minutes (reading, not teaching)."""
    out = []
    for lesson in course.lessons:
        if f"lesson {lesson.id}" not in workshop.plan:
            extra = f" + {lesson.exercise_minutes} exercise" if lesson.exercise else ""
            out.append(f"lesson {lesson.id} ({lesson.reading_minutes} reading{extra})")
        elif lesson.exercise and f"exercise {lesson.id}" not in workshop.plan:
            out.append(f"exercise {lesson.id} ({lesson.exercise_minutes})")
    return out


def _part_in(lesson: Lesson, workshop: Workshop) -> str:
    """A lesson's place in a plan: taught (with its exercise or not), or optional."""
    if f"lesson {lesson.id}" not in workshop.plan:
        return "optional"
    return "taught + exercise" if f"exercise {lesson.id}" in workshop.plan else "taught"


def _slot_row(slot: Slot) -> str:
    what = slot.what
    if slot.lesson is not None:
        target = slot.lesson.notebook if what.startswith("Lesson") else slot.lesson.exercise
        what = f"[{what}](../{target})"
    elif slot.what in ("Break", "Lunch"):
        what = f"*{what}*"
    return f"| {_clock(slot.start)}-{_clock(slot.end)} | {slot.minutes} | {what} |"


def workshop_section(course: Course, workshop: Workshop) -> str:
    slots = schedule(course, workshop)
    teaching = sum(s.minutes for s in slots if s.lesson is not None)
    pauses = sum(s.minutes for s in slots if s.lesson is None)
    lines = [
        f"## {workshop.name}",
        "",
        f"{_clock(slots[0].start)} to {_clock(slots[-1].end)}: {teaching} minutes of lessons and exercises, "
        f"{pauses} minutes of breaks (a break at least every {workshop.max_session_minutes} minutes).",
        "",
        "| Time | Minutes | What |",
        "|---|---|---|",
        *(_slot_row(slot) for slot in slots),
        "",
    ]
    left = _left_out(course, workshop)
    if left:
        lines += [
            f"**Optional, not in this plan** (learners can take them alone, in order; minutes in brackets): {', '.join(left)}.",  # noqa: E501
            "",
        ]
    if workshop.cut_first:
        cuts = [f"{item} ({item_slot(course, item, 0).minutes} min)" for item in workshop.cut_first]
        lines += [
            f"**Running late? Cut, in this order:** {', '.join(cuts)}. The instructor notes say what to show instead.",
            "",
        ]
    return "\n".join(lines)


def schedule_page(course: Course) -> str:
    """docs/schedule.md, whole."""
    lines = [
        "# Workshop schedule",
        "",
        "Timed plans for teaching the course in a room. *Teaching* minutes are the instructor's: the",
        "lesson presented live, questions and pauses included; *exercise* minutes are the learners'",
        "time at the exercise, right after its lesson; *reading* minutes are a learner's alone.",
        "What to show and say in each lesson is in the [instructor notes](instructor-notes.md), and",
        "what to type in the [live-coding script](live-coding.md).",
        "",
        "## Lesson times",
        "",
        "| Lesson | Teaching (min) | Exercise (min) | Reading (min) | Needs | "
        + " | ".join(w.name for w in course.workshops)
        + " |",
        "|---|---|---|---|---|" + "---|" * len(course.workshops),
    ]
    for lesson in course.lessons:
        exercise = str(lesson.exercise_minutes) if lesson.exercise else "-"
        needs = ", ".join(lesson.prerequisites) or "-"
        plans = " | ".join(_part_in(lesson, workshop) for workshop in course.workshops)
        lines.append(
            f"| [{lesson.name}](../{lesson.notebook}) | {lesson.teaching_minutes} | {exercise} | {lesson.reading_minutes} | {needs} | {plans} |"  # noqa: E501
        )
    totals = [
        sum(getattr(lesson, key) for lesson in course.lessons)
        for key in ("teaching_minutes", "exercise_minutes", "reading_minutes")
    ]
    lines += [
        f"| **All lessons** | **{totals[0]}** | **{totals[1]}** | **{totals[2]}** | |" + " |" * len(course.workshops),
        "",
        f"Everything, taught with every exercise, is {totals[0] + totals[1]} minutes before any break: more",
        "than a day. The plans below say what they leave out and what to cut first.",
        "",
    ]
    lines += [workshop_section(course, workshop) for workshop in course.workshops]
    return "\n".join(lines).rstrip("\n") + "\n"


# ---------------------------------------------------------------------------- all together


def generated(course: Course, read: Callable[[str], str]) -> dict[str, str]:
    """Every file this script owns a part of -> its text as the manifest has it."""
    out = {
        "README.md": readme(course, read("README.md")),
        NOTES: instructor_notes(course, read(NOTES)),
        SCHEDULE: schedule_page(course),
    }
    for lesson in course.lessons:
        owned = {
            "**Prerequisites": prerequisites_line(course, lesson, lesson.notebook),
            "**Time": lesson_time_line(lesson),
        }
        out[lesson.notebook] = with_header(read(lesson.notebook), owned, lesson.notebook)
        for path in (lesson.solution, lesson.exercise):
            if path is not None:
                out[path] = with_header(read(path), {"**Time": exercise_time_line(lesson)}, path)
    return out


def _reader(root: Path) -> Callable[[str], str]:
    def read(path: str) -> str:
        file = root / path
        return file.read_text(encoding="utf-8") if file.exists() else ""

    return read


def differences(root: Path = ROOT) -> list[str]:
    """What differs from the manifest, as short diffs; empty when everything agrees."""
    course = load(root)
    read = _reader(root)
    problems = [p for workshop in course.workshops for p in plan_problems(course, workshop)]
    problems += title_problems(
        course,
        {
            path: read(path)
            for lesson in course.lessons
            for path in (lesson.notebook, lesson.exercise, lesson.solution)
            if path
        },
    )
    for path, text in generated(course, read).items():
        current = read(path)
        if text != current:
            problems.append(f"{path} differs from course.toml:\n" + "\n".join(_diff(current, text, path)))
    return problems


def _diff(current: str, wanted: str, path: str) -> Iterator[str]:
    """The changed lines; for a changed table row, also the cells that differ (a row is long)."""
    if path.endswith(".ipynb"):
        current, wanted = (_header_text(text) for text in (current, wanted))
    now, then = current.splitlines(), wanted.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, now, then, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        yield f"    @@ line {i1 + 1} @@"
        yield from (f"    -{line}" for line in now[i1:i2])
        yield from (f"    +{line}" for line in then[j1:j2])
        for old, new in zip(now[i1:i2], then[j1:j2], strict=False):
            cells = [(a.strip(), b.strip()) for a, b in zip(old.split("|"), new.split("|"), strict=False) if a != b]
            if old.startswith("|") and new.startswith("|") and cells:
                yield "    cells now -> from course.toml: " + ", ".join(f"{a!r} -> {b!r}" for a, b in cells)


def _header_text(notebook_text: str) -> str:
    cell = header_cell(json.loads(notebook_text)["cells"]) if notebook_text else None
    return "".join(cell["source"]) if cell else ""


def write(root: Path = ROOT) -> list[str]:
    """Rewrite what differs; the paths written."""
    course = load(root)
    problems = [p for workshop in course.workshops for p in plan_problems(course, workshop)]
    if problems:
        raise ManifestError("\n".join(problems))
    read = _reader(root)
    written = []
    for path, text in generated(course, read).items():
        if text != read(path):
            (root / path).write_text(text, encoding="utf-8")
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 and say what differs; change nothing")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this script's)")
    args = parser.parse_args(argv)
    try:
        if args.check:
            problems = differences(args.root)
            for problem in problems:
                print(problem, file=sys.stderr)
            if problems:
                print(
                    "run: python tools/course.py (after editing course.toml, if a time or title changed)",
                    file=sys.stderr,
                )
            return 1 if problems else 0
        for path in write(args.root):
            print(f"wrote {path}")
    except ManifestError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
