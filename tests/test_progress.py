"""The progress report reads the exercises' checks right: not attempted, passed, failing.

Real runs, on copies (the learner's own folder): generated exercises, a solution,
and a solution with one wrong answer. They run in this process, through the same
``main`` as ``python -m sse_course.classroom.progress`` (whose entry point a
subprocess shows once, on a folder with no notebook): a subprocess per folder
would import nbformat again, seconds each, for nothing the report does.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import nbformat
import pytest

from sse_course.classroom import progress
from sse_course.classroom.checking import MIMETYPE

ROOT = Path(__file__).resolve().parent.parent
#: 04 has two parts, so one can fail while the other passes. Unattempted exercises run in a
#: moment (every check stops at the stub); solutions run their checks in full, so only
#: small ones (05's second check alone takes half a minute).
TWO_PARTS = "04-lines-to-events.ipynb"
EXERCISES = ("01-chunks-are-not-events.ipynb", TWO_PARTS, "06-payloads.ipynb")
SOLUTIONS = ("06-payloads.ipynb",)
SOLUTION_BLOCK = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION$", re.M | re.S)
WRONG = 'raise ValueError("a wrong answer")'


def learner_copy(folder: Path, source: str, names: tuple[str, ...]) -> Path:
    folder.mkdir()
    for name in names:
        shutil.copy(ROOT / source / name, folder / name)
    return folder


def with_one_wrong_answer(path: Path) -> None:
    """The first solution block of the notebook answers wrong (it raises)."""
    notebook = nbformat.read(path, as_version=4)
    cell = next(cell for cell in notebook.cells if SOLUTION_BLOCK.search(cell.source))
    cell.source = SOLUTION_BLOCK.sub(lambda match: match.group(1) + WRONG, cell.source, count=1)
    nbformat.write(notebook, path)


def report_on(folder: Path) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of the progress report on ``folder``."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = progress.main([str(folder)])
    return code, out.getvalue(), err.getvalue()


def statuses(output: str) -> list[str]:
    """The status of each part line, in order."""
    return [match.strip() for match in re.findall(r"^  \[(.{13})\]", output, re.M)]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str, str]]:
    """The progress report on each learner copy: (exit code, stdout, stderr)."""
    tmp = tmp_path_factory.mktemp("progress")
    wrong = learner_copy(tmp / "wrong", "solutions", (TWO_PARTS,))
    with_one_wrong_answer(wrong / TWO_PARTS)
    folders = {
        "exercises": learner_copy(tmp / "exercises", "exercises", EXERCISES),
        "solutions": learner_copy(tmp / "solutions", "solutions", SOLUTIONS),
        "wrong": wrong,
    }
    return {name: report_on(folder) for name, folder in folders.items()}


def test_the_command_runs_the_report(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "sse_course.classroom.progress", str(tmp_path)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout, run.stderr) == (2, "", f"{tmp_path} holds no exercise notebook\n")


def check_parts(names: tuple[str, ...], source: str) -> int:
    return sum(1 for name in names for _ in progress.check_cells(nbformat.read(ROOT / source / name, 4).cells))


def test_the_generated_exercises_are_not_attempted(reports: dict) -> None:
    code, stdout, stderr = reports["exercises"]
    assert (code, stderr) == (0, "")
    assert statuses(stdout) == ["not attempted"] * check_parts(EXERCISES, "exercises") != []


def test_the_solutions_pass(reports: dict) -> None:
    code, stdout, stderr = reports["solutions"]
    assert (code, stderr) == (0, "")
    assert statuses(stdout) == ["passed"] * check_parts(SOLUTIONS, "solutions") != []
    assert stdout.splitlines()[-1].startswith(f"{len(statuses(stdout))} passed, 0 failing, 0 not attempted")


def test_one_wrong_answer_fails_that_part_only_with_the_checks_first_line(reports: dict) -> None:
    code, stdout, stderr = reports["wrong"]
    assert (code, stderr) == (1, ""), "a failing part makes the exit status 1"
    assert statuses(stdout) == ["failing", "passed"]
    failing = next(line for line in stdout.splitlines() if "[   failing   ]" in line)
    assert re.search(r"\]\s.+: your \w+( \([^)]*\))? is wrong: [A-Z ]+( \([a-z ]+\))?: \S", failing), (
        failing
    )  # part name: the verdict's headline


# --- the contract, on cells made by hand ---------------------------------------------


def executed(source: str, *outputs: dict, tags: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source, outputs=[nbformat.from_dict(o) for o in outputs], execution_count=1)
    cell.metadata["tags"] = list(tags)
    return cell


def stdout(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def verdict(status: str, headline: str = "", token: str = "this-run") -> dict:
    data = {MIMETYPE: {"status": status, "headline": headline, "token": token}}
    return {"output_type": "display_data", "metadata": {}, "data": data}


ERROR = {"output_type": "error", "ename": "AssertionError", "evalue": "wrong on crlf\nmore", "traceback": []}


@pytest.mark.parametrize(
    "outputs,expected",
    [
        ([stdout("Not attempted yet: a stub\n"), verdict("not attempted")], (progress.NOT_ATTEMPTED, "")),
        ([stdout("Correct: 94 fixtures\n"), verdict("passed")], (progress.PASSED, "")),
        (
            [verdict("failing", "your x is wrong: MISSING (late): ..."), ERROR],
            (progress.FAILING, "your x is wrong: MISSING (late): ..."),
        ),
        (
            [stdout("Correct: 94 fixtures\n"), verdict("passed", token="another-run")],
            (progress.FAILING, "the check cell gave no verdict (was the check call changed?)"),
        ),
        (
            [stdout("Not attempted yet: printed, not emitted\n")],
            (progress.FAILING, "the check cell gave no verdict (was the check call changed?)"),
        ),
        ([stdout("checking...\n"), ERROR], (progress.FAILING, "AssertionError: wrong on crlf")),
    ],
)
def test_a_check_cell_is_read_by_this_runs_verdict_data_only(outputs: list[dict], expected: tuple[str, str]) -> None:
    run = progress.Run([executed("check_it(x)", *outputs)], "this-run")
    assert progress.outcome(run, 0) == expected


def test_a_check_that_never_ran_says_why() -> None:
    run = progress.Run([nbformat.v4.new_code_cell("check_it(x)")], "this-run", "the kernel died", 0)
    assert progress.outcome(run, 0) == (progress.FAILING, "the kernel died")


def test_check_cells_are_found_by_heading_or_tag_and_named_by_the_heading_before() -> None:
    cells = [
        nbformat.v4.new_markdown_cell("## Exercise 1: the splitter"),
        nbformat.v4.new_code_cell("class Splitter: ..."),
        nbformat.v4.new_markdown_cell("### Check\n\nYour splitter in the parser."),
        nbformat.v4.new_code_cell("check_line_splitter(Splitter)"),
        nbformat.v4.new_code_cell("not a check: only the first code cell after the heading is"),
        nbformat.v4.new_markdown_cell("## Exercise 2: tagged"),
        executed("check_other(x)", tags=("check",)),
    ]
    found = [(name, cell.source) for name, cell in progress.check_cells(cells)]
    assert found == [
        ("Exercise 1: the splitter", "check_line_splitter(Splitter)"),
        ("Exercise 2: tagged", "check_other(x)"),
    ]
