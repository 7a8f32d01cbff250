"""The explorers render and react in a real JupyterLab, in headless Chromium.

nbval proves a notebook's outputs; it cannot prove that a widget renders in the
browser ("Error displaying widget" is how a notebook course most often breaks
for its users). This test starts JupyterLab on 127.0.0.1 with a token, loads
the app once in one Chromium page, and opens in it, as a tab with a kernel of
its own, every lesson that has a cell tagged ``explorer`` (on a copy, so the
repository's notebooks are never saved over). It runs the cells that show a
widget and those they read from (:func:`cells_to_run`; nbval runs them all),
and for each explorer: its slider is visible, no output shows a widget error,
and moving the slider with the keyboard changes the rendered view. A
screenshot per notebook goes to ``test-artifacts/``.

Locally the test skips when Chromium is absent; with ``CI=true`` a missing
browser is a failure.
"""

from __future__ import annotations

import ast
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import symtable
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chromium
import httpx
import pytest
from chromium import MS, launched_browser, move_slider, require_browser

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
ARTIFACTS = ROOT / "test-artifacts"
#: JupyterLab user settings: no news pop-up over the notebook, and every cell
#: kept in the page (windowing would drop off-screen cells from the DOM).
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false"},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}
WIDGET_ERRORS = (
    "Error displaying widget",
    "Failed to load model class",
    "Could not create a model",
    "Model not found",
    "Error rendering output",
)
STARTUP_SECONDS = 90
RUN_SECONDS = 180
REACT_SECONDS = 15


def is_explorer(cell: dict) -> bool:
    return "explorer" in cell.get("metadata", {}).get("tags", [])


def explorer_cells(path: Path) -> list[int]:
    """Indexes of the cells tagged ``explorer``."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [i for i, cell in enumerate(cells) if is_explorer(cell)]


def notebooks_with_explorers(folder: Path = NOTEBOOKS) -> list[Path]:
    return [path for path in sorted(folder.glob("*.ipynb")) if explorer_cells(path)]


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def shows_widget(cell: dict) -> bool:
    """Tagged ``explorer``, or a widget in the outputs nbval stored from a top-to-bottom run."""
    return is_explorer(cell) or any(WIDGET_VIEW in output.get("data", {}) for output in cell.get("outputs", []))


def global_reads(table: symtable.SymbolTable) -> set[str]:
    """The module-level names a cell's code reads, in any of its scopes."""
    top = table.get_type() == "module"
    reads = {sym.get_name() for sym in table.get_symbols() if sym.is_referenced() and (top or sym.is_global())}
    return reads.union(*(global_reads(child) for child in table.get_children()))


def reads_and_binds(source: str) -> tuple[set[str], set[str]]:
    """The module-level names a cell reads, and those it binds: assigns, imports, defines,
    or changes an item or attribute of (``table["k"] = v`` changes ``table``)."""
    from IPython.core.inputtransformer2 import TransformerManager

    code = TransformerManager().transform_cell(source)  # magics become Python
    table = symtable.symtable(code, "<cell>", "exec")
    binds = {sym.get_name() for sym in table.get_symbols() if sym.is_assigned() or sym.is_imported()}
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Subscript | ast.Attribute) and not isinstance(node.ctx, ast.Load):
            while isinstance(node, ast.Subscript | ast.Attribute):
                node = node.value
            binds.update([node.id] if isinstance(node, ast.Name) else [])
    return global_reads(table), binds


