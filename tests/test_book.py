"""The book builds from the repository and every page of it works in headless Chromium.

``tools/build_book.py`` is built into a temporary folder, served on 127.0.0.1,
and every ``.html`` file it wrote is opened in one browser, in sequence. A page
fails when it has no main content, logs a console error (or a page error), asks
for anything outside the local server (a CDN script works online and breaks
offline, so it is refused even when a network is there), links to a local page
or anchor that does not exist, or shows an explorer cell (tagged ``explorer``)
as nothing. Small broken pages show that the checker flags each of these.

Locally the test skips without Chromium; with ``CI=true`` that is a failure
(the rule of ``tests/test_browser.py``, whose helpers it shares).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag

import nbformat
import pytest
from test_browser import launched_browser, require_browser

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("build_book", ROOT / "tools" / "build_book.py")
build_book = sys.modules["build_book"] = importlib.util.module_from_spec(spec)  # dataclasses look it up
spec.loader.exec_module(build_book)

MS = 1000
#: What the browser reports about one page: its visible main text, every anchor
#: target it holds, every link, and each explorer cell's drawn view.
INSPECT = """() => {
    const main = document.querySelector('main');
    const ids = [...document.querySelectorAll('[id]')].map(e => e.id)
        .concat([...document.querySelectorAll('a[name]')].map(e => e.name));
    const links = [...document.querySelectorAll('a[href]')].map(a => a.href);
    const explorers = [...document.querySelectorAll('.celltag_explorer')].map(cell => {
        const view = cell.querySelector('.jp-OutputArea .explorer-view');
        const box = view ? view.getBoundingClientRect() : {height: 0};
        return {height: box.height, elements: view ? view.querySelectorAll('*').length : 0};
    });
    return {main: main ? main.innerText.trim() : null, ids, links, explorers};
}"""


@dataclass
class Report:
    """What the checker found, page by page (page path -> problems)."""

    problems: dict[str, list[str]] = field(default_factory=dict)

    def add(self, page: str, problem: str) -> None:
        self.problems.setdefault(page, []).append(problem)

    def lines(self) -> list[str]:
        return [f"{page}: {problem}" for page, found in sorted(self.problems.items()) for problem in found]


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # the test's output is the report, not the access log
        pass


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    require_browser()
    with launched_browser() as browser:
        yield browser


def serve(folder: Path) -> tuple[ThreadingHTTPServer, str]:
    """A static server for ``folder`` on a free loopback port, in a daemon thread."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class Tab:
    """One browser tab reused for every page; what each page logged is collected per visit."""

    def __init__(self, browser: Any, base: str) -> None:
        self.base = base
        self.seen: list[str] = []
        self.page = browser.new_page()
        self.page.set_default_timeout(15 * MS)
        self.page.on("console", self.on_console)
        self.page.on("pageerror", lambda error: self.seen.append(f"page error: {error}"))
        self.page.route("**/*", self.only_local)

    def on_console(self, message: Any) -> None:
        if message.type == "error":
            self.seen.append(f"console error: {message.text}")

    def only_local(self, route: Any) -> None:
        if route.request.url.startswith(self.base):
            route.continue_()
        else:
            self.seen.append(f"request outside the book: {route.request.url}")
            route.abort()

    def inspect(self, path: str, report: Report) -> dict[str, Any]:
        """Open one page; record its problems in ``report``; return INSPECT's findings."""
        self.seen = []
        response = self.page.goto(self.base + path, wait_until="load")
        if response is None or response.status != 200:
            self.seen.append(f"HTTP status {response.status if response else 'none'}")
        found = self.page.evaluate(INSPECT)
        for problem in self.seen:
            report.add(path, problem)
        if not found["main"]:
            report.add(path, "no main content")
        for number, explorer in enumerate(found["explorers"], 1):
            if explorer["height"] < 20 or explorer["elements"] == 0:
                report.add(path, f"explorer {number} is shown as nothing")
        return found


