"""Which exercise parts pass: run your exercise notebooks headless and report each check.

Run it from the course's folder, on your own copy of the exercises::

    python -m sse_course.classroom.progress               # exercises/
    python -m sse_course.classroom.progress my-exercises/

Every ``*.ipynb`` in the folder runs top to bottom in the ``python3`` kernel,
with the notebook's folder as the working directory, errors allowed so that
every check runs. The notebooks on disk are not changed. One line per exercise
part: ``not attempted``, ``failing`` (with the check's first line) or ``passed``.

The contract with the exercise notebooks, kept small on purpose:

* a **part** is a check cell: a code cell tagged ``check``, or the first code
  cell after a Markdown cell whose last heading starts with "Check"
  (``### Check``); the part is named by the last other heading before it
  (``## Exercise 1: the line splitter``);
* a check that raised (an ``error`` output, e.g. ``AssertionError``) is
  **failing**, shown with ``ExceptionName: first line of the message``;
* a check whose first printed line starts with "Not attempted" is **not attempted**;
* a check that ran and did neither has **passed**. A check cell that did not
  run (the kernel died, or a timeout) is failing.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NOT_ATTEMPTED = "not attempted"
FAILING = "failing"
PASSED = "passed"
KERNEL_NAME = "python3"
CELL_SECONDS = 600
HEADING = re.compile(r"^#{1,6}\s+(.*\S)\s*$", re.M)


@dataclass(frozen=True)
class Part:
    """One exercise part's outcome: its notebook, name, status and the check's first line."""

    notebook: str
    name: str
    status: str
    detail: str = ""

    def __str__(self) -> str:
        detail = f": {self.detail}" if self.detail and self.status == FAILING else ""
        return f"  [{self.status:^13}] {self.name}{detail}"


def check_cells(cells: list[Any]) -> Iterator[tuple[str, Any]]:
    """(part name, cell) for each check cell, by the contract in the module doc."""
    name, after_check = "", False
    for cell in cells:
        if cell.cell_type == "markdown":
            for heading in HEADING.findall(cell.source):
                after_check = heading.lower().startswith("check")
                if not after_check:
                    name = heading.replace("`", "")
        elif cell.cell_type == "code":
            if after_check or "check" in cell.metadata.get("tags", []):
                yield name or "(unnamed part)", cell
            after_check = False


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def outcome(cell: Any) -> tuple[str, str]:
    """(status, first line) of one executed check cell."""
    outputs = cell.get("outputs", [])
    for output in outputs:
        if output.get("output_type") == "error":
            return FAILING, f"{output.get('ename', 'Error')}: {first_line(output.get('evalue', ''))}"
    if cell.get("execution_count") is None:
        return FAILING, "the check did not run (the kernel stopped before it)"
    printed = "".join(
        "".join(output.get("text", "")) for output in outputs if output.get("output_type") == "stream"
    )
    line = first_line(printed)
    return (NOT_ATTEMPTED if line.lower().startswith(NOT_ATTEMPTED) else PASSED), line


def run_notebook(path: Path, timeout: int = CELL_SECONDS) -> Any:
    """The notebook executed in memory (never saved), errors allowed."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name=KERNEL_NAME,
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    try:
        client.execute(stderr=subprocess.DEVNULL)  # the kernel's start-up warnings are not the learner's
    except Exception:  # a dead kernel or a timeout: the cells that did not run say so
        pass
    return notebook


def parts(path: Path) -> list[Part]:
    """The outcome of every part of one exercise notebook."""
    notebook = run_notebook(path)
    found = []
    for name, cell in check_cells(notebook.cells):
        status, detail = outcome(cell)
        found.append(Part(path.name, name, status, detail))
    return found


def report(folder: Path) -> Iterator[tuple[Path, list[Part]]]:
    for path in sorted(folder.glob("*.ipynb")):
        yield path, parts(path)


def summary(found: Iterable[Part]) -> str:
    found = list(found)
    counts = {status: sum(part.status == status for part in found) for status in (PASSED, FAILING, NOT_ATTEMPTED)}
    return ", ".join(f"{count} {status}" for status, count in counts.items()) + f" (of {len(found)} parts)"


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run your exercise notebooks and report each part.")
    parser.add_argument("folder", nargs="?", type=Path, default=Path("exercises"), help="default: exercises/")
    folder = parser.parse_args(argv).folder
    if not folder.is_dir():
        print(f"{folder} is not a folder of exercise notebooks", file=sys.stderr)
        return 2
    everything: list[Part] = []
    for path, found in report(folder):
        print(path.as_posix())
        for part in found:
            print(part, flush=True)
        if not found:
            print("  (no check cells)")
        everything += found
    print(summary(everything))
    return 0


if __name__ == "__main__":
    sys.exit(main())