def cells_to_run(path: Path) -> list[int]:
    """The cells that show a widget and, going up from them, every cell that binds a name
    a chosen cell reads. A lesson runs top to bottom, so a cell needs only cells above it;
    run in order, these give each widget what a learner's top-to-bottom run gives it.
    The rest, which nbval runs, bind nothing the widgets read (a change made only by a
    method call, ``items.append(x)``, is not seen as binding ``items``)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = [(i, cell) for i, cell in enumerate(cells) if cell["cell_type"] == "code"]
    chosen = {i for i, cell in code if shows_widget(cell)}
    wanted: set[str] = set()  # read by a chosen cell below the one at hand
    for i, cell in reversed(code):
        reads, binds = reads_and_binds("".join(cell["source"]))
        if i in chosen or binds & wanted:
            chosen.add(i)
            wanted |= reads
    return sorted(chosen)


# --- JupyterLab ------------------------------------------------------------------------


@dataclass
class Lab:
    """A started JupyterLab: its base URL, token, the folder it serves, its process and log."""

    url: str
    token: str
    root: Path
    process: subprocess.Popen
    log: Path


@dataclass
class App:
    """The JupyterLab app loaded in a Chromium page, and the folder its server serves."""

    page: Any
    root: Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_settings(folder: Path) -> None:
    for name, values in LAB_SETTINGS.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")


@contextmanager
def running_lab(source: Path, home: Path) -> Iterator[Lab]:
    """JupyterLab on 127.0.0.1 serving a copy of ``source``, started (:func:`wait_until_up`
    waits until it answers); killed on leaving."""
    root = home / "notebooks"
    shutil.copytree(source, root)
    write_settings(home / "settings")
    port, token = free_port(), secrets.token_hex(16)
    command = [
        str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", "--allow-root",
        "--ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}", f"--LabApp.user_settings_dir={home / 'settings'}",
        f"--LabApp.workspaces_dir={home / 'workspaces'}", "--LabApp.expose_app_in_browser=True",
    ]  # fmt: skip
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "JUPYTER_CONFIG_DIR": str(home / "config")}
    with (home / "lab.log").open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            yield Lab(f"http://127.0.0.1:{port}/", token, root, process, home / "lab.log")
        finally:
            stop(process)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    """JupyterLab, and its app loaded once in one Chromium page; each test opens its notebook as a tab."""
    require_browser()
    with running_lab(NOTEBOOKS, tmp_path_factory.mktemp("lab")) as lab, launched_browser() as browser:
        wait_until_up(lab)  # Chromium started meanwhile
        start_kernels(lab, [path.name for path in notebooks_with_explorers()] + [f"{name}.ipynb" for name in WRITTEN])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(REACT_SECONDS * MS)
        page.goto(f"{lab.url}lab?token={lab.token}", timeout=STARTUP_SECONDS * MS)
        page.wait_for_function("() => window.jupyterapp !== undefined", timeout=STARTUP_SECONDS * MS)
        page.evaluate("async () => { await window.jupyterapp.restored; }")
        yield App(page, lab.root)


def start_kernels(lab: Lab, names: list[str]) -> None:
    """A kernel for each notebook, started now, side by side, while the app loads: a notebook
    that JupyterLab opens is connected to the running session of its path (nothing has run
    in that kernel before the notebook's cells)."""
    with httpx.Client(base_url=lab.url, params={"token": lab.token}, timeout=STARTUP_SECONDS) as client:
        for name in names:
            session = {"path": name, "name": name, "type": "notebook", "kernel": {"name": "python3"}}
            client.post("api/sessions", json=session).raise_for_status()


def wait_until_up(lab: Lab) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if lab.process.poll() is not None:
            pytest.fail(f"JupyterLab exited with {lab.process.returncode}:\n{lab.log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{lab.url}api/status", params={"token": lab.token}, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.25)
    pytest.fail(f"JupyterLab did not answer within {STARTUP_SECONDS} s:\n{lab.log.read_text()[-3000:]}")


def stop(process: subprocess.Popen) -> None:
    """End JupyterLab and its kernels: its own process group, TERM then KILL."""
    for sig, grace in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(grace)
            return
        except subprocess.TimeoutExpired:
            continue


# --- one notebook in the browser ----------------------------------------------------

#: Open a notebook as a tab of the loaded app, wait for its kernel, select the given
#: cells and run them (Run > Run Selected Cells, which runs them in order): resolves to
#: the tab's id, whether the run succeeded, and the cells' execution counts. Rejects
#: after ``seconds``.
OPEN_AND_RUN = """async ([path, indexes, seconds]) => {
    const app = window.jupyterapp;
    const run = async () => {
        const panel = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
        await panel.context.ready;
        await panel.sessionContext.ready;
        await panel.sessionContext.session.kernel.info;
        app.shell.activateById(panel.id);
        const notebook = panel.content;
        const cells = indexes.map(i => notebook.widgets[i]);
        notebook.activeCellIndex = indexes[0];
        notebook.deselectAll();
        cells.forEach(cell => notebook.select(cell));
        const ran = await app.commands.execute('notebook:run-cell');
        return [panel.id, ran === true, cells.map(cell => cell.model.executionCount)];
    };
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error(`${path}: not run within ${seconds} s`)), seconds * 1000));
    return Promise.race([run(), late]);
}"""  # noqa: E501
#: Close the notebook's tab (disposed: no "save changes?" dialog) and have the server
#: shut its kernel down; the next notebook need not wait for that.
CLOSE = """(path) => {
    const app = window.jupyterapp;
    const panel = [...app.shell.widgets('main')].find(w => w.context?.path === path);
    if (panel?.sessionContext.session) void app.serviceManager.sessions.shutdown(panel.sessionContext.session.id);
    panel?.dispose();
}"""


def output_errors(notebook, settle_seconds: float) -> list[str]:
    """Widget errors, widgets that never finish loading, and tracebacks, in any output area."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        notebook.page.wait_for_function(
            "(notebook) => !notebook.innerText.includes('Loading widget...')",
            arg=notebook.element_handle(),
            timeout=settle_seconds * MS,
        )
        loading = []
    except PlaywrightTimeoutError:
        loading = [f"widget error: a widget still shows 'Loading widget...' after {settle_seconds} s"]
    texts = notebook.locator(".jp-OutputArea").all_inner_texts()
    found = [f"widget error: {text[:300]}" for text in texts for marker in WIDGET_ERRORS if marker in text]
    for error_view in notebook.locator(".jupyter-widgets-error-widget").all():
        error_view.click()  # ipywidgets 8 shows its message only after a click
        found.append(f"widget error: {error_view.inner_text()[:300]}")
    stderr = notebook.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
    return loading + found + [f"stderr/traceback: {text[:300]}" for text in stderr.all_inner_texts()]


def check_notebook(
    page, name: str, runs: list[int], explorers: list[int], screenshot: Path, react_seconds: float = REACT_SECONDS
) -> None:
    """In the loaded app: open, run the cells ``runs``, check outputs, move each explorer's
    slider, check outputs again; save a screenshot (also on failure), close the tab."""
    try:
        tab, ran, counts = page.evaluate(OPEN_AND_RUN, [name, runs, RUN_SECONDS])
        notebook = page.locator(f"#{tab} .jp-Notebook")
        assert output_errors(notebook, react_seconds) == []
        in_order = list(range(1, len(runs) + 1))  # each ran once, in order, in a kernel where nothing ran before
        assert ran and counts == in_order, f"cells {runs} ran: {ran}, execution counts {counts}, not {in_order}"
        cells = notebook.locator(".jp-Cell")
        for index in explorers:
            move_slider(page, cells.nth(index), react_seconds)
        assert output_errors(notebook, react_seconds) == []  # a moved slider's callback may fail too
    finally:
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(screenshot))
        page.evaluate(CLOSE, name)


@pytest.mark.browser
@pytest.mark.parametrize("path", notebooks_with_explorers(), ids=lambda path: path.stem)
def test_explorers_render_and_react_in_jupyterlab(app: App, path: Path) -> None:
    check_notebook(app.page, path.name, cells_to_run(path), explorer_cells(path), ARTIFACTS / f"{path.stem}.png")


# --- the check itself rejects broken explorers -----------------------------------------

EXPLORER = """import ipywidgets as w
slider = w.IntSlider(value=3, min=1, max=9, description="cut")
view = w.HTML(f"<pre>cut at {slider.value}</pre>")
{observe}
w.VBox([slider, view])"""
OBSERVE = 'slider.observe(lambda change: setattr(view, "value", f"<pre>cut at {change.new}</pre>"), names="value")'
UNKNOWN_MODULE = """import ipywidgets as w
from traitlets import Unicode

class NotInstalled(w.DOMWidget):
    _model_name = Unicode("NotInstalledModel").tag(sync=True)
    _view_name = Unicode("NotInstalledView").tag(sync=True)
    _model_module = Unicode("no-such-widget-library").tag(sync=True)
    _view_module = Unicode("no-such-widget-library").tag(sync=True)

NotInstalled()"""
MISSING_MODEL = """from IPython.display import display
view = {"model_id": "no-such-model", "version_major": 2, "version_minor": 0}
display({"application/vnd.jupyter.widget-view+json": view}, raw=True)"""


def write_notebook(path: Path, explorer: str, *widgets: str) -> None:
    """A notebook: an explorer, then cells that show a widget, stored as a lesson stores
    them (with the widget output of the top-to-bottom run, so the check runs them too)."""
    import nbformat

    stored = {WIDGET_VIEW: {"model_id": "stored", "version_major": 2, "version_minor": 0}, "text/plain": "widget"}
    cells = [nbformat.v4.new_code_cell(explorer, metadata={"tags": ["explorer"]})] + [
        nbformat.v4.new_code_cell(source, outputs=[nbformat.v4.new_output("display_data", data=stored)])
        for source in widgets
    ]
    kernelspec = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": kernelspec}), path)


def check_written(app: App, name: str, *sources: str, react_seconds: float = REACT_SECONDS) -> None:
    path = app.root / f"{name}.ipynb"
    write_notebook(path, *sources)
    check_notebook(
        app.page, path.name, cells_to_run(path), explorer_cells(path), ARTIFACTS / f"{name}.png", react_seconds
    )


#: Broken notebooks, each with the message the check must fail with.
WORKING = EXPLORER.replace("{observe}", OBSERVE)
BROKEN = {
    "view-never-changes": ([EXPLORER.replace("{observe}", "")], "Timeout"),
    "missing-widget-model": ([WORKING, MISSING_MODEL], "Loading widget|model not found"),
    "widget-library-not-installed": ([WORKING, UNKNOWN_MODULE], "no-such-widget-library"),
    "explorer-needs-a-name-not-run": ([WORKING.replace("w.VBox", "print(never_bound)\nw.VBox")], "NameError"),
}
#: The notebooks the tests below write, by name.
WRITTEN = [*(f"broken-{broken}" for broken in BROKEN), "working-explorer"]


@pytest.mark.browser
@pytest.mark.parametrize("broken", BROKEN)
def test_the_browser_check_rejects_a_broken_explorer(app: App, broken: str) -> None:
    sources, message = BROKEN[broken]
    with pytest.raises(Exception, match=message):
        check_written(app, f"broken-{broken}", *sources, react_seconds=2)


@pytest.mark.browser
def test_the_browser_check_accepts_a_working_explorer(app: App) -> None:
    check_written(app, "working-explorer", WORKING)


def test_the_cells_to_run_are_those_that_show_a_widget_and_what_they_read(tmp_path: Path) -> None:
    import nbformat

    widget = nbformat.v4.new_output("display_data", data={WIDGET_VIEW: {"model_id": "m"}, "text/plain": "w"})
    sources = [
        "base = 2",  # read by the body of scale
        "slow = sum(range(10))",  # not read: the explorer's slow is its comprehension's own
        "def scale(x: int) -> int:\n    return x * base",  # read by the explorer
        "settings = {}",  # read by the explorer
        "settings['cut'] = 3",  # changes what the explorer reads
        "import math\nimport ipywidgets as w\n%time print(slow)",  # read by the last widget; a magic
        "[slow for slow in range(2)]\nexplorer(scale(settings['cut']))",  # the explorer
        "base = 3",  # between two widgets, read by neither
        "w.HTML(str(math.pi))",  # shows a widget (its stored output says so)
        "base = scale(1)",  # below every widget
    ]
    cells = [nbformat.v4.new_code_cell(source) for source in sources]
    cells[6].metadata["tags"] = ["explorer"]
    cells[8].outputs = [widget]
    cells.insert(1, nbformat.v4.new_markdown_cell("base = 5"))
    nbformat.write(nbformat.v4.new_notebook(cells=cells), tmp_path / "n.ipynb")
    assert cells_to_run(tmp_path / "n.ipynb") == [0, 3, 4, 5, 6, 7, 9]


@pytest.mark.parametrize("ci,outcome", [("true", pytest.fail.Exception), ("", pytest.skip.Exception)])
def test_a_missing_browser_fails_in_ci_and_skips_elsewhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ci: str, outcome: type[BaseException]
) -> None:
    monkeypatch.setattr(chromium, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="no-chromium not found"):
        require_browser()
