"""The book builds from the repository and every page of it works in headless Chromium.

``tools/build_book.py`` (Sphinx) is built once into a temporary folder that
already holds a user's file. Every ``.html`` file it wrote is read with a
parser: a page fails when it has no main content, links to a local page or
anchor that does not exist, has no sidebar or a sidebar link to no page, shows
an explorer cell (tagged ``explorer``) as nothing, fetches anything from
outside the book (a CDN script works online and breaks offline), weighs over
1 MB, inlines its CSS, names a favicon that is not there, or shares its title
with another page. Then the book is served on 127.0.0.1 and opened in one
browser, page after page: a page of each part, every page with an explorer,
and pages until every kind of element and every script of the book has been on
a page opened (pages of one kind run the same code on the same shapes of
element, and each page costs the browser most of a second). A page opened
fails when it logs a console error (or a page error), asks for anything
outside the local server (refused even when a network is there), or shows no
main text or an explorer with no height. The search page must find a term from
a lesson. Small broken pages show that the checker flags each of these.

Locally the test skips without Chromium; with ``CI=true`` that is a failure
(the rule of ``tests/test_browser.py``, whose helpers it shares).
"""

from __future__ import annotations

import functools
import json
import os
import re
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urldefrag, urljoin

import build_book  # tools/ is on the path (pyproject.toml)
import course
import nbformat
import pytest
from chromium import launched_browser, require_browser

ROOT = Path(__file__).resolve().parent.parent

MS = 1000
#: Sphinx's parallel build helps on an idle machine; under pytest's two workers both cores are taken.
JOBS = "1" if os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") != "1" else "auto"
MAX_PAGE_BYTES = 1_000_000
#: Inline <style> a page may carry (a notebook output's own), far below a theme's stylesheet.
MAX_INLINE_CSS = 20_000
#: A term that one lesson defines, and that lesson's page: the search must list it.
SEARCH_TERM, SEARCH_PAGE = "LineSplitter", "notebooks/03-text-to-lines.html"
#: Where the parser places the book to resolve its pages' links (never fetched).
BOOK = "http://book.invalid/"
#: Elements that make the browser fetch what their attribute names (a <link> only for these ``rel``).
FETCHED = {"script": "src", "img": "src", "iframe": "src", "source": "src", "audio": "src", "video": "src",
           "embed": "src", "track": "src", "object": "data", "link": "href"}  # fmt: skip
