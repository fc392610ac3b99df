"""Data-path layouts in words and records: the table of A-G, and for one layout where D lives and
which taddr each warp uses (the content of PTX figures 205-218).

Records are plain dicts; :mod:`tmemviz.draw.records` (or the CLI) writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.datapath.organization import check_n, check_offset, place
from tmemviz.families.datapath.shapes import HALF_LANES, DataPath
from tmemviz.tmem import WARP_LANES
from tmemviz.tmem import address as tmem_address

SPARSITY = {"dense": "dense", "sparse": "sparse", "either": "dense or sparse"}
WS = {"yes": "yes", "no": "no", "either": "either"}


@dataclass(frozen=True)
class Region:
    """What one warp's band of one CTA holds: its D lanes, the rows and the n of D there."""

    cta: int
    warp: int
    lanes: tuple[int, int]
    """First and last TMEM lane of the band that hold D (16 on half the data path)."""
    rows: tuple[int, int]
    """First and last m of D in those lanes."""
    ns: tuple[int, int]
    """First and last n of D in those lanes (a part of N on a folded layout)."""
    columns: tuple[int, int]
    """TMEM columns, relative to D's taddr."""

    offset: int = 0
    """D's taddr lane (the lane offset of half the data path, else 0)."""

    @property
    def taddr_offset(self) -> int:
        """What the warp adds to D's taddr to reach its first lane: lanes << 16 (PTX 9.7.16.2)."""
        return tmem_address(self.lanes[0] - self.offset, 0)


@dataclass(frozen=True)
class Organization:
    """One layout with a concrete N and lane offset: every warp's region, in every CTA of the group."""

    path: DataPath
    n: int
    offset: int
    regions: tuple[Region, ...]

    @property
    def columns(self) -> int:
        return self.n // self.path.parts if self.path.placement == "folded" else self.n


def default_n(path: DataPath) -> int:
    """The N a layout is shown with when none is given: 256 if legal, else the largest legal N."""
    legal = path.legal_n()
    return 256 if 256 in legal else max(legal)


def organize(path: DataPath, n: int | None = None, offset: int | None = None) -> Organization:
    """Every warp's region of D for layout ``path`` with ``n`` columns and lane ``offset``.

    >>> from tmemviz.families.datapath.shapes import shipped_path
    >>> o = organize(shipped_path("G"), 128)
    >>> [(r.warp, r.rows, r.ns, hex(r.taddr_offset)) for r in o.regions][:2]
    [(0, (0, 31), (0, 31), '0x0'), (1, (0, 31), (32, 63), '0x200000')]
    """
    n = default_n(path) if n is None else n
    check_n(path, n)
    off = 0 if offset is None else offset
    check_offset(path, off)
    regions: list[Region] = []
    for cta in range(path.cta_group):
        for warp in range(4):
            band = WARP_LANES * warp
            if path.placement == "half":
                lanes = (band + off, band + off + HALF_LANES - 1)
            else:
                lanes = (band, band + WARP_LANES - 1)
            first = _element(path, n, cta, lanes[0], off)
            last = _element(path, n, cta, lanes[1], off)
            width = n // path.parts if path.placement == "folded" else n
            regions.append(
                Region(
                    cta,
                    warp,
                    lanes,
                    (first[0], last[0]),
                    (first[1], first[1] + width - 1),
                    (0, width - 1),
                    off,
                )
            )
    return Organization(path, n, off, tuple(regions))


def _element(path: DataPath, n: int, cta: int, lane: int, offset: int) -> tuple[int, int]:
    from tmemviz.families.datapath.organization import unplace

    found = unplace(path, n, cta, lane, 0, offset)
    assert found is not None
    return found


def where_sentence(org: Organization, m: int, n: int) -> str:
    """``D[70][200] of layout B (M=128, .cta_group::2, N=256) is in CTA 1, lane 70, column 72 ...``."""
    path = org.path
    if not 0 <= m < path.m or not 0 <= n < org.n:
        raise TmemvizError(
            f"D[{m}][{n}] is outside layout {path.name}'s {path.m} x {org.n} D (m 0..{path.m - 1}, "
            f"n 0..{org.n - 1})"
        )
    p = place(path, org.n, m, n, org.offset)
    cta = f"CTA {p.cta}, " if path.cta_group == 2 else ""
    return (
        f"D[{m}][{n}] of layout {path.name} ({mma_text(path)}, N={org.n}) is in {cta}TMEM lane {p.lane}, "
        f"column {p.col} (relative to D's taddr column); warp {p.lane // WARP_LANES} of "
        f"{'that CTA' if cta else 'the warpgroup'} reads it, at taddr + "
        f"0x{tmem_address(p.lane - org.offset, p.col):08x}"
        + (f" (D's taddr has lane {org.offset})" if org.offset else "")
    )


