"""A loop's counters run ahead: the values a pipeline stage takes at its loop's header, found by running
only the instructions that compute it, round after round, instead of the whole loop.

A persistent kernel's stage (``add %r1, %r0, 1; setp.eq %p, %r1, STAGES; selp %r0, 0, %r1, %p``) gains
one value per round of its loop, and each round the solve (:mod:`tmemviz.flow.dataflow`) visits the
whole loop again, inner loops and all: eight stages are nine rounds. Where the loop's other paths
cannot change what the counter's instructions compute, those instructions alone, run from the header's
state and joined round after round as the solve joins them (:meth:`~tmemviz.families.explain.follow.
lattice.Lattice.early`'s widening included), reach the very values the solve would reach there: the
header takes them at once, and the loop settles in two rounds. Only a counter an address is built
from is run so (:attr:`~tmemviz.families.explain.follow.plan.Plan.counted`: the others are widened at
once). Where widening would have dropped the branch facts of a loop that went round more than three
times, the settled loop keeps them: the states are the same otherwise (tests/check/test_shortcuts.py).
Measured (CLI, CPU time, three runs each way, alternated): CUTLASS's MLA module 21% less time,
example 71 9%, 86 mixed-dtype 5%.

What must hold, or the loop is left to the solve (:meth:`Counters.ahead` gives None): one back edge; the
counters' instructions (the slice of the counters that changed at the header, back from the edge's
tail) all lie on every path round the loop (blocks that dominate the tail), outside inner loops,
unguarded, evaluated by the analysis and of the kinds whose value is a function of their operands
(:data:`~tmemviz.families.explain.follow.evaluate.PURE`, ``setp``); no other instruction of the loop
writes a register they use; no branch of the loop is on a comparison of one of them, made in the loop
or before it (a branch refines the compared register on each way: :meth:`~tmemviz.families.explain.
follow.machine.Machine._assume`); every counter an address is built from keeps at most
:data:`~tmemviz.families.explain.follow.values.MAX_COUNTED` exact values, and none holds a predicate.
Pure: no I/O.
"""

from __future__ import annotations

import weakref
from bisect import bisect_left
from typing import Any

from tmemviz.families.explain.follow.blocks import Blocks
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
        once those of ``changed`` (the counters that changed there) that the loop writes stop growing:
        each with the counters its own computation needs (a trip count compared by the loop's branch
        does not keep the stage beside it from being run ahead); None where none can be run alone (the
        module's docstring)."""
        written = self._loop(header).written
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

    def _loop(self, header: int) -> _Loop:
        found = self._loops.get(header)
        if found is None:
            found = self._loops[header] = _Loop(self.plan, header)
        return found

    def _slice(self, header: int, wanted: frozenset[str]) -> Slice | None:
        plan, loop = self.plan, self._loop(header)
        if loop.walk is None:
            return None
        # Back from the tail: each needed register's nearest writer on the way (the walk runs backwards),
        # whose operands are needed from there on; one no writer gives is read from the header's state,
        # and if the loop writes it, it is carried round too (needed again at the tail).
        todo = [(r, 0) for r in wanted]
        carried, inputs, seen, picked = set(wanted), set(), set(), {}
        while todo:
            r, start = todo.pop()
            if (r, start) in seen:
                continue
            seen.add((r, start))
            at = loop.writer(r, start)
            if at is None:
                inputs.add(r)
                if r in loop.written and r not in carried:
                    carried.add(r)
                    todo.append((r, 0))
                continue
            if at in picked:
                continue
            inside, ins, _ = loop.walk[at]
            if inside or ins.guard is not None or ins.head not in _KINDS or ins.index not in plan.relevant:
                return None
            picked[at] = ins
            todo.extend((rr, at + 1) for rr in plan.reads(ins))
        used = carried | inputs
        for ins in picked.values():
            used.update(plan.writes(ins))
            used.update(plan.reads(ins))
        # No instruction off the counters' path writes what they use (one on it that is not theirs
        # writes only what they do not read after it: the walk back would have picked it).
        if not used.isdisjoint(loop.off) or loop.refines(used):
            return None
        order = [picked[at] for at in sorted(picked, reverse=True)]
        return Slice(order, frozenset(carried), frozenset(inputs))


class _Loop:
    """What one loop's shape says, asked once: the instructions every round runs, in reverse (each with
    whether it lies in an inner loop, and what it writes; None: the loop has more than one back edge or
    its tail's dominators leave it), the registers written in it and off that path, its comparisons
    (found when a slice first asks)."""

    def __init__(self, plan: Any, header: int) -> None:
        self.plan, self.header = plan, header
        self._blocks: Blocks = plan.blocks
        writes = self._blocks.writes
        self.body = plan.graph.loops[header]
        self.written = frozenset().union(*map(writes, self.body))
        self._walk: list[tuple[bool, Any, tuple[str, ...]]] | bool | None = False
        self.off: frozenset[str] = frozenset()
        self._writers: dict[str, list[int]] = {}
        self._steering: frozenset[str] | None = None
        """The registers a comparison reads whose predicate a branch of the loop is on."""

    @property
    def walk(self) -> list[tuple[bool, Any, tuple[str, ...]]] | None:
        if self._walk is False:
            self._walk = self._walked()
        return self._walk  # type: ignore[return-value]

    def _walked(self) -> list[tuple[bool, Any, tuple[str, ...]]] | None:
        plan, header = self.plan, self.header
        graph, code = plan.graph, plan.code
        tails = [t for t, h in graph.back_edges if h == header]
        chain, b = [], tails[0] if len(tails) == 1 else None
        while b is not None and b != header:  # the tail's dominators, up to the header
            chain.append(b)
            b = graph.idom.get(b, header)
            if b not in self.body:
                b = None
        if b is None:
            return None
        chain.append(header)
        inner: set[int] = set()
        for h in self.body & graph.headers:
            if h != header:
                inner |= graph.loops[h]
        walk = [
            (block in inner, ins, w)
            for block in chain for ins in reversed(code[block]) if (w := plan.writes(ins))
        ]  # fmt: skip
        self.off = frozenset().union(*map(self._blocks.writes, self.body - (set(chain) - inner)))
        for at, (_, _, w) in enumerate(walk):
            for r in w:
                self._writers.setdefault(r, []).append(at)
        return walk

    def writer(self, reg: str, start: int) -> int | None:
        """The first place from ``start`` on in the walk (back from the tail) that writes ``reg``."""
        places = self._writers.get(reg)
        if not places:
            return None
        k = bisect_left(places, start)
        return places[k] if k < len(places) else None

    def refines(self, used: set[str]) -> bool:
        """Whether a branch of the loop is on a comparison of a register the counters use (its two ways
        would each know more of it than the counters' run does)."""
        if self._steering is None:
            # The loop's branches, on predicates compared anywhere in the function (one compared before
            # the loop refines too, while the register is unwritten since: Machine._assume), found back
            # from the predicates through their writers; a predicate moved keeps its comparison
            # (conditions.logic).
            plan = self.plan
            ends, defs, reads = plan.ends, plan.defs, plan.reads
            guards = {
                last.guard.lstrip("!")
                for b in self.body if (last := ends[b][0]) is not None and last.guard is not None
            }  # fmt: skip
            todo, steering = list(guards), set()
            while todo:
                for ins in defs.get(todo.pop(), ()):
                    if ins.head == "setp":
                        steering.update(reads(ins))
                    elif ins.opcode == "mov.pred":
                        moved = [r for r in reads(ins) if r not in guards]
                        guards.update(moved)
                        todo += moved
            self._steering = frozenset(steering)
        return not self._steering.isdisjoint(used)


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