FETCHED_LINKS = {"stylesheet", "icon", "preload", "modulepreload", "prefetch", "manifest", "apple-touch-icon"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
#: What the browser reports about a page it opened: its shown main text, and each explorer
#: cell's drawn view's height (both need layout, which the parser has not).
RENDERED = """() => ({
    main: (document.querySelector('main')?.innerText ?? '').trim().length,
    explorers: [...document.querySelectorAll('.tag_explorer')].map(cell =>
        cell.querySelector('.cell_output .explorer-view')?.getBoundingClientRect().height ?? 0),
})"""
#: The search page's verdict once it has finished, and the pages it lists.
SEARCH_DONE = "() => /^(Search finished|Your search did not match)/.test(document.querySelector('.search-summary')?.innerText ?? '')"  # noqa: E501
SEARCH_RESULTS = "() => [...document.querySelectorAll('#search-results a[href]')].map(a => a.href)"
#: Each result's snippet (Sphinx fetches the page and fills it in after the result shows).
SEARCH_SNIPPETS = "() => [...document.querySelectorAll('#search-results li p.context')].map(p => p.innerText)"
SEARCH_SNIPPETS_DONE = (
    "() => [...document.querySelectorAll('#search-results li')].every(li => li.querySelector('p.context'))"
)
#: Text of the themes' buttons that must not stand in a search snippet.
BUTTON_TEXT = "System Settings"


@dataclass
class Report:
    """What the checker found, page by page (page path -> problems)."""

    problems: dict[str, list[str]] = field(default_factory=dict)

    def add(self, page: str, problem: str) -> None:
        found = self.problems.setdefault(page, [])
        if problem not in found:  # the parser and the browser may both see it
            found.append(problem)

    def lines(self) -> list[str]:
        return [f"{page}: {problem}" for page, found in sorted(self.problems.items()) for problem in found]


@dataclass
class Explorer:
    """An explorer cell as written: whether its output holds a drawn view, and how many elements that has."""

    view: bool = False
    elements: int = 0


class Page(HTMLParser):
    """One built page as written: what the checks need, and its kind (``features``): each
    element's tag with each of its classes (but for a code block's tokens, and a cell's own tags,
    ``tag_*``, but the explorer's: nothing runs on them), and each script, its file or its text
    (the page's name left out). Pages of one kind run the same code on the same shapes of element."""

    def __init__(self, path: str, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.path, self.url, self.size = path, BOOK + quote(path), len(html.encode())
        self.title, self.main, self.css = "", "", 0
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.sidebar: list[tuple[str, str] | None] = []
        self.icons: list[str] = []
        self.fetched: list[str] = []
        self.explorers: list[Explorer] = []
        self.features: set[tuple[str, str]] = set()
        self.open: list[tuple[str, frozenset[str]]] = []  # each open element: its tag, and what it is inside
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        classes = set(attributes.get("class", "").split())
        inside = self.enter(tag, classes)
        if "pre" not in inside:  # highlighted code's tokens are for the stylesheet only
            self.features |= {
                (tag, name) for name in classes or {""} if not name.startswith("tag_") or name == "tag_explorer"
            }
        if "id" in attributes:
            self.ids.add(attributes["id"])
        if tag == "a" and "name" in attributes:
            self.ids.add(attributes["name"])
        self.note_references(tag, attributes, inside)
        if tag not in VOID:
            self.open.append((tag, inside))

    def enter(self, tag: str, classes: set[str]) -> frozenset[str]:
        """What an element opened here is inside: the main content, the sidebar, a code block, an
        explorer cell, its output, its drawn view (whose elements it counts)."""
        inside = set(self.open[-1][1] if self.open else ())
        if tag in ("main", "pre") or tag == "nav" and "bd-docs-nav" in classes:
            inside.add(tag)
        if "tag_explorer" in classes:
            self.explorers.append(Explorer())
            inside.add("explorer")
        elif "cell_output" in classes and "explorer" in inside:
            inside.add("output")
        elif "explorer-view" in classes and "output" in inside and not self.explorers[-1].view:
            self.explorers[-1].view = True
            inside.add("view")
        elif "view" in inside:
            self.explorers[-1].elements += 1
        return frozenset(inside)

    def note_references(self, tag: str, attributes: dict[str, str], inside: frozenset[str]) -> None:
        """Links (and the sidebar's), favicons, and what the browser would fetch."""
        if tag == "a" and "href" in attributes:
            href = urljoin(self.url, attributes["href"])
            self.links.append(href)
            if "nav" in inside:
                self.sidebar.append(local_target(href, BOOK))
        rel = set(attributes.get("rel", "").split())
        if tag == "link" and "icon" in rel:
            self.icons.append(urljoin(self.url, attributes.get("href", "")))
        if attributes.get(FETCHED.get(tag, "")) and (tag != "link" or rel & FETCHED_LINKS):
            url = urljoin(self.url, attributes[FETCHED[tag]])
            self.fetched.append(url)
            if tag == "script":
                self.features.add(("script", local_target(url, BOOK)[0] if url.startswith(BOOK) else url))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.open) - 1, -1, -1):
            if self.open[depth][0] == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        tag, inside = self.open[-1] if self.open else ("", frozenset())
        if tag == "title":
            self.title += data
        elif tag == "style":
            self.css += len(data)
        elif tag == "script" and data.strip():
            self.features.add(("script", re.sub(r"pagename = '[^']*'", "pagename = ''", data.strip())))
        elif "main" in inside:
            self.main += data


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # the test's output is the report, not the access log
        pass


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    require_browser()
    with launched_browser() as browser:
        yield browser


