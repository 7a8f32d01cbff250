"""Build the course as a static HTML book, offline, with Sphinx (MyST-NB, sphinx-book-theme),
and beside it the JupyterLite site that runs its notebooks in the browser.

Usage (from the repository root, in the course's venv)::

    python tools/build_book.py                 # -> build/book/index.html and build/book/lite/
    python tools/build_book.py --out /tmp/book
    python tools/build_book.py --no-lite       # the book alone

The book's pages come from ``course.toml`` (every lesson followed by its exercise,
then the solutions) and ``docs/*.md`` (the learners' reference, and apart, the
instructors' and the maintainers' pages). Sphinx does the site: sidebar, per-page
contents, search, previous / next. This script only stages the sources in a
temporary folder, with the changes a static page needs:

* the home page is the course map, written from the manifest: times,
  prerequisites and objectives of every lesson; a key-points page gathers every
  lesson's *Lessons learned*;
* widgets cannot move without a kernel, so each widget output is replaced by
  what its stored state holds: the ``HTML`` view the classroom's render function
  drew at the default cuts, the sliders as text, and a note to run the lesson
  (no widget manager is loaded, from a CDN or anywhere);
* every notebook page links *Run in the browser* (the lite site) and its
  download (the notebook, copied beside the page); an exercise and a solution
  say what they are in a banner under their title, with links to their twins,
  and a solution's title says "Solution";
* code shows no test or exercise marker lines (``# NBVAL_...``, ``### BEGIN SOLUTION``);
* a link to a file of the repository that is not a page (source code, the
  benchmarks) becomes plain text naming it, and a link to the README goes to the
  learners' page that says the same (``conf.py``).

Notebooks are never executed: their stored outputs are the pages. Nothing is
deleted: ``--out`` may hold other files (they stay); the book's own files are
written over. The lite site is ``tools/build_lite.py``'s.
"""

from __future__ import annotations

import argparse
import html
import posixpath
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import nbformat
from course import Lesson  # tools/course.py: course.toml, read and checked
from course import load as load_course

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "build" / "book"
CONF_DIR = ROOT / "tools" / "book"
INSTRUCTOR_NOTES = "docs/instructor-notes.md"
#: docs/ pages for instructors and for maintainers, each in a sidebar section of its own; the
#: others are the learners' reference.
INSTRUCTOR_DOCS = [INSTRUCTOR_NOTES, "docs/schedule.md", "docs/live-coding.md"]
MAINTAINER_DOCS = ["docs/architecture.md"]
KEY_POINTS = "key-points.md"
#: The learners' docs/ pages in the order the sidebar lists them (any other page follows).
LEARNER_DOCS = ["setup", "cheat-sheet", "glossary", "about"]
#: Lines of a code cell that are for the tests or the exercise generator, not for readers.
MARKER_LINE = re.compile(r"^\s*(# NBVAL_\w+|### (BEGIN|END) SOLUTION)\b.*$")
#: The JupyterLite site's folder in the book (tools/build_lite.py writes it).
LITE = "lite"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
EXPLORER_NOTE = (
    "This explorer is drawn at its default cuts. To move the slider, run the lesson: in the browser "
    "(<em>Run in the browser</em>, at the top of the page), or open <code>{source}</code> in JupyterLab."
)
BANNERS = {
    "exercise": ("note", "Exercise, as a learner first sees it: every check says *not attempted yet*. "
                 "Run it in the browser or in JupyterLab to write your code."),
    "solution": ("important", "Solution: open it only after your own check passes."),
}  # fmt: skip


def twins(lesson: Lesson) -> dict[str, str]:
    """The lesson's pages by kind (lesson, exercise, solution), those it has."""
    pages = {"lesson": lesson.notebook, "exercise": lesson.exercise, "solution": lesson.solution}
    return {kind: path for kind, path in pages.items() if path}


# --- the home page: the course map --------------------------------------------------


def page_link(path: str | None, text: str) -> str:
    return f"[{text}]({path})" if path else "-"


def prerequisite_links(lesson: Lesson, by_id: dict[str, Lesson]) -> str:
    return ", ".join(page_link(by_id[id].notebook, id) for id in lesson.prerequisites) or "none"


