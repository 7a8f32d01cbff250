"""Build the course as a static HTML book, offline, with Sphinx (MyST-NB, sphinx-book-theme).

Usage (from the repository root, in the course's venv)::

    python tools/build_book.py                 # -> build/book/index.html
    python tools/build_book.py --out /tmp/book

The book's pages come from ``course.toml`` (every lesson, its exercise and its
solution, in course order) and ``docs/*.md``, with the README as "About the
course". Sphinx does the site: sidebar, per-page contents, search, previous /
next. This script only stages the sources in a temporary folder, with four
changes a static page needs:

* the home page is the course map, written from the manifest: times,
  prerequisites and objectives of every lesson;
* widgets cannot move without a kernel, so each widget output is replaced by
  what its stored state holds: the ``HTML`` view the classroom's render function
  drew at the default cuts, the sliders as text, and a note to open the lesson
  in JupyterLab (no widget manager is loaded, from a CDN or anywhere);
* an exercise and a solution say what they are in a banner under their title,
  with links to their twins, and a solution's title says "Solution";
* a link to a file of the repository that is not a page (source code, the
  benchmarks) becomes plain text naming it (``conf.py``).

Notebooks are never executed: their stored outputs are the pages. Nothing is
deleted: ``--out`` may hold other files (they stay); the book's own files are
written over.
"""

from __future__ import annotations

import argparse
import html
import sys
import tempfile
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
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
EXPLORER_NOTE = (
    "This explorer is drawn at its default cuts. Open <code>{source}</code> in JupyterLab "
    "and run it to move the slider."
)
BANNERS = {
    "exercise": ("note", "Exercise, as a learner first sees it: every check says *not attempted yet*. "
                 "Run it in JupyterLab to write your code."),
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
    """The course map in MyST Markdown, and the hidden tables of contents the sidebar shows."""
    by_id = {lesson.id: lesson for lesson in lessons}
    reading = sum(lesson.reading_minutes for lesson in lessons)
    exercises = sum(lesson.exercise_minutes for lesson in lessons)
    return "\n".join(
        [
            "# Course map",
            "",
            "Reading Server-Sent Events when bytes arrive in arbitrary chunks. This is the course as stored, outputs included: read it here, run it in JupyterLab "  # noqa: E501
            "(see [About the course](README.md)). Each lesson has an exercise to write and a solution "
            "to compare with once your check passes. Keep the [cheat sheet](docs/cheat-sheet.md) and "
            "the [glossary](docs/glossary.md) beside you.",
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
            *toctree("Lessons", (lesson.notebook for lesson in lessons)),
            *toctree("Exercises", (lesson.exercise for lesson in lessons if lesson.exercise)),
            *toctree("Solutions", (lesson.solution for lesson in lessons if lesson.solution)),
            *toctree("Docs", ["About the course <README.md>", *docs]),
        ]
    )


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


def mark(notebook: nbformat.NotebookNode, kind: str, lesson: Lesson, page: str) -> None:
    """Put the banner under the page's title; a solution's title becomes "Solution NN · title"."""
    cell = next(cell for cell in notebook.cells if cell.cell_type == "markdown")
    title, _, rest = cell.source.partition("\n")
    if kind == "solution":
        title = f"# Solution {lesson.id} · {lesson.title}"
    cell.source = f"{title}\n\n{banner(kind, lesson, page)}\n{rest}"


def stage_notebook(root: Path, staged: Path, page: str, kind: str, lesson: Lesson) -> None:
    notebook = nbformat.read(root / page, as_version=4)
    freeze_widgets(notebook, page)
    if kind in BANNERS:
        mark(notebook, kind, lesson, page)
    (staged / page).parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, staged / page)


def stage(root: Path, staged: Path) -> None:
    """Write the book's sources under ``staged``: the home page, the notebooks, the docs."""
    lessons = list(load_course(root).lessons)
    docs = sorted(path.relative_to(root).as_posix() for path in (root / "docs").glob("*.md"))
    for page in ["README.md", *docs]:
        (staged / page).parent.mkdir(parents=True, exist_ok=True)
        (staged / page).write_text((root / page).read_text(encoding="utf-8"), encoding="utf-8")
    for lesson in lessons:
        for kind, page in twins(lesson).items():
            stage_notebook(root, staged, page, kind, lesson)
    (staged / "index.md").write_text(home_page(lessons, docs), encoding="utf-8")


# --- building -------------------------------------------------------------------------


def build(root: Path = ROOT, out: Path = DEFAULT_OUT, jobs: str = "auto") -> list[str]:
    """Write the book under ``out`` (nothing there is deleted); return Sphinx's warnings."""
    from sphinx.cmd.build import build_main

    with tempfile.TemporaryDirectory(prefix="sse-course-book-") as work:
        staged, doctrees, warnings = Path(work, "source"), Path(work, "doctrees"), Path(work, "warnings.txt")
        stage(root, staged)
        args = ["-b", "html", "-q", "-j", jobs, "-c", str(CONF_DIR), "-d", str(doctrees), "-w", str(warnings)]
        status = build_main([*args, "-D", f"repository_root={root}", str(staged), str(out)])
        problems = warnings.read_text(encoding="utf-8").splitlines() if warnings.exists() else []
    return problems if status == 0 else [*problems, f"sphinx-build exited {status}"]


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"where to write (default {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    problems = build(ROOT, args.out)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    print(f"book written to {args.out / 'index.html'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