def closed_port() -> int:
    """A loopback port nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(folder: Path) -> tuple[ThreadingHTTPServer, str]:
    """A static server for ``folder`` on a free loopback port, in a daemon thread."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class Tab:
    """One browser tab reused for every page; what each page logged is collected per visit.

    Every request but the book server's goes to a closed local port as its proxy, so it
    fails at once, online or not, and is reported. (Intercepting requests instead would
    turn the browser's cache off: the theme's scripts would load anew on every page.)"""

    def __init__(self, browser: Any, base: str) -> None:
        self.base = base
        self.seen: list[str] = []
        self.context = browser.new_context(proxy={"server": f"http://127.0.0.1:{closed_port()}", "bypass": "127.0.0.1"})
        self.page = self.context.new_page()
        self.page.set_default_timeout(15 * MS)
        self.page.on("console", self.on_console)
        self.page.on("pageerror", lambda error: self.seen.append(f"page error: {error}"))
        self.page.on("request", self.on_request)

    def on_console(self, message: Any) -> None:
        if message.type == "error" and not message.text.startswith("Failed to load resource: net::ERR_PROXY"):
            self.seen.append(f"console error: {message.text}")  # (a refused request is reported once, below)

    def on_request(self, request: Any) -> None:
        if not request.url.startswith(self.base):
            self.seen.append(f"request outside the book: {request.url}")

    def inspect(self, path: str, report: Report) -> None:
        """Open one page; record in ``report`` what it logged and what it shows as nothing."""
        self.seen = []
        response = self.page.goto(self.base + path, wait_until="load")
        if response is None or response.status != 200:
            self.seen.append(f"HTTP status {response.status if response else 'none'}")
        found = self.page.evaluate(RENDERED)
        for problem in self.seen:
            report.add(path, problem)
        if not found["main"]:
            report.add(path, "no main content")
        for number, height in enumerate(found["explorers"], 1):
            if height < 20:
                report.add(path, f"explorer {number} is shown as nothing")

    def search(self, term: str) -> tuple[list[str], list[str]]:
        """The pages the book's own search page lists for ``term`` (book paths), and their snippets."""
        self.page.goto(f"{self.base}search.html?q={quote(term)}", wait_until="load")
        self.page.wait_for_function(SEARCH_DONE)
        self.page.wait_for_function(SEARCH_SNIPPETS_DONE)
        found = [urldefrag(href)[0][len(self.base) :] for href in self.page.evaluate(SEARCH_RESULTS)]
        return found, self.page.evaluate(SEARCH_SNIPPETS)


def local_target(href: str, base: str) -> tuple[str, str] | None:
    """(book path, fragment) of a link into the book, or None for an outside link."""
    target, fragment = urldefrag(href)
    return (unquote(target[len(base) :]) or "index.html", fragment) if target.startswith(base) else None


def check_page(report: Report, folder: Path, page: Page, pages: dict[str, Page]) -> None:
    """What the written page must be: content, links that reach a page (and its anchor) or a
    file, a sidebar of pages, its favicon, nothing fetched from outside, drawn explorers, its size."""
    path = page.path
    if not page.main.strip():
        report.add(path, "no main content")
    for href in page.links:
        local = local_target(href, BOOK)
        if local is None:
            continue  # an outside link (the standard, httpx's site): not the book's to check
        name, fragment = local
        if name.startswith(f"{build_book.LITE}/") and not (folder / build_book.LITE).is_dir():
            continue  # the site that runs the notebooks, built apart (tests/test_lite.py follows these links)
        if name not in pages and not (folder / name).is_file():
            report.add(path, f"broken link: {href[len(BOOK) :]} (no such page)")
        elif fragment and name in pages and not {fragment, unquote(fragment)} & pages[name].ids:
            report.add(path, f"broken link: {href[len(BOOK) :]} (no such anchor)")  # the HTML rule
    if not page.sidebar:
        report.add(path, "no sidebar")
    for local in page.sidebar:
        if local is None or local[0] not in pages:
            report.add(path, f"sidebar link to no page of the book: {local}")
    for icon in page.icons:
        local = local_target(icon, BOOK)
        if local is None or not (folder / local[0]).is_file():
            report.add(path, f"favicon not found: {icon.removeprefix(BOOK)}")
    for url in page.fetched:
        if not url.startswith(BOOK):
            report.add(path, f"request outside the book: {url}")
    for number, explorer in enumerate(page.explorers, 1):
        if not explorer.view or explorer.elements == 0:
            report.add(path, f"explorer {number} is shown as nothing")
    if page.css > MAX_INLINE_CSS:
        report.add(path, f"inline CSS: {page.css} characters")
    if page.size > MAX_PAGE_BYTES:
        report.add(path, f"{page.size} bytes, over {MAX_PAGE_BYTES}")


