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
