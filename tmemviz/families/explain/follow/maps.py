"""What the TMEM map draws of an analysed kernel: its allocations in line order (where each is allocated
and freed, by which warps), and every region its accesses touch (:class:`MapRegion`: a
:class:`~tmemviz.families.explain.regions.Region` and the warps that touch it). Pure: no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tmemviz.families.explain.follow.kernel import Analysed, allocations
from tmemviz.families.explain.regions import Region
from tmemviz.tmem import TMEM_LANES


@dataclass
class MapAlloc:
    index: int
    line: int
    columns: int | None
    cta_group: int
    frees: tuple[int, ...] = ()
    """The lines of the deallocs that free it (none: never freed on any path the analysis followed)."""
    by: tuple[int, ...] = ()
    """The warps that allocate it (none: not known, the kernel was followed for any thread)."""
    lines: tuple[int, ...] = ()
    """Every alloc line of it (one allocation may be allocated on several paths)."""


@dataclass(frozen=True)
class MapRegion(Region):
    """A region and the warps whose accesses touch it (none: the kernel was followed for any thread)."""

    warps: tuple[int, ...] = ()


@dataclass
class MapStatement:
    line: int
    op: str


@dataclass
class MapKernel:
    name: str | None
    line: int
    allocs: list[MapAlloc] = field(default_factory=list)
    statements: list[MapStatement] = field(default_factory=list)
    end: int = 0
    """The function's last line (its statements' last, at least its header's)."""


def columns_of(info: dict[str, Any]) -> int | None:
    """An allocation's nCols when every alloc of it takes the same known number."""
    found = info["columns"]
    return next(iter(found)) if len(found) == 1 else None


def outside(spot: Any, columns: int | None) -> bool:
    """Whether a spot is past the allocation: for an exact offset, any cell past 128 lanes or ``columns``
    (or before the base); for a range of offsets, the least it reaches whatever the offset (PTX 9.7.16.2)."""
    if spot.exact:
        return spot.lanes[1] >= TMEM_LANES or spot.lanes[0] < 0 or spot.cols[0] < 0 or (
            columns is not None and spot.cols[1] >= columns
        )  # fmt: skip
    lane, col = spot.least
    return lane >= TMEM_LANES or (columns is not None and col >= columns)


def _warps(groups: Any) -> tuple[int, ...]:
    """The warps of trace groups (``None``: any thread, no warp known)."""
    return tuple(sorted({w for g in groups if g for w in g}))


def kernel_map(a: Analysed) -> tuple[MapKernel, list[MapRegion]]:
    known = allocations(a)
    keys = sorted((k for k, v in known.items() if v["lines"]), key=lambda k: min(known[k]["lines"]))
    last = max((i.line for i in a.body.instructions), default=a.body.line)
    kernel = MapKernel(a.body.name, a.body.line, end=last)
    index = {}
    for i, k in enumerate(keys):
        info = known[k]
        lines = info["lines"]
        pair = any("cta_group::2" in ins.text for ins in a.plan.tcgen05 if ins.line in lines)
        kernel.allocs.append(
            MapAlloc(
                i, min(lines), columns_of(info), 2 if pair else 1, tuple(sorted(info["frees"])),
                _warps(info["by"]), tuple(sorted(lines)),
            )
        )  # fmt: skip
        index[k] = i
    kernel.statements = [MapStatement(i.line, i.opcode.split(".")[1].split("::")[0]) for i in a.plan.tcgen05]
    regions: dict[Region, set[int]] = {}
    for t in a.traces:
        for access in t.accesses:
            for touch, spots in access.spots:
                for spot in spots:
                    if spot.key not in index:
                        continue
                    alloc = kernel.allocs[index[spot.key]]
                    far = outside(spot, alloc.columns)
                    exact = spot.exact and touch.exact
                    line, op = access.ins.line, access.op
                    cells = (spot.lanes, spot.cols)
                    region = Region(
                        line, op, touch.what, alloc.index, *cells, touch.writes, far, exact, spot.least
                    )
                    warps = {spot.warp} if spot.warp is not None else set(t.warps or ())
                    regions.setdefault(region, set()).update(warps)
    return kernel, [MapRegion(*vars(r).values(), warps=tuple(sorted(w))) for r, w in regions.items()]