def check_titles(report: Report, pages: dict[str, Page]) -> None:
    titles = Counter(page.title for page in pages.values())
    for path, page in pages.items():
        if titles[page.title] > 1:
            report.add(path, f"title shared with another page: {page.title!r}")


def pages_to_open(pages: dict[str, Page]) -> list[str]:
    """The home and search pages, every page with an explorer (its drawing's size needs layout),
    pages until every feature of every page (see :class:`Page`) is on a page opened, and the
    first page of each part of the book (a top-level page, a folder) that none of these is in."""
    chosen = [path for path, page in pages.items() if path in ("index.html", "search.html") or page.explorers]
    covered = set().union(*(pages[path].features for path in chosen))
    while left := {path: page.features - covered for path, page in pages.items() if page.features - covered}:
        path = max(sorted(left), key=lambda path: len(left[path]))
        chosen.append(path)
        covered |= pages[path].features
    parts = {path.partition("/")[0]: path for path in sorted(pages, reverse=True)}
    return chosen + [
        path for part, path in sorted(parts.items()) if part not in {path.partition("/")[0] for path in chosen}
    ]


def check_site(
    browser: Any, folder: Path, search: tuple[str, str] | None = None
) -> tuple[Report, dict[str, Page], list[str]]:
    """Check every page under ``folder`` as written; open in the browser a page of each kind,
    and the search for ``search`` (term, page it must list). Returns the report, the pages
    and those opened."""
    report = Report()
    pages = {}
    for file in sorted(folder.rglob("*.html")):
        if file.relative_to(folder).parts[0] == "_static":
            continue  # the theme's own template files, never linked
        path = file.relative_to(folder).as_posix()
        pages[path] = Page(path, file.read_text(encoding="utf-8"))
    for page in pages.values():
        check_page(report, folder, page, pages)
    check_titles(report, pages)
    opened = pages_to_open(pages)
    server, base = serve(folder)
    tab = Tab(browser, base)
    try:
        for path in opened:
            tab.inspect(path, report)
        if search:
            term, page = search
            found, snippets = tab.search(term)
            if page not in found:
                report.add("search.html", f"searching {term!r} does not list {page}")
            for snippet in snippets:
                if BUTTON_TEXT in snippet or not snippet.strip():
                    report.add("search.html", f"a snippet shows no text of its page: {snippet[:120]!r}")
    finally:
        tab.context.close()
        server.shutdown()
        server.server_close()
    return report, pages, opened


# --- the real book ------------------------------------------------------------------

USER_FILES = {"notes.txt": "my notes\n", "mine/draft.md": "# a draft\n"}


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], Path]:
    """The book, built once for the module into a folder that already holds a user's files."""
    out = tmp_path_factory.mktemp("book")
    for name, text in USER_FILES.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, encoding="utf-8")
    return build_book.build(ROOT, out, jobs=JOBS), out


def book_pages() -> set[str]:
    """The pages the manifest and docs/ promise, as built paths."""
    pages = {"index.html", "search.html", Path(build_book.KEY_POINTS).with_suffix(".html").as_posix()}
    pages |= {f"docs/{path.stem}.html" for path in (ROOT / "docs").glob("*.md")}
    for lesson in course.load(ROOT).lessons:
        pages |= {str(Path(path).with_suffix(".html")) for path in build_book.twins(lesson).values()}
    return pages


def explorer_count(folder: str) -> int:
    return sum(
        "explorer" in cell.metadata.get("tags", [])
        for path in (ROOT / folder).glob("*.ipynb")
        for cell in nbformat.read(path, as_version=4).cells
    )


