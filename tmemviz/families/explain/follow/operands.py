"""Where the operands of a tcgen05 or mbarrier instruction point, for one group of warps: an access's
cells in its allocation per offset (and per warp where the group's warps differ), the dealloc's address,
an nCols, an mbarrier's places. Mixed into :class:`~tmemviz.families.explain.follow.machine.Machine`.

Pure: no I/O.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tmemviz.errors import TmemvizError
from tmemviz.families.explain.follow.evaluate import addresses, columns
from tmemviz.families.explain.follow.values import Sym, Vec, bounds, number
from tmemviz.ptx import constants as c
from tmemviz.ptx.body import Instruction


class Spot(NamedTuple):
    """Where one operand lands for one offset (``exact``) or a range of them: lanes and columns from the
    allocation's base, and the least lane and column it reaches whatever the offset; ``warp`` when only
    that warp of its group lands there. (A named tuple: pending loads' cells are compared and hashed
    where paths join, in C.)"""

    key: Any
    lanes: tuple[int, int]
    cols: tuple[int, int]
    least: tuple[int, int]
    exact: bool
    warp: int | None = None
    number: bool = False
    """The address was given as a number (lane and column), not built on a base read back."""


class Operands:
    """What :class:`~tmemviz.families.explain.follow.machine.Machine` reads operands with (its ``plan``,
    ``body``, ``thread`` and ``keys``)."""

    plan: Any
    body: Any
    thread: Any
    keys: Any
    _operand_of: dict[int, tuple[str, list[str]] | None]

    def address_value(self, ins: Instruction, regs: dict[str, Any]) -> Any:
        """The value of the register in the instruction's first ``[...]`` operand (a dealloc's first)."""
        try:
            operands = ins.parsed.operands
        except (TmemvizError, IndexError):
            return None
        for o in operands:
            if o.startswith("["):
                names = self.body.registers(o)
                return regs.get(names[0]) if names else None
        if ins.opcode.startswith("tcgen05.dealloc") and operands:
            names = self.body.registers(operands[0])
            return regs.get(names[0]) if names else None
        return None

    def barrier(self, ins: Instruction, regs: dict[str, Any]) -> frozenset[Any] | None:
        """The places of the mbarrier an instruction's ``[...]`` operand may name (one per pipeline stage
        its address may hold); None when not known. Remembered by the values of the registers the
        operand names, for every thread position of the function (the solve meets each mbarrier
        instruction round after round, and each group of warps meets the shared code's with the same
        values): by the warps too where the answer may differ between them (the operand reads the
        thread's position, or a value differs between a group's warps)."""
        found = self._barrier_operand(ins)
        if found is None:
            return None
        o, names = found
        values = [regs.get(r) for r in names]
        per_warp = ins.index in self.plan.positional or Vec in map(type, values)
        key = (ins.index, self.thread.warps if per_warp else None, *values)
        remembered = self.plan.barriers.get(key, self)
        if remembered is self:
            remembered = self.plan.barriers[key] = self._places(o, regs)
        return remembered

    def barrier_reads(self, ins: Instruction, regs: dict[str, Any]) -> dict[str, Any]:
        """The registers :meth:`barrier` reads for ``ins``, with their values in ``regs``."""
        found = self._barrier_operand(ins)
        return {r: regs.get(r) for r in found[1]} if found is not None else {}

    def _barrier_operand(self, ins: Instruction) -> tuple[str, list[str]] | None:
        """An mbarrier instruction's ``[...]`` operand and the registers it names, found once per
        instruction (the solve meets it every round)."""
        if ins.index in self._operand_of:
            return self._operand_of[ins.index]
        found = None
        try:
            o = next((o for o in ins.parsed.operands if o.startswith("[")), None)
        except TmemvizError:
            o = None
        if o is not None:
            found = (o, self.body.registers(o))
        self._operand_of[ins.index] = found
        return found

    def _places(self, o: str, regs: dict[str, Any]) -> frozenset[Any] | None:
        places: set[Any] = set()
        for v in addresses(o, regs.get, self.thread, self.body):
            if isinstance(v, Sym):
                base, offset = v.base, v.offset
            else:
                base, offset = ("abs",), number(v)
            if offset is None or not all(b.exact for b in offset):
                return None
            places.update((base, b.value) for b in offset)
        return frozenset(places)

    def columns(self, ins: Instruction, regs: dict[str, Any]) -> int | None:
        return columns(ins, regs.get, self.thread, self.body)

    def spots(self, ins: Instruction, regs: dict[str, Any]) -> list[tuple[Any, list[Spot]]]:
        """Each operand this instruction touches, and where it lands per offset of its register."""
        out = []
        for touch in self.keys.touches(ins, regs):
            value = regs.get(touch.register)
            if type(value) is Vec:  # each warp of the group at its own place
                found = []
                for w, v in zip(self.thread.warps or (), value.items, strict=True):
                    key = self.keys.spot_key(v)
                    found += _spots(touch, v, key, w) if key is not None else []
                out.append((touch, found))
                continue
            key = self.keys.spot_key(value)
            out.append((touch, _spots(touch, value, key) if key is not None else []))
        return out


def _spots(touch: Any, value: Any, key: Any, warp: int | None = None) -> list[Spot]:
    given = not isinstance(value, Sym)  # a number
    offset = number(value) if given else value.offset
    if offset is None:
        return []
    out = []
    for b in offset:
        if touch.scale:  # bits 31:30 are the scale factor's byte, not the lane
            b = c.Bits(b.value & 0x3FFFFFFF, (b.known | 0xC0000000) & ((1 << b.width) - 1), b.width)
        if b.exact:
            lane, col = (b.value >> 16) & 0xFFFF, b.value & 0xFFFF
            lanes = (lane + touch.lanes[0], lane + touch.lanes[1])
            cols = (col + touch.cols[0], col + touch.cols[1])
            out.append(Spot(key, lanes, cols, (lanes[1], cols[1]), True, warp, given))
            continue
        lane_bits = c.Bits((b.value >> 16) & 0xFFFF, (b.known >> 16) & 0xFFFF, 16)
        col_bits = c.Bits(b.value & 0xFFFF, b.known & 0xFFFF, 16)
        (l0, l1), (c0, c1) = bounds(lane_bits), bounds(col_bits)
        lanes, cols = (l0 + touch.lanes[0], l1 + touch.lanes[1]), (c0 + touch.cols[0], c1 + touch.cols[1])
        out.append(Spot(key, lanes, cols, (l0 + touch.lanes[1], c0 + touch.cols[1]), False, warp, given))
    return out


DATA_VECTORS = frozenset(("ld", "st"))
"""tcgen05 ops whose register vectors are data, not values to follow: ld's destinations (and ld.red's
reduced value), st's sources."""


def followed(body: Any, ins: Instruction, reads: tuple[str, ...]) -> list[str]:
    """The registers of a tcgen05 instruction whose values matter (not ld/st data vectors); ``reads``:
    all it reads."""
    op = ins.opcode.split(".", 2)[1] if "." in ins.opcode else ""
    if op not in DATA_VECTORS:
        return list(reads)
    try:
        operands = ins.parsed.operands
    except TmemvizError:  # an unreadable statement: nothing to follow
        return []
    out = body.registers(ins.guard) if ins.guard else []
    for k, o in enumerate(operands):
        if o.startswith("{") and (op == "ld" or k > 0):  # ld's vectors (ld.red's too), st's data
            continue
        out.extend(body.registers(o))
    return out
