"""A headless Chromium for the tests that need one (tests/test_browser.py, tests/test_book.py,
tests/test_chromium_eventsource.py): Debian's, driven by playwright, skipped locally when
missing and a failure in CI (``CI=true``)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

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
MS = 1000


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
    handle.scroll_into_view_if_needed(timeout=react_seconds * MS)
    assert handle.is_visible(), "the explorer's slider is not visible"
    before = output.evaluate(VIEW_TEXT)
    handle.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        f"([output, before]) => ({VIEW_TEXT})(output) !== before",
        arg=[output.element_handle(), before],
        timeout=react_seconds * MS,
    )
