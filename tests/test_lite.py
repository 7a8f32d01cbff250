"""The course runs in the browser, offline: the JupyterLite site, in headless Chromium.

``tools/build_book.py`` writes the book and, in ``lite/`` beside it, a JupyterLite site
whose Pyodide kernel, runtime and wheels are all served by the site itself. This test
serves a built book on 127.0.0.1 and opens it in Chromium with every request that is not
for 127.0.0.1 refused (a proxy that does not exist, and a route that aborts it and
records it): a CDN or PyPI fetch, by the page, a worker or the kernel, fails the test.
In the site's notebook app it runs lesson 02 top to bottom (outputs compared with the
stored ones), moves an explorer's slider and sees its view change, and runs exercise 02
with the solution's code written into the exercise and sees the check say "Correct".

With ``SSE_LITE_ALL=1`` it also runs every lesson, exercise and solution and reports, per
notebook, the cells whose outputs differ from the stored ones (the browser has no threads
or sockets; a cell that needs them says so) and the time each took.

It takes minutes (Pyodide starts in a worker per notebook), over the unit tests' budget,
so it runs as its own step of ``.ci/run`` on the book that step builds::

    python tools/build_book.py && SSE_LITE_SITE=build/book pytest -o addopts="" -p no:cacheprovider tests/test_lite.py

Without ``SSE_LITE_SITE`` the browser tests are skipped; the builder's own pieces
(the lock, the course's wheel, the pinned versions) are tested below in a moment.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import nbformat
import pytest
from chromium import CHROMIUM_ARGS, move_slider, require_browser

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts" / "lite"
SITE = os.environ.get("SSE_LITE_SITE")
MS = 1000
START_SECONDS = 180  # a cold start takes 15-45 s; on 2 cores shared with other work, up to two minutes
RUN_SECONDS = 300
REACT_SECONDS = 30
#: Where the browser's own networking is sent for anything not on 127.0.0.1: a port nothing listens on.
NO_PROXY = "http://127.0.0.1:9"
#: The marker lines of the solutions' sources, which a learner does not type.
MARKER = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$")


#: The notebook app shows a notebook whose kernel has started and is idle.
KERNEL_IDLE = "() => window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel?.status === 'idle'"
#: Set the sources of some cells (index -> text), run all cells in order, and return every
#: cell's outputs (null for a markdown cell).
RUN_ALL = """async ([sources, seconds]) => {
    const app = window.jupyterapp;
    const panel = app.shell.currentWidget;
    const cells = panel.content.widgets;
    for (const [index, text] of Object.entries(sources)) cells[Number(index)].model.sharedModel.setSource(text);
    const late = new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`not run within ${seconds} s`)), seconds * 1000));
    const ran = await Promise.race([app.commands.execute('notebook:run-all-cells'), late]);
    return [ran === true, cells.map(cell => cell.model.type === 'code' ? cell.model.outputs.toJSON() : null)];
}"""


class Handler(SimpleHTTPRequestHandler):
    """Static files, with the types a module worker and WebAssembly need."""

    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript", ".wasm": "application/wasm"}

    def log_message(self, *args: Any) -> None:
        pass


@dataclass
class Site:
    """The served book: its base URL, and the requests the browser tried outside 127.0.0.1."""

    base: str
    outside: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    if not SITE:
        pytest.skip("run by .ci/run's lite step: SSE_LITE_SITE=<built book> pytest ...")
    folder = Path(SITE).resolve()
    assert (folder / "lite" / "static" / "pyodide" / "pyodide-lock.json").is_file(), f"no lite site in {folder}"
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield Site(f"http://127.0.0.1:{server.server_address[1]}/")
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(site: Site) -> Iterator[Any]:
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, timeout=60 * MS)
        try:
            yield browser
        finally:
            browser.close()
    assert site.outside == [], "requests left 127.0.0.1"


def output_texts(outputs: list[dict]) -> list[str]:
    """What nbval compares of a cell's outputs, as text: streams (consecutive writes to one
    stream joined: how they were split is chance), plain-text results and displays (not widget
    views, whose model ids differ run to run), errors by name and message."""
    texts: list[str] = []
    stream = None
    for output in outputs:
        kind, data = output.get("output_type"), output.get("data", {})
        if kind == "stream" and output["name"] == stream:
            texts[-1] += "".join(output["text"])
            continue
        stream = output["name"] if kind == "stream" else None
        if kind == "stream":
            texts.append(f"{output['name']}: {''.join(output['text'])}")
        elif kind == "error":
            texts.append(f"error: {output['ename']}: {output['evalue']}")
        elif "application/vnd.jupyter.widget-view+json" not in data and "text/plain" in data:
            texts.append("".join(data["text/plain"]))
    return texts


def differing_cells(notebook: nbformat.NotebookNode, outputs: list[list[dict] | None]) -> dict[int, str]:
    """The code cells whose outputs in the browser differ from the stored ones: index -> what ran.
    A cell stored without outputs (an exercise's are cleared), or whose output nbval ignores (by
    its marker or its tag), differs only by an error."""
    found = {}
    for index, (cell, got) in enumerate(zip(notebook.cells, outputs, strict=True)):
        if cell.cell_type != "code":
            continue
        ran = output_texts(got or [])
        ignored = "NBVAL_IGNORE_OUTPUT" in cell.source or "nbval-ignore-output" in cell.metadata.get("tags", [])
        if (ignored or not cell.outputs) and not any(text.startswith("error: ") for text in ran):
            continue
        if ran != output_texts(cell.outputs):
            found[index] = "".join(ran)[-400:]
    return found


@dataclass
class Run:
    """One notebook run in the site: seconds to a ready kernel and to run all cells, the cells' outputs."""

    start_seconds: float
    run_seconds: float
    ran: bool
    outputs: list[list[dict] | None]


