"""The lessons present the package's code, not a copy that can drift.

A lesson cell tagged ``package:<module>.<name>`` must hold exactly the source of
that object in the package (compared after dedenting and stripping). Every
layer the course builds must be presented somewhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from drift import TAG, package_source

ROOT = Path(__file__).resolve().parent.parent

#: What the lessons must present, layer by layer.
REQUIRED = {
    "sse_course.decoding.Utf8Decoder",
    "sse_course.lines.LineSplitter",
    "sse_course.events.split_field",
    "sse_course.events.parse_retry",
    "sse_course.events.EventAssembler",
    "sse_course.layered.LayeredSSEParser",
    "sse_course.payloads.JSONPayloads",
}


def tagged_cells(folder: str = "notebooks") -> list[tuple[str, str, str]]:
    """(notebook, dotted name, cell source) for every tagged cell."""
    found = []
    for path in sorted((ROOT / folder).glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for tag in cell.get("metadata", {}).get("tags", []):
                if tag.startswith(TAG):
                    found.append((path.name, tag[len(TAG) :], "".join(cell["source"])))
    return found


def test_every_layer_is_presented_by_a_lesson() -> None:
    presented = {name for _, name, _ in tagged_cells()}
    assert REQUIRED <= presented, f"no lesson presents {sorted(REQUIRED - presented)}"


@pytest.mark.parametrize("notebook,dotted,source", tagged_cells(), ids=lambda v: str(v)[:40])
def test_lesson_cell_is_the_package_source(notebook: str, dotted: str, source: str) -> None:
    assert source.strip() == package_source(dotted), (
        f"{notebook}: the cell tagged {TAG}{dotted} differs from the package; "
        "copy the package source into the cell (or change the package)"
    )


def test_a_method_is_presented_by_its_own_source() -> None:
    source = package_source("sse_course.parser.SSEParser.feed")
    assert source.startswith("def feed(self, chunk: Chunk)") and "class SSEParser" not in source


def test_drift_check_rejects_an_edited_copy() -> None:
    """The comparison is not vacuous: one changed character is caught."""
    source = package_source("sse_course.lines.LineSplitter")
    edited = source.replace('text[-1] == "\\r"', 'text[-1] == "\\n"')
    assert edited != source and edited.strip() != package_source("sse_course.lines.LineSplitter")
