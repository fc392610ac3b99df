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
    """The lane questions of one function, answered for the instructions asked about only: the
    branches that may decide such an instruction's block are those that reach it and hold it between
    their ways (and the exits before it), and only their predicates' computations are followed (a large
    kernel's epilogue need not be, to ask of its producer warp's arrive; example 71's GEMM: 48 of the
    523 predicates its reaching branches are on)."""

    def __init__(self, plan: Any) -> None:
        self.plan = plan
        self.body = plan.body
        self._tainted: dict[str, bool] = {}
        """Register -> whether it may differ between lanes, for those whose computation was followed."""
        self._differing: set[str] = set()
        """The registers found so far that may differ (what a later question starts from)."""
        self._decided: dict[int, bool] = {}
        self._regions: dict[int, set[int]] = {}

    def every_lane(self, ins: Instruction) -> bool:
        """Whether every lane of a warp that reaches ``ins`` runs it."""
        if ins.guard is not None:
            return False
        block = self.plan.graph.block_of(ins.index)
        found = self._decided.get(block)
        if found is None:
            found = self._decided[block] = not self._divergent(block)
        return found

    def _divergent(self, block: int) -> bool:
        """Whether a lane-dependent branch decides ``block``: one whose ways meet again only past it (it
        lies in the blocks reached from the branch without passing the branch's immediate
        post-dominator), or an exit only some lanes may take before it. Either reaches the block: the
        others are not asked about; nor is a branch's predicate where the block is not between its
        ways."""
        graph = self.plan.graph
        before = graph.reaches(graph.blocks[block].pred, backward=True)
        for b, guard, exits in self._guarded:
            if b not in before:
                continue
            if not exits:  # an exit: after it, not every lane may be there; a branch: within its ways
                region = self._regions.get(b)
                if region is None:
                    stop = graph.ipdom.get(b, -1)  # computed on first use, kept
                    avoid = frozenset((stop,)) if stop >= 0 else frozenset()
                    region = self._regions[b] = graph.reaches(
                        [s for s in graph.blocks[b].succ if s != stop], avoid
                    )
                if block not in region:
                    continue
            if self._differs_in_lanes(guard):  # the dearer question, asked last
                return True
        return False

    @cached_property
    def _guarded(self) -> list[tuple[int, str, bool]]:
        """The blocks a guarded branch (two ways on) or a guarded exit closes: (block, the predicate,
        whether it exits)."""
        out = []
        for b, (last, _, _) in zip(self.plan.graph.blocks, self.plan.ends, strict=True):
            if last is None or last.guard is None:
                continue
            if last.head in ("ret", "exit", "trap"):
                out.append((b.index, last.guard.lstrip("!"), True))
            elif len(b.succ) >= 2:
                out.append((b.index, last.guard.lstrip("!"), False))
        return out

    def _differs_in_lanes(self, register: str) -> bool:
        """Whether ``register`` may differ between the lanes of one warp: from the instructions that read
        the lane's position, along the registers each writes to the instructions that read them, over
        every instruction the register is computed from (which, with the registers decided by an earlier
        question, holds all the answer depends on)."""
        found = self._tainted.get(register)
        if found is not None:
            return found
        plan, tainted = self.plan, self._tainted
        defs = plan.defs
        needed, todo = {register}, [register]
        computed: dict[int, Instruction] = {}
        while todo:  # every definition of each needed register, and what it reads, back to the decided
            for ins in defs.get(todo.pop(), ()):
                if ins.index in computed:
                    continue
                computed[ins.index] = ins
                for r in plan.reads(ins):
                    if r not in needed and r not in tainted:
                        needed.add(r)
                        todo.append(r)
        readers: dict[str, list[Instruction]] = {}
        work: list[Instruction] = []
        out = self._differing
        for ins in computed.values():
            reads = plan.reads(ins)
            for r in reads:
                readers.setdefault(r, []).append(ins)
            if ins.head == "elect" or any(s in ins.text for s in SOURCES) or any(r in out for r in reads):
                work.append(ins)
        while work:
            ins = work.pop()
            writes = [w for w in plan.writes(ins) if w not in out]
            if writes and self._differs(ins, out):
                out.update(writes)
                for w in writes:
                    work.extend(readers.get(w, ()))
        for r in needed:
            tainted[r] = r in out
        for r in out:
            tainted.setdefault(r, True)
        return tainted[register]

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
            return not (whole and shift >= 5 and (source == "%tid.x" or self._thread_x(source)))
        return True

    def _thread_x(self, register: str) -> bool:
        """Whether ``register`` only ever holds ``%tid.x`` itself (one definition, a move from it)."""
        found = self.plan.defs.get(register, ())
        return len(found) == 1 and found[0].head == "mov" and found[0].text.rstrip().endswith("%tid.x")
