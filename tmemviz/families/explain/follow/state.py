"""The facts the analysis of one function holds at a point of its control-flow graph, for one thread
position (:mod:`~tmemviz.families.explain.follow.machine` joins, widens and transfers them). Pure: no
I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tmemviz.families.explain.follow.pending import Pending, Stored

NONE, HELD, FREED = "none", "held", "freed"


@dataclass(slots=True)
class State:
    regs: dict[str, Any]
    life: dict[Any, frozenset[str]]
    pending: tuple[Pending, ...] = ()
    stored: tuple[Stored, ...] = ()
    waited: frozenset[int] = frozenset()
    """The loads a ``tcgen05.wait::ld`` on the way here waited for (and not issued again since): where
    paths join, such a load pending on another path is ordered by ptxas (:func:`pending.joined`)."""
    facts: frozenset[tuple[str, Any]] = frozenset()
    """Registers a branch on the way here pinned to one constant, with that constant (what a store made
    here carries; kept where paths join while both agree, live there or not)."""

    def again(self) -> State:
        """This state on another edge (the same objects, shared until one is changed)."""
        return State(self.regs, self.life, self.pending, self.stored, self.waited, self.facts)

    def status(self, key: Any) -> frozenset[str]:
        return self.life.get(key, frozenset((NONE,)))
