"""Pure tile mapper: which CTA, warp, thread, instruction and register hold each element D[m][n].

An epilogue does not issue one tcgen05.ld; it loads a whole accumulator tile D
(M x N) with a warpgroup (4 warps) or two, each warp restricted to its 32-lane
band (PTX 9.7.16.8.1), with several instructions along N. Where D sits is the
tcgen05.mma data-path layout (A-G, PTX 9.7.16.10.5; :mod:`tmemviz.datapath`):
with ``.cta_group::1, M = 128`` (layout D, the default) row m in lane m. This
module places every element using only the single-instruction mapper of
:mod:`tmemviz.families.ldst.layout` (never a layout of its own): each instruction's
cells are exactly ``ldst.layout.cells`` at its taddr, and the data-path layout
says which D[m][n] a lane and column hold. :mod:`tmemviz.families.tile.plan` says who
loads what.

For 32-bit elements, element column e (of D's columns in a lane band) is TMEM
column e. 16-bit elements are stored one of two ways, and the load differs:

* ``packed`` (two elements per 32-bit column, element e in column e/2, bits
  16*(e%2)): a plain ``.b32`` load; each register holds the two elements of one
  column, e even in bits 15:0. ``.pack::16b`` would be wrong here: it reads bits
  15:0 of two columns (PTX 9.7.16.8.2) and so would skip every odd element.
* ``unpacked`` (one element per column, in bits 15:0 of column e): a
  ``.pack::16b`` load, which packs the elements of columns 2c and 2c+1 into one
  register (bits 15:0 and 31:16, PTX Figure 193).

Either way a register holds two elements (``half`` 0 = bits 15:0, 1 = bits 31:16).

N: a folded layout (B, E, G) splits the MMA's own N, so N must be one MMA's
legal N; the others place columns independently, so a tile N wider than one
MMA is several MMAs side by side and any N that fits Tensor Memory is taken.

>>> from tmemviz.families.ldst.shapes import builtin
>>> t = make_tile(builtin("16x256b"), 256)
>>> t.num, len(t.issued_by(0)), t.registers_per_thread
(32, 2, 256)
>>> element_at(t, 37, 5)
Element(warp=1, thread=22, instruction=0, reg=1, half=None, m=37, n=5, lane=37, col=5, cta=0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import NamedTuple

from tmemviz.errors import TmemvizError
from tmemviz.families.datapath.organization import check_n, check_offset, check_tile_n, choose, place, unplace
from tmemviz.families.datapath.shapes import DataPath
from tmemviz.families.ldst.layout import cells_at_origin, which
from tmemviz.families.ldst.shapes import Shape
from tmemviz.families.tile.plan import Issued, make_plan
from tmemviz.tmem import TMEM_COLUMNS, TMEM_LANES, WARP_LANES
from tmemviz.tmem import address as tmem_address

DTYPE_BITS = {"f32": 32, "f16": 16, "bf16": 16}
"""Element types of D and their widths."""
STORAGES = ("packed", "unpacked")
"""How 16-bit elements sit in TMEM: two per 32-bit column, or one in bits 15:0 of each."""
TILE_M = 128
"""The default M (with ``.cta_group::1``: data-path layout D, row m in lane m)."""
WARPS = (4, 8)
__all__ = ["Element", "Issued", "Tile", "element_at", "elements", "make_tile"]


class Element(NamedTuple):
    """Where D[m][n] is: its CTA, TMEM lane and column, and the warp, thread, instruction and register.

    ``half`` is None for 32-bit elements, else the half of the register
    (0 = bits 15:0, 1 = bits 31:16). ``cta`` is 0 with ``.cta_group::1``.
    """

    warp: int
    thread: int
    instruction: int
    reg: int
    half: int | None
    m: int
    n: int
    lane: int
    col: int
    cta: int = 0


@dataclass(frozen=True)
class Tile:
    """A planned tile load: D's geometry and data-path layout, the instruction choice, every instruction."""

    m: int
    n: int
    shape: Shape
    num: int
    warps: int
    dtype: str
    storage: str | None
    """``packed`` or ``unpacked`` for 16-bit dtypes, None for f32."""
    base: tuple[int, int]
    """(lane, column) of D's taddr per CTA; its lane is the lane offset (16 only on half the data path)."""
    issued: tuple[Issued, ...]
    """Ordered by CTA, warp, then index."""
    path: DataPath
    """The tcgen05.mma data-path layout D was written in (PTX 9.7.16.10.5)."""
    ws: bool = False
    sparse: bool = False
    """Whether the MMA was tcgen05.mma.sp (sparse A): picks layout C over B; D is the same either way."""

    @property
    def layout(self) -> str:
        return self.path.name

    @property
    def cta_group(self) -> int:
        return self.path.cta_group

    @property
    def bits(self) -> int:
        return DTYPE_BITS[self.dtype]

    @property
    def pack(self) -> bool:
        """Whether the load needs ``.pack::16b``: only for unpacked 16-bit storage."""
        return self.storage == "unpacked"

    @property
    def per_band(self) -> int:
        """Elements of a row D holds in one lane band (N, or N/parts for a folded layout)."""
        return self.n // self.path.parts if self.path.placement == "folded" else self.n

    @property
    def columns(self) -> int:
        """TMEM columns D occupies in each CTA."""
        return self.per_band // 2 if self.storage == "packed" else self.per_band

    @property
    def split_offset(self) -> int | None:
        return self.issued[0].ins.split_offset

    @property
    def mnemonic(self) -> str:
        return self.issued[0].ins.mnemonic

    @property
    def registers_per_thread(self) -> int:
        """Registers one thread receives over all its warp's instructions (the same for every warp)."""
        return sum(i.ins.registers_per_thread for i in self.issued_by(0))

    @property
    def width(self) -> int:
        """Elements of N one instruction covers in one row (both halves of a split shape)."""
        ins = self.issued[0].ins
        per_column = 2 if self.storage == "packed" else 1
        return ins.access_width * ins.shape.accesses * per_column

    def issued_by(self, warp: int, cta: int = 0) -> tuple[Issued, ...]:
        return tuple(i for i in self.issued if i.warp == warp and i.cta == cta)

    def tmem_column(self, e: int) -> int:
        """The absolute TMEM column holding element column ``e`` of a lane band."""
        return self.base[1] + (e // 2 if self.storage == "packed" else e)

    def column_of(self, n: int) -> int:
        """The absolute TMEM column holding D[.][n]."""
        return self.tmem_column(place(self.path, self.n, 0, n, self.base[0]).col)

    def offset(self, issued: Issued) -> int:
        """The instruction's taddr minus the tile's: lane in bits 31:16, column in bits 15:0."""
        lane, col = issued.taddr
        return tmem_address(lane - self.base[0], col - self.base[1])


def make_tile(
    shape: Shape,
    n: int,
    *,
    m: int = TILE_M,
    num: int | None = None,
    warps: int = 4,
    dtype: str = "f32",
    storage: str | None = None,
    taddr: tuple[int, int] | None = None,
    cta_group: int = 1,
    sparse: bool = False,
    ws: bool = False,
    lane_offset: int | None = None,
    paths: Sequence[DataPath] | None = None,
) -> Tile:
    """Validate the tile and plan every warp's instructions (see :mod:`tmemviz.families.tile.plan`)."""
    if paths is None:
        from tmemviz.families.datapath.shapes import shipped_paths

        paths = shipped_paths()
    path = choose(paths, m, cta_group, sparse, ws)
    if warps not in WARPS:
        raise TmemvizError(f"--warps must be 4 or 8 (one or two warpgroups), got {warps}")
    if dtype not in DTYPE_BITS:
        raise TmemvizError(f"unknown dtype '{dtype}'; use {', '.join(DTYPE_BITS)}")
    bits = DTYPE_BITS[dtype]
    if bits == 32 and storage is not None:
        raise TmemvizError(f"--storage applies to 16-bit dtypes (f16, bf16), not {dtype}")
    if bits == 16:
        storage = storage or "packed"
        if storage not in STORAGES:
            raise TmemvizError(f"--storage must be packed or unpacked, got '{storage}'")
    if n < 1:
        raise TmemvizError(f"N must be at least 1, got {n}")
    if path.placement == "folded" or ws:
        check_n(path, n, ws)  # a folded layout splits the MMA's own N (see the module docstring)
    per_band = n // path.parts if path.placement == "folded" else n
    if bits == 16 and per_band % 2:
        raise TmemvizError(
            f"a 16-bit tile needs an even N (each 32-bit register holds two elements) in each lane band, "
            f"got {per_band}"
        )
    base = _base(path, taddr, lane_offset)
    columns = per_band // 2 if storage == "packed" else per_band
    if base[1] < 0 or base[1] + columns > TMEM_COLUMNS:
        raise TmemvizError(
            f"D needs TMEM columns {base[1]}..{base[1] + columns - 1} ({per_band} {dtype} elements"
            f"{', two per column' if storage == 'packed' else ''}), but Tensor Memory has columns "
            f"0..{TMEM_COLUMNS - 1}"
        )
    if path.placement != "folded" and not ws:
        check_tile_n(path, n)  # after the column check, which bounds N
    if WARP_LANES % shape.lanes:
        raise TmemvizError(f"{shape.name} covers {shape.lanes} lanes, which do not tile a 32-lane warp band")
    plan = make_plan(path, shape, n, warps, bits, storage, base[0])
    chosen = plan.default_num() if num is None else plan.check_num(num)
    issued = plan.issue(chosen, base, path.cta_group)
    return Tile(m, n, shape, chosen, warps, dtype, storage, base, issued, path, ws, sparse)


def _base(path: DataPath, taddr: tuple[int, int] | None, lane_offset: int | None) -> tuple[int, int]:
    """D's taddr: its lane is the lane offset (PTX 9.7.16.10.5: 0, or 16 on half the data path)."""
    lane, col = taddr if taddr is not None else (lane_offset or 0, 0)
    if lane_offset is not None and lane != lane_offset:
        raise TmemvizError(
            f"--lane-offset {lane_offset} and the taddr's lane {lane} disagree; give one of them"
        )
    if lane not in path.lane_offsets:
        if len(path.lane_offsets) > 1:
            check_offset(path, lane)
        raise TmemvizError(
            f"layout {path.name} fills lanes from 0 (lane alignment 0), so D's taddr lane must be 0, "
            f"got {lane}"
        )
    return lane, col


def elements(tile: Tile) -> tuple[Element, ...]:
    """Every element of D with its holder, ordered by m, then n.

    Built from ``ldst.layout.cells`` of each instruction and the data-path layout's
    inverse: a packed 16-bit column (plain load) gives two elements, the even one in
    register bits 15:0.
    """
    col0 = tile.base[1]
    packed = tile.storage == "packed"
    path, m_total, n_total, offset = tile.path, tile.m, tile.n, tile.base[0]
    new = tuple.__new__  # an Element without a Python-level constructor call: there are M x N of them
    # Each element goes straight to its place in the M x N grid as it is made (no second pass, no
    # sort): the plan holds each (m, n) once. One outside the grid or on a place already taken is kept
    # aside, and then all are sorted (stably: in the order made), so a wrong plan still shows as it is.
    grid: list[Element | None] = [None] * (m_total * n_total)
    aside: list[Element] = []
    # unplace moves a lane's elements by whole rows and column parts, never along a row (PTX 9.7.16.10.5):
    # (m, n) is the lane's (row, first n) plus the element column, so unplace once per lane of each CTA.
    by_cta = {
        cta: [unplace(path, n_total, cta, lane, 0, offset) for lane in range(TMEM_LANES)]
        for cta in {issued.cta for issued in tile.issued}
    }
    for issued in tile.issued:
        warp, index, cta = issued.warp, issued.index, issued.cta
        rows = by_cta[cta]
        ins = issued.ins
        # cells(ins) is cells_at_origin moved by ins.origin: moved here, each cell built once.
        lane0, first_col = ins.origin
        at_origin = cells_at_origin(ins.shape, ins.num, ins.pack, ins.split_offset)
        for thread, reg, cell_half, lane, col in at_origin:
            lane += lane0
            col += first_col
            row = rows[lane]
            assert row is not None, f"{ins.mnemonic} reads lane {lane}, which holds no D"
            m, n0 = row
            if packed:  # two elements per column: the even one in bits 15:0
                n = n0 + 2 * (col - col0)
                halves: tuple[tuple[int, int], ...] = ((0, n), (1, n + 1))
            else:
                halves = ((cell_half, n0 + col - col0),)
            for half, n in halves:
                e = new(Element, (warp, thread, index, reg, half, m, n, lane, col, cta))
                if 0 <= m < m_total and 0 <= n < n_total and grid[m * n_total + n] is None:
                    grid[m * n_total + n] = e
                else:
                    aside.append(e)
    if aside or None in grid:
        return tuple(sorted([e for e in grid if e is not None] + aside, key=_BY_M_N))
    return tuple(grid)  # type: ignore[arg-type]


_BY_M_N = attrgetter("m", "n")


def element_at(tile: Tile, m: int, n: int) -> Element:
    """The holder of D[m][n], asking ``ldst.layout.which`` of the one instruction that loads it."""
    if not 0 <= m < tile.m or not 0 <= n < tile.n:
        raise TmemvizError(
            f"D[{m}][{n}] is outside the {tile.m} x {tile.n} tile (m 0..{tile.m - 1}, n 0..{tile.n - 1})"
        )
    where = place(tile.path, tile.n, m, n, tile.base[0])
    lane, col = where.lane, tile.tmem_column(where.col)
    for issued in tile.issued:
        lo, hi = issued.ins.lane_range()
        if issued.cta != where.cta or not lo <= lane <= hi:
            continue
        if any(a <= col <= b for a, b in issued.ins.column_ranges()):
            owner = which(issued.ins, lane, col)[0]
            half = where.col % 2 if tile.storage == "packed" else owner.half
            return Element(
                issued.warp, owner.thread, issued.index, owner.reg, half, m, n, lane, col, where.cta
            )
    raise AssertionError(f"no instruction loads D[{m}][{n}]")  # the plan covers every element
