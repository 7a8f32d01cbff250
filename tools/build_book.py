"""Build the course as a static HTML book that reads without Jupyter, offline.

Usage (from the repository root, in the course's venv)::

    python tools/build_book.py                 # -> build/book/index.html
    python tools/build_book.py --out /tmp/book

Pages are discovered, never listed: every ``notebooks/*.ipynb`` (lessons),
``exercises/*.ipynb``, ``solutions/*.ipynb`` and ``docs/*.md``, plus the map
(``index.html``) and an index of every section heading (``sections.html``).
Notebooks keep their stored outputs (no kernel runs); Markdown files go through
the same exporter as one-cell notebooks, so every page looks alike.

Offline on purpose: nbconvert's ``lab`` template loads require.js, MathJax,
mermaid and the widget manager from CDNs, which fail (console errors) without a
network; the book's template drops those scripts. Widgets cannot move without
a kernel, so each widget output is replaced by what its stored widget state
holds: the ``HTML`` view the classroom's render function drew at the default
cuts, the sliders as text, and a note to open the lesson in JupyterLab.

Local links are rewritten to the book's pages (``.ipynb`` and ``.md`` to
``.html``, the README is a page too, a folder goes to its part of the map). Every
heading also gets GitHub's anchor (``#course-map`` for "Course map"), since the
lessons' links are written for GitHub and JupyterLab; a link
to another file of the repository (source code) becomes plain text naming it;
a link to anything else is left alone and reported, so the book's test flags it.
"""

from __future__ import annotations

import argparse
import html
import posixpath
import re
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import nbformat
from jinja2 import DictLoader
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "build" / "book"

#: The book's parts: folder, name shown, file pattern. Each is globbed, in this order.
PARTS = (
    ("notebooks", "Lessons", "*.ipynb"),
    ("exercises", "Exercises", "*.ipynb"),
    ("solutions", "Solutions", "*.ipynb"),
    ("docs", "Docs", "*.md"),
)
INSTRUCTOR_NOTES = "docs/instructor-notes.md"
PART_NAMES = {folder: name for folder, name, _ in PARTS} | {"readme": "README"}
#: What a page of each part says first, so exercises and solutions are never confused.
BANNERS = {
    "exercises": "Exercise, as a learner first sees it: every check says <i>not attempted yet</i>. "
    "Run it in JupyterLab to write your code.",
    "solutions": "Solution: open it only after your own check passes.",
}
#: Said before a page's own title, where the heading alone would not tell (a solution's is "Exercise 05 ...").
PREFIXES = {"solutions": "Solution: "}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
EXPLORER_NOTE = (
    "This explorer is drawn at its default cuts. Open <code>{source}</code> in JupyterLab "
    "and run it to move the slider."
)
HEADING = re.compile(r'<h([1-3])\s+id="([^"]+)">(.*?)</h\1>', re.S)
HREF = re.compile(r'href="([^"]*)"')
TAG = re.compile(r"<[^>]+>")
HAS_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")

BOOK_CSS = """
.book-nav, .book-banner { font-family: var(--jp-ui-font-family, sans-serif); }
.book-nav { display:flex; flex-wrap:wrap; gap:0.4em 1.2em; align-items:center; padding:0.5em 1em;
  margin:0 0 1em; background:#f3f5f8; border-bottom:1px solid #ccd; font-size:0.95em; }
.book-nav .book-here { font-weight:bold; }
.book-nav .book-spacer { flex:1; }
.book-banner { margin:0 1em 1em; padding:0.6em 1em; border-left:6px solid #888; background:#fafafa; }
.book-banner.part-exercises { border-color:#2c7be5; background:#eef5ff; }
.book-banner.part-solutions { border-color:#c05621; background:#fff4ec; }
.explorer-static { border:1px solid #ccd; border-radius:4px; padding:0.5em; }
.explorer-note { margin:0 0 0.4em; font-style:italic; color:#444; }
.explorer-slider { font-family:monospace; font-size:0.9em; }
main.book-text { max-width:60em; margin:0 auto; padding:0 1em 2em; }
"""

