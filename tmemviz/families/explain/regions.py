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
A_KINDS = ("f16", "tf32", "i8")
"""Dense kinds whose A element size the kind fixes: K x bits = 256 per row and MMA (:func:`a_extent`)."""
A_COLUMNS = 8
A_FIRST = "A's first cell"
"""The operand's name where only the first cell of A in Tensor Memory is known."""


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
    a = record.get("a_tmem")
    if a and a.get("base"):
        extent = a_extent(record)
        if extent is None:  # where A's cells are not known, its first cell: what the address proves
            out.append((A_FIRST, a["base"], (a["lane"], a["lane"]), (a["col"], a["col"])))
        else:
            (low, high), width = extent
            lanes, cols = (a["lane"] + low, a["lane"] + high), (a["col"], a["col"] + width - 1)
            out.append(("A", a["base"], lanes, cols))
    for name, what in (
        ("scale_a", "A scale factors"),
        ("scale_b", "B scale factors"),
        ("sp_meta", "metadata"),
    ):
        where = record.get(name)
        if where and where.get("base"):
            out.append((what, where["base"], (where["lane"], where["lane"]), (where["col"], where["col"])))
    return out


def a_extent(record: Mapping[str, Any]) -> tuple[Interval, int] | None:
    """A's lanes (relative to its taddr) and columns, for a dense MMA reading A from Tensor Memory; None
    where that is not known.

    A row of A per lane, as D's rows, in the data-path layouts with one row per lane (D: M = 128; A:
    M = 256 over a CTA pair) and in the half-data-path ones (F, C), whose A shares D's lane alignment
    (PTX ISA 9.7.16.10.5). One MMA's K step of a row is K x the element's bits = 256 bits, 8 columns, for
    the kinds whose element size the kind fixes: f16 (K = 16, 16-bit), tf32 (K = 8, 32-bit), i8 (K = 32,
    8-bit) (PTX ISA 9.7.16.10.1, matrix shapes). Not known here, so not claimed: the 2x2 and 1x4 layouts
    (B, E, G), sparse A, and the f8f6f4 and block-scaled kinds (how 6- and 4-bit elements sit in a column).

    >>> a_extent({"kind": "tf32", "sparse": False, "layout": "D", "idesc": {"n": 64}})
    ((0, 127), 8)
    >>> a_extent({"kind": "f16", "sparse": False, "layout": "B", "idesc": {"n": 64}}) is None
    True
    """
    idesc, letter = record.get("idesc"), record.get("layout")
    if record.get("sparse") or record.get("kind") not in A_KINDS or letter not in ("A", "C", "D", "F"):
        return None
    if not idesc or not isinstance(idesc.get("n"), int):
        return None
    extent = d_extent(letter, idesc["n"])
    return None if extent is None else ((extent[0], extent[1]), A_COLUMNS)


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