def check_site(browser: Any, folder: Path) -> tuple[Report, dict[str, dict[str, Any]]]:
    """Open every page under ``folder``; then check every local link against what was seen."""
    server, base = serve(folder)
    report = Report()
    pages: dict[str, dict[str, Any]] = {}
    tab = Tab(browser, base)
    try:
        for file in sorted(folder.rglob("*.html")):
            path = file.relative_to(folder).as_posix()
            pages[path] = tab.inspect(path, report)
    finally:
        tab.page.close()
        server.shutdown()
        server.server_close()
    for path, found in pages.items():
        for href in found["links"]:
            target, fragment = urldefrag(href)
            if not target.startswith(base):
                continue  # an outside link (the standard, httpx's site): not the book's to check
            name = target[len(base) :] or "index.html"
            if name not in pages:
                report.add(path, f"broken link: {href[len(base):]} (no such page)")
            elif fragment and not {fragment, unquote(fragment)} & set(pages[name]["ids"]):  # the HTML rule
                report.add(path, f"broken link: {href[len(base):]} (no such anchor)")
    return report, pages


# --- the real book ------------------------------------------------------------------


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    out = tmp_path_factory.mktemp("book")
    return build_book.build(ROOT, out), out


def explorer_count(folder: str) -> int:
    return sum(
        "explorer" in cell.metadata.get("tags", [])
        for path in (ROOT / folder).glob("*.ipynb")
        for cell in nbformat.read(path, as_version=4).cells
    )


def test_every_page_of_the_book_renders_with_no_error_and_no_broken_link(browser: Any, book: tuple[Any, Path]) -> None:
    built, out = book
    assert built.problems == []
    report, pages = check_site(browser, out)
    assert report.lines() == []
    assert sorted(pages) == sorted(str(page.target) for page in built.pages)
    explorers = sum(len(found["explorers"]) for found in pages.values())
    assert explorers == sum(explorer_count(folder) for folder in ("notebooks", "exercises", "solutions")) > 0


def test_the_book_discovers_every_lesson_exercise_solution_and_doc() -> None:
    sources = {str(page.source) for page in build_book.discover(ROOT).pages}
    for folder, pattern in (("notebooks", "*.ipynb"), ("exercises", "*.ipynb"), ("solutions", "*.ipynb"), ("docs", "*.md")):
        for path in (ROOT / folder).glob(pattern):
            assert f"{folder}/{path.name}" in sources


def test_a_solution_page_is_marked_and_links_its_lesson_and_exercise(book: tuple[Any, Path]) -> None:
    built, out = book
    solution = built.part("solutions")[0]
    body = (out / solution.target).read_text(encoding="utf-8")
    assert "open it only after your own check passes" in body
    assert f'href="../notebooks/{solution.source.stem}.html"' in body
    assert f'href="../exercises/{solution.source.stem}.html"' in body


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
    build_book.freeze_widgets(notebook, Path("notebooks/00-welcome.ipynb"))
    drawn = notebook.cells[0].outputs[0]["data"]
    assert list(drawn) == ["text/html"]
    assert '<div class="explorer-view"><div class="split">drawn</div></div>' in drawn["text/html"]
    assert "cut 1: <b>4</b> (from 1 to 12)" in drawn["text/html"]
    assert "Open <code>notebooks/00-welcome.ipynb</code> in JupyterLab" in drawn["text/html"]
    assert "widgets" not in notebook.metadata  # so no widget manager script is asked for


def test_an_output_widget_is_drawn_from_what_it_captured() -> None:
    models = {"out": {"model_name": "OutputModel", "state": {"outputs": [
        {"output_type": "display_data", "data": {"text/html": "<b>view</b>", "text/plain": "view"}},
        {"output_type": "stream", "name": "stdout", "text": "a < b\n"},
    ]}}}  # fmt: skip
    assert build_book.static_widget("out", models) == "<b>view</b><pre>a &lt; b\n</pre>"


