"""One PTX function run abstractly for one thread position: the data-flow problem check solves.

The state at each point of the control-flow graph (:mod:`tmemviz.flow`) is what every path to it
agrees on, for a thread of one warp (:class:`~tmemviz.families.explain.follow.evaluate.Thread`):

* the values registers may hold (:mod:`tmemviz.families.explain.follow.values`), for the slice of instructions
  that matter (:class:`~tmemviz.families.explain.follow.plan.Plan`);
* per allocation (keyed by the shared-memory place ``tcgen05.alloc`` writes its address to, where
  every reader of the address finds it): whether this thread has not allocated it, holds it, or freed
  it, as the set of what some path says (a must when the set has one member, a may otherwise);
* the tcgen05.ld not yet waited for (:mod:`tmemviz.families.explain.follow.pending`) and the tcgen05.st
  likewise.

:func:`solve` runs the problem to its fixed point, each block's transfer noting what the rules judge
(:class:`~tmemviz.families.explain.follow.trace.Trace`); :meth:`Machine.trace` keeps what each block's
last transfer, from its final state, noted (a pass over the solution would note the same, and costs a
third of the solve). Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.explain.follow import given as g
from tmemviz.families.explain.follow import indexed
from tmemviz.families.explain.follow.conditions import NEVER, refine
from tmemviz.families.explain.follow.evaluate import Thread, operand
from tmemviz.families.explain.follow.lattice import Lattice
from tmemviz.families.explain.follow.operands import Operands
from tmemviz.families.explain.follow.pending import (
    RELEASES,
    Pending,
    after_other,
    after_tcgen05,
    carrying,
    unchanged,
)
from tmemviz.families.explain.follow.proofs import key
from tmemviz.families.explain.follow.reuse import Outcomes
from tmemviz.families.explain.follow.state import FREED, HELD, State
from tmemviz.families.explain.follow.trace import Access, Split, Trace
from tmemviz.families.explain.follow.values import Pred, Vec, join
from tmemviz.flow.dataflow import solve
from tmemviz.ptx.body import Instruction

ACCESSES = frozenset(("ld", "st", "cp", "mma", "shift"))
_QUIET = Trace(None)
"""The record of every block whose transfer notes nothing (shared: nothing is added to it)."""


class Machine(Lattice, Operands):
    """The data-flow problem of one function for one thread position (the :class:`~tmemviz.flow.dataflow.
    Problem` protocol; its lattice: :class:`~tmemviz.families.explain.follow.lattice.Lattice`), and its
    trace."""

    def __init__(self, plan: Any, thread: Thread, keys: Any) -> None:
        self.plan, self.thread, self.keys = plan, thread, keys
        self.body = plan.body
        self.relevant = plan.relevant
        self._trace: Trace | None = None
        self._records: dict[int, Trace] | None = None
        """While solving: each block's record from its latest transfer (see :meth:`trace`)."""
        self._exact = False
        self._solved: dict[int, Trace] = {}
        self._operand_of: dict[int, tuple[str, list[str]] | None] = {}
        self._outcomes: Outcomes | None = None
        """While solving: each block's latest outcome (:mod:`~tmemviz.families.explain.follow.reuse`)."""

    # -- running -------------------------------------------------------------------------------------
    def solve(self) -> dict[int, State]:
        self._records, self._outcomes = {}, Outcomes(self.plan, self.keys)
        assigned = self.keys.assigned
        try:
            states = solve(self.plan.graph, State({}, {}), self)
        finally:
            records, self._records, self._outcomes = self._records, None, None
        # A block's last transfer in the worklist was from its final state: what it noted is what a pass
        # over the solution would note, unless the allocations' aliases changed on the way (then that
        # pass is made).
        self._exact = self.keys.assigned == assigned
        self._solved = records
        return states

    def trace(self, states: dict[int, State]) -> Trace:
        trace = Trace(self.thread.warps)
        records = self._solved if self._exact else {}
        if all(b in records for b in states):
            for b in sorted(states):
                record = records[b]
                if record.split is not None:
                    raise Split(record.split)
                for ins, regs in record.marks:
                    self._barrier(record, ins, regs)
                record.marks = []
                trace.blocks.add(b)
                trace.extend(record)
            return trace
        self._trace = trace
        try:
            for b, state in sorted(states.items()):
                trace.blocks.add(b)
                self._transfer(b, state)
        finally:
            self._trace = None
        return trace

    def transfer(self, block: int, state: State) -> dict[int, State]:
        records, outcomes = self._records, self._outcomes
        if records is None or outcomes is None:
            return self._transfer(block, state)
        # Only a block that evaluates something is worth not running again: the others cost no more.
        plan = self.plan
        worth = bool(plan.watched[block])
        if not worth and not state.pending and not plan.graph.blocks[block].exits:
            last = plan.ends[block][0]
            if last is None or last.head != "brx":  # its edges alone, noting nothing (Machine._taken)
                records[block] = _QUIET
                return self._edges(block, state)
        out = outcomes.again(block, state) if worth else None
        if out is not None:  # the block's last record stands too
            return out
        record = self._trace = Trace(self.thread.warps)
        try:
            out = self._transfer(block, state)
        finally:
            self._trace = None
        records[block] = record
        if worth:
            outcomes.note(block, state, out)
        return out

    def _transfer(self, block: int, state: State) -> dict[int, State]:
        code, watched = self.plan.code[block], self.plan.watched[block]
        if not watched and not state.pending:  # nothing here changes the state: its edges alone
            return self._edges(block, state)
        s = State(dict(state.regs), dict(state.life), state.pending, state.stored, state.waited, state.facts)
        # The evaluated instructions and the releases; every one while a load's registers are unread
        # (each may read them, or copy them).
        at = k = 0
        end = len(code)
        relevant, watched_at, touched = self.relevant, self.plan.releases, self.plan.touched
        plain, effect, thread = self.plan.plain, self.plan.effect, self.thread
        seen: tuple[Pending, ...] | None = None
        hot: frozenset[str] = frozenset()
        while at < end:
            if s.pending is not seen:  # the loads' registers, again only when the loads change
                seen = s.pending
                hot = frozenset().union(*(p.regs for p in seen))
            if hot:
                ins = code[at]
                at += 1
                # An instruction the analysis does not evaluate, no release, reading and writing none of
                # the loads' registers: nothing to do.
                if ins.index in relevant or ins.index in watched_at or not hot.isdisjoint(touched(ins)):
                    self._step(ins, s)
                continue
            while k < len(watched) and watched[k] < at:
                k += 1
            if k == len(watched):
                break
            at = watched[k]
            ins = code[at]
            at += 1
            if not s.pending and ins.index in plain and (not s.stored or not carrying(s.stored)):
                # the common case, without the general step
                regs = s.regs
                new = effect(ins, regs, thread)
                for name, value in new.items():
                    if value is None:
                        regs.pop(name, None)
                    else:
                        regs[name] = value
                if s.facts and new:
                    s.facts = _unpinned(s.facts, new)
                continue
            self._step(ins, s)
        return self._edges(block, s)

    def _step(self, ins: Instruction, s: State) -> None:
        relevant = self.relevant
        if (
            ins.index not in relevant
            and not any(p.regs for p in s.pending)
            and not ins.opcode.startswith(RELEASES)
        ):
            return
        if ins.head == "bra":  # a branch ends its block: _taken decides where its warps go
            return
        truth = self._guard(ins, s.regs)
        if truth is False:
            return
        if ins.head == "tcgen05":
            self._tcgen05(ins, s, truth is None)
            return
        if self._trace is not None and ins.head == "mbarrier":
            if self._records is not None:  # solving: places are found for a block's last record only
                self._trace.marks.append((ins, self.barrier_reads(ins, s.regs)))
            else:
                self._barrier(self._trace, ins, s.regs)
        if s.pending or (s.stored and ins.opcode.startswith(RELEASES)):
            s.pending = after_other(self, ins, s, self._trace)
        if ins.index in relevant:
            self._assign(ins, s, truth is None)

    def _barrier(self, trace: Trace, ins: Instruction, regs: dict[str, Any]) -> None:
        places = self.barrier(ins, regs)
        trace.barriers.append((ins, places))
        if "wait" in ins.opcode:
            trace.waits.update(places if places is not None else (None,))

    def _guard(self, ins: Instruction, regs: dict[str, Any]) -> bool | None:
        g = ins.guard
        if g is None:
            return True
        p = regs.get(g.lstrip("!"))
        if type(p) is Vec:
            truths = [_truth(x, g) for x in p.items]
            if any(t != truths[0] for t in truths):
                warps = self.thread.warps or ()
                parts: dict[bool | None, list[int]] = {}
                for w, t in zip(warps, truths, strict=True):
                    parts.setdefault(t, []).append(w)
                raise Split([tuple(p) for p in parts.values()])
            return truths[0]
        return _truth(p, g)

    def _assign(self, ins: Instruction, s: State, maybe: bool) -> None:
        regs = s.regs
        new = self.plan.effect(ins, regs, self.thread)
        if s.pending and new:
            s.pending = unchanged(s.pending, tuple(new))
        if s.facts and new:
            s.facts = _unpinned(s.facts, new)
        if new and carrying(s.stored):
            plan, thread = self.plan, self.thread
            repeats = None if ins.guard else key(ins)
            s.stored = g.carried(
                s.stored, plan.reads(ins), tuple(new), regs,
                lambda values: plan.effect(ins, values, thread), not maybe, repeats,
            )  # fmt: skip
        for name, value in new.items():
            if maybe:
                value = join(regs.get(name), value)
            if value is None:
                regs.pop(name, None)
            else:
                regs[name] = value

    def _edges(self, block: int, s: State) -> dict[int, State]:
        out = self._taken(block, s)
        live, joins = self.plan.live, self.plan.joins
        for succ, state in out.items():  # where paths join, a state keeps the registers live there
            if succ in joins:
                state.regs = live.kept(succ, state.regs)
        return out

    def _taken(self, block: int, s: State) -> dict[int, State]:
        b = self.plan.graph.blocks[block]
        last, fall, jumps = self.plan.ends[block]
        if b.exits and self._trace is not None:
            try:
                runs = last is None or self._guard(last, s.regs) is not False
            except Split as split:
                if self._records is None:
                    raise
                self._trace.split, runs = split.parts, False  # raised only if it is the block's last record
            if runs:
                line = last.line if last is not None and last.head in ("ret", "exit") else self.body_end()
                self._trace.exits.append((line, dict(s.life)))
        if not b.succ:
            return {}
        if last is not None and last.head == "brx":
            return self._indexed(block, s, last)
        if last is None or last.guard is None or last.head not in ("bra", "ret", "exit", "trap"):
            return {succ: s.again() for succ in b.succ}
        try:
            truth = self._guard(last, s.regs)
        except Split:
            # Warps part ways: one group still, both ways, where nothing between matters (Plan.passable).
            if last.head != "bra" or any(p.regs for p in s.pending) or not self.plan.passable(block):
                raise
            return {succ: s.again() for succ in b.succ}
        out: dict[int, State] = {}
        for target, taken in [(x, True) for x in jumps] + ([(fall, False)] if fall is not None else []):
            if truth is not None and truth != taken:
                continue
            if truth is not None:
                out[target] = s.again()
                continue
            state = self._assume(block, s, last.guard, taken)
            if state is not None and state.stored and carrying(state.stored):
                state.stored = g.on_edge(state.stored, last.guard, taken)
            out[target] = state
        return {k: v for k, v in out.items() if v is not None}

    def _indexed(self, block: int, s: State, last: Instruction) -> dict[int, State]:
        """Where a ``brx.idx`` sends the group: the label its index picks from the list (PTX ISA
        ``brx.idx``: zero-based; an index past the list is undefined behaviour, so every label is kept
        for it), each label the index may be where it is one of a few numbers, every label where it is
        not known; warps whose indices differ part ways (a warp-specialized kernel's dispatch to its
        partitions: Triton's and TLX's). A guard that may be false falls through too."""
        truth = self._guard(last, s.regs)
        out: dict[int, State] = {}
        if truth is not True:  # a guarded brx.idx not taken: the next block (flow.cfg: a conditional jump)
            fall = self.plan.ends[block][1]
            if fall is not None:
                out[fall] = s.again()
            if truth is False:
                return out
        order = self.plan.indexed(block)
        if order is not None:  # a list not found gives no edge (flow.cfg; check notes the branch)
            picked = indexed.picked(self._index(last, s.regs), order, self.thread.warps)
            if len(picked) > 1 and self._trace is not None:
                self._trace.dispatched.add(block)
            for succ in picked:
                out[succ] = s.again()
        return out

    def _index(self, ins: Instruction, regs: dict[str, Any]) -> Any:
        try:
            return operand(ins.parsed.operands[0].strip(), regs.get, self.thread, self.body)
        except (TmemvizError, IndexError):
            return None

    def body_end(self) -> int:
        code = self.body.code
        return code[-1].line if code else self.body.line

    def _assume(self, block: int, s: State, guard: str, taken: bool) -> State | None:
        """``s`` where the guard came out so that the branch is ``taken`` (None: it never does). A
        register found equal to one constant is pinned (:attr:`State.facts`); one found 0 that an ``or``
        just before built pins what it ORed to 0 as well (every bit of an OR is 0 only where every bit of
        each source is; PTX 9.7.8.2 ``or``)."""
        name = guard.lstrip("!")
        p = s.regs.get(name)
        truth = taken if not guard.startswith("!") else not taken
        if not isinstance(p, Pred) or p.cond is None:
            return s.again()
        reg = p.cond[1]
        current = s.regs.get(reg)
        fresh = len(p.cond) > 6 and self.plan.proofs.unwritten(p.cond[6], reg, block)
        refined = refine(p.cond, truth, current, fresh)
        if refined is NEVER:
            return None
        regs = dict(s.regs)
        regs[name] = Pred(truth, p.cond)
        if refined is current or refined is None:
            return State(regs, s.life, s.pending, s.stored, s.waited, s.facts)
        regs[reg] = refined
        facts = g.pinned(s.facts, regs, reg, lambda: self.plan.proofs.ored(block, reg))
        return State(regs, s.life, s.pending, s.stored, s.waited, facts)

    # -- tcgen05 -------------------------------------------------------------------------------------
    def _tcgen05(self, ins: Instruction, s: State, maybe: bool) -> None:
        parts = ins.opcode.split(".")
        op = parts[1].split("::")[0] if len(parts) > 1 else ""
        trace = self._trace
        given = ()
        if op == "st" and s.facts:
            block, proofs = self.plan.graph.block_of(ins.index), self.plan.proofs
            given = g.capture(s.facts, lambda reg: proofs.expression(reg, block))
        if op == "wait" and parts[1] == "wait::ld" and s.pending:
            s.waited = s.waited | {p.index for p in s.pending}
        elif op == "ld" and ins.index in s.waited:
            s.waited = s.waited - {ins.index}
        s.pending, s.stored = after_tcgen05(self, ins, op, parts, s, trace, given)
        if op == "alloc":
            key = self.keys.alloc_key(ins, s.regs, self.thread)
            before = s.status(key)
            if trace is not None:
                trace.allocs.append((ins, key, dict(s.life), self.columns(ins, s.regs)))
            s.life[key] = before | {HELD} if maybe else frozenset((HELD,))
        elif op == "dealloc":
            key = self.keys.address_key(self.address_value(ins, s.regs))
            before = s.status(key) if key is not None else frozenset()
            if trace is not None:
                trace.deallocs.append((ins, key, before, self.columns(ins, s.regs)))
            if key is not None:
                s.life[key] = before | {FREED} if maybe else frozenset((FREED,))
        elif op in ACCESSES and trace is not None:
            spots = self.spots(ins, s.regs)
            key = self.keys.address_key(self.address_value(ins, s.regs))
            trace.accesses.append(
                Access(ins, op, key, spots, s.status(key) if key is not None else frozenset())
            )
        if op == "ld" and ins.index in self.relevant:
            self._assign(ins, s, maybe)


def _unpinned(facts: frozenset[tuple[str, Any]], written: Any) -> frozenset[tuple[str, Any]]:
    """The path's pinned registers once ``written`` are given new values."""
    return frozenset(f for f in facts if f[0] not in written)


def _truth(p: Any, guard: str) -> bool | None:
    if not isinstance(p, Pred) or p.truth is None:
        return None
    return (not p.truth) if guard.startswith("!") else p.truth
