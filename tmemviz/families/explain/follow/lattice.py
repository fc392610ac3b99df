"""The lattice of the states :class:`~tmemviz.families.explain.follow.machine.Machine` solves for: how
two paths' facts join where they meet, and how a loop's are widened so that it settles (the
:class:`~tmemviz.flow.dataflow.Problem` methods other than the transfer). Mixed into the machine, whose
``plan`` says which registers an address is built from (:attr:`~tmemviz.families.explain.follow.plan.
Plan.counted`). Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from tmemviz.families.explain.follow import given as g
from tmemviz.families.explain.follow.pending import joined
from tmemviz.families.explain.follow.state import NONE, State
from tmemviz.families.explain.follow.values import Sym, join, widen


class Lattice:
    """Join, widening and equality of :class:`~tmemviz.families.explain.follow.state.State`."""

    plan: Any
    thread: Any
    widen_after = 3

    def join(self, a: State, b: State) -> State:
        ra, rb = a.regs, b.regs
        regs = ra
        if ra != rb:  # most registers agree (paths from one place): only the others are joined
            get = rb.get
            # A register in one state only is dropped (nothing known on the other path); a's own dict
            # stays where every value of b's is already among a's.
            for k in [k for k, v in ra.items() if (w := get(k)) is not v and w != v]:
                v, w = ra[k], get(k)
                j = join(v, w) if w is not None else None
                if j is v:
                    continue
                if regs is ra:
                    regs = dict(ra)
                if j is None:
                    del regs[k]
                else:
                    regs[k] = j
        if a.life == b.life:  # shared, as states never change once made
            life = a.life
        else:
            life = dict(a.life)
            for k, v in b.life.items():
                life[k] = life.get(k, frozenset((NONE,))) | v
            for k in a.life.keys() - b.life.keys():
                life[k] = life[k] | {NONE}
        facts = a.facts if a.facts == b.facts else a.facts & b.facts
        pending = joined(a.pending, b.pending, a.waited, b.waited)
        waited = a.waited if a.waited == b.waited else a.waited | b.waited
        stored = g.joined(a.stored, b.stored)
        if (
            regs is ra and life is a.life and pending is a.pending and stored is a.stored
            and waited is a.waited and facts is a.facts
        ):  # fmt: skip
            return a  # nothing new on the other path (the solve then finds it the same at once)
        return State(regs, life, pending, stored, waited, facts)

    def widen(self, old: State, new: State) -> State:
        regs = {}
        counted = self.plan.counted
        for k, v in new.regs.items():
            w = widen(old.regs.get(k), v, k in counted) if k in old.regs else None
            if w is not None:
                regs[k] = w
        return State(regs, new.life, new.pending, g.forgotten(new.stored), new.waited)

    def early(self, header: int, old: State, new: State) -> State:
        """A number that only steers branches (no address is built from it: not :attr:`~tmemviz.
        families.explain.follow.plan.Plan.counted`), widened at a loop header as soon as it changes there
        rather than after :attr:`widen_after` rounds: a trip count or tile index gains a candidate each
        round, and each round visits the whole loop again, while what check judges rests on the
        addresses, whose registers keep their values (a pipeline stage's). Those that changed are then
        run ahead to the values the loop's rounds bring them, where the loop allows
        (:mod:`~tmemviz.families.explain.follow.counters`)."""
        counted, regs = self.plan.counted, None
        for k, v in new.regs.items():
            if k in counted or (type(v) is not tuple and type(v) is not Sym):
                continue
            o = old.regs.get(k)
            if o is None or o == v:
                continue
            if regs is None:
                regs = dict(new.regs)
            w = widen(o, v, False)
            if w is None:
                del regs[k]
            else:
                regs[k] = w
        current = new.regs if regs is None else regs
        before = old.regs
        # Only a counter an address is built from gains a value a round (the others are widened above).
        changed = [k for k, v in current.items() if k in counted and (o := before.get(k)) is not v and o != v]
        ahead = self.plan.counters.ahead(header, current, changed, self.thread) if changed else None
        if ahead:
            if regs is None:
                regs = dict(new.regs)
            for k, v in ahead.items():
                if v is None:
                    regs.pop(k, None)
                else:
                    regs[k] = v
        if regs is None:
            return new
        return State(regs, new.life, new.pending, new.stored, new.waited, new.facts)

    def same(self, a: State, b: State) -> bool:
        return a is b or (
            a.regs == b.regs and a.life == b.life and a.pending == b.pending and a.stored == b.stored
            and a.waited == b.waited and a.facts == b.facts
        )  # fmt: skip
