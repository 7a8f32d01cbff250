"""Lesson 10's explorer: a slider for the first connection's drop point above :func:`~.resume.render_resume`.

Kept apart from :mod:`.resume` so that the exercise's check imports without ipywidgets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ipywidgets import HTML, IntSlider, Layout, VBox

from .resume import BLOCKS, render_resume


class ResumeExplorer(VBox):
    """A slider for the drop point above :func:`render_resume`; ``slider`` and ``view`` drive it in tests."""

    def __init__(self, drop_at: int = 40, blocks: Sequence[bytes] = BLOCKS) -> None:
        self.blocks = tuple(blocks)
        self.slider = IntSlider(
            value=drop_at, min=0, max=len(b"".join(blocks)), description="drop at", layout=Layout(width="95%")
        )
        self.view = HTML()
        super().__init__([self.slider, self.view])
        self.slider.observe(self._redraw, names="value")
        self._redraw()

    def _redraw(self, _change: Any = None) -> None:
        self.view.value = render_resume(self.slider.value, self.blocks)
