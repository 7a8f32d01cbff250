"""Copy the package's current source into every lesson cell tagged ``package:<name>``.

    python tools/sync_drift.py            # rewrite the tagged cells that differ
    python tools/sync_drift.py --check    # only list them; exit 1 if any differ

tests/test_drift.py fails while a tagged cell differs from the package; this is
the tool that makes it pass after the package changed. Re-run the notebook
afterwards (``jupyter nbconvert --to notebook --execute --inplace``) so that
its stored outputs come from the new code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from drift import TAG, package_source  # beside this file: one definition of "the source"

ROOT = Path(__file__).resolve().parent.parent


def sync(path: Path, write: bool) -> list[str]:
    """The dotted names of the tagged cells in ``path`` that differ; rewrite them if ``write``."""
    notebook = nbformat.read(path, as_version=4)
    stale = []
    for cell in notebook["cells"]:
        for tag in cell.get("metadata", {}).get("tags", []):
            if tag.startswith(TAG):
                source = package_source(tag[len(TAG) :])
                if "".join(cell["source"]).strip() != source:
                    stale.append(tag[len(TAG) :])
                    cell["source"] = source
    if stale and write:
        nbformat.write(notebook, path)
    return stale


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="list stale cells, change nothing")
    parser.add_argument("notebooks", nargs="*", type=Path, help="only these notebooks (default: every lesson)")
    args = parser.parse_args()
    any_stale = False
    for path in args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb")):
        for name in sync(path, write=not args.check):
            any_stale = True
            print(f"{path.name}: {name}" + ("" if args.check else " (rewritten)"))
    return 1 if any_stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
