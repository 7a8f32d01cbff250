"""The explorers render and react in a real JupyterLab, in headless Chromium.

nbval proves a notebook's outputs; it cannot prove that a widget renders in the
browser ("Error displaying widget" is how a notebook course most often breaks
for its users). This test starts JupyterLab on 127.0.0.1 with a token, opens
every lesson that has a cell tagged ``explorer`` (on a copy, so the repository's
notebooks are never saved over), runs all cells, and for each explorer: its
slider is visible, no output shows a widget error, and moving the slider with
the keyboard changes the rendered view. A screenshot per notebook goes to
``test-artifacts/``.

Locally the test skips when Chromium is absent; with ``CI=true`` a missing
browser is a failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
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
RUN_ALL_SECONDS = 180
REACT_SECONDS = 15
MS = 1000


def explorer_cells(path: Path) -> list[int]:
    """Indexes of the cells tagged ``explorer``."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [i for i, cell in enumerate(cells) if "explorer" in cell.get("metadata", {}).get("tags", [])]


def notebooks_with_explorers(folder: Path = NOTEBOOKS) -> list[Path]:
    return [path for path in sorted(folder.glob("*.ipynb")) if explorer_cells(path)]


def require_browser() -> None:
    """Skip locally, fail in CI, when the browser or its driver is missing."""
    missing = None
    if importlib.util.find_spec("playwright") is None:
        missing = "the playwright package is not installed (pip install -r requirements.txt)"
    elif not CHROMIUM.exists():
        missing = f"{CHROMIUM} not found (Debian: apt-get install chromium)"
    elif shutil.which("jupyter", path=str(Path(sys.executable).parent)) is None:
        missing = f"jupyter not found beside {sys.executable}"
    if missing is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and the browser test cannot run: {missing}")
    pytest.skip(f"browser test skipped: {missing}")


# --- JupyterLab ------------------------------------------------------------------------


@dataclass
class Lab:
    """A running JupyterLab: its base URL, token, and the folder it serves."""

    url: str
    token: str
    root: Path

    def tree(self, name: str) -> str:
        """The notebook's URL in a workspace of its own, so no other notebook's tab is restored."""
        return f"{self.url}lab/workspaces/{Path(name).stem}/tree/{name}?token={self.token}"

    def end_sessions(self) -> None:
        """Shut down every kernel, so finished notebooks do not load the machine."""
        with httpx.Client(base_url=self.url, params={"token": self.token}, timeout=10) as client:
            for session in client.get("api/sessions").json():
                client.delete(f"api/sessions/{session['id']}")


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
    """JupyterLab on 127.0.0.1 serving a copy of ``source``; killed on leaving."""
    root = home / "notebooks"
    shutil.copytree(source, root)
    write_settings(home / "settings")
    port = free_port()
    lab = Lab(f"http://127.0.0.1:{port}/", secrets.token_hex(16), root)
    command = [
        str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", "--allow-root",
        "--ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={lab.token}",
        f"--ServerApp.root_dir={root}", f"--LabApp.user_settings_dir={home / 'settings'}",
        f"--LabApp.workspaces_dir={home / 'workspaces'}",
    ]  # fmt: skip
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "JUPYTER_CONFIG_DIR": str(home / "config")}
    with (home / "lab.log").open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            wait_until_up(lab, process, home / "lab.log")
            yield lab
        finally:
            stop(process)


@contextmanager
def launched_browser() -> Iterator[Any]:
    """Headless Debian Chromium driven by playwright (no browser download needed)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=60 * MS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    require_browser()
    with running_lab(NOTEBOOKS, tmp_path_factory.mktemp("lab")) as lab:
        yield lab


@pytest.fixture(scope="module")
def browser(lab: Lab) -> Iterator[Any]:
    with launched_browser() as browser:
        yield browser


def wait_until_up(lab: Lab, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"JupyterLab exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{lab.url}api/status", params={"token": lab.token}, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.25)
    pytest.fail(f"JupyterLab did not answer within {STARTUP_SECONDS} s:\n{log.read_text()[-3000:]}")


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


def run_all_cells(page) -> None:
    """Menu Run > Run All Cells, then wait until every code cell has run (or one failed:
    Run All stops there, and :func:`output_errors` reports it)."""
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=STARTUP_SECONDS * MS)
    page.locator("#jp-main-statusbar").get_by_text("Idle").first.wait_for(timeout=STARTUP_SECONDS * MS)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];
            const failed = document.querySelector('.jp-Notebook [data-mime-type="application/vnd.jupyter.stderr"]');
            return failed !== null || (prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent)));
        }""",
        timeout=RUN_ALL_SECONDS * MS,
    )