#: nbconvert's lab template without the scripts that need a network.
TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{% block extra_css %}<style type="text/css">{{ resources.book.css }}</style>{% endblock extra_css %}
{%- block body_header -%}
{{ super() }}
{{ resources.book.top }}
{%- endblock body_header -%}
{% block body_footer %}
{{ resources.book.bottom }}
{{ super() }}
{% endblock body_footer %}
"""


@dataclass(frozen=True)
class Page:
    """One page of the book: where its source lives and where its HTML goes."""

    source: PurePosixPath  # relative to the repository root; virtual for the generated pages
    part: str  # a folder of PARTS, or "" for the map and the index of sections
    title: str

    @property
    def target(self) -> PurePosixPath:
        return self.source.with_suffix(".html")

    @property
    def number(self) -> str:
        """The lesson number a notebook's name starts with ("03"), or ""."""
        match = re.match(r"\d+", self.source.name)
        return match.group() if match else ""


@dataclass
class Book:
    """The discovered pages, in reading order, and what building them reported."""

    root: Path
    pages: list[Page]
    problems: list[str] = field(default_factory=list)

    def part(self, folder: str) -> list[Page]:
        return [page for page in self.pages if page.part == folder]

    def by_source(self) -> dict[str, Page]:
        return {str(page.source): page for page in self.pages}

    def twin(self, page: Page, folder: str) -> Page | None:
        """The page of another part with the same file name (lesson 03's exercise...)."""
        return self.by_source().get(f"{folder}/{page.source.stem}.ipynb")


# --- discovering pages --------------------------------------------------------------


def first_heading(markdown: str) -> str | None:
    """The text of the first level-1 heading in Markdown text."""
    for line in markdown.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return None


def title_of(path: Path) -> str:
    """A page's title: its first ``# heading``, else its file name."""
    if path.suffix == ".ipynb":
        cells = nbformat.read(path, as_version=4).cells
        texts = [cell.source for cell in cells if cell.cell_type == "markdown"]
    else:
        texts = [path.read_text(encoding="utf-8")]
    for text in texts:
        heading = first_heading(text)
        if heading:
            return heading.replace("`", "")
    return path.stem


def discover(root: Path = ROOT) -> Book:
    """Every page the repository holds, part by part, each part sorted by name."""
    pages = [Page(PurePosixPath("index.md"), "", "sse-course: the book")]
    if (root / "README.md").is_file():
        pages.append(Page(PurePosixPath("README.md"), "readme", "About the course (README)"))
    for folder, _, pattern in PARTS:
        for path in sorted((root / folder).glob(pattern)):
            title = title_of(path)
            pages.append(Page(PurePosixPath(folder, path.name), folder, PREFIXES.get(folder, "") + title))
    pages.append(Page(PurePosixPath("sections.md"), "", "Index of sections"))
    return Book(root, pages)


# --- navigation -----------------------------------------------------------------------


def relative(page: Page, target: str) -> str:
    """``target`` (a book path, maybe with #fragment) as seen from ``page``."""
    path, _, fragment = target.partition("#")
    link = posixpath.relpath(path, posixpath.dirname(str(page.target)) or ".")
    return f"{link}#{fragment}" if fragment else link


def link(page: Page, to: Page, text: str | None = None) -> str:
    return f'<a href="{html.escape(relative(page, str(to.target)))}">{html.escape(text or to.title)}</a>'


def neighbours(book: Book, page: Page) -> tuple[Page | None, Page | None]:
    """The previous and next page of the same part."""
    pages = book.part(page.part) if page.part else []
    if page not in pages:
        return None, None
    index = pages.index(page)
    return (pages[index - 1] if index else None), (pages[index + 1] if index + 1 < len(pages) else None)


def nav_bar(book: Book, page: Page) -> str:
    """Home, the index of sections, this page's twins in the other parts, prev / next."""
    home, sections = book.pages[0], book.pages[-1]
    items = [link(page, home, "Course map"), link(page, sections, "Index of sections")]
    readme = book.by_source().get("README.md")
    if readme and readme is not page:
        items.append(link(page, readme, "README"))
    if page.part in ("notebooks", "exercises", "solutions"):
        for folder, name in (("notebooks", "Lesson"), ("exercises", "Exercise"), ("solutions", "Solution")):
            twin = book.twin(page, folder)
            if twin is page:
                items.append(f'<span class="book-here">{name} {page.number}</span>')
            elif twin is not None:
                items.append(link(page, twin, f"{name} {twin.number}"))
    items.append('<span class="book-spacer"></span>')
    before, after = neighbours(book, page)
    if before:
        items.append("← " + link(page, before, f"previous: {before.title}"))
    if after:
        items.append(link(page, after, f"next: {after.title}") + " →")
    return f'<nav class="book-nav">{" ".join(items)}</nav>'


