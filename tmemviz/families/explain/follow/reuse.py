"""A block entered again whose state changed only in what goes through it untouched: its last outcome
stands, with the changes carried through, and it is not run again.

The solve (:mod:`tmemviz.flow.dataflow`) visits a loop's blocks once per round until their states stop
changing; round after round a persistent kernel's loop brings most of its blocks only a new value of the
counter its pipeline stage is built from (up to :data:`~tmemviz.families.explain.follow.values.
MAX_COUNTED` rounds), which most of them neither read nor write. What a transfer of a block may
read (:meth:`~tmemviz.families.explain.follow.plan.Plan.block_registers`): the registers its evaluated
instructions, releases and closing branch read (all its registers while a load's data is pending);
an allocation's state and the loads waited for change only at tcgen05 instructions and are noted at
exits; the pending loads' and stores' cells are read only there and at releases, and a store carrying
its path's values (:mod:`~tmemviz.families.explain.follow.given`) changes at every write. Outside
those, a changed fact goes through the block as it came. Only blocks that evaluate something are
asked (the others cost no more to run than to compare). Measured, three runs each way: CUTLASS's FMHA
module (whose loop counters take twelve rounds) 5% less time, example 71's GEMM 3%. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from tmemviz.families.explain.follow.pending import Pending, carrying
from tmemviz.families.explain.follow.state import State
from tmemviz.families.explain.follow.values import Pred


class Outcomes:
    """Each block's latest entry state in one solve, what its transfer gave, and how many aliases the
    allocations had then (an alias set since may change an allocation's key: the block runs again)."""

    def __init__(self, plan: Any, keys: Any) -> None:
        self.plan, self.keys = plan, keys
        self.last: dict[int, tuple[State, dict[int, State], int]] = {}

    def note(self, block: int, state: State, out: dict[int, State]) -> None:
        self.last[block] = (state, out, self.keys.assigned)

    def again(self, block: int, state: State) -> dict[int, State] | None:
        """What ``block`` gives from ``state`` without running it (None: it has to run)."""
        last = self.last.get(block)
        if last is None:
            return None
        before, out, assigned = last
        if assigned != self.keys.assigned or _differ(before.facts, state.facts):
            return None
        plan = self.plan
        # Each compared by identity first: a state shares what did not change with the one it came from.
        life = _differ(before.life, state.life)
        waited = _differ(before.waited, state.waited)
        pending = _differ(before.pending, state.pending)
        stored = _differ(before.stored, state.stored)
        if (life or waited or pending or stored) and not plan.transparent(block):
            return None
        if pending and not _untouched(plan.block_registers(block, True)[0], before.pending + state.pending):
            return None
        if stored and (carrying(before.stored) or carrying(state.stored)):
            return None
        changed = _changed(before.regs, state.regs)
        read, written = plan.block_registers(block, bool(state.pending))
        if not read.isdisjoint(changed):
            return None
        changed = [k for k in changed if k not in written]  # what the block gave them stands
        closing = plan.ends[block][0]
        if closing is not None and closing.guard is not None:  # the register its branch refines
            p = state.regs.get(closing.guard.lstrip("!"))
            if isinstance(p, Pred) and p.cond is not None and p.cond[1] in changed:
                return None
        live, joins = plan.live, plan.joins
        again: dict[int, State] = {}
        for succ, st in out.items():
            regs = dict(st.regs)
            for k in changed:  # where paths join, kept only where live (as Machine._edges keeps them)
                v = state.regs.get(k)
                if v is None or (succ in joins and not live.holds(succ, k)):
                    regs.pop(k, None)
                else:
                    regs[k] = v
            again[succ] = State(
                regs, state.life if life else st.life, state.pending if pending else st.pending,
                state.stored if stored else st.stored, state.waited if waited else st.waited, st.facts,
            )  # fmt: skip
        self.last[block] = (state, again, assigned)
        return again


def _changed(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The registers whose values differ between two states (one state only holding one included).

    >>> _changed({"%r1": 1, "%r2": 2}, {"%r1": 1, "%r2": 3, "%r3": 4})
    ['%r2', '%r3']
    """
    if old is new:
        return []
    out = [k for k, v in new.items() if (w := old.get(k)) is not v and w != v]
    return out + [k for k in old if k not in new]


def _differ(a: Any, b: Any) -> bool:
    return a is not b and a != b


def _untouched(named: frozenset[str], pending: tuple[Pending, ...]) -> bool:
    """Whether none of ``named`` holds a pending load's data or the address it was read from."""
    return all(named.isdisjoint(p.regs) and all(b[0] not in named for b in p.bases) for p in pending)