def open_page(browser: Any, site: Site) -> Any:
    """A tab of a new context whose requests outside 127.0.0.1 are refused and recorded."""

    def refuse(route: Any) -> None:
        if route.request.url.startswith(site.base):
            route.continue_()
        else:
            site.outside.append(route.request.url)
            route.abort()

    context = browser.new_context(
        proxy={"server": NO_PROXY, "bypass": "127.0.0.1"}, viewport={"width": 1280, "height": 900}
    )
    context.route("**/*", refuse)
    page = context.new_page()
    page.set_default_timeout(REACT_SECONDS * MS)
    return page


def run_in_site(page: Any, site: Site, url: str, sources: dict[int, str] | None = None) -> Run:
    """Open ``url`` (a notebook in the site's notebook app), wait for its kernel, run every cell."""
    started = time.monotonic()
    page.goto(url, timeout=START_SECONDS * MS)
    page.wait_for_function(KERNEL_IDLE, timeout=START_SECONDS * MS, polling=250)
    ready = time.monotonic()
    written = {str(index): text for index, text in (sources or {}).items()}
    ran, outputs = page.evaluate(RUN_ALL, [written, RUN_SECONDS])
    return Run(ready - started, time.monotonic() - ready, ran, outputs)


def lite_url(site: Site, path: str) -> str:
    return f"{site.base}lite/notebooks/index.html?path={path}"


def run_link(site: Site, page: Any, book_page: str) -> str:
    """The "Run in the browser" link of a page of the book, as an absolute URL."""
    page.goto(site.base + book_page)
    return page.locator("a.run-in-browser").first.evaluate("a => a.href")