def mma_text(path: DataPath) -> str:
    """``M=64, .cta_group::1, .ws`` (sparsity only where it picks the layout)."""
    text = f"M={path.m}, .cta_group::{path.cta_group}"
    if path.sparsity != "either":
        text += f", {path.sparsity} A"
    if path.ws == "yes":
        text += ", .ws"
    elif path.ws == "no" and path.cta_group == 1:
        text += ", no .ws"
    return text


def placement_text(path: DataPath) -> str:
    """The layout in one phrase: where row r (of the CTA's rows) and column n go."""
    if path.placement == "full":
        return "row r in lane r, column n in column n"
    if path.placement == "half":
        return "row r in lane 32*(r//16) + r%16 + offset (16 lanes of each band), column n in column n"
    which = "half" if path.parts == 2 else "quarter"
    return f"{which} p of N in lanes r + {path.rows}p, at column n - p*N/{path.parts}"


# Records: what --format json / csv print.


def ws_values(path: DataPath) -> list[bool]:
    """The ``.ws`` settings of the MMAs this layout serves, as JSON booleans (tile JSON's ``ws`` is
    one of them): ``[false]``, ``[true]``, or ``[false, true]`` where the PTX table says either.

    >>> from tmemviz.families.datapath.shapes import shipped_path
    >>> ws_values(shipped_path("B")), ws_values(shipped_path("D")), ws_values(shipped_path("E"))
    ([False], [False, True], [True])
    """
    return {"no": [False], "yes": [True]}.get(path.ws, [False, True])


def table_records(paths: Sequence[DataPath]) -> list[dict[str, Any]]:
    """One per layout: the PTX table's columns and how D is placed."""
    return [
        {
            "layout": p.name,
            "m": p.m,
            "cta_group": p.cta_group,
            "sparsity": p.sparsity,
            "ws": ws_values(p),
            "organization": p.organization,
            "placement": p.placement,
            "rows_per_cta": p.rows,
            "lanes_used": p.lanes_used,
            "lane_offsets": list(p.lane_offsets),
            "n": p.n_text,
            "ptx_figures": list(p.figures),
            "cutlass": p.cutlass,
        }
        for p in paths
    ]


TABLE_CSV = ("layout", "m", "cta_group", "sparsity", "ws", "organization", "lanes_used", "lane_offsets", "n")


def table_csv(paths: Sequence[DataPath]) -> list[tuple[Any, ...]]:
    return [
        (
            p.name,
            p.m,
            p.cta_group,
            p.sparsity,
            p.ws,
            p.organization,
            p.lanes_used,
            " ".join(map(str, p.lane_offsets)),
            p.n_text,
        )
        for p in paths
    ]


def header(org: Organization) -> dict[str, Any]:
    """The JSON fields of one layout before its warps and cells."""
    path = org.path
    return {
        "layout": path.name,
        "m": path.m,
        "n": org.n,
        "cta_group": path.cta_group,
        "sparsity": path.sparsity,
        "ws": ws_values(path),
        "organization": path.organization,
        "placement": path.placement,
        "lane_offset": org.offset,
        "rows_per_cta": path.rows,
        "columns": org.columns,
        "ptx_figures": list(path.figures),
        "cutlass": path.cutlass,
    }


def region_records(org: Organization) -> list[dict[str, Any]]:
    """One per (CTA, warp): the lanes it reads, the rows and n of D there, and its taddr offset."""
    return [
        {
            "cta": r.cta,
            "warp": r.warp,
            "lanes": list(r.lanes),
            "rows": list(r.rows),
            "n": list(r.ns),
            "columns": list(r.columns),
            "taddr_offset": r.taddr_offset,
        }
        for r in org.regions
    ]


CELL_CSV = ("m", "n", "cta", "lane", "col", "warp")


def cell_rows(org: Organization) -> list[tuple[int, ...]]:
    """Every element of D: (m, n, cta, lane, col, warp reading it)."""
    out = []
    for m in range(org.path.m):
        for n in range(org.n):
            p = place(org.path, org.n, m, n, org.offset)
            out.append((m, n, p.cta, p.lane, p.col, p.lane // WARP_LANES))
    return out


def check_element(path: DataPath, n_total: int, m: int, n: int) -> None:
    """Refuse a D[m][n] outside the M x N accumulator (a row past M would be read as the next CTA's).

    >>> from tmemviz.families.datapath.shapes import shipped_path
    >>> check_element(shipped_path("D"), 256, 127, 255)
    >>> check_element(shipped_path("D"), 256, -1, 0)
    Traceback (most recent call last):
    ...
    tmemviz.errors.TmemvizError: m must be 0..127 (a row of the M=128 accumulator D), got -1
    """
    if not 0 <= m < path.m:
        raise TmemvizError(f"m must be 0..{path.m - 1} (a row of the M={path.m} accumulator D), got {m}")
    if not 0 <= n < n_total:
        raise TmemvizError(f"n must be 0..{n_total - 1} (a column of D, N={n_total}), got {n}")
