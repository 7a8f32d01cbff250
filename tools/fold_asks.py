"""Fold the source of every ask-first cell, in JupyterLab and on the book.

An ask-first cell's code holds its answer (``ask(prompt, choices, answer, why)``),
so the learner must see the question, not the call: the cell's source is folded
(``metadata.jupyter.source_hidden``, JupyterLab's own flag) and tagged
``hide-input`` (MyST-NB folds it on the book's pages).

    python tools/fold_asks.py            # fold every ask cell that is not folded yet
    python tools/fold_asks.py --check    # only list them; exit 1 if any
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("notebooks", "solutions", "exercises")
TAG = "hide-input"


def is_ask_cell(cell: dict[str, Any]) -> bool:
    """A code cell whose last statement is a call of ``ask(...)`` (the widget it displays)."""
    if cell.get("cell_type") != "code":
        return False
    try:
        body = ast.parse("".join(cell.get("source", ""))).body
    except SyntaxError:
        return False
    last = body[-1] if body else None
    return (
        isinstance(last, ast.Expr)
        and isinstance(last.value, ast.Call)
        and isinstance(last.value.func, ast.Name)
        and last.value.func.id == "ask"
    )


def is_folded(cell: dict[str, Any]) -> bool:
    metadata = cell.get("metadata", {})
    return bool(metadata.get("jupyter", {}).get("source_hidden")) and TAG in metadata.get("tags", [])


def fold(cell: dict[str, Any]) -> None:
    metadata = cell.setdefault("metadata", {})
    metadata.setdefault("jupyter", {})["source_hidden"] = True
    tags = metadata.setdefault("tags", [])
    if TAG not in tags:
        tags.append(TAG)


def notebooks() -> Iterator[Path]:
    for folder in FOLDERS:
        yield from sorted((ROOT / folder).glob("*.ipynb"))


def unfolded(path: Path, write: bool) -> list[int]:
    """The indices of ask cells in ``path`` that are not folded; fold them if ``write``."""
    notebook = nbformat.read(path, as_version=4)
    found = [i for i, cell in enumerate(notebook.cells) if is_ask_cell(cell) and not is_folded(cell)]
    if found and write:
        for i in found:
            fold(notebook.cells[i])
        nbformat.write(notebook, path)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="list unfolded ask cells, change nothing")
    args = parser.parse_args()
    stale = False
    for path in notebooks():
        for index in unfolded(path, write=not args.check):
            stale = True
            print(f"{path.relative_to(ROOT)}: cell {index}" + ("" if args.check else " (folded)"))
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
