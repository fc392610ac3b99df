"""Pure layout functions for tcgen05.ld / tcgen05.st: cells, which, where.

The general rules live here once, for every shape file:

* ``.num = xN`` repeats the x1 picture N times, each repetition ``k`` using
  registers ``k*R .. k*R+R-1`` and sitting ``k*W`` columns further right
  (PTX 9.7.16.8.3: ".num indicates the repeat factor on the base dimension").
* ``.pack::16b`` (ld) / ``.unpack::16b`` (st) keep the register count but replace
  every column ``c`` by the pair ``2c`` (register bits 15:0) and ``2c+1`` (bits
  31:16), using the low 16 bits of each TMEM column (PTX 9.7.16.8.2, Figure 193).
* ``.16x32bx2`` makes its second access at ``taddr + immHalfSplitoff``.
* With a taddr, coordinates are absolute and a warp may only touch the 32
  lanes of its band (PTX 9.7.16.8.1); without one they are taddr-relative.
* ``tcgen05.ld.red`` loads the same registers as tcgen05.ld and also reduces
  (min or max) the values each thread loads into its scalar ``redval``
  (PTX 9.7.16.8.3); :func:`reductions` says which lane and columns each
  thread's redval covers.

Nothing here prints or reads files.

>>> from tmemviz.families.ldst.shapes import builtin
>>> shape = builtin("16x256b")
>>> ins = make_instruction(shape, 4)
>>> ins.mnemonic, ins.registers_per_thread
('tcgen05.ld.sync.aligned.16x256b.x4.b32', 16)
>>> which(ins, 9, 5)
(Owner(thread=6, reg=3, half=None),)
>>> where(ins, 5, 4)
(Cell(thread=5, reg=4, half=None, lane=1, col=10),)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from tmemviz import tmem
from tmemviz.errors import TmemvizError
from tmemviz.families.ldst.reduction import Reduced, Reduction, check_reduction
from tmemviz.families.ldst.shapes import NUMS, Shape
from tmemviz.tmem import THREADS, TMEM_COLUMNS, TMEM_LANES, WARP_LANES, check_inside, merge_ranges
from tmemviz.tmem import address as tmem_address

OPS = ("ld", "st")


class Cell(NamedTuple):
    """One (half-)cell moved by an instruction: thread's register ``reg`` <-> (lane, col).

    ``half`` is ``None`` for a whole 32-bit register, else 0 (register bits 15:0)
    or 1 (bits 31:16) of a packed register.
    """

    thread: int
    reg: int
    half: int | None
    lane: int
    col: int


class Owner(NamedTuple):
    """The thread and register (half) holding one TMEM cell."""

    thread: int
    reg: int
    half: int | None


class Written(NamedTuple):
    """What a PTX line names that the layout does not depend on."""

    guard: str | None
    """``%p1`` or ``!%p1``; None when unguarded."""
    vector: tuple[str, ...] | None
    redval: str | None = None


@dataclass(frozen=True)
class Instruction:
    """A fully specified, validated tcgen05.ld or tcgen05.st."""

    shape: Shape
    num: int
    pack: bool
    op: str
    split_offset: int | None
    """Column offset of the second access (``.16x32bx2`` only), else None."""
    taddr: tuple[int, int] | None
    """Absolute (lane, column) of taddr; None means coordinates are taddr-relative."""
    warp: int | None
    """Warp (within the CTA) issuing the instruction, when a taddr is given."""
    warnings: tuple[str, ...] = ()
    red: Reduction | None = None
    """The reduction of a tcgen05.ld.red, else None."""
    offset: tuple[int, int] = (0, 0)
    """The address immediate of ``[base + imm]`` as (lane, column): imm >> 16, imm & 0xFFFF (PTX 9.7.16.2)."""
    base: str | None = None
    """The base register of the address when a PTX line names it; coordinates are relative to it."""
    written: Written | None = None
    """The names a PTX line wrote (guard, registers): no part of the layout, kept for ``ptx --emit ptx``."""

    @property
    def registers_per_thread(self) -> int:
        """PTX Tables 49/50: R registers per repetition times ``.num``."""
        return self.shape.registers_per_rep * self.num

    @property
    def access_width(self) -> int:
        """Columns one access spans; packing doubles it (two 16-bit halves per register)."""
        return self.num * self.shape.columns_per_rep * (2 if self.pack else 1)

    @property
    def access_bases(self) -> tuple[int, ...]:
        if self.split_offset is None:
            return (0,)
        return (0, self.split_offset)

    @property
    def origin(self) -> tuple[int, int]:
        """Where the access starts: taddr (or the base register, as 0,0) plus the address immediate."""
        lane, col = self.taddr if self.taddr is not None else (0, 0)
        return lane + self.offset[0], col + self.offset[1]

    @property
    def qualifiers(self) -> str:
        """``16x256b.x4`` plus the pack or reduction qualifiers: the part that names the layout."""
        text = f"{self.shape.name}.x{self.num}"
        if self.pack:
            text += ".pack::16b" if self.op == "ld" else ".unpack::16b"
        if self.red is not None:
            text += self.red.qualifiers
        return text

    @property
    def mnemonic(self) -> str:
        """The PTX opcode with every qualifier, e.g. ``tcgen05.ld.sync.aligned.16x256b.x4.b32``.

        tcgen05.ld.red names its ``.type`` instead of ``.b32`` (PTX 9.7.16.8.3).
        """
        if self.red is not None:
            return f"tcgen05.ld.red.sync.aligned.{self.qualifiers}"
        return f"tcgen05.{self.op}.sync.aligned.{self.qualifiers}.b32"

    def statement(
        self, taddr_operand: str = "taddr", vector: Sequence[str] | None = None, redval: str = "redval"
    ) -> str:
        """A complete PTX statement with its register vector (what ptxas would assemble).

        Operand order (PTX 9.7.16.8.3/4): ld ``{v}, [taddr][, imm]``; ld.red
        ``{v}, redval, [taddr][, imm]``; st ``[taddr][, imm], {v}``.
        """
        names = [f"r{i}" for i in range(self.registers_per_thread)] if vector is None else list(vector)
        if len(names) != self.registers_per_thread:
            raise TmemvizError(
                f"{self.qualifiers} needs {self.registers_per_thread} registers, got {len(names)}"
            )
        braced = "{" + ", ".join(names) + "}"
        imm = tmem_address(*self.offset)
        address = f"[{taddr_operand} + {imm}]" if imm else f"[{taddr_operand}]"
        if self.split_offset is not None:
            address += f", {self.split_offset}"
        if self.red is not None:
            return f"{self.mnemonic} {braced}, {redval}, {address};"
        if self.op == "ld":
            return f"{self.mnemonic} {braced}, {address};"
        return f"{self.mnemonic} {address}, {braced};"

    def lane_range(self) -> tuple[int, int]:
        first = self.origin[0]
        return first, first + self.shape.lanes - 1

    def column_ranges(self) -> tuple[tuple[int, int], ...]:
        """Accessed columns as sorted, merged inclusive ranges."""
        col0 = self.origin[1]
        return merge_ranges((col0 + b, col0 + b + self.access_width - 1) for b in self.access_bases)

    def describe_span(self) -> str:
        """``lanes 0..15, columns 0..31`` in the instruction's coordinates."""
        lo, hi = self.lane_range()
        ranges = self.column_ranges()
        return f"lanes {lo}..{hi}, {tmem.spans('column', ranges)}"


