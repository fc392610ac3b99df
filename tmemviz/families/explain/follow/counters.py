"""A loop's counters run ahead: the values a pipeline stage takes at its loop's header, found by running
only the instructions that compute it, round after round, instead of the whole loop.

A persistent kernel's stage (``add %r1, %r0, 1; setp.eq %p, %r1, STAGES; selp %r0, 0, %r1, %p``) gains
one value per round of its loop, and each round the solve (:mod:`tmemviz.flow.dataflow`) visits the
whole loop again, inner loops and all: eight stages are nine rounds. Where the loop's other paths
cannot change what the counter's instructions compute, those instructions alone, run from the header's
state and joined round after round as the solve joins them (:meth:`~tmemviz.families.explain.follow.
lattice.Lattice.early`'s widening included), reach the very values the solve would reach there: the
header takes them at once, and the loop settles in two rounds.

What must hold, or the loop is left to the solve (:meth:`Counters.ahead` gives None): one back edge; the
counters' instructions (the slice of the registers that changed at the header, back from the edge's
tail) all lie on every path round the loop (blocks that dominate the tail), outside inner loops,
unguarded, evaluated by the analysis and of the kinds whose value is a function of their operands
(:data:`~tmemviz.families.explain.follow.evaluate.PURE`, ``setp``); no other instruction of the loop
writes a register they use; no branch of the loop is on a comparison of one of them (a branch refines
the compared register on each way: :meth:`~tmemviz.families.explain.follow.machine.Machine._assume`);
every counter an address is built from keeps at most :data:`~tmemviz.families.explain.follow.values.
MAX_COUNTED` exact values, and none holds a predicate. Pure: no I/O.
"""

from __future__ import annotations

import weakref
from typing import Any

from tmemviz.families.explain.follow.evaluate import PURE
from tmemviz.families.explain.follow.values import MAX_COUNTED, Pred, Sym, Vec, join, widen

_KINDS = PURE | {"setp"}


class Slice:
    """The instructions that compute a loop's counters, in the order a round runs them."""

    def __init__(self, instructions: list[Any], carried: frozenset[str], inputs: frozenset[str]) -> None:
        self.instructions = instructions
        self.carried = carried
        """The registers the loop carries round to round (written in it, read before written)."""
        self.inputs = inputs
        """What the instructions read from the header's state (the carried ones and the invariant)."""


class Counters:
    """Per loop header of one function, the slice of its counters (found once) and their run."""

    def __init__(self, plan: Any) -> None:
        # A proxy: the plan holds its counters (a plain reference back would make a cycle: proofs.Proofs).
        self.plan = weakref.proxy(plan)
        self._slices: dict[tuple[int, str], Slice | None] = {}
        self._loops: dict[int, _Loop] = {}

    def ahead(
        self, header: int, regs: dict[str, Any], changed: list[str], thread: Any
    ) -> dict[str, Any] | None:
        """The values the loop's carried registers reach at ``header`` from ``regs``, the header's state,
        once those of ``changed`` (the registers that changed there) that the loop writes stop growing:
        each with the counters its own computation needs (a trip count compared by the loop's branch
        does not keep the stage beside it from being run ahead); None where none can be run alone (the
        module's docstring)."""
        written = self._loop_writes(header)
        slices: dict[frozenset[str], Slice] = {}
        for r in changed:
            if r not in written:
                continue
            key = (header, r)
            if key not in self._slices:
                self._slices[key] = self._slice(header, frozenset((r,)))
            found = self._slices[key]
            if found is not None:
                slices.setdefault(found.carried, found)
        out: dict[str, Any] = {}
        for found in slices.values():
            reached = self._run(found, regs, thread)
            if reached is not None:
                out.update(reached)
        return out or None

    def _run(self, found: Slice, regs: dict[str, Any], thread: Any) -> dict[str, Any] | None:
        """The slice's carried registers, joined round after round from ``regs`` until they settle."""
        plan = self.plan
        counted, effect = plan.counted, plan.effect
        current = {r: regs.get(r) for r in found.carried}
        fixed = {r: regs.get(r) for r in found.inputs if r not in found.carried}
        for _ in range(MAX_COUNTED + 1):
            values = {**fixed, **current}
            for ins in found.instructions:
                for name, value in effect(ins, values, thread).items():
                    if value is None:
                        values.pop(name, None)
                    else:
                        values[name] = value
            after: dict[str, Any] = {}
            for r, old in current.items():
                new = join(old, values.get(r))
                if new is not None and r not in counted and new != old and type(new) in (tuple, Sym):
                    new = widen(old, new, False)  # as early() widens a register that only steers
                if not _settles(new, r in counted):
                    return None
                after[r] = new
            if after == current:
                return current
            current = after
        return None

    def _loop_writes(self, header: int) -> frozenset[str]:
        return self._loop(header).written

    def _loop(self, header: int) -> _Loop:
        found = self._loops.get(header)
        if found is None:
            found = self._loops[header] = _Loop(self.plan, header)
        return found

    def _slice(self, header: int, wanted: frozenset[str]) -> Slice | None:
        plan, loop = self.plan, self._loop(header)
        if loop.walk is None:
            return None
        carried = set(wanted)
        while True:
            needed, picked = set(carried), []
            for inside, ins, writes in loop.walk:
                if needed.isdisjoint(writes):
                    continue
                if inside or ins.guard is not None or ins.head not in _KINDS:
                    return None
                if ins.index not in plan.relevant:
                    return None
                picked.append(ins)
                needed.difference_update(writes)
                needed.update(plan.reads(ins))
            more = (needed & loop.written) - carried
            if not more:
                break
            carried |= more
        used = set(carried) | needed
        for ins in picked:
            used.update(plan.writes(ins))
            used.update(plan.reads(ins))
        # No instruction off the counters' path writes what they use (one on it that is not theirs
        # writes only what they do not read after it: the walk back would have picked it).
        if not used.isdisjoint(loop.off) or loop.refines(used):
            return None
        picked.reverse()
        return Slice(picked, frozenset(carried), frozenset(needed))