def banner(page: Page) -> str:
    text = BANNERS.get(page.part)
    return f'<div class="book-banner part-{page.part}">{text}</div>' if text else ""


# --- the generated pages: the map and the index of sections ---------------------------


def cell_link(target: Page | None) -> str:
    """A Markdown link to a page, from the map, or a dash."""
    return f"[{target.title}]({target.source})" if target else "-"


def map_markdown(book: Book) -> str:
    """The course map: one row per lesson number, its lesson, exercise and solution."""
    numbered: dict[str, dict[str, Page]] = {}
    for folder in ("notebooks", "exercises", "solutions"):
        for page in book.part(folder):
            numbered.setdefault(page.source.stem, {})[folder] = page
    rows = [
        f"| {next(iter(row.values())).number} | {cell_link(row.get('notebooks'))} | "
        f"{cell_link(row.get('exercises'))} | {cell_link(row.get('solutions'))} |"
        for _, row in sorted(numbered.items())
    ]
    docs = [f"- [{page.title}]({page.source})" for page in book.part("docs")]
    notes = book.by_source().get(INSTRUCTOR_NOTES)
    teaching = [f"Teaching the course? Start with the [{notes.title.lower()}]({notes.source}).", ""] if notes else []
    return "\n".join(
        [
            "# sse-course: the book",
            "",
            "Reading Server-Sent Events when bytes arrive in arbitrary chunks. This is the course as "
            "stored, outputs included: read it here, run it in JupyterLab (see the [README](README.md)). "
            "Each lesson has an exercise to write and a solution to compare with, after your check passes.",
            "",
            *teaching,
            '<a id="notebooks"></a><a id="exercises"></a><a id="solutions"></a>',
            "",
            "## Course map",
            "",
            "| # | Lesson | Exercise | Solution |",
            "|---|---|---|---|",
            *rows,
            "",
            "## Docs",
            "",
            *(docs or ["(none yet)"]),
            "",
            "## Index",
            "",
            f"Every section of every page: [{book.pages[-1].title}]({book.pages[-1].source}).",
        ]
    )