@pytest.mark.browser
def test_every_page_of_the_book_has_no_broken_link_and_each_kind_renders_with_no_error(
    browser: Any, book: tuple[list[str], Path]
) -> None:
    problems, out = book
    assert problems == []
    assert SEARCH_TERM in (ROOT / SEARCH_PAGE).with_suffix(".ipynb").read_text(encoding="utf-8")
    report, pages, opened = check_site(browser, out, search=(SEARCH_TERM, SEARCH_PAGE))
    assert report.lines() == []
    assert set(pages) == book_pages()
    sidebar = [local[0] for local in pages["index.html"].sidebar if local]
    assert set(sidebar) == book_pages() - {"search.html"}
    order = [page for lesson in course.load(ROOT).lessons for page in (lesson.notebook, lesson.exercise) if page]
    assert sidebar[1 : len(order) + 1] == [str(Path(page).with_suffix(".html")) for page in order], (
        "each lesson, then its exercise"
    )
    print(f"{len(opened)} of {len(pages)} pages opened in the browser: {opened}")
    explorers = sum(len(page.explorers) for page in pages.values())
    assert explorers == sum(explorer_count(folder) for folder in ("notebooks", "exercises", "solutions")) > 0


def test_building_into_a_folder_keeps_what_was_there(book: tuple[list[str], Path]) -> None:
    _, out = book
    for name, text in USER_FILES.items():
        assert (out / name).read_text(encoding="utf-8") == text
    assert (out / "index.html").is_file()


def test_the_home_page_is_the_course_map_from_the_manifest(book: tuple[list[str], Path]) -> None:
    _, out = book
    body = (out / "index.html").read_text(encoding="utf-8")
    for lesson in course.load(ROOT).lessons:
        assert f'href="{Path(lesson.notebook).with_suffix(".html")}"' in body
        assert f"reading {lesson.reading_minutes} min" in body
        assert f"teaching it live, {lesson.teaching_minutes} min" in body
    assert "Prerequisites:" in body and "What you’ll learn" in body


def test_a_solution_page_is_marked_titled_apart_and_links_its_lesson_and_exercise(book: tuple[list[str], Path]) -> None:
    _, out = book
    lesson = next(lesson for lesson in course.load(ROOT).lessons if lesson.solution)
    body = (out / lesson.solution).with_suffix(".html").read_text(encoding="utf-8")
    exercise = (out / lesson.exercise).with_suffix(".html").read_text(encoding="utf-8")
    assert "open it only after your own check passes" in body
    assert f"<title>Solution {lesson.id} · " in body and "<title>Solution" not in exercise
    assert f'href="../{Path(lesson.notebook).with_suffix(".html")}"' in body
    assert f'href="../{Path(lesson.exercise).with_suffix(".html")}"' in body


#: A marker line as the highlighter draws it: a comment token that starts the line.
SHOWN_MARKER = re.compile(r'<span class="c1">(# NBVAL_\w+|### (BEGIN|END) SOLUTION)')


def test_every_notebook_page_links_its_run_in_the_browser_and_its_download_and_shows_no_marker(
    book: tuple[list[str], Path],
) -> None:
    _, out = book
    sources = ""
    for lesson in course.load(ROOT).lessons:
        for path in build_book.twins(lesson).values():
            body = (out / path).with_suffix(".html").read_text(encoding="utf-8")
            depth = "../" * path.count("/")
            assert f'class="run-in-browser" href="{depth}lite/notebooks/index.html?path={path}"' in body, path
            assert f'class="download-notebook" href="{Path(path).name}" download' in body, path
            assert (out / path).read_bytes() == (ROOT / path).read_bytes()
            assert not SHOWN_MARKER.search(body), (path, SHOWN_MARKER.search(body))
            sources += (ROOT / path).read_text(encoding="utf-8")
    assert "# NBVAL_IGNORE_OUTPUT" in sources and "### BEGIN SOLUTION" in sources  # there were markers to drop


# --- the builder's pieces, without a browser ------------------------------------------

STATE = {
    "box": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_cut", "IPY_MODEL_view"]}},
    "cut": {"model_name": "IntSliderModel", "state": {"description": "cut 1", "value": 4, "min": 1, "max": 12}},
    "view": {"model_name": "HTMLModel", "state": {"value": '<div class="split">drawn</div>'}},
}