def test_lesson_02_runs_as_stored_and_its_explorer_reacts(browser: Any, site: Site) -> None:
    page = open_page(browser, site)
    path = "notebooks/02-bytes-to-text.ipynb"
    url = run_link(site, page, "notebooks/02-bytes-to-text.html")
    assert url == lite_url(site, path)
    try:
        run = run_in_site(page, site, url)
        print(f"lesson 02: kernel ready in {run.start_seconds:.1f} s (cold start), ran in {run.run_seconds:.1f} s")
        notebook = nbformat.read(ROOT / path, as_version=4)
        assert run.ran and differing_cells(notebook, run.outputs) == {}
        cells = page.locator(".jp-Notebook .jp-Cell")
        explorers = [i for i, cell in enumerate(notebook.cells) if "explorer" in cell.metadata.get("tags", [])]
        assert explorers
        for index in explorers:
            move_slider(page, cells.nth(index), REACT_SECONDS)
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "02-bytes-to-text.png"))
        page.context.close()


def solution_sources(exercise: nbformat.NotebookNode, solution: nbformat.NotebookNode) -> dict[int, str]:
    """The exercise's cells that a learner writes in, with the solution's code (marker lines dropped)."""
    assert len(exercise.cells) == len(solution.cells)
    return {
        index: "\n".join(line for line in theirs.source.splitlines() if not MARKER.match(line))
        for index, (mine, theirs) in enumerate(zip(exercise.cells, solution.cells, strict=True))
        if mine.source != theirs.source and any(MARKER.match(line) for line in theirs.source.splitlines())
    }


def test_exercise_02_with_a_right_answer_says_correct(browser: Any, site: Site) -> None:
    page = open_page(browser, site)
    path = "exercises/02-bytes-to-text.ipynb"
    exercise = nbformat.read(ROOT / path, as_version=4)
    sources = solution_sources(exercise, nbformat.read(ROOT / "solutions/02-bytes-to-text.ipynb", as_version=4))
    assert sources
    try:
        run = run_in_site(page, site, run_link(site, page, "exercises/02-bytes-to-text.html"), sources)
        print(f"exercise 02: kernel ready in {run.start_seconds:.1f} s, ran in {run.run_seconds:.1f} s")
        texts = "".join(text for outputs in run.outputs for text in output_texts(outputs or []))
        assert run.ran and "NotImplementedError" not in texts
        assert texts.count("Correct: ") == 2, texts
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "02-exercise.png"))
        page.context.close()


#: Run every code cell in order, each on its own (an error does not stop the rest, as it
#: would with "run all"); every cell's outputs (null for a markdown cell).
RUN_EACH = """async ([seconds]) => {
    const app = window.jupyterapp;
    const notebook = app.shell.currentWidget.content;
    const late = new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`not run within ${seconds} s`)), seconds * 1000));
    const runEach = async () => {
        for (let index = 0; index < notebook.widgets.length; index++) {
            if (notebook.widgets[index].model.type !== 'code') continue;
            notebook.activeCellIndex = index;
            notebook.deselectAll();
            await app.commands.execute('notebook:run-cell');
        }
    };
    await Promise.race([runEach(), late]);
    return notebook.widgets.map(cell => cell.model.type === 'code' ? cell.model.outputs.toJSON() : null);
}"""
REPORT = ARTIFACTS / "every-notebook.txt"


def every_notebook() -> list[str]:
    """The lessons, then the solutions (every check run on a right answer), then the exercises."""
    import course  # tools/course.py (pyproject.toml puts tools/ on the path)

    lessons = course.load(ROOT).lessons
    return [
        page for kind in ("notebook", "solution", "exercise") for lesson in lessons if (page := getattr(lesson, kind))
    ]


@pytest.fixture(scope="module")
def shared_page(browser: Any, site: Site) -> Iterator[Any]:
    """One tab for every notebook, its cache kept (a route would turn it off): a request outside
    127.0.0.1 fails at the proxy that is not there, and is recorded here."""
    context = browser.new_context(proxy={"server": NO_PROXY, "bypass": "127.0.0.1"})
    context.on(
        "request", lambda request: None if request.url.startswith(site.base) else site.outside.append(request.url)
    )
    page = context.new_page()
    page.set_default_timeout(REACT_SECONDS * MS)
    try:
        yield page
    finally:
        context.close()