def make_instruction(
    shape: Shape,
    num: int = 1,
    *,
    pack: bool = False,
    op: str = "ld",
    split_offset: int | None = None,
    taddr: tuple[int, int] | None = None,
    warp: int | None = None,
    red: Reduction | None = None,
    offset: tuple[int, int] = (0, 0),
    base: str | None = None,
) -> Instruction:
    """Validate every qualifier and operand against the PTX rules.

    The default split offset is ``num`` columns (``2*num`` packed), the halves
    side by side, as CUTLASS's ``16dp32b`` atoms use it.

    >>> from tmemviz.families.ldst.shapes import builtin
    >>> make_instruction(builtin("16x256b"), 64)
    Traceback (most recent call last):
    ...
    tmemviz.errors.TmemvizError: 16x256b supports .num x1..x32 (PTX Table 49)
    """
    if op not in OPS:
        raise TmemvizError(f"unknown operation '{op}'; use ld or st")
    table = "Table 49" if op == "ld" else "Table 50"
    if num not in NUMS:
        raise TmemvizError(f".x{num} is not a .num qualifier; use x1, x2, x4, x8, x16, x32, x64 or x128")
    if num > shape.max_num:
        raise TmemvizError(f"{shape.name} supports .num x1..x{shape.max_num} (PTX {table})")
    if red is not None:
        check_reduction(shape, num, pack, op, red)
    width = num * shape.columns_per_rep * (2 if pack else 1)
    warnings: list[str] = []
    if shape.split:
        if split_offset is None:
            split_offset = width
        if split_offset < 0:
            raise TmemvizError(f"the split offset must be 0 or more, got {split_offset}")
        if split_offset < width:
            overlap = f"columns {split_offset}..{width - 1} relative to taddr"
            if op == "st":
                raise TmemvizError(
                    f"split offset {split_offset} makes the two accesses of {shape.name}.x{num} "
                    f"overlap ({overlap} would be written twice); tcgen05.st needs an offset of "
                    f"at least {width}"
                )
            warnings.append(
                f"split offset {split_offset} makes the two accesses overlap: {overlap} are read "
                f"by threads 0-15 and again by threads 16-31"
            )
    elif split_offset is not None:
        raise TmemvizError(
            f"a split offset (immHalfSplitoff) applies only to .16x32bx2-style shapes, not {shape.name}"
        )
    if warp is not None and not 0 <= warp < 32:
        raise TmemvizError(f"warp must be 0..31 (a CTA has at most 32 warps), got {warp}")
    if taddr is None and warp is not None:
        taddr = (WARP_LANES * (warp % 4), 0)
    start = ((taddr or (0, 0))[0] + offset[0], (taddr or (0, 0))[1] + offset[1])
    if taddr is not None:
        warp = _check_placement(shape, start, warp)
    elif offset != (0, 0):
        check_inside(*offset)  # relative to an unknown base: only Tensor Memory's extent is known
        if offset[0] + shape.lanes > TMEM_LANES:
            raise TmemvizError(
                f"the address immediate puts lane {offset[0]} first, but {shape.name} spans {shape.lanes} "
                f"lanes and Tensor Memory has lanes 0..{TMEM_LANES - 1}"
            )
    span_end = start[1] + (split_offset or 0) + width - 1
    if span_end >= TMEM_COLUMNS:
        raise TmemvizError(
            f"the access would reach column {span_end}, but Tensor Memory has columns 0..{TMEM_COLUMNS - 1}"
        )
    return Instruction(shape, num, pack, op, split_offset, taddr, warp, tuple(warnings), red, offset, base)