def widget_notebook(model_id: str) -> nbformat.NotebookNode:
    output = nbformat.v4.new_output(
        "execute_result", data={build_book.WIDGET_VIEW: {"model_id": model_id}, "text/plain": "VBox(...)"}
    )
    cell = nbformat.v4.new_code_cell("explorer()", outputs=[output])
    metadata = {"widgets": {build_book.WIDGET_STATE: {"state": STATE}}}
    return nbformat.v4.new_notebook(cells=[cell], metadata=metadata)


def test_a_widget_is_drawn_from_its_stored_state_with_where_to_move_it() -> None:
    notebook = widget_notebook("box")
    build_book.freeze_widgets(notebook, "notebooks/00-welcome.ipynb")
    drawn = notebook.cells[0].outputs[0]["data"]
    assert list(drawn) == ["text/html"]
    assert '<div class="explorer-view"><div class="split">drawn</div></div>' in drawn["text/html"]
    assert "cut 1: <b>4</b> (from 1 to 12)" in drawn["text/html"]
    assert "open <code>notebooks/00-welcome.ipynb</code> in JupyterLab" in drawn["text/html"]
    assert "widgets" not in notebook.metadata  # so no widget manager script is asked for


def test_an_output_widget_is_drawn_from_what_it_captured() -> None:
    models = {"out": {"model_name": "OutputModel", "state": {"outputs": [
        {"output_type": "display_data", "data": {"text/html": "<b>view</b>", "text/plain": "view"}},
        {"output_type": "stream", "name": "stdout", "text": "a < b\n"},
    ]}}}  # fmt: skip
    assert build_book.static_widget("out", models) == "<b>view</b><pre>a &lt; b\n</pre>"


def test_marker_lines_are_dropped_from_code_and_nothing_else() -> None:
    code = "def f():\n    ### BEGIN SOLUTION\n    return 1  # NBVAL_ here is text\n    ### END SOLUTION"
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("# NBVAL_IGNORE_OUTPUT\nprint(1)"), nbformat.v4.new_code_cell(code)]
    )
    build_book.strip_markers(notebook)
    assert [cell.source for cell in notebook.cells] == ["print(1)", "def f():\n    return 1  # NBVAL_ here is text"]


def test_a_widget_without_stored_state_is_drawn_as_nothing_for_the_check_to_catch() -> None:
    notebook = widget_notebook("not-stored")
    build_book.freeze_widgets(notebook, "notebooks/x.ipynb")
    assert notebook.cells[0].outputs[0]["data"] == {"text/html": ""}


# --- the checker rejects each kind of broken page -----------------------------------

