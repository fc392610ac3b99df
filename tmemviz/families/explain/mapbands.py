"""The TMEM map's bands: each kind of user of an allocation in its own band, so nothing hides another.

A band is one kind of user: the MMAs' accumulator (D, each stage a column range of its own), the A
operand read from Tensor Memory, the block scale factors, the sparsity metadata, and each warpgroup's
tcgen05.cp, shift, st, ld and ld.red (a warpgroup is four consecutive warps whose first is a multiple of 4,
PTX 9.7.16.6.1: a tcgen05.ld/st warp reaches lanes 32 x (warp id % 4) on). Within a band, regions that
cover the same cells are one rectangle naming every line. Pure data; no drawing here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tmemviz.tmem import TMEM_LANES

KINDS = {
    "D": ("MMA accumulator (D)", "#9ecae1"),
    "A": ("A operand in Tensor Memory", "#9edae5"),
    "scales": ("block scale factors", "#c5b0d5"),
    "metadata": ("sparsity metadata", "#dbdb8d"),
    "cp": ("tcgen05.cp writes", "#ffe680"),
    "shift": ("tcgen05.shift moves", "#f7b6d2"),
    "st": ("tcgen05.st writes", "#fdbf6f"),
    "ld": ("tcgen05.ld reads", "#b2df8a"),
    "ld.red": ("tcgen05.ld.red reads", "#8fd175"),
}
"""Each kind of user: what the legend calls it, and its colour (light enough for black labels)."""
ORDER = tuple(KINDS)
PER_WARP = ("cp", "shift", "st", "ld", "ld.red")
"""Kinds issued by warps each for their own part: one band per warpgroup."""
CLASHING = ("A", "scales", "metadata", "cp", "shift")
"""Kinds whose cells an MMA's D must not share (the old map's clash: a copy's rows landing in D)."""
ALLOCATED, PAST, OUTSIDE, FINDING = "#eeeeee", "#ffffff", "#e31a1c", "#6a00a8"
"""Allocated columns, columns past the allocation, cells outside it, and what marks a finding (a colour
of its own, so a frame shows on the error colour too)."""
LIVE, EDGE = "#c6dbef", "#333333"
"""The lifetime: lines from the alloc to the last dealloc, and the alloc and dealloc marks."""


def kind_of(region: Any) -> str:
    if region.op == "mma":
        if region.what == "D":
            return "D"
        if region.what in ("A", "A's first cell"):
            return "A"
        return "metadata" if region.what == "metadata" else "scales"
    return region.op if region.op in KINDS else "ld"


def warpgroups(warps: Iterable[int]) -> tuple[int, ...]:
    """The warpgroups (warp // 4) of ``warps``.

    >>> warpgroups((4, 5, 7)), warpgroups(())
    ((1,), ())
    """
    return tuple(sorted({w // 4 for w in warps}))


def warps_text(warps: Sequence[int]) -> str:
    """``warp 0``, ``warps 4-7``, ``warps 0, 2``; empty for none.

    >>> warps_text((4, 5, 6, 7)), warps_text((0,)), warps_text((0, 2)), warps_text(())
    ('warps 4-7', 'warp 0', 'warps 0, 2', '')
    """
    if not warps:
        return ""
    if len(warps) == 1:
        return f"warp {warps[0]}"
    if list(warps) == list(range(warps[0], warps[-1] + 1)):
        return f"warps {warps[0]}-{warps[-1]}"
    return "warps " + ", ".join(map(str, warps))


@dataclass
class Rect:
    """Cells of one band that the same regions cover: lanes and columns, and those regions."""

    lanes: tuple[int, int]
    cols: tuple[int, int]
    regions: list[Any] = field(default_factory=list)

    @property
    def lines(self) -> list[int]:
        return sorted({r.line for r in self.regions})

    @property
    def outside(self) -> bool:
        return any(r.outside for r in self.regions)

    @property
    def exact(self) -> bool:
        return all(r.exact for r in self.regions)


@dataclass
class Band:
    kind: str
    group: tuple[int, ...]
    """The warpgroups of a per-warp band (ld, st, cp, shift); empty for the MMA's operands."""
    rects: list[Rect] = field(default_factory=list)

    @property
    def warps(self) -> tuple[int, ...]:
        return tuple(sorted({w for rect in self.rects for r in rect.regions for w in r.warps}))

    @property
    def name(self) -> str:
        """``warps 4-7: tcgen05.ld reads``, ``MMA accumulator (D), 2 stages, issued by warp 1``."""
        label = KINDS[self.kind][0]
        who = warps_text(self.warps)
        if self.kind == "D":
            stages = len({rect.cols for rect in self.rects})
            label += f", {stages} stages" if stages > 1 else ""
        if self.kind in PER_WARP:
            return f"{who}: {label}" if who else f"{label} (any warp)"
        return f"{label}, issued by {who}" if who else label


def bands(regions: Iterable[Any], width: int) -> list[Band]:
    """The bands of one allocation's regions (clipped to ``width`` columns and the 128 lanes), in the
    order the map draws them: the MMA's operands, then each warpgroup's copies, shifts, stores, loads."""
    found: dict[tuple[str, tuple[int, ...]], Band] = {}
    for r in regions:
        lanes = (max(0, r.lanes[0]), min(TMEM_LANES - 1, r.lanes[1]))
        cols = (max(0, r.cols[0]), min(width - 1, r.cols[1]))
        if lanes[0] > lanes[1] or cols[0] > cols[1]:
            continue
        kind = kind_of(r)
        group = warpgroups(r.warps) if kind in PER_WARP else ()
        band = found.setdefault((kind, group), Band(kind, group))
        rect = next((x for x in band.rects if (x.lanes, x.cols) == (lanes, cols)), None)
        if rect is None:
            rect = Rect(lanes, cols)
            band.rects.append(rect)
        rect.regions.append(r)
    out = sorted(found.values(), key=lambda b: (b.kind in PER_WARP, b.group, ORDER.index(b.kind)))
    for band in out:
        band.rects.sort(key=lambda x: (x.cols, x.lanes))
    return out


def clashes(rect: Rect, band: Band, d: Sequence[Rect]) -> bool:
    """Whether ``rect`` of ``band`` shares cells with an MMA's D (only kinds that must not)."""
    if band.kind not in CLASHING:
        return False
    return any(
        rect.lanes[0] <= x.lanes[1] and x.lanes[0] <= rect.lanes[1] and rect.cols[0] <= x.cols[1]
        and x.cols[0] <= rect.cols[1] for x in d
    )  # fmt: skip


def describe(region: Any) -> str:
    """``line 254: tcgen05.mma writes D (warp 0)``."""
    verb = "writes" if region.writes else "reads"
    what = "" if region.what == "cells" else f" {region.what}"
    who = warps_text(region.warps)
    return (
        f"line {region.line}: tcgen05.{region.op} {verb}{what}"
        + (f" ({who})" if who else "")
        + (" (outside the allocation)" if region.outside else "")
        + ("" if region.exact else " (somewhere in this range: the offset is not one value)")
    )
