"""What each block of a function writes, worked out once per block and kept on the function's plan
(:attr:`~tmemviz.families.explain.follow.plan.Plan.blocks`): a loop's counters
(:mod:`~tmemviz.families.explain.follow.counters`) and a comparison's proofs
(:mod:`~tmemviz.families.explain.follow.proofs`) ask it of the same blocks again and again. Pure: no I/O.
"""

from __future__ import annotations

import weakref
from typing import Any


class Blocks:
    """Per block of one function, what its instructions write, asked once (loops nest and share their
    blocks; every comparison's proof asks of the blocks between it and its use)."""

    def __init__(self, plan: Any) -> None:
        # A proxy: the plan holds its blocks (a plain reference back would make a cycle: proofs.Proofs).
        self.plan = weakref.proxy(plan)
        self._writes: dict[int, frozenset[str]] = {}

    def writes(self, block: int) -> frozenset[str]:
        """The registers ``block``'s instructions write."""
        found = self._writes.get(block)
        if found is None:
            plan = self.plan
            found = self._writes[block] = frozenset(w for i in plan.code[block] for w in plan.writes(i))
        return found
