"""The stages offer what their lessons teach, no more (docs/architecture.md).

A public name of Utf8Decoder, LineSplitter or EventAssembler must be used by
its own lesson's code (the lesson notebook, and the explorer it renders with),
by LayeredSSEParser, or by a check (the checks, and the zoo's wrong stages the
checks are proven on). A name that only a fast parser would call has no place
in a class lessons 02-04 show to learners.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from sse_course.decoding import Utf8Decoder
from sse_course.events import EventAssembler
from sse_course.lines import LineSplitter

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "sse_course"
LESSONS = {Utf8Decoder: "02-bytes-to-text", LineSplitter: "03-text-to-lines", EventAssembler: "04-lines-to-events"}
#: Code that may use a stage: LayeredSSEParser, the checks, the explorer, the zoo.
USERS = ["layered.py", "classroom/checks.py", "classroom/render.py", "classroom/zoo.py"]


def public_names(cls: type) -> set[str]:
    """The class's public methods and properties, and the public attributes an instance sets."""
    return {n for n in dir(cls) if not n.startswith("_")} | {n for n in vars(cls()) if not n.startswith("_")}


def used_names(source: str, *, self_too: bool) -> set[str]:
    """Attribute names read or written in ``source``: on any object but ``self`` /
    ``cls`` (a class's own code is not a use of it), or on any object if ``self_too``
    (a subclass, as in the zoo, uses what it reaches through ``self`` and ``super()``)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if self_too or not own:
                found.add(node.attr)
    return found


def lesson_code(name: str) -> str:
    """The code cells of a lesson, less those that present the package's source."""
    cells = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
    return "\n".join(
        "\n".join(line for line in "".join(cell["source"]).splitlines() if not line.lstrip().startswith(("%", "!")))
        for cell in cells
        if cell["cell_type"] == "code" and not any(t.startswith("package:") for t in cell["metadata"].get("tags", []))
    )


def unused(cls: type, lesson: str, users: dict[str, str]) -> list[str]:
    """The public names of ``cls`` that neither its lesson nor any of ``users`` uses."""
    used = used_names(lesson, self_too=False)
    for path, source in users.items():
        used |= used_names(source, self_too=path.endswith("zoo.py"))
    return sorted(public_names(cls) - used)


def users() -> dict[str, str]:
    return {path: (PACKAGE / path).read_text(encoding="utf-8") for path in USERS}


@pytest.mark.parametrize("cls", LESSONS, ids=lambda cls: cls.__name__)
def test_every_public_name_of_a_stage_has_a_user(cls: type) -> None:
    assert unused(cls, lesson_code(LESSONS[cls]), users()) == []


def test_the_check_rejects_a_stage_that_grows_a_method_only_a_fast_parser_calls() -> None:
    class GrownSplitter(LineSplitter):
        def take_partial(self) -> str:  # what the old fast parser called
            return self.partial

    assert unused(GrownSplitter, lesson_code("03-text-to-lines"), users()) == ["take_partial"]
    assert "take_partial" not in unused(GrownSplitter, "splitter.take_partial()", users())  # a use is seen
