"""What a branch proved about registers, and how long it holds: the questions the path facts of
:mod:`~tmemviz.families.explain.follow.given` ask of one function's code (shared by every thread
position, answered once each). Pure: no I/O.
"""

from __future__ import annotations

import weakref
from typing import Any

from tmemviz.families.explain.follow.evaluate import PURE

_VARYING = ("%clock", "%globaltimer", "%pm")
"""Special registers that change while the thread runs (PTX ISA 10, "Special Registers": %clock,
%clock64, %globaltimer, the %pm counters): two reads are not the same value."""


def key(ins: Any) -> tuple[str, ...]:
    """What an instruction computes, as two instructions computing the same value spell it alike: its
    opcode and the operands it reads (its destination left out)."""
    return (ins.opcode, *(o.strip() for o in ins.rest.split(",")[1:]))


class Proofs:
    def __init__(self, plan: Any) -> None:
        # The plan holds its proofs: a plain reference back would make a cycle that keeps the whole
        # function (its code, its graph) alive until the cycle collector runs, which check pauses.
        self.plan = weakref.proxy(plan)
        self._unwritten: dict[tuple[int, str, int, int | None], bool] = {}

    def unwritten(self, at: int, reg: str, block: int, use: int | None = None) -> bool:
        """Whether no path from the instruction at index ``at`` (a ``setp``) to the instruction at index
        ``use`` in ``block`` (None: the end of ``block``) writes ``reg`` without running that instruction
        again: what the comparison learnt of ``reg`` still holds where the predicate is read there (by
        ``block``'s branch, or by a ``selp``)."""
        key = (at, reg, block, use)
        found = self._unwritten.get(key)
        if found is None:
            found = self._unwritten[key] = self._unwritten_paths(at, reg, block, use)
        return found

    def fresh(self, ins: Any) -> Any:
        """Whether a comparison's register is unwritten from its ``setp`` to ``ins`` (fixed by the code: a
        remembered effect's key need not hold it)."""
        block = self.plan.graph.block_of(ins.index)
        return lambda at, reg: self.unwritten(at, reg, block, ins.index)

    def _unwritten_paths(self, at: int, reg: str, block: int, use: int | None) -> bool:
        plan = self.plan
        graph, code = plan.graph, plan.code
        home = graph.block_of(at)
        k = next((k for k, ins in enumerate(code[home]) if ins.index == at), None)
        if k is None:
            return False
        before = code[block] if use is None else [i for i in code[block] if i.index < use]

        def writes(ins: Any) -> bool:
            return reg in plan.writes(ins)

        if home == block:
            if use is not None and use < at:
                return False  # read before the comparison in its block: the paths go round a loop
            return not any(writes(i) for i in before if i.index > at)
        if any(writes(i) for i in code[home][k + 1 :]) or any(writes(i) for i in before):
            return False
        avoid = frozenset((home,))
        forward = graph.reaches(graph.blocks[home].succ, avoid)
        if block not in forward:
            return False
        backward = graph.reaches(graph.blocks[block].pred, avoid, backward=True)
        written = plan.blocks.writes
        return not any(reg in written(b) for b in forward & backward)

    def expression(self, reg: str, block: int) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """``reg``'s value as an expression another register may repeat: ``((opcode, *operands),
        registers read)`` when one unguarded instruction writes it in the whole function
        (:data:`~tmemviz.families.explain.follow.evaluate.PURE`, no special register that changes while the
        thread runs) and nothing writes what it reads on any path from it to the end of ``block``
        (CUTLASS tests ``and.b32 %r, %tile, 255`` twice, in two registers). None otherwise."""
        defs = self.plan.defs.get(reg)
        if defs is None or len(defs) != 1:
            return None
        ins = defs[0]
        if ins.guard is not None or ins.opcode.split(".")[0] not in PURE:
            return None
        reads = self.plan.reads(ins)
        if any(r.startswith(_VARYING) for r in reads):
            return None
        if not all(self.unwritten(ins.index, r, block) for r in reads):
            return None
        return key(ins), reads

    def ored(self, block: int, reg: str) -> tuple[str, ...]:
        """The registers an unguarded ``or`` in ``block`` combined into ``reg``, when that ``or`` is the
        block's last write of ``reg`` and none of them is written after it in the block (so they still
        hold what was ORed where the block ends); nested ``or``s are followed. () otherwise."""
        plan = self.plan
        code = plan.code[block]
        out: list[str] = []
        todo = [reg]
        while todo:
            r = todo.pop()
            for k in range(len(code) - 1, -1, -1):
                ins = code[k]
                if r not in plan.writes(ins):
                    continue
                parts = plan.reads(ins)
                if ins.guard is None and ins.opcode.split(".")[0] == "or" and ins.opcode != "or.pred":
                    after = {w for i in code[k + 1 :] for w in plan.writes(i)}
                    if after.isdisjoint(parts):
                        out.extend(parts)
                        todo.extend(parts)
                break
        return tuple(dict.fromkeys(out))