def output_errors(page, settle_seconds: float) -> list[str]:
    """Widget errors, widgets that never finish loading, and tracebacks, in any output area."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page.wait_for_function(
            "() => !document.querySelector('.jp-Notebook').innerText.includes('Loading widget...')",
            timeout=settle_seconds * MS,
        )
        loading = []
    except PlaywrightTimeoutError:
        loading = [f"widget error: a widget still shows 'Loading widget...' after {settle_seconds} s"]
    texts = page.locator(".jp-Notebook .jp-OutputArea").all_inner_texts()
    found = [f"widget error: {text[:300]}" for text in texts for marker in WIDGET_ERRORS if marker in text]
    for error_view in page.locator(".jp-Notebook .jupyter-widgets-error-widget").all():
        error_view.click()  # ipywidgets 8 shows its message only after a click
        found.append(f"widget error: {error_view.inner_text()[:300]}")
    stderr = page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
    return loading + found + [f"stderr/traceback: {text[:300]}" for text in stderr.all_inner_texts()]


#: The explorer's rendered view: its output without slider controls and readouts,
#: so that a moved slider's own number cannot pass for a changed view.
VIEW_TEXT = """(output) => {
    const copy = output.cloneNode(true);
    copy.querySelectorAll('.widget-slider, .widget-readout, .widget-label').forEach(e => e.remove());
    return copy.innerHTML;
}"""


def move_slider(page, cell, react_seconds: float) -> None:
    """The first slider of the explorer is visible; ArrowRight changes the rendered view."""
    output = cell.locator(".jp-OutputArea").first
    handle = output.locator('.widget-slider [role="slider"], .widget-slider input[type="range"]').first
    handle.scroll_into_view_if_needed(timeout=REACT_SECONDS * MS)
    assert handle.is_visible(), "the explorer's slider is not visible"
    before = output.evaluate(VIEW_TEXT)
    handle.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        f"([output, before]) => ({VIEW_TEXT})(output) !== before",
        arg=[output.element_handle(), before],
        timeout=react_seconds * MS,
    )


def check_notebook(
    browser, lab: Lab, name: str, explorers: list[int], screenshot: Path, react_seconds: float = REACT_SECONDS
) -> None:
    """Open, run all, check outputs, move each explorer's slider, check outputs again;
    save a screenshot (also on failure)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(REACT_SECONDS * MS)
    try:
        page.goto(lab.tree(name), timeout=STARTUP_SECONDS * MS)
        run_all_cells(page)
        assert output_errors(page, react_seconds) == []
        cells = page.locator(".jp-Notebook .jp-Cell")
        for index in explorers:
            move_slider(page, cells.nth(index), react_seconds)
        assert output_errors(page, react_seconds) == []  # a moved slider's callback may fail too
    finally:
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(screenshot))
        page.close()
        lab.end_sessions()


@pytest.mark.parametrize("path", notebooks_with_explorers(), ids=lambda path: path.stem)
def test_explorers_render_and_react_in_jupyterlab(browser, lab: Lab, path: Path) -> None:
    check_notebook(browser, lab, path.name, explorer_cells(path), ARTIFACTS / f"{path.stem}.png")


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


def write_notebook(path: Path, *sources: str) -> list[int]:
    """A notebook whose first cell is an explorer; return the explorer cell indexes."""
    import nbformat

    cells = [nbformat.v4.new_code_cell(source) for source in sources]
    cells[0].metadata["tags"] = ["explorer"]
    kernelspec = {"name": "python3", "display_name": "Python 3"}
    notebook = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": kernelspec})
    nbformat.write(notebook, path)
    return explorer_cells(path)


#: Broken notebooks, each with the message the check must fail with.
WORKING = EXPLORER.replace("{observe}", OBSERVE)
BROKEN = {
    "view-never-changes": ([EXPLORER.replace("{observe}", "")], "Timeout"),
    "missing-widget-model": ([WORKING, MISSING_MODEL], "Loading widget|model not found"),
    "widget-library-not-installed": ([WORKING, UNKNOWN_MODULE], "no-such-widget-library"),
}


@pytest.mark.parametrize("broken", BROKEN)
def test_the_browser_check_rejects_a_broken_explorer(browser, lab: Lab, broken: str) -> None:
    sources, message = BROKEN[broken]
    explorers = write_notebook(lab.root / f"broken-{broken}.ipynb", *sources)
    screenshot = ARTIFACTS / f"broken-{broken}.png"
    with pytest.raises(Exception, match=message):
        check_notebook(browser, lab, f"broken-{broken}.ipynb", explorers, screenshot, react_seconds=3)


def test_the_browser_check_accepts_a_working_explorer(browser, lab: Lab) -> None:
    explorers = write_notebook(lab.root / "working.ipynb", WORKING)
    check_notebook(browser, lab, "working.ipynb", explorers, ARTIFACTS / "working-explorer.png")


@pytest.mark.parametrize("ci,outcome", [("true", pytest.fail.Exception), ("", pytest.skip.Exception)])
def test_a_missing_browser_fails_in_ci_and_skips_elsewhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ci: str, outcome: type[BaseException]
) -> None:
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="no-chromium not found"):
        require_browser()
