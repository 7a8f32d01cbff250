"""The explorer widget: a thin wrapper that redraws when a slider moves."""

from __future__ import annotations

import re

import pytest

from sse_course.classroom.render import render_explorer
from sse_course.classroom.widgets import split_explorer

RAW = "data: 👋\n\ndata: ok\n\n".encode()


def drawn_cuts(rendered: str) -> list[int]:
    return [int(c) for c in re.findall(r'data-cut="(\d+)"', rendered)]


def test_moving_the_slider_redraws_the_view() -> None:
    explorer = split_explorer(RAW, [3], layers=["decoder"])
    assert drawn_cuts(explorer.view.value) == [3]
    assert "pending bytes" in explorer.view.value
    explorer.sliders[0].value = 8
    assert drawn_cuts(explorer.view.value) == [8]
    assert explorer.view.value == render_explorer(RAW, [8], ["decoder"])


def test_two_sliders_give_sorted_cuts_and_may_make_an_empty_chunk() -> None:
    explorer = split_explorer(RAW, [2, 5])
    explorer.sliders[0].value = 9
    assert explorer.cuts == [5, 9] and drawn_cuts(explorer.view.value) == [5, 9]
    explorer.sliders[1].value = 9
    assert "chunk 2 · empty" in explorer.view.value


def test_candidates_are_compared_at_the_chosen_split() -> None:
    def per_chunk_decoder():  # enough of a parser for run(): feed/close
        class Naive:
            def feed(self, chunk: bytes) -> list:
                chunk.decode("utf-8")
                return []

            def close(self) -> list:
                return []

        return Naive()

    explorer = split_explorer(RAW, [3], layers=[], candidates={"naive": per_chunk_decoder})
    assert "UnicodeDecodeError" not in explorer.view.value
    explorer.sliders[0].value = 8  # inside the emoji
    assert "UnicodeDecodeError" in explorer.view.value


def test_the_callback_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    explorer = split_explorer(RAW, [3])
    explorer.sliders[0].value = 4
    assert capsys.readouterr() == ("", "")


def test_sliders_stay_inside_the_input() -> None:
    explorer = split_explorer(RAW, [3])
    assert (explorer.sliders[0].min, explorer.sliders[0].max) == (1, len(RAW) - 1)
    with pytest.raises(ValueError, match="two bytes"):
        split_explorer(b"x")
