"""Which allocation a Tensor Memory address is in, and what each tcgen05 instruction touches from it.

``tcgen05.alloc [slot], nCols`` writes the allocation's base address to shared memory at ``slot``; every
warp that uses it reads it back from there (``ld.shared``, or a generic ``ld`` after ``cvta``). An
allocation is therefore named by that place (:data:`Key`): a value read from it is the base, plus
whatever offsets are added. The place of each alloc is worked out once per function from the registers
its operand is built from when each is written once (a variable's address and constants); otherwise in
the thread position that runs the alloc.

A kernel that allocates once and calls nothing that may allocate holds no other Tensor Memory: an
address the analysis cannot follow is then in that one allocation (``sole``). Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.explain.follow.evaluate import Thread, address, addresses, columns, effect
from tmemviz.families.explain.follow.footprint import Touch, touches
from tmemviz.families.explain.follow.values import Sym, Vec, exact
from tmemviz.ptx.body import Instruction
from tmemviz.ptx.targets import CAPACITY

Key = Any
_SPECIAL_KNOWN = ("%laneid", "%warpid")
"""Special registers :func:`~tmemviz.families.explain.follow.evaluate.operand` may know without a thread."""
ABSOLUTE = ("absolute",)
"""The key of addresses given as numbers: comparable with one another only (no allocation's)."""
"""``(base, byte offset)`` of the shared-memory slot, or ``("alloc", index)`` when that is not known."""


class Places:
    def __init__(self, plan: Any, explainer: Any, catalog: Any, alone: bool) -> None:
        self.plan, self.explainer, self.catalog, self.alone = plan, explainer, catalog, alone
        self.allocs = [i for i in plan.tcgen05 if i.opcode.startswith("tcgen05.alloc")]
        # The registers written once (by one instruction, once in it), and that instruction.
        self._defs = {r: found[0] for r, found in plan.defs.items() if len(found) == 1}
        self._statics: dict[str, Any] = {}
        self._anywhere = Thread(None, None)
        self.static: dict[int, Key] = {}
        for ins in self.allocs:
            key = self._static_slot(ins)
            if key is not None:
                self.static[ins.index] = key
        self.clobbered = self._stored_places()
        """Places an ordinary store writes: a slot among them may hold something else when read."""
        self.known: set[Key] = set(self.static.values()) - self.clobbered
        self.aliases: dict[Key, Key] = {}
        self.assigned = 0
        """How many times an alias was set (a machine's notes made before one may be stale)."""
        self.sole: Key = None
        if alone and len(self.allocs) == 1:
            self.sole = self.static.get(self.allocs[0].index, ("alloc", self.allocs[0].index))
        self.whole = (
            self.sole is not None
            and columns(self.allocs[0], self._static, self._anywhere, plan.body) == CAPACITY
        )
        """The sole allocation takes every column of Tensor Memory (PTX ISA 9.7.16.2: 512 on every
        target with tcgen05): an address given as a number (CUTLASS's kernels that take all 512 columns
        address lane 0, column 0 without reading the base back) is then in it."""
        self._touches: dict[tuple[int, Any], list[Touch]] = {}
        self._extents: dict[int, Any] = {}

    def _stored_places(self) -> set[Key]:
        out: set[Key] = set()
        if not self.static:
            return out
        for ins in self.plan.instructions:
            if (
                ins.head in ("st", "atom", "red")
                and ".global" not in ins.opcode
                and ".param" not in ins.opcode
                and ".local" not in ins.opcode  # an alloc writes its address to shared memory
            ):
                if not self._may_be_static(ins):
                    continue
                key = self._static_slot(ins)
                if key is not None:
                    out.add(key)
        return out

    def _may_be_static(self, ins: Instruction) -> bool:
        """False when ``ins``'s first ``[...]`` names a register written more than once (or never): its
        place is then not known from the registers written once (:meth:`_static_slot` says None), found
        without reading the statement (a kernel has hundreds of ordinary stores)."""
        rest = ins.rest
        start = rest.find("[")
        end = rest.find("]", start)
        if start < 0 or end < 0:
            return True
        for name in self.plan.body.registers(rest[start : end + 1]):
            if name not in self._defs and name not in _SPECIAL_KNOWN:
                return False
        return True

    def _static(self, name: str, depth: int = 0) -> Any:
        """What a register written once holds, from its one definition (None: not known); remembered."""
        cache = self._statics
        if name in cache:
            return cache[name]
        cache[name] = None  # a definition that reads itself, or a chain too long, stays unknown
        d = self._defs.get(name)
        if d is None or depth > 16:
            return None
        plan = self.plan
        found = effect(plan.body, d, lambda n: self._static(n, depth + 1), self._anywhere, plan.writes(d))
        value = found.get(name)
        cache[name] = value
        return value

    def slot(self, ins: Instruction) -> Key:
        """The shared-memory place ``ins``'s first ``[...]`` operand names where the kernel's registers
        written once say (None otherwise): an alloc's address word, a TMA's destination."""
        return self._static_slot(ins)

    def _static_slot(self, ins: Instruction) -> Key:
        """The place an instruction's first ``[...]`` operand names, from registers written once (a
        thread position changes nothing there)."""
        try:
            first = next((o for o in ins.parsed.operands if o.startswith("[")), None)
        except TmemvizError:
            return None
        if first is None:
            return None
        return place_of(address(first, self._static, self._anywhere, self.plan.body))

    def alloc_key(self, ins: Instruction, regs: dict[str, Any], thread: Thread) -> Key:
        key = self.static.get(ins.index)
        if key is not None:
            return key
        try:
            found = {place_of(v) for v in addresses(ins.parsed.operands[0], regs.get, thread, self.plan.body)}
        except (TmemvizError, IndexError):
            found = {None}
        place = found.pop() if len(found) == 1 else None
        key = self.sole if self.sole is not None else (place or ("alloc", ins.index))
        if place is not None and place not in self.clobbered:
            self.aliases[place] = key  # its slot, as this thread position computes it
            self.assigned += 1
        return key

    def base_key(self, value: Any) -> Key:
        """The allocation whose base (plus an offset) ``value`` is; :data:`ABSOLUTE` for a number (a
        kernel that takes every column, such as CUTLASS's attention kernels, addresses Tensor Memory from
        lane 0, column 0 without reading the base back); None when not known."""
        if type(value) is tuple:
            return ABSOLUTE
        if isinstance(value, Sym) and value.base[0] == "slot":
            place = value.base[1]
            return place if place in self.known else self.aliases.get(place)
        return None

    def spot_key(self, value: Any) -> Key:
        """The allocation an address value lies in, as its cells are placed (None when not known): a
        number is in the only allocation when that takes every column (:attr:`whole`), whose base is then
        lane 0, column 0, so the number's lanes and columns are its cells there; otherwise numbers are
        comparable with one another only (:data:`ABSOLUTE`)."""
        key = self.base_key(value)
        return self.sole if key is ABSOLUTE and self.whole else key

    def address_key(self, value: Any) -> Key:
        """The allocation an address value is in, or None when not known."""
        if type(value) is Vec:  # a group's warps: in one allocation when all agree
            keys = {self.address_key(v) for v in value.items}
            return keys.pop() if len(keys) == 1 else self.sole
        key = self.spot_key(value)
        return key if key is not None else self.sole

    def touches(self, ins: Instruction, regs: dict[str, Any]) -> list[Touch]:
        record = ins.record
        if record is None:
            return []
        idesc = None
        if record.get("op") == "mma" and not record.get("idesc") and record.get("idesc_operand"):
            idesc = exact(regs.get(str(record["idesc_operand"])))
        key = (ins.index, idesc)
        found = self._touches.get(key)
        if found is None:
            found = self._touches[key] = touches(record, self.catalog, self._extent(ins), idesc)
        return found

    def _extent(self, ins: Instruction) -> Any:
        if ins.record is None or ins.record.get("op") not in ("ld", "st", "ld.red"):
            return None
        try:
            found = self.explainer.footprint(ins.parsed)
        except TmemvizError:
            return None
        if not found or not found[1]:
            return None
        cells = found[1]
        lanes = [lane for lane, _ in cells]
        cols = [col for _, col in cells]
        return (min(lanes), max(lanes)), (min(cols), max(cols))


def place_of(value: Any) -> Key:
    """A memory place as a key: a base and one byte offset (None when not one place)."""
    if isinstance(value, Sym):
        at = exact(value.offset)
        return (value.base, at) if at is not None else None
    at = exact(value)
    return (("abs",), at) if at is not None else None