def map_row(lesson: Lesson, by_id: dict[str, Lesson]) -> str:
    return (
        f"| {lesson.id} | {page_link(lesson.notebook, lesson.title)} | {page_link(lesson.exercise, 'exercise')} | "
        f"{page_link(lesson.solution, 'solution')} | {lesson.reading_minutes} | {lesson.exercise_minutes or '-'} | "
        f"{lesson.teaching_minutes} | {prerequisite_links(lesson, by_id)} |"
    )


def lesson_section(lesson: Lesson, by_id: dict[str, Lesson]) -> list[str]:
    times = f"reading {lesson.reading_minutes} min"
    if lesson.exercise_minutes:
        times += f", exercise {lesson.exercise_minutes} min"
    return [
        f"### {lesson.id} · {lesson.title}",
        "",
        f"{page_link(lesson.notebook, 'Lesson')} · {page_link(lesson.exercise, 'exercise')} · "
        f"{page_link(lesson.solution, 'solution')}. Time: {times}; teaching it live, "
        f"{lesson.teaching_minutes} min. Prerequisites: {prerequisite_links(lesson, by_id)}.",
        "",
        "What you'll learn:",
        "",
        *(f"- {objective}" for objective in lesson.objectives),
        "",
    ]


def toctree(caption: str, paths: Iterable[str]) -> list[str]:
    return [f"```{{toctree}}\n:caption: {caption}\n:hidden:\n", *paths, "```", ""]


def home_page(lessons: list[Lesson], docs: list[str]) -> str:
    """The course map in MyST Markdown, and the hidden tables of contents the sidebar shows:
    each lesson followed by its exercise (the order to work in), the solutions, the learners'
    reference pages, and the instructors' and maintainers' pages apart."""
    by_id = {lesson.id: lesson for lesson in lessons}
    reading = sum(lesson.reading_minutes for lesson in lessons)
    exercises = sum(lesson.exercise_minutes for lesson in lessons)
    reference = [page for page in docs if page not in INSTRUCTOR_DOCS + MAINTAINER_DOCS]
    return "\n".join(
        [
            "# Course map",
            "",
            "Reading Server-Sent Events when bytes arrive in arbitrary chunks. Read each lesson here, "
            "or run it in your browser with no install (the *Run in the browser* link at the top of "
            "every lesson), or on your machine in JupyterLab (see [Setup](docs/setup.md)). Each lesson "
            "has an exercise to write and a solution to compare with once your check passes. Keep the "
            "[cheat sheet](docs/cheat-sheet.md) and the [glossary](docs/glossary.md) beside you.",
            "",
            f"Teaching the course? Start with the [instructor notes]({INSTRUCTOR_NOTES}).",
            "",
            f"Times in minutes: {reading} of reading and {exercises} of exercises in all, for a learner "
            "alone; *teaching* is an instructor presenting the lesson live, exercise apart.",
            "",
            "| # | Lesson | Exercise | Solution | Reading | Exercise | Teaching | Prerequisites |",
            "|---|---|---|---|---|---|---|---|",
            *(map_row(lesson, by_id) for lesson in lessons),
            "",
            "## The lessons",
            "",
            *(line for lesson in lessons for line in lesson_section(lesson, by_id)),
            *toctree(
                "Lessons and exercises",
                (page for lesson in lessons for page in (lesson.notebook, lesson.exercise) if page),
            ),
            *toctree("Solutions", (lesson.solution for lesson in lessons if lesson.solution)),
            *toctree("Reference", [*reference, KEY_POINTS]),
            *toctree("For instructors", [page for page in INSTRUCTOR_DOCS if page in docs]),
            *toctree("For maintainers", [page for page in MAINTAINER_DOCS if page in docs]),
        ]
    )


# --- key points: every lesson's "Lessons learned" on one page -------------------------


def lessons_learned(notebook: nbformat.NotebookNode) -> str:
    """The text of a lesson's ``## Lessons learned`` section (to its next heading of that level)."""
    text = "\n\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    found = re.search(r"^## Lessons learned\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return found.group(1).strip() if found else ""


