"""The one shrinker: the smallest input and split that still shows the same difference."""

from __future__ import annotations

from collections.abc import Callable

from .compare import Difference

Partition = tuple[int, ...]

Fails = Callable[[bytes, Partition], "Difference | None"]


def shrink(
    fails: Fails, raw: bytes, cuts: Partition, found: Difference, by_character: bool = True
) -> tuple[bytes, Partition, Difference]:
    """Fewer cuts, then a shorter input (never cutting a character in half),
    while the run still differs in the same way (same kind, direction and
    detail); then (``by_character``) one character at a time, and fewer cuts again.
    ``fails(raw, cuts)`` re-runs both sides."""

    def same_kind(trial_raw: bytes, trial_cuts: Partition) -> Difference | None:
        trial = fails(trial_raw, trial_cuts)
        return trial if trial is not None and trial.key == found.key else None

    cuts, found = fewer_cuts(fails, raw, cuts, found)
    size = max(len(raw) // 2, 1)
    while size >= 1:
        start = 0
        while start < len(raw):
            smaller = None
            if on_boundary(raw, start) and on_boundary(raw, start + size):
                trial_raw, trial_cuts = without_range(raw, cuts, start, size)
                smaller = same_kind(trial_raw, trial_cuts)
            if smaller is None:
                start += size
            else:
                raw, cuts, found = trial_raw, trial_cuts, smaller
        size //= 2
    shorter = by_character
    while shorter:  # then one whole character at a time, until none can go
        shorter, start = False, 0
        while start < len(raw):
            size = next((n for n in range(1, 5) if on_boundary(raw, start + n)), 1)
            trial_raw, trial_cuts = without_range(raw, cuts, start, size)
            smaller = same_kind(trial_raw, trial_cuts) if trial_raw else None
            if smaller is None:
                start += size
            else:
                raw, cuts, found, shorter = trial_raw, trial_cuts, smaller, True
        cuts, found = fewer_cuts(fails, raw, cuts, found)
    return raw, cuts, found


def fewer_cuts(fails: Fails, raw: bytes, cuts: Partition, found: Difference) -> tuple[Partition, Difference]:
    """Drop cuts one at a time while the run still differs in the same way."""
    i = 0
    while i < len(cuts):
        trial = cuts[:i] + cuts[i + 1 :]
        smaller = fails(raw, trial)
        if smaller is None or smaller.key != found.key:
            i += 1
        else:
            cuts, found = trial, smaller
    return cuts, found


def on_boundary(raw: bytes, position: int) -> bool:
    """Is ``position`` between characters? Shrinking never cuts one in half,
    or the smaller example would show a different (decoding) problem."""
    return position >= len(raw) or not 0x80 <= raw[position] < 0xC0


def without_range(raw: bytes, cuts: Partition, start: int, size: int) -> tuple[bytes, Partition]:
    """``raw`` with ``raw[start:start+size]`` deleted, and the cuts moved with the bytes."""
    end = min(start + size, len(raw))
    shorter = raw[:start] + raw[end:]
    moved = tuple(c if c <= start else max(start, c - (end - start)) for c in cuts)
    return shorter, (tuple(c for c in moved if 0 < c < len(shorter)) if shorter else ())