@pytest.mark.skipif(os.environ.get("SSE_LITE_ALL") != "1", reason="SSE_LITE_ALL=1 runs every notebook (many minutes)")
@pytest.mark.parametrize("path", every_notebook())
def test_every_notebook_runs_in_the_browser(shared_page: Any, site: Site, path: str) -> None:
    """Reports, per notebook, the cells whose outputs differ from the stored ones, with what they gave."""
    page = shared_page
    started = time.monotonic()
    page.goto(lite_url(site, path), timeout=START_SECONDS * MS)
    page.wait_for_function(KERNEL_IDLE, timeout=START_SECONDS * MS, polling=250)
    ready = time.monotonic()
    outputs = page.evaluate(RUN_EACH, [RUN_SECONDS])
    differing = differing_cells(nbformat.read(ROOT / path, as_version=4), outputs)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with REPORT.open("a", encoding="utf-8") as report:
        print(
            f"{path}: kernel {ready - started:.0f} s, cells {time.monotonic() - ready:.0f} s, "
            f"{len(differing)} cells differ from the stored outputs",
            file=report,
        )
        for index, text in differing.items():
            print(f"    cell {index}: {text[-300:]!r}", file=report)


# --- the builder's pieces, without a browser or a network -----------------------------------

spec = importlib.util.spec_from_file_location("build_lite", ROOT / "tools" / "build_lite.py")
build_lite = sys.modules["build_lite"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_lite)


def entry(depends: list[str]) -> dict:
    return {"depends": depends, "name": "x", "version": "1", "imports": []}


def test_the_lock_keeps_what_the_roots_need_under_its_own_keys_with_httpx_complete() -> None:
    lock = {"packages": {
        "ipython": entry(["prompt_toolkit"]), "prompt-toolkit": entry([]), "httpx": entry([]),
        "httpcore": entry(["h11"]), "h11": entry([]), "anyio": entry([]), "idna": entry([]), "certifi": entry([]),
        "sniffio": entry([]), "numpy": entry([]),
    }}  # fmt: skip
    kept = build_lite.lock_closure(lock, ["ipython", "httpx"])
    assert set(kept) == set(lock["packages"]) - {"numpy"}
    assert kept["httpx"]["depends"] == ["httpcore", "anyio", "idna", "certifi", "sniffio"]


def test_a_kernel_built_for_another_pyodide_is_refused_before_anything_is_fetched(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(build_lite, "kernel_pyodide_version", lambda: "313.0.0")
    monkeypatch.setattr(build_lite, "pyodide_runtime", lambda cache: pytest.fail("fetched"))
    with pytest.raises(
        build_lite.LiteError, match=f"built for Pyodide 313.0.0; the runtime pinned is {build_lite.PYODIDE_VERSION}"
    ):
        build_lite.stage_runtime(ROOT, tmp_path, tmp_path / "site")


def test_the_installed_kernel_is_built_for_the_pinned_pyodide() -> None:
    if importlib.util.find_spec("jupyterlite_pyodide_kernel") is None and os.environ.get("CI") != "true":
        pytest.skip("JupyterLite is not installed here (pip install -r requirements.txt)")
    assert build_lite.kernel_pyodide_version() == build_lite.PYODIDE_VERSION


def test_the_course_wheel_holds_every_module_and_data_file_with_its_record(tmp_path: Path) -> None:
    wheel = build_lite.course_wheel(ROOT, tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        record = archive.read(next(name for name in names if name.endswith(".dist-info/RECORD"))).decode()
        for line in record.splitlines():
            name, digest, size = line.split(",")
            if digest:
                data = archive.read(name)
                assert digest == f"sha256={build_lite.urlsafe_digest(data)}" and int(size) == len(data)
    package = {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "sse_course").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert package <= names and any(name.endswith(".json") for name in package)
