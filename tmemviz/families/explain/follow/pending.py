"""The ``wait-ld`` rule, stated once: when a tcgen05.ld (or st) is complete, and what may not come before.

The PTX ISA orders a tcgen05.ld's reads of Tensor Memory before later work only through
``tcgen05.wait::ld`` (9.7.16.8.5: it "causes the executing thread to block until all prior tcgen05.ld
operations issued by the executing thread have completed"; 9.7.16.6: tcgen05.ld is asynchronous and
not ordered with the thread's later tcgen05 operations; later ISA text: a register dependency does not
order the memory accesses, and the producer pattern is ``tcgen05.ld -> tcgen05.wait::ld ->
mbarrier.arrive``). Until then, each of these is a hazard:

* a tcgen05.st/mma/cp/shift of this thread whose cells may meet the ld's (same allocation, overlapping
  lanes and columns; disjoint cells are no hazard);
* a tcgen05.dealloc;
* a release (``bar``/``barrier`` sync, arrive or red, ``mbarrier.arrive``, ``tcgen05.commit``), after
  which another warp may write those cells (the rules decide with what the whole function writes).

On today's hardware (shared/spec ordering-facts §1) one ld is one ``LDTM`` whose scoreboard the first
instruction *consuming* any of its destination registers waits on; a plain copy (``mov``, a bit-cast or
a vector pack or unpack) is no instruction there and waits for nothing, so its destination joins the
load's registers instead. Where paths join, ptxas makes the scoreboard agree: a load consumed or waited for
(``tcgen05.wait::ld``) on one incoming path is waited for on the others before the join (observed with
ptxas 13.5 on every such shape tried: the wait on one arm of an if, deeper in it or on the branch taken,
a use on one arm). A load issued on one arm only is not waited for at the join, and a conditional branch
alone orders nothing.
A hazard after a consuming read or such a join is ordered by that scoreboard, not by the ISA (a note);
one reached on every path with the load issued and nothing consuming it is ordered by nothing (a
warning). The flagged instruction's own reads count after the check. Each load is reported once, at its
first hazard.

The same for tcgen05.st and ``tcgen05.wait::st``: a later tcgen05.ld or MMA of this thread reading
cells the st wrote; and a release, after which another warp may read or write them (9.7.16.8.5's example
waits between a store and the MMA that reads its cells; the rules decide with the warps that wait on the
mbarrier released). Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

RELEASES = ("bar.sync", "bar.arrive", "bar.red", "barrier.sync", "barrier.arrive", "barrier.red",
            "barrier.cta", "barrier.cluster.arrive", "mbarrier.arrive")  # fmt: skip
"""Instructions that let other threads go on (``tcgen05.commit`` too: it arrives on an mbarrier)."""
WRITERS = ("st", "mma", "cp", "shift")


class Pending(NamedTuple):
    """A tcgen05.ld not waited for: the registers holding its data (copies included), whether its
    scoreboard orders it on today's hardware (``consumed``: one of them was consumed, or paths joined
    where one had no such load pending), and the cells it reads. (Named tuples, this and
    :class:`Stored`: states are compared where paths join, in C.)"""

    index: int
    line: int
    regs: frozenset[str]
    consumed: bool
    spots: tuple[Any, ...]
    bases: frozenset[tuple[str, tuple[int, int], tuple[int, int]]] = frozenset()
    """(address register, lanes, columns relative to it) of what it reads, while that register still
    holds the address the load used: a later access through the same register meets it exactly where
    those relative cells overlap, whatever the analysis knows of the address."""


class Stored(NamedTuple):
    """A tcgen05.st not waited for: the cells it writes, and what its own path proved
    (:mod:`~tmemviz.families.explain.follow.given`)."""

    index: int
    line: int
    spots: tuple[Any, ...]
    given: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Hazard:
    """An instruction (``line``, ``what``) that may overtake the ld (``kind`` "ld") or st ("st") on
    ``source``. ``relation``: ``meets`` (its cells may meet the load's), ``unknown`` (the analysis cannot
    tell), ``release`` (decided with the whole function's writers), ``frees`` (a dealloc)."""

    line: int
    index: int
    what: str
    kind: str
    source: int
    consumed: bool
    relation: str
    spots: tuple[Any, ...]
    warp: int | None
    barrier: frozenset[Any] | None = None
    """A release on an mbarrier: the shared-memory places it may name (None: another release, or not
    known)."""


def joined(
    a: tuple[Pending, ...],
    b: tuple[Pending, ...],
    a_waited: frozenset[int] = frozenset(),
    b_waited: frozenset[int] = frozenset(),
) -> tuple[Pending, ...]:
    """Loads pending on either path. Where paths join, ptxas makes a load's scoreboard agree: a load
    consumed on one path, or waited for there (its index in that path's ``waited``), is ordered on the
    others too (``consumed``: a note, the ISA's terms only). A load never issued on the other path stays
    as it is: nothing waits for it at the join (see the module's docstring)."""
    if a == b:
        return a
    out: dict[int, Pending] = {}
    for p in a:
        out[p.index] = p if p.index not in b_waited else _ordered(p)
    for p in b:
        q = out.get(p.index)
        if q is None:
            out[p.index] = p if p.index not in a_waited else _ordered(p)
            continue
        spots = tuple(dict.fromkeys(q.spots + p.spots))
        consumed = p.consumed or q.consumed
        regs = frozenset() if consumed else p.regs | q.regs
        out[p.index] = Pending(p.index, p.line, regs, consumed, spots, p.bases & q.bases)
    return tuple(sorted(out.values(), key=lambda p: p.index))


def _ordered(p: Pending) -> Pending:
    return p if p.consumed else Pending(p.index, p.line, frozenset(), True, p.spots, p.bases)


def relation(a: tuple[Any, ...], b: tuple[Any, ...]) -> str:
    """``meets`` when some cells of ``a`` and ``b`` may be the same, ``disjoint`` when none can be,
    ``unknown`` when an address is not known."""
    if not a or not b:
        return "unknown"
    unknown = False
    for x in a:
        for y in b:
            if x.key is None or y.key is None:
                unknown = True
            elif x.key == y.key and _overlap(x.lanes, y.lanes) and _overlap(x.cols, y.cols):
                if x.exact and y.exact:
                    return "meets"
                unknown = True  # a range of offsets overlaps: the cells may or may not meet
    return "unknown" if unknown else "disjoint"


def same_register(bases: frozenset[Any], through: list[Any]) -> bool:
    """Whether an access through these (register, lanes, columns) meets a load's cells through the
    same register, still holding the load's address."""
    for register, lanes, cols in through:
        for r, l2, c2 in bases:
            if r == register and _overlap(lanes, l2) and _overlap(cols, c2):
                return True
    return False


def unchanged(pending: tuple[Pending, ...], written: tuple[str, ...]) -> tuple[Pending, ...]:
    """The loads after registers were written: an address register written no longer holds the address."""
    out = []
    for p in pending:
        if p.bases and any(b[0] in written for b in p.bases):
            p = Pending(p.index, p.line, p.regs, p.consumed, p.spots,
                        frozenset(b for b in p.bases if b[0] not in written))  # fmt: skip
        out.append(p)
    return tuple(out)


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _read(pending: tuple[Pending, ...], reads: tuple[str, ...], writes: tuple[str, ...], copy: bool):  # type: ignore[no-untyped-def]
    """The loads after an instruction reading ``reads`` and writing ``writes`` (a plain copy or not).
    A consumed load keeps no registers: nothing it reads changes it any more."""
    out = []
    for p in pending:
        regs = p.regs
        if not regs or (regs.isdisjoint(reads) and regs.isdisjoint(writes)):
            out.append(p)
            continue
        hit = not regs.isdisjoint(reads)
        if hit and not copy:
            out.append(Pending(p.index, p.line, frozenset(), True, p.spots, p.bases))
            continue
        regs = regs.difference(writes)
        if hit:
            regs = regs.union(writes)
        out.append(Pending(p.index, p.line, regs, p.consumed, p.spots, p.bases))
    return tuple(out)


def _report(
    trace: Any, ins: Any, what: str, p: Any, kind: str, relation_: str, consumed: bool, barrier: Any = None
) -> None:
    if trace is not None:
        trace.hazards.append(
            Hazard(ins.line, ins.index, what, kind, p.line, consumed, relation_, p.spots, trace.warp, barrier)
        )


def after_other(machine: Any, ins: Any, s: Any, trace: Any) -> tuple[Pending, ...]:
    """The pending loads after an instruction that is no tcgen05 one (a release also meets the pending
    stores: :func:`released`)."""
    if ins.opcode.startswith(RELEASES):
        barrier = machine.barrier(ins, s.regs) if trace is not None and ins.head == "mbarrier" else None
        for p in s.pending:
            _report(trace, ins, ins.opcode.split(" ")[0], p, "ld", "release", p.consumed, barrier)
        released(trace, ins, ins.opcode.split(" ")[0], s.stored, barrier)
        return ()
    plan = machine.plan
    return _read(s.pending, plan.reads(ins), plan.writes(ins), ins.head == "mov")


def released(trace: Any, ins: Any, what: str, stored: tuple[Stored, ...], barrier: Any) -> None:
    """A release while stores are not waited for: another warp that goes on after it may read or write
    their cells before they are written (9.7.16.8.5's example waits with ``tcgen05.wait::st`` between a
    store and the MMA that reads its cells; the rules decide with what the warps waiting on the mbarrier
    touch). The stores stay pending: the thread reading the cells back is a hazard of its own."""
    for st in stored:
        _report(trace, ins, what, st, "st", "release", False, barrier)


def after_tcgen05(
    machine: Any, ins: Any, op: str, parts: list[str], s: Any, trace: Any, given: tuple[Any, ...] = ()
) -> tuple[Any, Any]:
    """The pending loads and stores after a tcgen05 instruction (``op``: ld, st, mma, wait ...); a store
    made here carries ``given``, the values its path proved."""
    pending, stored = s.pending, s.stored
    if op == "wait":
        return ((), stored) if parts[1] == "wait::ld" else (pending, ())
    what = "tcgen05." + op
    spots = None
    if pending and op in (*WRITERS, "dealloc", "commit"):
        if op in ("dealloc", "commit"):
            barrier = machine.barrier(ins, s.regs) if trace is not None and op == "commit" else None
            for p in pending:
                relation_ = "frees" if op == "dealloc" else "release"
                _report(trace, ins, what, p, "ld", relation_, p.consumed, barrier)
            pending = ()
        else:
            spots = machine.spots(ins, s.regs)
            written = tuple(x for t, found in spots if t.writes for x in found)
            kept = []
            through = [(t.register, t.lanes, t.cols) for t, _ in spots if t.writes]
            for p in pending:
                r = relation(p.spots, written) if written or not spots else "unknown"
                if r == "unknown" and same_register(p.bases, through):
                    r = "meets"
                if r == "disjoint":
                    kept.append(p)
                    continue
                _report(trace, ins, what, p, "ld", r, p.consumed)
            pending = tuple(kept)
    if stored and op == "commit":
        barrier = machine.barrier(ins, s.regs) if trace is not None else None
        released(trace, ins, what, stored, barrier)
    if stored and op in ("ld", "mma"):
        spots = spots if spots is not None else machine.spots(ins, s.regs)
        read = tuple(x for t, found in spots if not t.writes or op == "ld" for x in found)
        kept_st = []
        for st in stored:
            if relation(st.spots, read) == "meets":
                _report(trace, ins, what, st, "st", "meets", False)
            else:
                kept_st.append(st)
        stored = tuple(kept_st)
    if pending:
        plan = machine.plan
        pending = _read(pending, plan.reads(ins), (), False)
    if op == "ld":
        spots = spots if spots is not None else machine.spots(ins, s.regs)
        cells = tuple(x for _, found in spots for x in found)
        dests = frozenset(machine.plan.writes(ins))
        bases = frozenset((t.register, t.lanes, t.cols) for t, _ in spots)
        new = Pending(ins.index, ins.line, dests, False, cells, bases)
        pending = (*(p for p in pending if p.index != ins.index), new)
    elif op == "st":
        spots = spots if spots is not None else machine.spots(ins, s.regs)
        cells = tuple(x for _, found in spots for x in found)
        stored = (*(x for x in stored if x.index != ins.index), Stored(ins.index, ins.line, cells, given))
    return pending, stored


def carrying(stored: tuple[Stored, ...]) -> bool:
    """Whether a pending store carries values of its path (:mod:`~tmemviz.families.explain.follow.given`)."""
    return any(st.given for st in stored)
