"""exercises/ is what tools/make_exercises.py makes of solutions/, and its stubs are real stubs."""

from __future__ import annotations

import ast
import functools
import re
import shutil
from pathlib import Path

import make_exercises  # tools/ is on the path (pyproject.toml)
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent

SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
EXERCISES = sorted((ROOT / "exercises").glob("*.ipynb"))


def code_cells(path: Path) -> list[nbformat.NotebookNode]:
    return [cell for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"]


def test_exercises_are_in_sync_with_solutions() -> None:
    assert make_exercises.check(SOLUTIONS) == []


def test_check_mode_notices_a_stale_or_missing_exercise(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ROOT / "exercises", tmp_path, dirs_exist_ok=True)
    monkeypatch.setattr(make_exercises, "EXERCISES", tmp_path)
    first = tmp_path / SOLUTIONS[0].name
    notebook = nbformat.read(first, as_version=4)
    notebook.cells[-1].source += "\n"
    nbformat.write(notebook, first)
    (tmp_path / SOLUTIONS[1].name).unlink()
    problems = make_exercises.check(SOLUTIONS)
    assert any("differs" in p and first.name in p for p in problems)
    assert any("missing" in p and SOLUTIONS[1].name in p for p in problems)
    assert make_exercises.main(["--check"]) == 1


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name)
def test_solution_markers_are_balanced_and_inside_bodies(path: Path) -> None:
    blocks = 0
    for index, cell in enumerate(code_cells(path)):
        make_exercises.stub_source(cell.source, f"{path.name}, cell {index}")  # raises MarkerError
        blocks += cell.source.count(make_exercises.BEGIN)
    assert blocks > 0, f"{path.name} has nothing for the learner to write"


def stub_functions(source: str) -> list[str]:
    """Names of functions whose body (after a docstring) is only `raise NotImplementedError`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body[1:] if isinstance(node.body[0], ast.Expr) else node.body
            if (
                len(body) == 1
                and isinstance(body[0], ast.Raise)
                and ast.unparse(body[0]) == "raise NotImplementedError"
            ):
                found.append(node.name)
    return found


@pytest.mark.parametrize("path", EXERCISES, ids=lambda p: p.name)
def test_every_stub_is_a_whole_body_that_raises(path: Path) -> None:
    for cell in code_cells(path):
        stubs = cell.source.count(make_exercises.STUB)
        assert make_exercises.BEGIN not in cell.source and make_exercises.END not in cell.source
        assert len(stub_functions(cell.source)) == stubs, cell.source


@pytest.mark.parametrize("path", EXERCISES, ids=lambda p: p.name)
def test_every_check_in_an_exercise_says_not_attempted(path: Path) -> None:
    """The stored outputs (kept current by nbval) show a learner's first run."""
    checks = [cell for cell in code_cells(path) if cell.source.lstrip().startswith("check_")]
    assert checks, f"{path.name} has no check cell"
    for cell in checks:
        text = "".join(output.get("text", "") for output in cell.outputs)
        assert text.startswith("Not attempted yet: "), (path.name, cell.source, text)


@pytest.mark.parametrize("path", EXERCISES, ids=lambda p: p.name)
def test_every_try_it_cell_in_an_exercise_shows_only_the_note(path: Path) -> None:
    """On a stub, try_it prints its note and returns None: a cell that prints what it returned shows a stray None."""
    tries = [cell for cell in code_cells(path) if "try_it(" in cell.source]
    for cell in tries:
        text = "".join(output.get("text", "") for output in cell.outputs)
        shown = [output for output in cell.outputs if output.output_type != "stream"]
        assert text.startswith("Not attempted yet: ") and text.count("\n") == 1 and not shown, (cell.source, text)


def test_stub_source_keeps_indentation_and_code_outside_markers() -> None:
    source = "def f(x):\n    y = 1\n    ### BEGIN SOLUTION\n    return x + y\n    ### END SOLUTION\n\nprint(2)"
    assert make_exercises.stub_source(source) == "def f(x):\n    y = 1\n    raise NotImplementedError\n\nprint(2)"


@pytest.mark.parametrize(
    "source, problem",
    [
        ("def f():\n    ### BEGIN SOLUTION\n    pass", "without"),
        ("def f():\n    pass\n    ### END SOLUTION", "without"),
        ("def f():\n    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n    ### END SOLUTION", "inside another"),
        ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION", "inside a function"),
    ],
)
def test_stub_source_refuses_bad_markers(source: str, problem: str) -> None:
    with pytest.raises(make_exercises.MarkerError, match=problem):
        make_exercises.stub_source(source)


def test_cells_tagged_solution_are_left_out() -> None:
    solution = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_markdown_cell("answer")]
    )
    solution.cells[1].metadata["tags"] = [make_exercises.SOLUTION_TAG]
    exercise = make_exercises.exercise_of(solution, "00-test.ipynb")
    assert [cell.source for cell in exercise.cells] == ["x = 1"]


def cell_tags(cell: nbformat.NotebookNode) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


