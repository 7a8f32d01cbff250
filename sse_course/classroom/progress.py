"""Which exercise parts pass: run exercise notebooks headless and report each check.

Run it from the course's folder::

    python -m sse_course.classroom.progress                      # exercises/
    python -m sse_course.classroom.progress my-exercises/        # one learner's folder
    python -m sse_course.classroom.progress 02-bytes-to-text.ipynb
    python -m sse_course.classroom.progress class/               # a folder of learners' folders
    python -m sse_course.classroom.progress class/ --timeout 120 # each notebook's time, in seconds

Each notebook runs top to bottom in a fresh ``python3`` kernel, with its folder
as the working directory and errors allowed so that every check runs; the
files on disk are not changed. What a notebook has stored is never graded:
every output is cleared first, and a check counts only through the verdict it
emits *in this run* (the checking engine displays it as data, tagged with a
token this run gave the kernel). One line per exercise part, printed as soon
as its notebook has run: ``passed``, ``not attempted``, ``failing`` with why
(the check's headline; ``timed out after N s``; ``the kernel died``; a
``SyntaxError`` in the code above), or ``did not run`` when a cell of an
earlier part stopped the notebook (a hang, a dead kernel).

Each notebook may run a few times as long as the course's own solution to it
takes (:data:`FACTOR` times :data:`SOLUTION_SECONDS`, at least
:data:`FLOOR_SECONDS`): a hung notebook costs the class a minute at most, not ten.

A **part** is a check cell: a code cell tagged ``check``, or the first code
cell after a Markdown cell whose last heading starts with "Check"; it is named
by the last other heading before it. The exit status is 1 when a part is
failing (``--exit-zero`` keeps 0), 2 when the path holds no notebook.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .checking.printer import MIMETYPE, TOKEN_VARIABLE

NOT_ATTEMPTED = "not attempted"
FAILING = "failing"
PASSED = "passed"
DID_NOT_RUN = "did not run"
STATUSES = (PASSED, FAILING, NOT_ATTEMPTED, DID_NOT_RUN)
KERNEL_NAME = "python3"
#: Seconds each exercise's solution takes to run top to bottom (the kernel's start apart),
#: measured on 2 cores shared with other work (2026-12-03) and rounded up. A learner's
#: right answer may be slower than the course's: a notebook gets FACTOR times as long.
SOLUTION_SECONDS = {
    "01-chunks-are-not-events.ipynb": 3,
    "02-bytes-to-text.ipynb": 13,
    "03-text-to-lines.ipynb": 9,
    "04-lines-to-events.ipynb": 3,
    "05-limits-and-failures.ipynb": 18,
    "06-payloads.ipynb": 3,
    "07-evidence.ipynb": 2,
    "08-real-streams.ipynb": 4,
    "09-performance.ipynb": 8,
    "10-reconnect-and-resume.ipynb": 5,
}
FACTOR = 4
#: The least a notebook gets (a kernel's first imports on a slow laptop).
FLOOR_SECONDS = 20
HEADING = re.compile(r"^#{1,6}\s+(.*\S)\s*$", re.M)
SYNTAX = ("SyntaxError", "IndentationError", "TabError")


@dataclass(frozen=True)
class Part:
    """One exercise part's outcome: its notebook, name, status and why."""

    notebook: str
    name: str
    status: str
    detail: str = ""

    def __str__(self) -> str:
        detail = f": {self.detail}" if self.detail and self.status in (FAILING, DID_NOT_RUN) else ""
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


@dataclass
class Run:
    """One notebook executed by this report: its cells (outputs from this run only),
    the token its verdicts carry, and why it stopped early, if it did."""

    cells: list[Any]
    token: str
    stopped: str = ""
    stopped_at: int | None = None  # index of the cell that did not finish


def verdicts(cell: Any, token: str) -> list[dict]:
    """The verdicts a cell emitted in this run (data, never text)."""
    found = []
    for output in cell.get("outputs", []):
        data = output.get("data", {}).get(MIMETYPE) if output.get("output_type") == "display_data" else None
        if isinstance(data, dict) and data.get("token") == token:
            found.append(data)
    return found


def error_of(cell: Any) -> dict | None:
    return next((output for output in cell.get("outputs", []) if output.get("output_type") == "error"), None)


def shown(error: dict) -> str:
    return f"{error.get('ename', 'Error')}: {first_line(error.get('evalue', ''))}"


def default_timeout(path: Path) -> float:
    """Seconds the notebook may run: FACTOR times its solution's time (a notebook the course does
    not know gets the slowest one's), at least FLOOR_SECONDS."""
    reference = SOLUTION_SECONDS.get(path.name, max(SOLUTION_SECONDS.values()))
    return max(FLOOR_SECONDS, FACTOR * reference)


def outcome(run: Run, index: int, earlier_error: dict | None = None, start: int = 0) -> tuple[str, str]:
    """(status, why) of the check cell at ``index``, whose part's cells start at ``start``,
    from this run's outputs only."""
    cell = run.cells[index]
    if earlier_error is not None and earlier_error.get("ename") in SYNTAX:
        return FAILING, f"{shown(earlier_error)} (in a cell above the check)"  # the check ran older code
    found = verdicts(cell, run.token)
    if found:
        failing = [v for v in found if v["status"] == FAILING]
        if failing:
            return FAILING, failing[0]["headline"]
        if any(v["status"] == NOT_ATTEMPTED for v in found):
            return NOT_ATTEMPTED, ""
        return PASSED, ""
    if run.stopped_at is not None and index >= run.stopped_at:
        if run.stopped_at < start:
            return DID_NOT_RUN, f"a cell of an earlier part stopped the notebook: {run.stopped}"
        return FAILING, run.stopped if index == run.stopped_at else f"{run.stopped} (in a cell above the check)"
    error = error_of(cell)
    if earlier_error is not None and (error is None or error.get("ename") == "NameError"):
        return FAILING, f"{shown(earlier_error)} (in a cell above the check)"
    if error is not None:
        return FAILING, shown(error)
    return FAILING, "the check cell gave no verdict (was the check call changed?)"