#: The pages are one part of the site (a folder) beside its search page, so that the browser opens
#: only those the rule picks: the first, those with an explorer, those with a kind of their own.
PART = "pages"
SIDEBAR = '<nav class="bd-docs-nav"><a href="good.html">good</a></nav>'
GOOD = f'<main><h1 id="top">Fine</h1><a href="good.html#top">here</a></main>{SIDEBAR}'
SEARCH_PAGE_BODY = (
    f'<main>search{SIDEBAR}<div id="search-results"><p class="search-summary">Search finished, found one page'
    '</p><ul><li><a href="good.html">good</a><p class="context">... System Settings Light Dark ...</p></li></ul>'
    "</div></main>"
).replace('href="', f'href="{PART}/')
BROKEN_PAGES = {
    "good.html": GOOD,
    "no-main.html": f"<p>text outside any main element</p>{SIDEBAR}",
    "empty-main.html": f"<main>  </main>{SIDEBAR}",
    "console-error.html": f"{GOOD}<script>console.error('boom')</script>",
    "script-error.html": f"{GOOD}<script>undefinedFunction()</script>",
    "cdn.html": f'{GOOD}<script src="https://cdn.example.invalid/require.js"></script>',
    "bad-page-link.html": f'<main><a href="missing.html">gone</a></main>{SIDEBAR}',
    "bad-anchor-link.html": f'<main><a href="good.html#nowhere">gone</a></main>{SIDEBAR}',
    "empty-explorer.html": f'<main>text<div class="tag_explorer"><div class="cell_output"></div></div></main>{SIDEBAR}',
    "blank-explorer.html": '<main>text<div class="tag_explorer"><div class="cell_output">'
    f'<div class="explorer-view"></div></div></div></main>{SIDEBAR}',
    "hidden-explorer.html": '<main>text<div class="tag_explorer"><div class="cell_output"><div class="explorer-view">'
    f'<div style="display: none">drawn</div></div></div></div></main>{SIDEBAR}',  # only a browser sees it has no size
    "no-sidebar.html": "<main>text</main>",
    "bad-sidebar.html": '<main>text</main><nav class="bd-docs-nav"><a href="gone.html">gone</a></nav>',
    "heavy.html": f"{GOOD}<!-- {'x' * MAX_PAGE_BYTES} -->",
    "inline-css.html": f"{GOOD}<style>/* {'x' * MAX_INLINE_CSS} */</style>",
    "bad-favicon.html": f'<link rel="icon" href="favicon.svg">{GOOD}',
    "same-title-1.html": f"<title>Exercise 01</title>{GOOD}",
    "same-title-2.html": f"<title>Exercise 01</title>{GOOD}",
}
EXPECTED = {
    "no-main.html": "no main content",
    "empty-main.html": "no main content",
    "console-error.html": "console error: boom",
    "script-error.html": "page error: ",
    "cdn.html": "request outside the book: https://cdn.example.invalid/require.js",
    "bad-page-link.html": f"broken link: {PART}/missing.html (no such page)",
    "bad-anchor-link.html": f"broken link: {PART}/good.html#nowhere (no such anchor)",
    "empty-explorer.html": "explorer 1 is shown as nothing",
    "blank-explorer.html": "explorer 1 is shown as nothing",
    "no-sidebar.html": "no sidebar",
    "bad-sidebar.html": f"sidebar link to no page of the book: ('{PART}/gone.html', '')",
    "heavy.html": "1000",
    "inline-css.html": "inline CSS: 2000",
    "hidden-explorer.html": "explorer 1 is shown as nothing",
    "bad-favicon.html": f"favicon not found: {PART}/favicon.svg",
    "same-title-1.html": "title shared with another page: 'Exercise 01'",
    "same-title-2.html": "title shared with another page: 'Exercise 01'",
    "search.html": f"searching 'needle' does not list {PART}/heavy.html",
    "search.html#snippet": "a snippet shows no text of its page: '... System Settings",
}


@pytest.mark.browser
def test_the_checker_flags_each_kind_of_broken_page(browser: Any, tmp_path: Path) -> None:
    (tmp_path / PART).mkdir()
    for path, body in [
        ("search.html", SEARCH_PAGE_BODY),
        *((f"{PART}/{name}", body) for name, body in BROKEN_PAGES.items()),
    ]:
        title = "" if "<title>" in body else f"<title>{path}</title>"
        (tmp_path / path).write_text(
            f"<!DOCTYPE html><html><head>{title}</head><body>{body}</body></html>", encoding="utf-8"
        )
    report, pages, opened = check_site(browser, tmp_path, search=("needle", f"{PART}/heavy.html"))
    assert f"{PART}/good.html" not in report.problems
    for name, expected in EXPECTED.items():
        path = name.partition("#")[0] if name.startswith("search.html") else f"{PART}/{name}"
        assert any(problem.startswith(expected) for problem in report.problems.get(path, [])), (
            path,
            json.dumps(report.problems, indent=1),
        )
    assert f"{PART}/bad-page-link.html" not in opened, "a page of a kind already opened is read, not opened"


# --- a phone, and dark mode -------------------------------------------------------------

