"""What each block of a function writes and compares, worked out once per block and kept on the
function's plan (:attr:`~tmemviz.families.explain.follow.plan.Plan.blocks`): a loop's counters
(:mod:`~tmemviz.families.explain.follow.counters`) and a comparison's proofs
(:mod:`~tmemviz.families.explain.follow.proofs`) ask it of the same blocks again and again. Pure: no I/O.
"""

from __future__ import annotations

import weakref
from typing import Any


class Blocks:
    """Per block of one function, what its instructions write and compare, asked once (loops nest and
    share their blocks; every comparison's proof asks of the blocks between it and its use)."""

    def __init__(self, plan: Any) -> None:
        # A proxy: the plan holds its blocks (a plain reference back would make a cycle: proofs.Proofs).
        self.plan = weakref.proxy(plan)
        self._writes: dict[int, frozenset[str]] = {}
        self._compares: dict[int, tuple[list[Any], list[Any], set[str]]] = {}
        self._everywhere: tuple[list[Any], list[Any]] | None = None

    def writes(self, block: int) -> frozenset[str]:
        """The registers ``block``'s instructions write."""
        found = self._writes.get(block)
        if found is None:
            plan = self.plan
            found = self._writes[block] = frozenset(w for i in plan.code[block] for w in plan.writes(i))
        return found

    def everywhere(self) -> tuple[list[Any], list[Any]]:
        """The function's comparisons and predicate moves (what each reads and writes)."""
        if self._everywhere is None:
            found = [self.compares(b) for b in range(len(self.plan.code))]
            self._everywhere = ([x for f in found for x in f[0]], [x for f in found for x in f[1]])
        return self._everywhere

    def compares(self, block: int) -> tuple[list[Any], list[Any], set[str]]:
        """``block``'s comparisons and predicate moves (what each reads and writes), and the predicate
        of its closing branch."""
        found = self._compares.get(block)
        if found is None:
            plan = self.plan
            code, last = plan.code[block], plan.ends[block][0]
            found = self._compares[block] = (
                [(plan.reads(i), plan.writes(i)) for i in code if i.head == "setp"],
                [(plan.reads(i), plan.writes(i)) for i in code if i.opcode == "mov.pred"],
                {last.guard.lstrip("!")} if last is not None and last.guard is not None else set(),
            )
        return found