def _check_placement(shape: Shape, taddr: tuple[int, int], warp: int | None) -> int:
    lane, col = taddr
    check_inside(lane, col)
    if warp is None:
        warp = lane // WARP_LANES
    band = WARP_LANES * (warp % 4)
    last = lane + shape.lanes - 1
    if not band <= lane or last > band + WARP_LANES - 1:
        raise TmemvizError(
            f"warp {warp} may access only lanes {band}..{band + WARP_LANES - 1} (PTX 9.7.16.8.1), "
            f"but {shape.name} at taddr lane {lane} touches lanes {lane}..{last}{tmem.band_hint(lane, last)}"
        )
    return warp


def cells(ins: Instruction) -> tuple[Cell, ...]:
    """Every (half-)cell the instruction moves, ordered by thread, register, half.

    >>> from tmemviz.families.ldst.shapes import builtin
    >>> ins = make_instruction(builtin("32x32b"), 2, pack=True)
    >>> [c for c in cells(ins) if c.thread == 3]
    [Cell(thread=3, reg=0, half=0, lane=3, col=0), Cell(thread=3, reg=0, half=1, lane=3, col=1), \
Cell(thread=3, reg=1, half=0, lane=3, col=2), Cell(thread=3, reg=1, half=1, lane=3, col=3)]
    """
    (lane0, col0), new = ins.origin, tuple.__new__  # new: a Cell without a constructor call (8192 at most)
    at_origin = cells_at_origin(ins.shape, ins.num, ins.pack, ins.split_offset)
    return tuple([new(Cell, (t, r, h, lane0 + lane, col0 + col)) for t, r, h, lane, col in at_origin])


@lru_cache(maxsize=32)
def cells_at_origin(shape: Shape, num: int, pack: bool, split_offset: int | None) -> tuple[Cell, ...]:
    """cells() with the access at lane 0, column 0 (``ins.origin`` added to each cell gives cells(ins)):
    shifted alike, they keep their order (one sort). A tile adds the origin itself, building no Cell twice."""
    regs, width = shape.registers_per_rep, shape.columns_per_rep
    bases = (0,) if split_offset is None else (0, split_offset)
    return tuple(
        sorted(
            Cell(s.thread, k * regs + s.reg, h, s.lane, bases[s.access] + (2 * col + h if pack else col))
            for s in shape.slots
            for k in range(num)
            for col in (k * width + s.col,)
            for h in ((0, 1) if pack else (None,))
        )
    )