def moved_links(text: str, page: str) -> str:
    """``text`` of ``page`` with its relative links written from the top of the book."""

    def move(match: re.Match[str]) -> str:
        target = match.group(2)
        if re.match(r"^[a-z]+:|^#", target):
            return match.group(0)
        return f"{match.group(1)}({posixpath.normpath(posixpath.join(posixpath.dirname(page), target))})"

    return re.sub(r"(\]\s?)\(([^)\s]+)\)", move, text)


def key_points_page(root: Path, lessons: list[Lesson]) -> str:
    sections = ["# Key points", "", "What each lesson leaves you with, from its *Lessons learned*.", ""]
    for lesson in lessons:
        learned = lessons_learned(nbformat.read(root / lesson.notebook, as_version=4))
        sections += [
            f"## [{lesson.id} · {lesson.title}]({lesson.notebook})",
            "",
            moved_links(learned, lesson.notebook),
            "",
        ]
    return "\n".join(sections)


# --- widgets, drawn without a kernel ------------------------------------------------


def slider_text(state: dict[str, Any]) -> str:
    return (
        f'<div class="explorer-slider">{html.escape(str(state.get("description", "")))}: '
        f"<b>{html.escape(str(state.get('value')))}</b> "
        f"(from {state.get('min')} to {state.get('max')})</div>"
    )


def output_html(output: dict[str, Any]) -> str:
    """One output an ``Output`` widget captured: its HTML, else its text."""
    data = output.get("data", {})
    if "text/html" in data:
        return "".join(data["text/html"])
    text = output.get("text") or "".join(data.get("text/plain", ""))
    return f"<pre>{html.escape(''.join(text))}</pre>" if text else ""


def static_widget(model_id: str, models: dict[str, Any]) -> str:
    """A stored widget as HTML: HTML views as they were drawn, sliders as text,
    boxes as their children; "" for a model the state does not hold."""
    model = models.get(model_id)
    if model is None:
        return ""
    state = model.get("state", {})
    name = model.get("model_name", "")
    if name in ("HTMLModel", "HTMLMathModel"):
        return f'<div class="explorer-view">{state.get("value", "")}</div>'
    if name.endswith("SliderModel"):
        return slider_text(state)
    if name == "OutputModel":
        return "".join(output_html(output) for output in state.get("outputs", []))
    if name in ("LabelModel", "TextModel", "TextareaModel"):
        return f"<div>{html.escape(str(state.get('value', '')))}</div>"
    children = [child.removeprefix("IPY_MODEL_") for child in state.get("children", [])]
    return "".join(static_widget(child, models) for child in children)


def freeze_widgets(notebook: nbformat.NotebookNode, source: str) -> None:
    """Replace every widget output by its static drawing (see :func:`static_widget`)."""
    models = notebook.metadata.pop("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is None:
                continue
            if "text/html" in output["data"]:  # the widget drew itself for pages with no kernel (ask-first)
                output["data"] = {"text/html": output["data"]["text/html"]}
                continue
            drawn = static_widget(view.get("model_id", ""), models)
            note = f'<p class="explorer-note">{EXPLORER_NOTE.format(source=html.escape(source))}</p>'
            output["data"] = {"text/html": f'<div class="explorer-static">{note}{drawn}</div>' if drawn else ""}


# --- exercise and solution pages ----------------------------------------------------


def banner(kind: str, lesson: Lesson, page: str) -> str:
    """A MyST admonition saying what the page is, with links to its twins."""
    style, text = BANNERS[kind]
    depth = "../" * page.count("/")
    links = " · ".join(
        f"**{kind.capitalize()} {lesson.id}**" if path == page else f"[{kind.capitalize()} {lesson.id}]({depth}{path})"
        for kind, path in twins(lesson).items()
    )
    return f":::{{{style}}}\n{text}\n\n{links}\n:::"


def run_links(page: str) -> str:
    """Links to run the page's notebook in the browser (the lite site beside the book) and to download it."""
    depth = "../" * page.count("/")
    return (
        f'<a class="run-in-browser" href="{depth}{LITE}/notebooks/index.html?path={html.escape(page)}">'
        f'Run in the browser</a> (no install) · <a class="download-notebook" href="{Path(page).name}" download>'
        f"Download the notebook</a>"
    )


def mark(notebook: nbformat.NotebookNode, kind: str, lesson: Lesson, page: str) -> None:
    """Put the run and download links, and the banner of an exercise or a solution, under the
    page's title; a solution's title becomes "Solution NN · title"."""
    cell = next(cell for cell in notebook.cells if cell.cell_type == "markdown")
    title, _, rest = cell.source.partition("\n")
    if kind == "solution":
        title = f"# Solution {lesson.id} · {lesson.title}"
    extra = f"\n\n{banner(kind, lesson, page)}" if kind in BANNERS else ""
    cell.source = f"{title}\n\n{run_links(page)}{extra}\n{rest}"


def strip_markers(notebook: nbformat.NotebookNode) -> None:
    """Drop from the code cells the marker lines (``# NBVAL_IGNORE_OUTPUT``, ``### BEGIN SOLUTION``)."""
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.source = "\n".join(line for line in cell.source.split("\n") if not MARKER_LINE.match(line))


def stage_notebook(root: Path, staged: Path, page: str, kind: str, lesson: Lesson) -> None:
    notebook = nbformat.read(root / page, as_version=4)
    freeze_widgets(notebook, page)
    strip_markers(notebook)
    mark(notebook, kind, lesson, page)
    (staged / page).parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, staged / page)


