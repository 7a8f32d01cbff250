"""Thin ipywidgets wrappers around :mod:`sse_course.classroom.render`.

A slider per cut, one ``HTML`` view, and ``observe``: the callback only puts a
pure function's HTML into the view (it never prints, so a notebook's stored
output stays the same with or without a browser). Core widgets only, so the
explorers also work in Colab and VS Code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ipywidgets import HTML, IntSlider, Layout, VBox

from .harness import Factory
from .render import LAYERS, render_explorer


class SplitExplorer(VBox):
    """Sliders choosing where the chunks are cut, above the rendering of that split.

    ``sliders`` and ``view`` are kept as attributes so tests (and curious
    readers) can drive the explorer: set ``sliders[0].value``, read ``view.value``.
    """

    def __init__(
        self,
        raw: bytes,
        cuts: Sequence[int] = (1,),
        *,
        layers: Sequence[str] = LAYERS,
        candidates: Mapping[str, Factory] | None = None,
        profile: str = "strict",
        render: Callable[[bytes, list[int]], str] | None = None,
        **options: Any,
    ) -> None:
        """``render(raw, cuts)``, if given, draws the view instead of the layers and candidates."""
        if len(raw) < 2:
            raise ValueError("an explorer needs at least two bytes to cut between")
        self.raw = raw
        self.sliders = [
            IntSlider(
                value=cut,
                min=1,
                max=len(raw) - 1,
                description=f"cut {number}",
                continuous_update=True,
                layout=Layout(width="95%"),
            )
            for number, cut in enumerate(cuts, 1)
        ]
        self.view = HTML()
        if render is None:
            self._render = lambda: render_explorer(raw, self.cuts, layers, candidates, profile, **options)
        else:
            self._render = lambda: render(raw, self.cuts)
        super().__init__([*self.sliders, self.view])
        for slider in self.sliders:
            slider.observe(self._redraw, names="value")
        self._redraw()

    @property
    def cuts(self) -> list[int]:
        """The sliders' positions, sorted (two equal cuts make an empty chunk)."""
        return sorted(slider.value for slider in self.sliders)

    def _redraw(self, _change: Any = None) -> None:
        self.view.value = self._render()


def split_explorer(raw: bytes, cuts: Sequence[int] = (1,), **kwargs: Any) -> SplitExplorer:
    """An explorer over ``raw``; see :class:`SplitExplorer` for the options.

    ``candidates={"name": factory, ...}`` adds each parser's outcome next to
    the package's at the chosen split (e.g. a naive parser, or lesson 07's zoo).
    """
    return SplitExplorer(raw, cuts, **kwargs)
