"""The ``outside-allocation`` rule: what each access reaches in its allocation.

Each warp's trace places every operand of every access per offset its address may hold
(:class:`~tmemviz.families.explain.follow.machine.Spot`): one exact offset (a constant, one of a few
accumulator stages, one warp's lane quarter) is judged on its own, so an access is outside when *some*
warp or stage takes it past the allocation; a range of offsets (bits the analysis does not know) only
when *every* offset in it does (PTX 9.7.16.2: 128 lanes, the alloc's nCols columns; past them the access
is undefined and ptxas's ``-g-tmem-access-check`` traps). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tmemviz.families.check.findings import Finding, access_error
from tmemviz.families.explain.follow.kernel import Analysed, allocations
from tmemviz.families.explain.follow.maps import columns_of, outside
from tmemviz.tmem import TMEM_LANES


def outside_findings(a: Analysed) -> Iterable[Finding]:
    known = allocations(a)
    reported: set[tuple[int, str]] = set()
    for t in a.traces:
        for access in t.accesses:
            for touch, spots in access.spots:
                if (access.ins.line, touch.what) in reported:
                    continue
                for spot in spots:
                    info = known.get(spot.key)
                    if info is None or not info["lines"]:
                        continue
                    columns = columns_of(info)
                    if not outside(spot, columns):
                        continue
                    reported.add((access.ins.line, touch.what))
                    who = spot.warp if spot.warp is not None else t.warps
                    yield _finding(a, access, touch, spot, columns, min(info["lines"]), who)
                    break


def _finding(a: Analysed, access: Any, touch: Any, spot: Any, columns: int | None, line: int,
             warp: Any) -> Finding:  # fmt: skip
    what = f" ({touch.what})" if touch.what not in ("cells", "rows") else ""
    if spot.exact:
        where = f"touches lanes {spot.lanes[0]}..{spot.lanes[1]}, columns {spot.cols[0]}..{spot.cols[1]}"
    else:
        where = f"reaches lane {spot.least[0]}, column {spot.least[1]} at least, whatever its offset,"
    has = f"{columns} columns" if columns is not None else "its columns"
    # An address given as a number lies in the allocation that takes every column (Places.spot_key).
    base = (
        f"as a number, in the allocation of line {line} (every column: its base is lane 0, column 0)"
        if spot.number
        else f"from the base allocated on line {line}"
    )
    return access_error(
        a,
        access,
        warp,
        "outside-allocation",
        f"{what} {where}",
        f" {base}, which has {TMEM_LANES} lanes and {has}",
    )