@pytest.mark.parametrize("path", EXERCISES, ids=lambda p: p.name)
def test_predict_cells_ask_before_they_answer(path: Path) -> None:
    """A predict cell in an exercise shows no output until it runs, and the prose
    right after it keeps its answer folded in a <details> block."""
    cells = nbformat.read(path, as_version=4).cells
    predicts = [i for i, cell in enumerate(cells) if make_exercises.PREDICT_TAG in cell_tags(cell)]
    for i in predicts:
        cell = cells[i]
        assert cell.cell_type == "code" and cell.outputs == [] and make_exercises.IGNORE_OUTPUT_TAG in cell_tags(cell)
        after = cells[i + 1] if i + 1 < len(cells) else None
        if after is not None and after.cell_type == "markdown":
            assert after.source.startswith(("<details>", "#")), (path.name, after.source[:80])
    solved = nbformat.read(ROOT / "solutions" / path.name, as_version=4).cells
    assert all(cell.outputs for cell in solved if make_exercises.PREDICT_TAG in cell_tags(cell)), (
        "the solution keeps the answers"
    )


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name)
def test_every_exercise_part_has_a_check(path: Path) -> None:
    cells = nbformat.read(path, as_version=4).cells
    parts = sum(cell.source.startswith("## Exercise") for cell in cells if cell.cell_type == "markdown")
    checked = sum(cell.source.lstrip().startswith("check_") for cell in cells if cell.cell_type == "code")
    assert checked >= parts, path.name


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name)
def test_every_exercise_states_its_time(path: Path) -> None:
    header = nbformat.read(path, as_version=4).cells[0].source
    assert re.search(r"^\*\*Time:\*\* about \d+ minutes\.$", header, re.MULTILINE), path.name


def test_predict_cells_are_stubbed_of_their_outputs_and_compared_nowhere_else() -> None:
    solution = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    solution.cells[0].metadata["tags"] = [make_exercises.PREDICT_TAG]
    solution.cells[0].outputs = [nbformat.v4.new_output("stream", text="1\n")]
    exercise = make_exercises.exercise_of(solution, "00-test.ipynb")
    assert exercise.cells[0].outputs == []
    assert cell_tags(exercise.cells[0]) == [make_exercises.PREDICT_TAG, make_exercises.IGNORE_OUTPUT_TAG]
    exercise.cells[0].outputs = [nbformat.v4.new_output("stream", text="1\n")]
    make_exercises.clear_predictions(exercise)
    assert exercise.cells[0].outputs == []


def learner_text(notebook: nbformat.NotebookNode) -> str:
    return "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")


def test_the_generated_note_is_for_maintainers_only() -> None:
    solution = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Exercise 00")])
    exercise = make_exercises.exercise_of(solution, "00-test.ipynb")
    assert "solutions/00-test.ipynb" in exercise.metadata[make_exercises.METADATA_KEY]["generated"]
    assert learner_text(exercise) == "# Exercise 00"
    exercise.metadata.pop(make_exercises.METADATA_KEY)
    assert make_exercises.structure(exercise) != make_exercises.structure(
        make_exercises.exercise_of(solution, "00-test.ipynb")
    )


@pytest.mark.parametrize("path", EXERCISES, ids=lambda p: p.name)
def test_no_exercise_page_speaks_to_maintainers(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    assert "make_exercises" not in learner_text(notebook) and "edit the solution" not in learner_text(notebook)


# --- no solution retypes a lesson ---------------------------------------------------
# `duplicates` reads .py files only; this reads the notebooks. A solution block (the lines
# between the markers) must not hold REPEAT_WINDOW consecutive lines that a lesson's code
# cell also holds, in the same order, once comments and spacing are set aside. Two lines are
# enough: a short block (a close() of two lines) is the easiest one to retype.

REPEAT_WINDOW = 2
LESSONS = sorted((ROOT / "notebooks").glob("*.ipynb"))
INLINE_COMMENT = re.compile(r"\s+#\s.*$")


def normalised(lines: list[str]) -> list[str]:
    """Code lines without comments, blank lines, markers or spacing differences."""
    kept = []
    for line in lines:
        line = INLINE_COMMENT.sub("", line).strip()
        if line and not line.startswith("#"):
            kept.append(" ".join(line.split()))
    return kept


def windows(lines: list[str]) -> set[tuple[str, ...]]:
    return {tuple(lines[i : i + REPEAT_WINDOW]) for i in range(len(lines) - REPEAT_WINDOW + 1)}


def solution_blocks(source: str) -> list[list[str]]:
    """The lines between each BEGIN and END marker of one cell."""
    blocks: list[list[str]] = []
    block: list[str] = []
    inside = False
    for line in source.splitlines():
        if line.strip() == make_exercises.BEGIN:
            inside, block = True, []
        elif line.strip() == make_exercises.END:
            inside = False
            blocks.append(block)
        elif inside:
            block.append(line)
    return blocks


@functools.cache
def lesson_windows() -> dict[tuple[str, ...], str]:
    """Every window of every lesson code cell, and where it is."""
    found: dict[tuple[str, ...], str] = {}
    for path in LESSONS:
        for index, cell in enumerate(code_cells(path)):
            for window in windows(normalised(cell.source.splitlines())):
                found.setdefault(window, f"{path.name}, code cell {index}")
    return found


def repeats(blocks: list[list[str]], lessons: dict[tuple[str, ...], str]) -> list[str]:
    return [
        f"{lessons[w]}: {' / '.join(w)}" for block in blocks for w in sorted(windows(normalised(block))) if w in lessons
    ]


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name)
def test_no_solution_repeats_a_lesson_cell(path: Path) -> None:
    blocks = [block for cell in code_cells(path) for block in solution_blocks(cell.source)]
    assert blocks
    assert repeats(blocks, lesson_windows()) == []


def test_the_repeat_test_catches_a_block_copied_from_a_lesson() -> None:
    """Lesson 05's obvious composition, typed into a solution with other spacing and a comment."""
    lesson = next(
        cell.source
        for cell in code_cells(ROOT / "notebooks" / "05-limits-and-failures.ipynb")
        if "class Chain" in cell.source
    )
    start = lesson.index("    def close(self)")
    copied = [line.replace("    ", "  ") + "  # mine" for line in lesson[start:].splitlines()[:4]]
    assert repeats([copied], lesson_windows()), copied
