"""Pure tile mapper: which warp, thread, instruction and register hold each element D[m][n].

An epilogue does not issue one tcgen05.ld; it loads a whole accumulator tile D
(M x N) with a warpgroup (4 warps) or two, each warp restricted to its 32-lane
band (PTX 9.7.16.8.1), with several instructions along N. This module plans
those instructions and places every element of D, using only the single-
instruction mapper of :mod:`tmemviz.ldst.layout` (never a layout of its own):
each instruction's cells are exactly ``ldst.layout.cells`` at its taddr.

Where D sits in Tensor Memory (``cta_group::1``, M = 128, PTX 9.7.16.10 data
path layout for M = 128): row m in lane m; for 32-bit elements column n in
column n. 16-bit elements are stored one of two ways, and the load differs:

* ``packed`` (two elements per 32-bit column, D[m][n] in column n/2, bits
  16*(n%2)): a plain ``.b32`` load; each register holds the two elements of one
  column, n even in bits 15:0. ``.pack::16b`` would be wrong here: it reads bits
  15:0 of two columns (PTX 9.7.16.8.2) and so would skip every odd n.
* ``unpacked`` (one element per column, in bits 15:0 of column n): a
  ``.pack::16b`` load, which packs the elements of columns 2c and 2c+1 into one
  register (bits 15:0 and 31:16, PTX Figure 193).

Either way a register holds two elements (``half`` 0 = bits 15:0, 1 = bits 31:16).

How the work is split is the caller's choice in a real kernel; tmemviz follows
Triton Gluon's TMEM register layouts (``get_reg_layout``), checked against
Triton 3.9:

* 4 warps: warp w loads lanes 32w..32w+31 over the whole of N; a 16-lane shape
  needs a second instruction 16 lanes lower (taddr lane +16) for each step.
* 8 warps, 32-lane shape: warps 4-7 take the right half of N (Gluon's warp
  basis [0, N/2]).
* 8 warps, 16-lane shapes: warps 4-7 take lanes +16 of each band over the whole
  of N (Gluon's warp basis [16, 0]), so no warp issues a second, +16 instruction.
* ``.16x32bx2``: Gluon only infers it and never takes it as a request. tmemviz
  sets immHalfSplitoff to half of the warp's columns, so threads 0-15 load the
  left half of N and threads 16-31 the right half; Gluon's inferred use on M = 64
  tiles puts lane bit 4 at column N/2 the same way. Each instruction covers
  ``num`` columns of each half.

A warp's instructions are numbered along N first step, then lane group: index
``i = step * groups + group`` (``groups`` = 2 for a 16-lane shape loaded by 4
warps, else 1), so instructions 0 and 1 of a 16-lane shape load the same
columns for lanes +0 and +16.

Default ``.num``: the largest legal ``.num`` whose instruction covers a whole
divisor of the warp's share of N (``.num`` values are powers of two, so this
is the fewest instructions that tile N exactly).

>>> from tmemviz.ldst.shapes import builtin
>>> t = make_tile(builtin("16x256b"), 256)
>>> t.num, len(t.issued_by(0)), t.registers_per_thread
(32, 2, 256)
>>> element_at(t, 37, 5)
Element(warp=1, thread=22, instruction=0, reg=1, half=None, m=37, n=5, lane=37, col=5)
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import NamedTuple

from tmemviz.errors import TmemvizError
from tmemviz.ldst.layout import Instruction, cells, make_instruction, which
from tmemviz.ldst.shapes import Shape
from tmemviz.tmem import TMEM_COLUMNS, TMEM_LANES, WARP_LANES

DTYPE_BITS = {"f32": 32, "f16": 16, "bf16": 16}
"""Element types of D and their widths."""
STORAGES = ("packed", "unpacked")
"""How 16-bit elements sit in TMEM: two per 32-bit column, or one in bits 15:0 of each."""
TILE_M = 128
"""The one M whose TMEM layout is sourced exactly: cta_group::1, M = 128, row m in lane m."""
WARPS = (4, 8)
WARPGROUP = 4


class Element(NamedTuple):
    """Where D[m][n] is: its TMEM lane and column, and the warp, thread, instruction and register holding it.

    ``half`` is None for 32-bit elements, else the half of the register
    (0 = bits 15:0, 1 = bits 31:16).
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


@dataclass(frozen=True)
class Issued:
    """One tcgen05.ld of the tile: the warp issuing it, its index among that warp's, the instruction."""

    warp: int
    index: int
    ins: Instruction
    """With an absolute taddr and the issuing warp, validated by :func:`make_instruction`."""

    @property
    def taddr(self) -> tuple[int, int]:
        assert self.ins.taddr is not None
        return self.ins.taddr