def stage(root: Path, staged: Path) -> None:
    """Write the book's sources under ``staged``: the home page, the notebooks, the docs."""
    lessons = list(load_course(root).lessons)
    docs = [f"docs/{name}.md" for name in LEARNER_DOCS if (root / f"docs/{name}.md").is_file()]
    docs += sorted({path.relative_to(root).as_posix() for path in (root / "docs").glob("*.md")} - set(docs))
    for page in docs:
        (staged / page).parent.mkdir(parents=True, exist_ok=True)
        (staged / page).write_text((root / page).read_text(encoding="utf-8"), encoding="utf-8")
    for lesson in lessons:
        for kind, page in twins(lesson).items():
            stage_notebook(root, staged, page, kind, lesson)
    (staged / "index.md").write_text(home_page(lessons, docs), encoding="utf-8")
    (staged / KEY_POINTS).write_text(key_points_page(root, lessons), encoding="utf-8")


# --- building -------------------------------------------------------------------------


def copy_notebooks(root: Path, out: Path) -> None:
    """Each notebook beside its page, for the pages' download links."""
    for lesson in load_course(root).lessons:
        for page in twins(lesson).values():
            (out / page).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / page, out / page)


def build(root: Path = ROOT, out: Path = DEFAULT_OUT, jobs: str = "auto") -> list[str]:
    """Write the book under ``out`` (nothing there is deleted); return Sphinx's warnings."""
    from sphinx.cmd.build import build_main

    with tempfile.TemporaryDirectory(prefix="sse-course-book-") as work:
        staged, doctrees, warnings = Path(work, "source"), Path(work, "doctrees"), Path(work, "warnings.txt")
        stage(root, staged)
        args = ["-b", "html", "-q", "-j", jobs, "-c", str(CONF_DIR), "-d", str(doctrees), "-w", str(warnings)]
        status = build_main([*args, "-D", f"repository_root={root}", str(staged), str(out)])
        problems = warnings.read_text(encoding="utf-8").splitlines() if warnings.exists() else []
    copy_notebooks(root, out)
    return problems if status == 0 else [*problems, f"sphinx-build exited {status}"]


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"where to write (default {DEFAULT_OUT})")
    parser.add_argument("--no-lite", action="store_true", help="the book only, without the site that runs it")
    args = parser.parse_args(argv)
    started = time.monotonic()
    problems = build(ROOT, args.out)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    print(f"book written to {args.out / 'index.html'} in {time.monotonic() - started:.0f} s")
    if problems or args.no_lite:
        return 1 if problems else 0
    import build_lite  # tools/build_lite.py, beside this script

    return build_lite.main(["--out", str(args.out / LITE)])


if __name__ == "__main__":
    sys.exit(main())
