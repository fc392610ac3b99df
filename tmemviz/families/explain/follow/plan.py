"""What the analysis of one PTX function needs before it runs, shared by every thread position: the
control-flow graph, each block's instructions, the registers each instruction reads and writes, and the
slice of instructions whose values matter.

The slice: Tensor Memory is judged through a few registers (tcgen05 addresses, instruction descriptors,
column counts) and the predicates that steer control to it. Only the instructions that compute those
(and what those read, transitively) are evaluated; any other instruction writes registers no judgement
rests on. Pure: no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property

from tmemviz.errors import TmemvizError
from tmemviz.flow.cfg import Graph, build
from tmemviz.ptx.body import Body, Instruction, Label

DATA_VECTORS = frozenset(("ld", "st"))
"""tcgen05 ops whose register vectors are data, not values to follow: ld's destinations (and ld.red's
reduced value), st's sources."""


class Plan:
    def __init__(self, body: Body) -> None:
        self.body = body
        self.graph: Graph = build(body.steps())
        self.code: list[list[Instruction]] = [
            [c for c in body.code[b.start : b.end] if not isinstance(c, Label)]  # type: ignore[misc]
            for b in self.graph.blocks
        ]
        self._reads: dict[int, tuple[str, ...]] = {}
        self._writes: dict[int, tuple[str, ...]] = {}

    def reads(self, ins: Instruction) -> tuple[str, ...]:
        found = self._reads.get(ins.index)
        if found is None:
            found = self._reads[ins.index] = tuple(self.body.reads(ins))
        return found

    def writes(self, ins: Instruction) -> tuple[str, ...]:
        found = self._writes.get(ins.index)
        if found is None:
            found = self._writes[ins.index] = tuple(self.body.writes(ins))
        return found

    @cached_property
    def tcgen05(self) -> list[Instruction]:
        return [i for i in self.body.instructions if i.head == "tcgen05"]

    @cached_property
    def relevant(self) -> frozenset[int]:
        """Indices of the instructions the analysis evaluates (see the module's docstring)."""
        body = self.body
        defs: dict[str, list[Instruction]] = defaultdict(list)
        needed: list[str] = []
        chosen: set[int] = set()
        for ins in body.instructions:
            for r in self.writes(ins):
                defs[r].append(ins)
            if ins.head == "tcgen05":
                chosen.add(ins.index)
                needed.extend(self._followed(ins))
            elif ins.head in ("bra", "brx", "ret", "exit", "trap") and ins.guard is not None:
                chosen.add(ins.index)
                needed.extend(self.reads(ins))
        seen: set[str] = set()
        while needed:
            r = needed.pop()
            if r in seen:
                continue
            seen.add(r)
            for ins in defs.get(r, ()):
                if ins.index not in chosen:
                    chosen.add(ins.index)
                    needed.extend(self.reads(ins))
        return frozenset(chosen)

    def _followed(self, ins: Instruction) -> list[str]:
        """The registers of a tcgen05 instruction whose values matter (not ld/st data vectors)."""
        op = ins.opcode.split(".", 2)[1] if "." in ins.opcode else ""
        if op not in DATA_VECTORS:
            return list(self.reads(ins))
        try:
            operands = ins.parsed.operands
        except TmemvizError:  # an unreadable statement: nothing to follow
            return []
        out = self.body.registers(ins.guard) if ins.guard else []
        for k, o in enumerate(operands):
            if o.startswith("{") and (op == "ld" or k > 0):  # ld's vectors (ld.red's too), st's data
                continue
            out.extend(self.body.registers(o))
        return out