@dataclass(frozen=True)
class Tile:
    """A planned tile load: D's geometry, the instruction choice and every warp's instructions."""

    m: int
    n: int
    shape: Shape
    num: int
    warps: int
    dtype: str
    storage: str | None
    """``packed`` or ``unpacked`` for 16-bit dtypes, None for f32."""
    base: tuple[int, int]
    """Absolute (lane, column) of D[0][0]."""
    issued: tuple[Issued, ...]
    """Ordered by warp, then index."""

    @property
    def bits(self) -> int:
        return DTYPE_BITS[self.dtype]

    @property
    def pack(self) -> bool:
        """Whether the load needs ``.pack::16b``: only for unpacked 16-bit storage."""
        return self.storage == "unpacked"

    @property
    def columns(self) -> int:
        """TMEM columns D occupies."""
        return self.n // 2 if self.storage == "packed" else self.n

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

    def issued_by(self, warp: int) -> tuple[Issued, ...]:
        return tuple(i for i in self.issued if i.warp == warp)

    def column_of(self, n: int) -> int:
        """The absolute TMEM column holding D[.][n]."""
        return self.base[1] + (n // 2 if self.storage == "packed" else n)

    def offset(self, issued: Issued) -> int:
        """The instruction's taddr minus the tile's: lane in bits 31:16, column in bits 15:0."""
        lane, col = issued.taddr
        return ((lane - self.base[0]) << 16) | (col - self.base[1])


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
) -> Tile:
    """Validate the tile and plan every warp's instructions (see the module docstring)."""
    if m != TILE_M:
        raise TmemvizError(
            f"only M={TILE_M} tiles are supported (cta_group::1: row m in lane m), got M={m}; the TMEM "
            "layouts of M=64 and cta_group::2 tiles are not sourced exactly here"
        )
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
    if bits == 16 and n % 2:
        raise TmemvizError(
            f"a 16-bit tile needs an even N (each 32-bit register holds two elements), got N={n}"
        )
    base = taddr if taddr is not None else (0, 0)
    if base[0] != 0:
        raise TmemvizError(
            f"an M={TILE_M} tile fills lanes 0..{TMEM_LANES - 1}, so its taddr lane must be 0, got {base[0]}"
        )
    columns = n // 2 if storage == "packed" else n
    if base[1] < 0 or base[1] + columns > TMEM_COLUMNS:
        raise TmemvizError(
            f"D needs TMEM columns {base[1]}..{base[1] + columns - 1} ({n} {dtype} elements"
            f"{', two per column' if storage == 'packed' else ''}), but Tensor Memory has columns "
            f"0..{TMEM_COLUMNS - 1}"
        )
    if WARP_LANES % shape.lanes:
        raise TmemvizError(f"{shape.name} covers {shape.lanes} lanes, which do not tile a 32-lane warp band")
    plan = _Plan(shape, n, warps, bits, storage, columns)
    chosen = plan.default_num() if num is None else plan.check_num(num)
    issued = plan.issue(chosen, base)
    return Tile(m, n, shape, chosen, warps, dtype, storage, base, issued)


