"""Which instructions of a function every lane of a warp runs: those under no branch or guard whose
predicate may differ between the lanes of one warp.

A predicate may differ between lanes when it is computed from the lane's position: ``%laneid``,
``%tid`` (its low five bits are the lane in a one-dimensional CTA), ``elect.sync`` (true in one lane),
``vote``/``match`` results are the same in every lane and so are not. A value is the same in every lane
again once it is ``%tid`` shifted right (or divided) by 32 or more, or comes from ``shfl.sync`` (CUTLASS's
warp index). Anything else computed from such a value may differ: the over-approximation can only make
fewer instructions "every lane", never more. An instruction runs in every lane of the warps that reach it
when it has no guard and lies in no block that a lane-dependent branch decides (control dependence:
reachable from the branch without passing its immediate post-dominator), and follows no ``ret``/``exit``
that only some lanes may take. Pure: no I/O.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.ptx.body import Instruction
from tmemviz.ptx.line import parse_immediate

SOURCES = ("%laneid", "%tid")
UNIFORM = ("shfl.sync", "vote", "match", "ld.param", "ld.const")
"""Results the same in every lane of a warp (shfl.sync broadcasts from one lane in CUTLASS's warp index;
a vote or match result is the warp's)."""


class Lanes:
    def __init__(self, plan: Any) -> None:
        self.plan = plan
        self.body = plan.body

    @cached_property
    def tainted(self) -> frozenset[str]:
        """Registers whose value may differ between the lanes of one warp: from the instructions that read
        the lane's position, along the registers each writes to the instructions that read them. Only
        the plan's slice is followed: it holds every instruction a branch's or exit's predicate is
        computed from (:attr:`~tmemviz.families.explain.follow.plan.Plan.whole`), all this asks about."""
        readers: dict[str, list[Instruction]] = {}
        todo: list[Instruction] = []
        relevant = self.plan.whole
        for ins in self.plan.instructions:
            if ins.index not in relevant:
                continue
            for r in self.plan.reads(ins):
                readers.setdefault(r, []).append(ins)
            if ins.head == "elect" or any(s in ins.text for s in SOURCES):
                todo.append(ins)
        out: set[str] = set()
        while todo:
            ins = todo.pop()
            writes = [w for w in self.plan.writes(ins) if w not in out]
            if writes and self._differs(ins, out):
                out.update(writes)
                for w in writes:
                    todo.extend(readers.get(w, ()))
        return frozenset(out)

    def _differs(self, ins: Instruction, tainted: set[str]) -> bool:
        if ins.opcode.startswith(UNIFORM):
            return False
        if ins.head == "elect":
            return True
        reads = self.plan.reads(ins)
        if not any(s in ins.text for s in SOURCES) and not any(r in tainted for r in reads):
            return False
        if ins.head in ("shr", "div"):  # %tid.x / 32: the warp's index, the same in its lanes
            try:
                operands = ins.parsed.operands
            except TmemvizError:
                return True
            amount = parse_immediate(operands[-1]) if len(operands) == 3 else None
            if amount is None or amount <= 0:
                return True
            shift = amount if ins.head == "shr" else amount.bit_length() - 1
            source = operands[1].strip()
            whole = ins.head == "shr" or amount & (amount - 1) == 0
            return not (whole and shift >= 5 and (source == "%tid.x" or source in self.thread_x))
        return True

    @cached_property
    def thread_x(self) -> frozenset[str]:
        """Registers that only ever hold ``%tid.x`` itself (one definition, a move from it)."""
        defs: dict[str, list[Instruction]] = self.plan.defs
        whole = self.plan.whole  # what _differs asks about reads only the slice's
        return frozenset(
            r for ins in self.plan.instructions
            if ins.index in whole and ins.head == "mov" and ins.text.rstrip().endswith("%tid.x")
            for r in self.plan.writes(ins) if len(defs.get(r, ())) == 1
        )  # fmt: skip

    @cached_property
    def divergent(self) -> frozenset[int]:
        """Blocks some lane-dependent branch decides."""
        graph, code = self.plan.graph, self.plan.code
        out: set[int] = set()
        for b in graph.blocks:
            last = code[b.index][-1] if code[b.index] else None
            if last is None or last.guard is None or last.guard.lstrip("!") not in self.tainted:
                continue
            if last.head in ("ret", "exit", "trap"):  # some lanes leave: after it, not every lane is there
                out |= graph.reaches(b.succ)
                continue
            if len(b.succ) < 2:
                continue
            stop = graph.ipdom.get(b.index, -1)  # computed on first use, kept
            avoid = frozenset((stop,)) if stop >= 0 else frozenset()
            out |= graph.reaches([s for s in b.succ if s != stop], avoid)
        return frozenset(out)

    def every_lane(self, ins: Instruction) -> bool:
        """Whether every lane of a warp that reaches ``ins`` runs it."""
        if ins.guard is not None:
            return False
        return self.plan.graph.block_of(ins.index) not in self.divergent