def github_anchor(text: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def add_github_anchors(body: str) -> str:
    """Put GitHub's anchor inside every h1-h3 whose nbconvert id differs from it."""

    def add(match: re.Match) -> str:
        level, anchor, inner = match.groups()
        text = html.unescape(TAG.sub("", inner)).rstrip("¶").strip()
        slug = github_anchor(text)
        extra = f'<a id="{html.escape(slug)}"></a>' if slug and slug != anchor else ""
        return f'<h{level} id="{anchor}">{extra}{inner}</h{level}>'

    return HEADING.sub(add, body)


def headings(body: str) -> list[tuple[int, str, str]]:
    """(level, id, text) of every h1-h3 in a page's HTML."""
    found = []
    for level, anchor, inner in HEADING.findall(body):
        text = html.unescape(TAG.sub("", inner)).rstrip("¶").strip()
        found.append((int(level), anchor, text))
    return found


def sections_markdown(book: Book, built: dict[Page, str]) -> str:
    """One list per page of its headings, each linking to its anchor."""
    lines = ["# Index of sections", ""]
    for page in book.pages[1:-1]:
        lines.append(f"## {PART_NAMES[page.part]}: {page.title}")
        lines.append("")
        for level, anchor, text in headings(built[page]):
            lines.append(f"{'  ' * (level - 1)}- [{text}]({page.source}#{anchor})")
        lines.append("")
    return "\n".join(lines)


# --- widgets, drawn without a kernel ------------------------------------------------


def slider_text(state: dict[str, Any]) -> str:
    return (
        f'<div class="explorer-slider">{html.escape(str(state.get("description", "")))}: '
        f'<b>{html.escape(str(state.get("value")))}</b> '
        f'(from {state.get("min")} to {state.get("max")})</div>'
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


def freeze_widgets(notebook: nbformat.NotebookNode, source: PurePosixPath) -> None:
    """Replace every widget output by its static drawing (see :func:`static_widget`)."""
    models = notebook.metadata.pop("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is None:
                continue
            drawn = static_widget(view.get("model_id", ""), models)
            note = f'<p class="explorer-note">{EXPLORER_NOTE.format(source=html.escape(str(source)))}</p>'
            output["data"] = {"text/html": f'<div class="explorer-static">{note}{drawn}</div>' if drawn else ""}


# --- links --------------------------------------------------------------------------


def book_target(book: Book, repo_path: str, is_folder: bool) -> str | None:
    """The book path for a repository path a page links to, or None."""
    if is_folder and repo_path in PART_NAMES:
        return f"index.html#{repo_path}"
    if repo_path in {str(page.target) for page in book.pages}:
        return repo_path  # already a book page: the navigation bar's own links
    page = book.by_source().get(repo_path)
    return str(page.target) if page else None


def rewrite_links(book: Book, page: Page, body: str) -> str:
    """Local links to repository files become links to book pages (see the module doc)."""

    def replace(match: re.Match) -> str:
        href = html.unescape(match.group(1))
        if not href or href.startswith(("#", "/")) or HAS_SCHEME.match(href):
            return match.group(0)
        path, _, fragment = href.partition("#")
        repo_path = posixpath.normpath(posixpath.join(str(page.source.parent), path))
        target = book_target(book, repo_path, path.endswith("/"))
        if target is None and (book.root / repo_path).is_file():
            shown = html.escape(repo_path)  # source code is read in the repository: plain text here
            return f'data-repo-file="{shown}" title="{shown}, in the repository"'
        if target is None:
            book.problems.append(f"{page.source}: a link to {href!r}, which is not a page of the book")
            return match.group(0)
        if fragment:
            target = f"{target.partition('#')[0]}#{fragment}"
        return f'href="{html.escape(relative(page, target))}"'

    return HREF.sub(replace, body)


# --- building -----------------------------------------------------------------------


def exporter() -> HTMLExporter:
    return HTMLExporter(
        template_name="lab", extra_loaders=[DictLoader({"book.html.j2": TEMPLATE})], template_file="book.html.j2"
    )


def as_notebook(markdown: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(markdown)])


def load(book: Book, page: Page) -> nbformat.NotebookNode:
    path = book.root / page.source
    if page.source.suffix == ".ipynb":
        notebook = nbformat.read(path, as_version=4)
        freeze_widgets(notebook, page.source)
        return notebook
    return as_notebook(path.read_text(encoding="utf-8"))


def render(book: Book, page: Page, notebook: nbformat.NotebookNode, html_exporter: HTMLExporter) -> str:
    notebook.metadata["title"] = f"{page.title} · sse-course"
    top = nav_bar(book, page) + banner(page)
    resources = {"book": {"css": BOOK_CSS, "top": top, "bottom": nav_bar(book, page)}}
    body, _ = html_exporter.from_notebook_node(notebook, resources=resources)
    return add_github_anchors(rewrite_links(book, page, body))


def build(root: Path = ROOT, out: Path = DEFAULT_OUT) -> Book:
    """Write the whole book under ``out`` (emptied first); return what was built."""
    book = discover(root)
    html_exporter = exporter()
    built: dict[Page, str] = {}
    for page in book.pages[1:-1]:
        built[page] = render(book, page, load(book, page), html_exporter)
    home, sections = book.pages[0], book.pages[-1]
    built[home] = render(book, home, as_notebook(map_markdown(book)), html_exporter)
    built[sections] = render(book, sections, as_notebook(sections_markdown(book, built)), html_exporter)
    if out.exists():
        shutil.rmtree(out)
    for page, body in built.items():
        target = out / page.target
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
    return book


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"where to write (default {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    book = build(ROOT, args.out)
    for problem in book.problems:
        print(f"warning: {problem}", file=sys.stderr)
    print(f"{len(book.pages)} pages written to {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