def execute(path: Path, timeout: float) -> Run:
    """Run the notebook in memory (never saved), every stored output cleared first."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":  # a notebook node is a dict: its keys are its data
            cell["outputs"], cell["execution_count"] = [], None
    token = secrets.token_hex(8)
    client = NotebookClient(
        notebook, kernel_name=KERNEL_NAME, allow_errors=True, resources={"metadata": {"path": str(path.parent)}},
        shutdown_kernel="immediate",  # its outputs are in memory: no need to wait for a polite exit (0.4 s a notebook)
    )  # fmt: skip
    env = {**os.environ, TOKEN_VARIABLE: token}
    index, stopped = 0, ""
    try:
        # the kernel's start-up warnings are not the learner's
        with client.setup_kernel(env=env, stderr=subprocess.DEVNULL):
            deadline = time.monotonic() + timeout  # the kernel's start is not the notebook's time
            for index, cell in enumerate(notebook.cells):
                if cell.cell_type != "code":
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    raise CellTimeoutError("the notebook's time is up")
                client.timeout = max(1, int(left))
                client.execute_cell(cell, index)
    except CellTimeoutError:
        stopped = f"timed out after {timeout:g} s"
    except DeadKernelError:
        stopped = "the kernel died"
    except RuntimeError as err:  # the kernel did not start, or died while starting
        stopped = f"the kernel died ({first_line(str(err))})"
    return Run(notebook.cells, token, stopped, index if stopped else None)


def parts(path: Path, timeout: float | None = None) -> list[Part]:
    """The outcome of every part of one exercise notebook (``timeout``: its default, when None)."""
    run = execute(path, default_timeout(path) if timeout is None else timeout)
    found, earlier, start, checks = [], None, 0, {id(cell) for _, cell in check_cells(run.cells)}
    names = dict((id(cell), name) for name, cell in check_cells(run.cells))
    for index, cell in enumerate(run.cells):
        if id(cell) in checks:
            status, detail = outcome(run, index, earlier, start)
            found.append(Part(path.name, names[id(cell)], status, detail))
            earlier, start = None, index + 1
        elif cell.cell_type == "code" and earlier is None and (error := error_of(cell)) is not None:
            earlier = error
    return found


def notebooks(folder: Path) -> list[Path]:
    return sorted(path for path in folder.glob("*.ipynb") if not path.name.startswith("."))


def learners(path: Path) -> list[tuple[str, list[Path]]]:
    """(learner, notebooks): one notebook, one learner's folder, or a folder of learners' folders."""
    if path.is_file():
        return [("", [path])]
    if notebooks(path):
        return [("", notebooks(path))]
    return [(sub.name, notebooks(sub)) for sub in sorted(path.iterdir()) if sub.is_dir() and notebooks(sub)]


def summary(found: Iterable[Part]) -> str:
    found = list(found)
    counts = {status: sum(part.status == status for part in found) for status in STATUSES}
    return ", ".join(f"{count} {status}" for status, count in counts.items()) + f" (of {len(found)} parts)"


def table(rows: list[tuple[str, list[Part]]]) -> str:
    """One line per learner: how many parts pass, fail, are not attempted."""
    width = max(len("learner"), *(len(name) for name, _ in rows))
    lines = [f"{'learner':<{width}}  " + "  ".join(STATUSES)]
    for name, found in rows:
        counts = [sum(part.status == status for part in found) for status in STATUSES]
        lines.append(
            f"{name:<{width}}  "
            + "  ".join(f"{count:>{len(status)}}" for count, status in zip(counts, STATUSES, strict=True))
        )
    return "\n".join(lines)


def report(path: Path, timeout: float | None = None) -> list[tuple[str, list[Part]]]:
    """Run and print, notebook by notebook, as it goes; return every learner's parts."""
    rows = []
    for learner, paths in learners(path):
        if learner:
            print(f"== {learner}", flush=True)
        everything: list[Part] = []
        for notebook in paths:
            print(notebook.as_posix(), flush=True)
            found = parts(notebook, timeout)
            for part in found:
                print(part, flush=True)
            if not found:
                print("  (no check cells)", flush=True)
            everything += found
        print(summary(everything), flush=True)
        rows.append((learner, everything))
    return rows


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run exercise notebooks and report each part.")
    parser.add_argument(
        "path",
        nargs="?",
        type=Path,
        default=Path("exercises"),
        help="a notebook, a learner's folder, or a folder of learners' folders (default: exercises/)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help=f"seconds each notebook may run (default: {FACTOR} times what the course's solution takes, "
        f"at least {FLOOR_SECONDS})",
    )
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when a part is failing")
    args = parser.parse_args(argv)
    if not args.path.exists() or not learners(args.path):
        print(f"{args.path} holds no exercise notebook", file=sys.stderr)
        return 2
    rows = report(args.path, args.timeout)
    if len(rows) > 1 or rows[0][0]:
        print(table(rows))
    failing = any(part.status == FAILING for _, found in rows for part in found)
    return 1 if failing and not args.exit_zero else 0


if __name__ == "__main__":
    sys.exit(main())