class _Loop:
    """What one loop's shape says, asked once: the instructions every round runs, in reverse (each with
    whether it lies in an inner loop, and what it writes; None: the loop has more than one back edge or
    its tail's dominators leave it), the registers written in it and off that path, its comparisons."""

    def __init__(self, plan: Any, header: int) -> None:
        graph, code = plan.graph, plan.code
        body = graph.loops[header]
        self.written = frozenset(w for b in body for ins in code[b] for w in plan.writes(ins))
        self.walk: list[tuple[bool, Any, tuple[str, ...]]] | None = None
        self.off: frozenset[str] = frozenset()
        tails = [t for t, h in graph.back_edges if h == header]
        chain, b = [], tails[0] if len(tails) == 1 else None
        while b is not None and b != header:  # the tail's dominators, up to the header
            chain.append(b)
            b = graph.idom.get(b, header)
            if b not in body:
                b = None
        if b is None:
            return
        chain.append(header)
        inner: set[int] = set()
        for h in body & graph.headers:
            if h != header:
                inner |= graph.loops[h]
        self.walk = [
            (block in inner, ins, writes)
            for block in chain for ins in reversed(code[block]) if (writes := plan.writes(ins))
        ]  # fmt: skip
        on = set(chain) - inner
        self.off = frozenset(w for b in body - on for ins in code[b] for w in plan.writes(ins))
        self._setps = [(plan.reads(i), plan.writes(i)) for b in body for i in code[b] if i.head == "setp"]
        self._moves = [(plan.reads(i), plan.writes(i)) for b in body for i in code[b] if i.head == "mov"]
        self._guards = {
            last.guard.lstrip("!")
            for b in body if (last := plan.ends[b][0]) is not None and last.guard is not None
        }  # fmt: skip

    def refines(self, used: set[str]) -> bool:
        """Whether a branch of the loop is on a comparison of a register the counters use (its two ways
        would each know more of it than the counters' run does)."""
        compared = {w for reads, writes in self._setps if not used.isdisjoint(reads) for w in writes}
        grew = bool(compared)
        while grew:  # a predicate moved keeps its comparison (conditions.logic)
            grew = False
            for reads, writes in self._moves:
                if not compared.isdisjoint(reads) and not compared.issuperset(writes):
                    compared.update(writes)
                    grew = True
        return not compared.isdisjoint(self._guards)


def _settles(value: Any, counted: bool) -> bool:
    """Whether a counter's value is one the solve's widening keeps as it is: a register an address is
    built from with a few exact values (a stage), or any number that only steers; never a predicate."""
    if isinstance(value, Pred):
        return False
    if not counted:
        return True
    if type(value) is Vec:
        return all(_settles(v, True) for v in value.items)
    if type(value) is tuple:
        return len(value) <= MAX_COUNTED and all(b.exact for b in value)
    if isinstance(value, Sym):
        return len(value.offset) <= MAX_COUNTED and all(b.exact for b in value.offset)
    return False
