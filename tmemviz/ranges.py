"""Inclusive integer ranges, as the layouts report lanes and columns."""

from __future__ import annotations

from collections.abc import Iterable


def merge_ranges(spans: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Sort inclusive ``(lo, hi)`` ranges and merge those that overlap or touch.

    >>> merge_ranges([(64, 95), (0, 31), (32, 40), (96, 127)])
    ((0, 40), (64, 127))
    """
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return tuple(merged)