PHONE = {"width": 390, "height": 844}
#: The theme's navigation: each kind of toggle button, and the dialog it must open.
NAVIGATION = {"primary-toggle": "pst-primary-sidebar-modal", "secondary-toggle": "pst-secondary-sidebar-modal"}
#: The lowest contrast ratio (WCAG's) of any text shown in a rich output (an explorer's drawing,
#: a table), each element's colour against the first background behind it.
LOWEST_CONTRAST = """() => {
    const channels = (css) => (css.match(/[\\d.]+/g) || []).map(Number);
    const luminance = ([r, g, b]) => [r, g, b].map(c => c / 255)
        .map(c => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)
        .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
    const behind = (element) => {
        for (; element; element = element.parentElement) {
            const colour = channels(getComputedStyle(element).backgroundColor);
            if (colour.length === 3 || colour[3] > 0) return colour.slice(0, 3);
        }
        return [255, 255, 255];
    };
    let lowest = 21;
    for (const element of document.querySelectorAll('.cell_output .text_html, .cell_output .text_html *')) {
        const text = [...element.childNodes].some(node => node.nodeType === Node.TEXT_NODE && node.textContent.trim());
        if (!text || !element.getClientRects().length) continue;
        const [a, b] = [channels(getComputedStyle(element).color).slice(0, 3), behind(element)].map(luminance);
        lowest = Math.min(lowest, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05));
    }
    return lowest;
}"""
MIN_CONTRAST = 4.5  # WCAG AA for text
NAVIGATION_PAGE = "notebooks/02-bytes-to-text.html"


def without(asset: str) -> Any:
    """A route handler serving a page without the link or script that loads ``asset``."""

    def serve(route: Any) -> None:
        body = route.fetch().text()
        route.fulfill(body=re.sub(rf"<[^>]*{re.escape(asset)}[^>]*>(</script>)?", "", body), content_type="text/html")

    return serve


def navigation_opened(
    browser: Any, base: str, path: str, kinds: tuple[str, ...] = tuple(NAVIGATION), broken: str | None = None
) -> dict[str, int]:
    """At a phone's width: for each kind of toggle button, the links in the dialog a tap on it opens."""
    context = browser.new_context(
        viewport=PHONE, proxy={"server": f"http://127.0.0.1:{closed_port()}", "bypass": "127.0.0.1"}
    )
    page = context.new_page()
    if broken:
        page.route(base + path, without(broken))
    try:
        page.goto(base + path, wait_until="load")
        opened = {}
        for kind in kinds:
            page.locator(f".{kind}:visible").first.click()
            links = page.locator(f"#{NAVIGATION[kind]}[open] a[href]")
            try:
                links.first.wait_for(timeout=MS)
            except Exception:  # playwright's TimeoutError: the dialog did not open
                pass
            opened[kind] = links.count()
            page.keyboard.press("Escape")
        return opened
    finally:
        context.close()


def lowest_contrast(browser: Any, base: str, path: str, broken: str | None = None) -> dict[str, float]:
    """The page's lowest contrast in rich outputs, in light mode and then in dark mode (the theme
    follows the system's scheme)."""
    context = browser.new_context(proxy={"server": f"http://127.0.0.1:{closed_port()}", "bypass": "127.0.0.1"})
    page = context.new_page()
    if broken:
        page.route(base + path, without(broken))
    try:
        page.emulate_media(color_scheme="light")
        page.goto(base + path, wait_until="load")
        found = {"light": page.evaluate(LOWEST_CONTRAST)}
        page.emulate_media(color_scheme="dark")
        page.wait_for_function("() => document.documentElement.dataset.theme === 'dark'")
        return found | {"dark": page.evaluate(LOWEST_CONTRAST)}
    finally:
        context.close()


@pytest.fixture(scope="module")
def served_book(book: tuple[list[str], Path]) -> Iterator[str]:
    server, base = serve(book[1])
    try:
        yield base
    finally:
        server.shutdown()
        server.server_close()


def test_on_a_phone_both_navigation_buttons_open_their_menu(browser: Any, served_book: str) -> None:
    opened = navigation_opened(browser, served_book, NAVIGATION_PAGE)
    assert all(opened.values()), opened
    assert navigation_opened(browser, served_book, NAVIGATION_PAGE, ("primary-toggle",), broken="course.js") == {
        "primary-toggle": 0
    }


def test_in_dark_mode_the_explorers_text_keeps_its_contrast(browser: Any, served_book: str) -> None:
    """As readable as in light mode (whose lowest, small grey byte numbers on the darkest role
    colour, is the drawing's own), or better than WCAG's floor for text."""
    contrast = lowest_contrast(browser, served_book, NAVIGATION_PAGE)
    floor = min(contrast["light"], MIN_CONTRAST) - 0.01
    assert contrast["dark"] >= floor, contrast
    assert lowest_contrast(browser, served_book, NAVIGATION_PAGE, broken="course.css")["dark"] < floor