def test_a_widget_without_stored_state_is_drawn_as_nothing_for_the_check_to_catch() -> None:
    notebook = widget_notebook("not-stored")
    build_book.freeze_widgets(notebook, Path("notebooks/x.ipynb"))
    assert notebook.cells[0].outputs[0]["data"] == {"text/html": ""}


def test_local_links_are_rewritten_to_pages_and_unknown_ones_reported() -> None:
    book = build_book.discover(ROOT)
    lesson = book.part("notebooks")[1]
    body = '<a href="../README.md#course-map">m</a><a href="../exercises/">e</a><a href="../tools/x.py">t</a>'
    body += '<a href="../tools/build_book.py">b</a>'
    body += f'<a href="{lesson.source.name}">l</a><a href="https://example.org/">o</a>'
    rewritten = build_book.rewrite_links(book, lesson, body)
    assert 'href="../README.html#course-map"' in rewritten
    assert 'href="../index.html#exercises"' in rewritten
    assert f'href="{lesson.target.name}"' in rewritten
    assert '<a data-repo-file="tools/build_book.py" title="tools/build_book.py, in the repository">b</a>' in rewritten
    assert 'href="../tools/x.py"' in rewritten and 'href="https://example.org/"' in rewritten
    assert book.problems == [f"{lesson.source}: a link to '../tools/x.py', which is not a page of the book"]


def test_headings_also_get_the_anchor_github_gives_them() -> None:
    assert build_book.github_anchor("08 · Real streams") == "08--real-streams"
    assert build_book.github_anchor("Set up (two commands)") == "set-up-two-commands"
    body = '<h2 id="Course-map">Course map<a class="anchor-link" href="#Course-map">¶</a></h2>'
    assert build_book.add_github_anchors(body).startswith('<h2 id="Course-map"><a id="course-map"></a>Course map')


# --- the checker rejects each kind of broken page -----------------------------------

GOOD = '<main><h1 id="top">Fine</h1><a href="good.html#top">here</a></main>'
BROKEN_PAGES = {
    "good.html": GOOD,
    "no-main.html": "<p>text outside any main element</p>",
    "empty-main.html": "<main>  </main>",
    "console-error.html": f"{GOOD}<script>console.error('boom')</script>",
    "script-error.html": f"{GOOD}<script>undefinedFunction()</script>",
    "cdn.html": f'{GOOD}<script src="https://cdn.example.invalid/require.js"></script>',
    "bad-page-link.html": '<main><a href="missing.html">gone</a></main>',
    "bad-anchor-link.html": '<main><a href="good.html#nowhere">gone</a></main>',
    "empty-explorer.html": '<main>text<div class="celltag_explorer"><div class="jp-OutputArea"></div></div></main>',
    "blank-explorer.html": '<main>text<div class="celltag_explorer"><div class="jp-OutputArea">'
    '<div class="explorer-view"></div></div></div></main>',
}
EXPECTED = {
    "no-main.html": "no main content",
    "empty-main.html": "no main content",
    "console-error.html": "console error: boom",
    "script-error.html": "page error: ",
    "cdn.html": "request outside the book: https://cdn.example.invalid/require.js",
    "bad-page-link.html": "broken link: missing.html (no such page)",
    "bad-anchor-link.html": "broken link: good.html#nowhere (no such anchor)",
    "empty-explorer.html": "explorer 1 is shown as nothing",
    "blank-explorer.html": "explorer 1 is shown as nothing",
}


def test_the_checker_flags_each_kind_of_broken_page(browser: Any, tmp_path: Path) -> None:
    for name, body in BROKEN_PAGES.items():
        (tmp_path / name).write_text(f"<!DOCTYPE html><html><body>{body}</body></html>", encoding="utf-8")
    report, _ = check_site(browser, tmp_path)
    assert "good.html" not in report.problems
    for name, expected in EXPECTED.items():
        assert any(problem.startswith(expected) for problem in report.problems.get(name, [])), (
            name,
            json.dumps(report.problems, indent=1),
        )
