"""How long a run of consecutive n each thread holds in a row, for the chosen shape and every other."""

from __future__ import annotations

from itertools import pairwise

from tmemviz.errors import TmemvizError
from tmemviz.families.ldst.shapes import Shape
from tmemviz.families.tile.layout import Element, Tile, elements, make_tile


def runs(tile: Tile, items: tuple[Element, ...]) -> int:
    """The shortest run of consecutive n that any thread holds in one row: its contiguous vector length."""
    by_holder: dict[tuple[int, int, int, int], list[int]] = {}
    for e in items:
        by_holder.setdefault((e.cta, e.warp, e.thread, e.m), []).append(e.n)
    shortest = tile.n
    for ns in by_holder.values():
        ns.sort()
        length = 1
        for a, b in pairwise(ns):
            if b == a + 1:
                length += 1
            else:
                shortest = min(shortest, length)
                length = 1
        shortest = min(shortest, length)
    return shortest


def compare(shapes: tuple[Shape, ...], tile: Tile) -> list[tuple[str, int | None]]:
    """For each shape: the shortest contiguous run of n per thread and row, loading the same D with
    the same warps and storage at that shape's default ``.num`` (None where it cannot load D)."""
    out: list[tuple[str, int | None]] = []
    for shape in shapes:
        try:
            other = make_tile(
                shape,
                tile.n,
                m=tile.m,
                warps=tile.warps,
                dtype=tile.dtype,
                storage=tile.storage,
                taddr=tile.base,
                cta_group=tile.cta_group,
                sparse=tile.sparse,
                ws=tile.ws,
                paths=(tile.path,),
            )
        except TmemvizError:
            out.append((shape.name, None))
            continue
        out.append((shape.name, runs(other, elements(other))))
    return out
