"""The progress report grades only what its own run produced, and names why a part fails.

Small synthetic notebooks, each part a one-line check on the checking engine, so a
kernel start is most of the cost: a stored output after an edit, a hang, a dead
kernel, a debug print before the stub's NotImplementedError, a syntax error, a
folder of learners' folders, and the exit status.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import course  # tools/course.py (pyproject.toml puts tools/ on the path)
import nbformat
import pytest

from sse_course.classroom import progress
from sse_course.classroom.checking import MIMETYPE

ROOT = Path(__file__).resolve().parent.parent
#: What a kernel's start may add to a notebook's time on 2 busy cores (the time counts after it).
KERNEL_START_SECONDS = 15

CHECK = """\
from sse_course.classroom.checking import Kind, attempted, exercise, failed


@exercise("your double")
def check_double(double):
    if attempted(double, 2) != 4:
        raise failed("your double", Kind.WRONG_VALUE, f"double(2) should be 4, yours is {double(2)!r}.")
    return "doubles 2"
"""
RIGHT = "def double(x):\n    return 2 * x"
STUB_WITH_DEBUG_PRINT = "def double(x):\n    print('trying', x)\n    raise NotImplementedError"
WRONG = "def double(x):\n    return x + 3"
SYNTAX_ERROR = "def double(x)\n    return 2 * x"
HANG = "def double(x):\n    while True:\n        pass"
KERNEL_DEATH = "import os\n\nos._exit(1)"

#: What a passing check stored when the notebook was saved (another run's token).
STORED_PASS = [
    {"output_type": "stream", "name": "stdout", "text": "Correct: your double doubles 2.\n"},
    {
        "output_type": "display_data",
        "metadata": {},
        "data": {MIMETYPE: {"status": "passed", "headline": "", "token": "old"}},
    },
]


def notebook(path: Path, *answers: str, stored: list[dict] | None = None) -> Path:
    """One part per answer: ``## Exercise n``, the answer cell, ``### Check``, the check cell."""
    cells = [nbformat.v4.new_code_cell(CHECK)]
    for number, answer in enumerate(answers, 1):
        check = nbformat.v4.new_code_cell("check_double(double)", execution_count=1)
        check.outputs = [nbformat.from_dict(output) for output in stored or []]
        cells += [
            nbformat.v4.new_markdown_cell(f"## Exercise {number}: double"),
            nbformat.v4.new_code_cell(answer),
            nbformat.v4.new_markdown_cell("### Check"),
            check,
        ]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return path


def lines(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if line.startswith("  [")]


def test_each_part_is_graded_by_its_verdict_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = notebook(tmp_path / "one.ipynb", RIGHT, STUB_WITH_DEBUG_PRINT, WRONG, SYNTAX_ERROR, RIGHT)
    assert progress.main([str(path)]) == 1
    found = lines(capsys.readouterr().out)
    assert found[0] == "[   passed    ] Exercise 1: double"
    assert found[1] == "[not attempted] Exercise 2: double", "a debug print before the stub's error is still a stub"
    assert (
        found[2]
        == "[   failing   ] Exercise 3: double: your double is wrong: WRONG VALUE: double(2) should be 4, yours is 5."
    )
    assert re.fullmatch(
        r"\[   failing   \] Exercise 4: double: SyntaxError: .* \(in a cell above the check\)", found[3]
    ), found[3]
    assert found[4] == "[   passed    ] Exercise 5: double", (
        "a syntax error above one part does not spill into the next"
    )


def test_stored_outputs_never_count_and_a_dead_kernel_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Saved after passing, then edited: a wrong answer, then a cell that kills the kernel.
    The learner's folder is graded with ``--exit-zero``, and the notebook on disk is left as it was."""
    path = notebook(tmp_path / "learner" / "edited.ipynb", WRONG, KERNEL_DEATH, stored=STORED_PASS)
    before = path.read_bytes()
    assert progress.main([str(tmp_path / "learner"), "--exit-zero"]) == 0, "failing parts, but --exit-zero"
    out = capsys.readouterr().out
    found = lines(out)
    assert found[0].startswith("[   failing   ] Exercise 1: double: your double is wrong: WRONG VALUE")
    assert found[1] == "[   failing   ] Exercise 2: double: the kernel died (in a cell above the check)"
    assert "0 passed, 2 failing, 0 not attempted" in out
    assert path.read_bytes() == before, "the notebook on disk is not changed"


def test_a_hang_is_reported_within_the_default_timeout_and_later_parts_did_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No ``--timeout``: the notebook gets FACTOR times its solution's time (here 1 s, so 4 s).
    That time counts from the kernel's start: the first part (an import and two small cells, a
    fraction of a second) leaves most of it to the hang. The part after the hang never ran."""
    monkeypatch.setitem(progress.SOLUTION_SECONDS, "hang.ipynb", 1)
    monkeypatch.setattr(progress, "FLOOR_SECONDS", 2)
    path = notebook(tmp_path / "hang.ipynb", RIGHT, HANG, RIGHT, stored=STORED_PASS)
    started = time.monotonic()
    assert progress.main([str(path)]) == 1
    took = time.monotonic() - started
    found = lines(capsys.readouterr().out)
    assert found == [
        "[   passed    ] Exercise 1: double",
        "[   failing   ] Exercise 2: double: timed out after 4 s",
        "[ did not run ] Exercise 3: double: a cell of an earlier part stopped the notebook: timed out after 4 s",
    ]
    assert took < 4 + KERNEL_START_SECONDS, f"{took:.1f} s"


def test_each_exercise_gets_a_few_times_its_solutions_time() -> None:
    exercises = {Path(lesson.exercise).name for lesson in course.load(ROOT).lessons if lesson.exercise}
    assert set(progress.SOLUTION_SECONDS) == exercises
    for name, seconds in progress.SOLUTION_SECONDS.items():
        assert progress.default_timeout(Path(name)) == max(progress.FLOOR_SECONDS, progress.FACTOR * seconds) <= 80
    assert progress.default_timeout(Path("unknown.ipynb")) == progress.FACTOR * max(progress.SOLUTION_SECONDS.values())


def test_a_folder_of_learners_gets_a_block_each_and_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notebook(tmp_path / "class" / "alice" / "01.ipynb", RIGHT)
    notebook(tmp_path / "class" / "bob" / "01.ipynb", STUB_WITH_DEBUG_PRINT)
    assert progress.main([str(tmp_path / "class")]) == 0, "nothing failing: exit 0"
    out = capsys.readouterr().out
    assert out.index("== alice") < out.index("[   passed    ]") < out.index("== bob") < out.index("[not attempted]")
    assert out.splitlines()[-3:] == [
        "learner  passed  failing  not attempted  did not run",
        "alice         1        0              0            0",
        "bob           0        0              1            0",
    ]


def test_a_path_with_no_notebook_exits_2(tmp_path: Path) -> None:
    """(Exit status 1 for a failing part, and 0 with ``--exit-zero``, are shown above.)"""
    assert progress.main([str(tmp_path / "nothing-here")]) == 2
    (tmp_path / "empty").mkdir()
    assert progress.main([str(tmp_path / "empty")]) == 2
