"""The tcgen05.mma data-path layouts A-G: which one an MMA uses, and where D[m][n] lives.

PTX ISA 9.7.16.10.5 "Data Path Layout Organization" names seven layouts of the
accumulator D in Tensor Memory, chosen by M, ``.cta_group``, the sparsity of A
and ``.ws``. Their facts live in the shape files ``layouts/datapath/*.yaml``
(read by :mod:`tmemviz.families.datapath.shapes`); this module is pure: it picks a
layout and maps an element to its CTA, lane and column.

Three placements cover all seven (per CTA; with ``.cta_group::2`` CTA ``c`` of
the pair holds rows ``c*M/2 .. (c+1)*M/2 - 1``, all N columns):

- ``full``: row r in lane r (A, D);
- ``half``: 16 rows per 32-lane band, row r in lane ``32*(r//16) + r%16 +
  offset`` with offset 0 or 16 (C, F: "half the data path");
- ``folded``: column part ``p = n // (N/parts)`` in lanes ``r + rows*p`` at
  column ``n % (N/parts)`` (B, E: halves; G: quarters).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tmemviz.errors import TmemvizError
from tmemviz.families.datapath.shapes import HALF_LANES, DataPath


def _condition(path: DataPath) -> str:
    sparsity = "" if path.sparsity == "either" else f", {path.sparsity} A"
    ws = {"yes": ", .ws", "no": "", "either": ""}[path.ws]
    if path.ws == "no" and path.cta_group == 1:
        ws = ", no .ws"
    return f"M={path.m} with .cta_group::{path.cta_group}{sparsity}{ws} ({path.name})"


def choose(paths: Sequence[DataPath], m: int, cta_group: int, sparse: bool, ws: bool) -> DataPath:
    """The table row for an MMA; anything the table lacks is one sentence naming what is legal."""
    for path in paths:
        if path.m == m and path.cta_group == cta_group and path.takes(sparse, ws):
            return path
    asked = f"M={m} with .cta_group::{cta_group}{', sparse A' if sparse else ''}{', .ws' if ws else ''}"
    legal = "; ".join(_condition(p) for p in paths)
    raise TmemvizError(f"tcgen05.mma has no data-path layout for {asked}; the PTX table has: {legal}")


def letter(
    m: int, cta_group: int, sparse: bool = False, ws: bool = False, paths: Sequence[DataPath] | None = None
) -> str:
    """The data-path layout letter of a tcgen05.mma (PTX 9.7.16.10.5), from the shipped table by default.

    >>> letter(128, 1), letter(256, 2), letter(128, 2), letter(128, 2, sparse=True)
    ('D', 'A', 'B', 'C')
    >>> letter(64, 1), letter(64, 1, ws=True), letter(32, 1, ws=True)
    ('F', 'E', 'G')
    """
    if paths is None:
        from tmemviz.families.datapath.shapes import shipped_paths

        paths = shipped_paths()
    return choose(paths, m, cta_group, sparse, ws).name


def check_n(path: DataPath, n: int, ws: bool = False) -> None:
    """Refuse an N the layout's M does not take, naming the legal ones."""
    if n not in path.legal_n(ws):
        raise TmemvizError(
            f"N={n} is not legal for layout {path.name} (M={path.m}, .cta_group::{path.cta_group}"
            f"{', .ws' if ws else ''}); N must be {path.describe_n(ws)}"
        )


def check_tile_n(path: DataPath, n: int, ws: bool = False) -> None:
    """Refuse a tile N that no row of MMAs side by side makes: N must be a sum of legal MMA N's.

    Call it with an N that fits Tensor Memory (at most a few thousand), the search is over 0..N.

    >>> from tmemviz.families.datapath.shapes import shipped_paths
    >>> d = {p.name: p for p in shipped_paths()}["D"]
    >>> check_tile_n(d, 272), check_tile_n(d, 512)
    (None, None)
    """
    legal = path.legal_n(ws)
    reachable = [True] + [False] * n
    for total in range(1, n + 1):
        reachable[total] = any(total >= step and reachable[total - step] for step in legal)
    if not reachable[n]:
        raise TmemvizError(
            f"N={n} is not a sum of legal MMA N's for layout {path.name} (M={path.m}, "
            f".cta_group::{path.cta_group}{', .ws' if ws else ''}: N is {path.describe_n(ws)}); a tile "
            f"wider than one MMA is several MMAs side by side"
        )


def check_offset(path: DataPath, offset: int) -> None:
    """Refuse a lane offset the layout does not allow (only C and F take 16)."""
    if offset not in path.lane_offsets:
        allowed = " or ".join(map(str, path.lane_offsets))
        raise TmemvizError(f"lane offset {offset} is not legal for layout {path.name}; it takes {allowed}")


@dataclass(frozen=True)
class Place:
    """Where one element of D lives: which CTA of the pair, and the lane and column in its TMEM."""

    cta: int
    lane: int
    col: int


def place(path: DataPath, n_total: int, m: int, n: int, offset: int = 0) -> Place:
    """Where D[m][n] of an M x ``n_total`` accumulator lives (lane/column relative to the taddr of D).

    >>> from tmemviz.families.datapath.shapes import shipped_path
    >>> place(shipped_path("B"), 256, 70, 200)
    Place(cta=1, lane=70, col=72)
    >>> place(shipped_path("F"), 64, 17, 3, offset=16)
    Place(cta=0, lane=49, col=3)
    >>> place(shipped_path("G"), 128, 5, 100)
    Place(cta=0, lane=101, col=4)
    """
    cta, r = divmod(m, path.rows)
    if path.placement == "full":
        return Place(cta, r, n)
    if path.placement == "half":
        # PTX 9.7.16.10.5, layouts C/F: 16 rows in each warp's band, at lane offset 0 or 16.
        band, i = divmod(r, HALF_LANES)
        return Place(cta, 32 * band + i + offset, n)
    part, col = divmod(n, n_total // path.parts)
    return Place(cta, r + path.rows * part, col)


def unplace(
    path: DataPath, n_total: int, cta: int, lane: int, col: int, offset: int = 0
) -> tuple[int, int] | None:
    """The (m, n) of D held at ``lane``/``col`` (column in elements from D's first) of CTA ``cta``, or None.

    The inverse of :func:`place`:

    >>> from tmemviz.families.datapath.shapes import shipped_path
    >>> unplace(shipped_path("B"), 256, 1, 70, 72), unplace(shipped_path("F"), 64, 0, 33, 3, offset=16)
    ((70, 200), None)
    """
    if path.placement == "full":
        return cta * path.rows + lane, col
    if path.placement == "half":
        band, i = divmod(lane, 32)
        i -= offset
        if not 0 <= i < HALF_LANES:
            return None
        return cta * path.rows + HALF_LANES * band + i, col
    part, r = divmod(lane, path.rows)
    return cta * path.rows + r, part * (n_total // path.parts) + col
