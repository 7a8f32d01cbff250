"""Generate exercises/ from solutions/: one source, no drift.

Usage (from the repository root, in the course's venv)::

    python tools/make_exercises.py                  # regenerate every exercise, run it, save outputs
    python tools/make_exercises.py solutions/03-text-to-lines.ipynb   # only these
    python tools/make_exercises.py --check          # exit 1 if exercises/ is out of date

For each ``solutions/NN-name.ipynb`` it writes ``exercises/NN-name.ipynb``:

* every block of lines from ``### BEGIN SOLUTION`` to ``### END SOLUTION`` (nbgrader's
  markers) becomes one ``raise NotImplementedError`` at the marker's indentation; the
  markers must sit inside a function or class body, balanced and not nested;
* cells tagged ``solution`` are left out;
* cells tagged ``predict`` ask a question the learner answers before running them: they
  store no output, so the answer is not on the page before the cell runs (their answer sits in
  a ``<details>`` block after them); they also get nbval's ``nbval-ignore-output`` tag, since
  nbval compares a fresh run's output with the stored one, which is empty on purpose (the
  cell must still run without an error, and the solution's copy of it is compared in full);
* the notebook's metadata (``sse_course.generated``, out of the learner's view) says the
  file is generated and from which solution;
* the notebook is then executed top to bottom (kernel ``python3``, cwd ``exercises/``),
  so the stored outputs show what a learner sees first: every check says
  "not attempted yet".

What ``--check`` compares: the generated *sources* and cell structure (cell types,
sources, tags, cell ids, the set of notebooks), without executing anything. Outputs are not
compared here: they come from execution, and strict nbval on ``exercises/`` already
fails when a stored output is stale.

After editing a solution, run this script and commit both notebooks.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
SOLUTION_TAG = "solution"
PREDICT_TAG = "predict"
IGNORE_OUTPUT_TAG = "nbval-ignore-output"
STUB = "raise NotImplementedError"
KERNEL = "python3"
METADATA_KEY = "sse_course"
TIMEOUT_SECONDS = 600
MARKER = re.compile(r"^(\s*)(### (?:BEGIN|END) SOLUTION)\s*$")


class MarkerError(ValueError):
    """Solution markers that cannot be turned into a stub."""


def stub_source(source: str, where: str = "cell") -> str:
    """Replace each marked block with ``raise NotImplementedError`` at its indentation."""
    out: list[str] = []
    indent: str | None = None
    for number, line in enumerate(source.splitlines(), 1):
        match = MARKER.match(line)
        if match is None:
            if indent is None:
                out.append(line)
            continue
        marker_indent, marker = match.groups()
        if marker == BEGIN:
            if indent is not None:
                raise MarkerError(f"{where}, line {number}: {BEGIN} inside another solution block")
            if not marker_indent:
                raise MarkerError(f"{where}, line {number}: {BEGIN} must be inside a function or class body")
            indent = marker_indent
            out.append(indent + STUB)
        else:
            if indent is None:
                raise MarkerError(f"{where}, line {number}: {END} without {BEGIN}")
            indent = None
    if indent is not None:
        raise MarkerError(f"{where}: {BEGIN} without {END}")
    return "\n".join(out)


def generated_note(name: str) -> dict[str, str]:
    """For maintainers, in the notebook's metadata: a learner's page says nothing of how it is made."""
    return {"generated": f"from solutions/{name} by tools/make_exercises.py: edit the solution, not this file"}


def exercise_of(solution: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """The exercise notebook's sources (outputs cleared) for one solution notebook."""
    cells = []
    for index, cell in enumerate(solution.cells):
        if SOLUTION_TAG in cell.get("metadata", {}).get("tags", []):
            continue
        copy = nbformat.from_dict(dict(cell))
        copy.metadata.pop("execution", None)  # the solution run's timings: not the exercise's
        if copy.cell_type == "code":
            copy.source = stub_source(cell.source, f"{name}, cell {index}")
            copy.outputs = []
            copy.execution_count = None
            if is_predict(copy):
                copy.metadata["tags"] = [*copy.metadata["tags"], IGNORE_OUTPUT_TAG]
        cells.append(copy)
    exercise = nbformat.v4.new_notebook(cells=cells, metadata={**solution.metadata, METADATA_KEY: generated_note(name)})
    exercise.nbformat_minor = solution.nbformat_minor
    return exercise


def is_predict(cell: nbformat.NotebookNode) -> bool:
    return PREDICT_TAG in cell.get("metadata", {}).get("tags", [])


def clear_predictions(notebook: nbformat.NotebookNode) -> None:
    """A predict cell shows nothing until the learner runs it."""
    for cell in notebook.cells:
        if cell.cell_type == "code" and is_predict(cell):
            cell.outputs = []
            cell.execution_count = None


def structure(notebook: nbformat.NotebookNode) -> list[tuple]:
    """What must agree between the stored and the generated exercise."""
    return [notebook.metadata.get(METADATA_KEY)] + [
        (cell.get("id"), cell.cell_type, cell.source, tuple(cell.get("metadata", {}).get("tags", [])))
        for cell in notebook.cells
    ]


def execute(notebook: nbformat.NotebookNode) -> None:
    from nbclient import NotebookClient

    client = NotebookClient(
        notebook,
        timeout=TIMEOUT_SECONDS,
        kernel_name=KERNEL,
        record_timing=False,
        resources={"metadata": {"path": str(EXERCISES)}},
    )
    client.execute()  # no timing metadata: a re-run with the same outputs writes the same file


def solution_paths(names: list[str]) -> list[Path]:
    if names:
        return [Path(name).resolve() for name in names]
    return sorted(SOLUTIONS.glob("*.ipynb"))


def check(paths: list[Path]) -> list[str]:
    """Problems: exercises missing, stale, or without a solution."""
    problems = []
    for path in paths:
        target = EXERCISES / path.name
        expected = exercise_of(nbformat.read(path, as_version=4), path.name)
        if not target.exists():
            problems.append(f"exercises/{path.name} is missing")
        elif structure(nbformat.read(target, as_version=4)) != structure(expected):
            problems.append(f"exercises/{path.name} differs from what solutions/{path.name} generates")
    solved = {path.name for path in SOLUTIONS.glob("*.ipynb")}
    problems += [
        f"exercises/{p.name} has no solution" for p in sorted(EXERCISES.glob("*.ipynb")) if p.name not in solved
    ]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("solutions", nargs="*", help="solution notebooks (default: all of solutions/)")
    parser.add_argument("--check", action="store_true", help="exit 1 if exercises/ is out of date")
    args = parser.parse_args(argv)
    paths = solution_paths(args.solutions)
    try:
        if args.check:
            problems = check(paths)
            for problem in problems:
                print(problem, file=sys.stderr)
            if problems:
                print("run: python tools/make_exercises.py", file=sys.stderr)
            return 1 if problems else 0
        EXERCISES.mkdir(exist_ok=True)
        for path in paths:
            exercise = exercise_of(nbformat.read(path, as_version=4), path.name)
            execute(exercise)
            clear_predictions(exercise)
            nbformat.write(exercise, EXERCISES / path.name)
            print(f"wrote exercises/{path.name}")
    except MarkerError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
