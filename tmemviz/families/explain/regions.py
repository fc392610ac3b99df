"""The Tensor Memory each tcgen05 statement touches: relative to its address registers, from what each
instruction's own family says (the explain records: ld/st cells, the MMA's data-path layout from its
idesc M/N, cp rows and words, shift rows, scale factors and metadata), and as a :class:`Region` of an
allocation once the analysis (:mod:`tmemviz.families.explain.follow`) placed it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

Interval = tuple[int, int]
WRITERS = ("st", "mma", "cp", "shift")


@dataclass(frozen=True)
class Region:
    """What one statement touches in one alloc: lanes and columns relative to the alloc's base."""

    line: int
    op: str
    what: str
    """``D``, ``A scale factors``, ``rows`` ...: which operand, in words."""
    alloc: int
    lanes: Interval
    cols: Interval
    writes: bool
    outside: bool
    exact: bool
    """The address is one value (not an interval of offsets): the region is exactly what is touched."""
    reach: tuple[int, int] = (0, 0)
    """The last lane and column touched whatever the offset in its interval (what ``outside`` rests on)."""


def footprints(
    record: Mapping[str, Any], catalog: Any = None, extent: tuple[Interval, Interval] | None = None
) -> list[tuple[str, str, Interval, Interval]]:
    """(operand, base register, lanes, columns) each instruction touches, relative to its base register.

    >>> footprints({"op": "shift", "base": "%r1", "rows": {"from_lanes": [0, 30], "to_lanes": [1, 31],
    ...             "cols": [0, 7]}})
    [('rows', '%r1', (0, 31), (0, 7))]
    """
    op = record.get("op")
    if "error" in record:
        return []
    if op in ("ld", "st", "ld.red") and record.get("base") and extent is not None:
        return [("cells", record["base"], extent[0], extent[1])]
    if op in ("ld", "st", "ld.red") and record.get("base") and isinstance(record.get("cells"), list):
        cells = record["cells"]
        lanes = (min(c["lane"] for c in cells), max(c["lane"] for c in cells))
        cols = (min(c["col"] for c in cells), max(c["col"] for c in cells))
        return [("cells", record["base"], lanes, cols)]
    if op == "shift" and record.get("base"):
        rows = record["rows"]
        return [("rows", record["base"], (rows["from_lanes"][0], rows["to_lanes"][1]), tuple(rows["cols"]))]
    if op == "cp" and record.get("base") and catalog is not None:
        from tmemviz.families.cp.layout import written_lanes
        from tmemviz.families.cp.spelling import resolve_copy

        copy = resolve_copy(catalog, record["ptx"])
        lanes = written_lanes(copy)
        low, high = copy.column_span()
        return [("rows", record["base"], (min(a for a, _ in lanes), max(b for _, b in lanes)), (low, high))]
    if op == "mma":
        return _mma(record)
    return []


def _mma(record: Mapping[str, Any]) -> list[tuple[str, str, Interval, Interval]]:
    out: list[tuple[str, str, Interval, Interval]] = []
    d = record["d"]
    if d.get("base"):
        lanes, cols = (d["lane"], d["lane"]), (d["col"], d["col"])
        idesc, letter = record.get("idesc"), record.get("layout")
        if idesc and letter and isinstance(idesc.get("n"), int):
            extent = d_extent(letter, idesc["n"])
            if extent is not None:
                low, high, width = extent
                if idesc.get("d_type", "F32") not in ("F32", "S32"):
                    width = max(1, width // 2)  # a 16-bit (or unknown) D: at least half the columns
                lanes, cols = (d["lane"] + low, d["lane"] + high), (d["col"], d["col"] + width - 1)
        out.append(("D", d["base"], lanes, cols))
    for name, what in (
        ("scale_a", "A scale factors"),
        ("scale_b", "B scale factors"),
        ("sp_meta", "metadata"),
    ):
        where = record.get(name)
        if where and where.get("base"):
            out.append((what, where["base"], (where["lane"], where["lane"]), (where["col"], where["col"])))
    return out


@lru_cache(maxsize=64)
def d_extent(letter: str, n: int) -> tuple[int, int, int] | None:
    """D's first and last lane (relative to its taddr) and its columns, for data-path layout ``letter``
    with N = ``n`` (the datapath family's organization); None when N is not legal for it.

    >>> d_extent("D", 128), d_extent("E", 128), d_extent("D", 7)
    ((0, 127, 128), (0, 127, 64), None)
    """
    from tmemviz.errors import TmemvizError
    from tmemviz.families.datapath.answers import organize
    from tmemviz.families.datapath.shapes import shipped_path

    try:
        org = organize(shipped_path(letter), n)
    except TmemvizError:
        return None
    low = min(r.lanes[0] for r in org.regions) - org.offset
    high = max(r.lanes[1] for r in org.regions) - org.offset
    return low, high, org.columns