@dataclass(frozen=True)
class _Plan:
    """Who loads what: each warp's lane groups and its share of D's columns."""

    shape: Shape
    n: int
    warps: int
    bits: int
    storage: str | None
    columns: int

    @property
    def groups(self) -> int:
        """Lane groups per 32-lane band: 1 for a 32-lane shape, 2 for a 16-lane one."""
        return WARP_LANES // self.shape.lanes

    @property
    def warpgroups(self) -> int:
        return self.warps // WARPGROUP

    @property
    def n_parts(self) -> int:
        """How many parts N is split into between warpgroups (2 only for a 32-lane shape with 8 warps)."""
        return max(1, self.warpgroups // self.groups)

    def lane_groups(self, warp: int) -> list[int]:
        """The lane groups (+0, +16 ...) warp ``warp`` loads: warpgroup g takes every g-th group."""
        if self.n_parts > 1:
            return list(range(self.groups))  # the warpgroups split N instead
        g = warp // WARPGROUP
        return [k for k in range(self.groups) if k % self.warpgroups == g]

    def part(self, warp: int) -> int:
        """Which part of N warp ``warp`` loads."""
        return (warp // WARPGROUP) // self.groups if self.n_parts > 1 else 0

    def share(self) -> int:
        """TMEM columns each warp loads in each of its lane groups."""
        return self.columns // self.n_parts

    def span(self, num: int) -> int:
        """TMEM columns one instruction covers (both halves of a split shape)."""
        return (
            num * self.shape.columns_per_rep * (2 if self.storage == "unpacked" else 1) * self.shape.accesses
        )

    def elements(self, columns: int) -> int:
        return columns * (2 if self.storage == "packed" else 1)

    def fits(self, num: int) -> bool:
        return self.columns % self.n_parts == 0 and self.share() % self.span(num) == 0

    def default_num(self) -> int:
        legal = [k for k in self.shape.nums if self.fits(k)]
        if not legal:
            raise self.misfit(1)
        return max(legal)

    def check_num(self, num: int) -> int:
        make_instruction(self.shape, num)  # the PTX Table 49 limits, in the ld/st family's words
        if not self.fits(num):
            raise self.misfit(num)
        return num

    def misfit(self, num: int) -> TmemvizError:
        width = self.elements(self.span(num))
        split = ""
        if self.n_parts > 1:
            split = f"; with {self.warps} warps each warpgroup loads half of N ({self.n // self.n_parts})"
        return TmemvizError(
            f"N={self.n} is not a multiple of the instruction width: {self.shape.name}.x{num} covers "
            f"{width} elements of N ({self.bits}-bit) per row{split}"
        )

    def issue(self, num: int, base: tuple[int, int]) -> tuple[Issued, ...]:
        shape = self.shape
        pack = self.storage == "unpacked"
        share = self.share()
        step = self.span(num) // shape.accesses  # columns of one access
        split = share // 2 if shape.split else None
        out: list[Issued] = []
        for warp in range(self.warps):
            band = WARP_LANES * (warp % WARPGROUP)
            first = base[1] + self.part(warp) * share
            index = 0
            for k in range(share // self.span(num)):
                for group in self.lane_groups(warp):
                    taddr = (base[0] + band + group * shape.lanes, first + k * step)
                    ins = make_instruction(shape, num, pack=pack, split_offset=split, taddr=taddr, warp=warp)
                    out.append(Issued(warp, index, ins))
                    index += 1
        return tuple(out)


def elements(tile: Tile) -> tuple[Element, ...]:
    """Every element of D with its holder, ordered by m, then n.

    Built from ``ldst.layout.cells`` of each instruction: a packed 16-bit column
    (plain load) gives two elements, n even in register bits 15:0.
    """
    lane0, col0 = tile.base
    out: list[Element] = []
    for issued in tile.issued:
        for c in cells(issued.ins):
            m = c.lane - lane0
            if tile.storage == "packed":
                for half in (0, 1):
                    n = 2 * (c.col - col0) + half
                    out.append(Element(issued.warp, c.thread, issued.index, c.reg, half, m, n, c.lane, c.col))
            else:
                n = c.col - col0
                out.append(Element(issued.warp, c.thread, issued.index, c.reg, c.half, m, n, c.lane, c.col))
    out.sort(key=lambda e: (e.m, e.n))
    return tuple(out)


def element_at(tile: Tile, m: int, n: int) -> Element:
    """The holder of D[m][n], asking ``ldst.layout.which`` of the one instruction that loads it."""
    if not 0 <= m < tile.m or not 0 <= n < tile.n:
        raise TmemvizError(
            f"D[{m}][{n}] is outside the {tile.m} x {tile.n} tile (m 0..{tile.m - 1}, n 0..{tile.n - 1})"
        )
    lane, col = tile.base[0] + m, tile.column_of(n)
    for issued in tile.issued:
        lo, hi = issued.ins.lane_range()
        if lo <= lane <= hi and any(a <= col <= b for a, b in issued.ins.column_ranges()):
            owner = which(issued.ins, lane, col)[0]
            half = n % 2 if tile.storage == "packed" else owner.half
            return Element(issued.warp, owner.thread, issued.index, owner.reg, half, m, n, lane, col)
    raise AssertionError(f"no instruction loads D[{m}][{n}]")  # the plan covers every element


def runs(tile: Tile, items: tuple[Element, ...]) -> int:
    """The shortest run of consecutive n that any thread holds in one row: its contiguous vector length."""
    by_holder: dict[tuple[int, int, int], list[int]] = {}
    for e in items:
        by_holder.setdefault((e.warp, e.thread, e.m), []).append(e.n)
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
    the same warps and storage at that shape's default ``.num`` (None where it cannot tile N)."""
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
            )
        except TmemvizError:
            out.append((shape.name, None))
            continue
        out.append((shape.name, runs(other, elements(other))))
    return out
