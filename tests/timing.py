"""Timing ratios on a shared machine: one sample can be off by a factor of three."""

from __future__ import annotations

import statistics
from collections.abc import Callable


def median_of_three(measure: Callable[[], float], threshold: float) -> float:
    """The median of three measurements, each taken only if still needed: two on the
    same side of ``threshold`` decide the median whatever the third is."""
    ratios: list[float] = []
    while len(ratios) < 3 and max(sum(r < threshold for r in ratios), sum(r >= threshold for r in ratios)) < 2:
        ratios.append(measure())
    return statistics.median(ratios)