def which(ins: Instruction, lane: int, col: int, half: int | None = None) -> tuple[Owner, ...]:
    """The owner(s) of TMEM (lane, col), in O(1); two only for overlapping ld halves.

    ``half`` (0 = bits 15:0, 1 = bits 31:16 of the TMEM cell) narrows an unpacked
    answer to that half of the register; a packed instruction moves only bits
    15:0 of each column, so ``half=1`` is refused there.

    >>> from tmemviz.families.ldst.shapes import builtin
    >>> ins = make_instruction(builtin("16x256b"), 2, pack=True)
    >>> which(ins, 1, 5)
    (Owner(thread=5, reg=0, half=1),)
    """
    shape = ins.shape
    lane0, col0 = ins.origin
    rel_lane, rel_col = lane - lane0, col - col0
    if not 0 <= rel_lane < shape.lanes or not any(a <= col <= b for a, b in ins.column_ranges()):
        raise TmemvizError(
            f"lane {lane}, column {col} is outside {ins.qualifiers}, which covers {ins.describe_span()}"
            + tmem.lane_hint(lane, lane0, shape.lanes, ins.taddr, ins.offset[0])
        )
    if half is not None and half not in (0, 1):
        raise TmemvizError(f"half must be lo (bits 15:0) or hi (bits 31:16), got {half}")
    if ins.pack and half == 1:
        raise TmemvizError(
            f"{ins.qualifiers} moves only bits 15:0 of each TMEM column; bits 31:16 of lane {lane}, "
            f"column {col} are not accessed (PTX 9.7.16.8.2)"
        )
    owners: list[Owner] = []
    for access, base in enumerate(ins.access_bases):
        local = rel_col - base
        if not 0 <= local < ins.access_width:
            continue
        reg_half = half
        if ins.pack:
            local, reg_half = divmod(local, 2)
        k, c = divmod(local, shape.columns_per_rep)
        slot = shape.owner(access, rel_lane, c)
        owners.append(Owner(slot.thread, k * shape.registers_per_rep + slot.reg, reg_half))
    return tuple(owners)


def where(ins: Instruction, thread: int, reg: int) -> tuple[Cell, ...]:
    """The TMEM (half-)cell(s) of ``thread``'s register ``reg``: one, or two when packed.

    >>> from tmemviz.families.ldst.shapes import builtin
    >>> ins = make_instruction(builtin("16x32bx2"), 8, split_offset=16)
    >>> where(ins, 17, 7)
    (Cell(thread=17, reg=7, half=None, lane=1, col=23),)
    """
    if not 0 <= thread < THREADS:
        raise TmemvizError(f"thread must be 0..{THREADS - 1} (its lane id in the warp), got {thread}")
    if not 0 <= reg < ins.registers_per_thread:
        raise TmemvizError(
            f"register r{reg} does not exist: {ins.qualifiers} has r0..r{ins.registers_per_thread - 1} "
            f"per thread (PTX Table {49 if ins.op == 'ld' else 50})"
        )
    shape = ins.shape
    k, r = divmod(reg, shape.registers_per_rep)
    slot = shape.slot(thread, r)
    lane0, col0 = ins.origin
    lane = lane0 + slot.lane
    col = k * shape.columns_per_rep + slot.col
    base = col0 + ins.access_bases[slot.access]
    if ins.pack:
        return (Cell(thread, reg, 0, lane, base + 2 * col), Cell(thread, reg, 1, lane, base + 2 * col + 1))
    return (Cell(thread, reg, None, lane, base + col),)


def reductions(ins: Instruction) -> tuple[Reduced, ...]:
    """For a tcgen05.ld.red: each thread's lane and the columns its redval reduces, by thread.

    Each thread loads its ``.num`` registers from one lane (both ld.red shapes
    have R = 1), so its redval covers exactly the columns of those registers.

    >>> from tmemviz.families.ldst.shapes import builtin
    >>> ins = make_instruction(builtin("16x32bx2"), 4, split_offset=8, red=Reduction("max", "f32"))
    >>> reductions(ins)[17]
    Reduced(thread=17, lane=1, cols=(8, 9, 10, 11))
    """
    if ins.red is None:
        raise TmemvizError(f"{ins.mnemonic} has no redval; give --red min or --red max for tcgen05.ld.red")
    by_thread: dict[int, list[Cell]] = {}
    for c in cells(ins):
        by_thread.setdefault(c.thread, []).append(c)
    out = []
    for thread in sorted(by_thread):
        group = by_thread[thread]
        lanes = {c.lane for c in group}
        assert len(lanes) == 1, "ld.red shapes load each thread's registers from one lane"
        out.append(Reduced(thread, lanes.pop(), tuple(sorted(c.col for c in group))))
    return tuple(out)
