"""Which registers the evaluated instructions of a function may read at each block's entry before
writing them (live there): a backward data-flow problem to a fixed point, on bit sets.

A register is one bit of a Python integer (the first register met is bit 0), so a block's union and
difference are one integer operation each, whatever the number of registers: a persistent kernel has
hundreds of blocks and hundreds of evaluated registers, and the slice is grown and its liveness worked out
again a few times per function (:meth:`~tmemviz.families.explain.follow.plan.Plan._steering`). The sets
are made from the bits only where asked (:class:`Live`). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from itertools import compress
from typing import Any, overload

from tmemviz.flow.cfg import Graph
from tmemviz.ptx.body import Instruction

Names = Callable[[Instruction], tuple[str, ...]]


class Registers:
    """Register names numbered as met, and each instruction's reads and writes as bits (remembered: a
    function's liveness is asked for a few slices). It holds no reference to what gives the names (a plan
    holds it: no cycle, see :mod:`tmemviz.gcpause`).

    >>> r = Registers()
    >>> bits = r._bits(("%r1", "%r2", "%p1"))  # bits 0, 1 and 2
    >>> bits, sorted(r.named(bits & ~0b10))
    (7, ['%p1', '%r1'])
    """

    def __init__(self) -> None:
        self.names: list[str] = []
        self._bit: dict[str, int] = {}
        self._masks: dict[int, tuple[int, int]] = {}

    def masks(self, ins: Instruction, reads: Names, writes: Names) -> tuple[int, int]:
        """The bits ``ins`` reads and those it writes."""
        found = self._masks.get(ins.index)
        if found is None:
            found = self._masks[ins.index] = (self._bits(reads(ins)), self._bits(writes(ins)))
        return found

    def bit(self, name: str) -> int | None:
        """``name``'s bit (None: no instruction worked out reads or writes it)."""
        return self._bit.get(name)

    def known(self, ins: Instruction) -> tuple[int, int] | None:
        """The bits of ``ins`` where they were worked out (None otherwise)."""
        return self._masks.get(ins.index)

    def _bits(self, names: tuple[str, ...]) -> int:
        out = 0
        for name in names:
            bit = self._bit.get(name)
            if bit is None:
                bit = self._bit[name] = len(self.names)
                self.names.append(name)
            out |= 1 << bit
        return out

    def named(self, bits: int) -> frozenset[str]:
        """The names of the set bits. Few bits are peeled off one by one; many, as the binary digits,
        lowest first, as the flags of :func:`itertools.compress` (a pass in C, where peeling bits off an
        integer of thousands of bits, as a kernel's registers make, costs a pass over all of them per
        bit: dearer past some 60 bits)."""
        if bits.bit_count() > 60:
            return frozenset(compress(self.names, bin(bits)[:1:-1].encode().translate(_FLAGS)))
        names, out = self.names, []
        while bits:
            low = bits & -bits
            out.append(names[low.bit_length() - 1])
            bits ^= low
        return frozenset(out)


_FLAGS = bytes.maketrans(b"01", b"\x00\x01")
FEW = 60
"""Live registers past which :meth:`Live.kept` asks the bits rather than make the block's set."""


class Live(Sequence[frozenset[str]]):
    """Per block, the registers live at its entry (a set made on first look at a block)."""

    def __init__(self, bits: list[int], registers: Registers) -> None:
        self._bits, self._registers = bits, registers
        self._sets: dict[int, frozenset[str]] = {}

    def dead(self, block: int, ins: Instruction) -> bool:
        """Whether ``ins``, one of the instructions this liveness was worked out for, writes no register
        live at ``block``'s entry (on the bits: no set made; another instruction is taken to write one)."""
        masks = self._registers.known(ins)
        return masks is not None and not self._bits[block] & masks[1]

    def kept(self, block: int, regs: dict[str, Any]) -> dict[str, Any]:
        """``regs`` with only the registers live at ``block``'s entry (``regs`` itself when every one
        is). Where the block has many live registers (the FMHA module's: over a hundred, of a kernel's
        thousands) no set is made: a state's few registers are looked up in the bits."""
        keep = self._sets.get(block)
        if keep is None:
            bits = self._bits[block]
            if bits.bit_count() > FEW:
                bit = self._registers.bit
                drop = [k for k in regs if (b := bit(k)) is None or not bits >> b & 1]
                if not drop:
                    return regs
                return {k: v for k, v in regs.items() if k not in drop}
            keep = self[block]
        if keep.issuperset(regs):
            return regs
        return {k: v for k, v in regs.items() if k in keep}

    def holds(self, block: int, name: str) -> bool:
        """Whether ``name`` is live at ``block``'s entry (on the bits, as :meth:`kept` asks them)."""
        b = self._registers.bit(name)
        return b is not None and bool(self._bits[block] >> b & 1)

    @overload
    def __getitem__(self, i: int) -> frozenset[str]: ...
    @overload
    def __getitem__(self, i: slice) -> list[frozenset[str]]: ...
    def __getitem__(self, i: int | slice) -> frozenset[str] | list[frozenset[str]]:
        if isinstance(i, slice):
            return [self[k] for k in range(len(self._bits))[i]]
        found = self._sets.get(i)
        if found is None:
            found = self._sets[i] = self._registers.named(self._bits[i])
        return found

    def __len__(self) -> int:
        return len(self._bits)

    def __iter__(self) -> Iterator[frozenset[str]]:
        return (self[i] for i in range(len(self._bits)))


def live_in(
    graph: Graph,
    code: Sequence[Sequence[Instruction]],
    relevant: Collection[int],
    registers: Registers,
    reads: Names,
    writes: Names,
) -> Live:
    """The registers the ``relevant`` instructions may read from each block's entry on before writing
    them. A guarded write may leave the old value: it kills nothing."""
    uses, kills = [], []
    masks = registers.masks
    for block in code:
        use = kill = 0
        for ins in block:
            if ins.index not in relevant:
                continue
            read, written = masks(ins, reads, writes)
            use |= read & ~kill
            if ins.guard is None:
                kill |= written
        uses.append(use)
        kills.append(kill)
    blocks = graph.blocks
    live = list(uses)
    # A worklist, the last block first; a block whose live set grew sends its predecessors round again
    # (sets only grow from the uses).
    work = list(range(len(blocks)))
    queued = [True] * len(blocks)
    while work:
        b = work.pop()
        queued[b] = False
        out = 0
        for succ in blocks[b].succ:
            out |= live[succ]
        new = uses[b] | (out & ~kills[b])
        if new != live[b]:
            live[b] = new
            for p in blocks[b].pred:
                if not queued[p]:
                    queued[p] = True
                    work.append(p)
    return Live(live, registers)
