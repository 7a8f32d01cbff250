"""Re-execute the course's notebooks top to bottom and save their outputs, then
regenerate the exercises: what to run after a change to the package.

    python tools/run_notebooks.py                 # notebooks/ and solutions/, then exercises/
    python tools/run_notebooks.py notebooks/05-limits-and-failures.ipynb   # only these

Each notebook runs in its own folder with the ``python3`` kernel, as nbval runs
it (``jupyter nbconvert --to notebook --execute --inplace``), two at a time.
A notebook that fails is named and the script exits 1.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def execute(path: Path) -> tuple[Path, str]:
    """Run one notebook in place; the error text, or "" if it ran."""
    command = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--inplace",
               "--ExecutePreprocessor.record_timing=False", str(path)]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, cwd=path.parent)
    return path, "" if result.returncode == 0 else result.stderr.strip().splitlines()[-1]


def main(names: list[str]) -> int:
    paths = [Path(name).resolve() for name in names] or [
        *sorted((ROOT / "notebooks").glob("*.ipynb")),
        *sorted((ROOT / "solutions").glob("*.ipynb")),
    ]
    with ThreadPoolExecutor(max_workers=2) as pool:
        failed = [(path, error) for path, error in pool.map(execute, paths) if error]
    for path, error in failed:
        print(f"FAILED {path.relative_to(ROOT)}: {error}")
    solutions = [str(path) for path in paths if path.parent.name == "solutions"]
    if solutions and not failed:
        subprocess.run([sys.executable, str(ROOT / "tools" / "make_exercises.py"), *solutions], check=True)
    print(f"{len(paths) - len(failed)} of {len(paths)} notebooks ran")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
