"""What reaches an instruction along one warp's paths: which earlier instruction of a kind (a
``barrier.cluster.wait``, a ``setmaxnreg``) last ran on each path, or none.

The protocol rules of ``check`` ask questions of a warp's paths that the register analysis does not
keep: has every path into this ``tcgen05.dealloc`` passed a cluster barrier; which ``setmaxnreg`` counts
may hold at this ``tcgen05.ld``. Each is a forward data-flow problem on the function's control-flow graph
(:mod:`tmemviz.flow.cfg`) restricted to the blocks the warp reaches (the trace's ``blocks``, where its
branches on the warp index were decided): the set of values the last instruction of the kind gave on
some path, :data:`START` for a path with none. An instruction under a guard may not run, so it adds its
value without removing the earlier ones. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

from tmemviz.families.explain.follow.follower import RUNTIME
from tmemviz.ptx.body import Instruction

START = "start"
"""The value of a path on which no instruction of the kind ran."""

Gen = Callable[[Instruction], Hashable | None]
"""An instruction's value (None: not of the kind)."""


def reaching(plan: Any, blocks: Iterable[int], gen: Gen) -> Callable[[Instruction], frozenset[Any]]:
    """For each instruction of ``blocks``, the values that may reach it (before it runs)."""
    graph = plan.graph
    inside = set(blocks)
    # Each block's instructions of the kind, with their values, found once per function (every group of
    # warps asks of the same code): the rounds pass only these.
    every = plan.of_kind(gen)
    kind = {b: every[b] for b in inside}
    entry: dict[int, frozenset[Any]] = {b: frozenset() for b in inside}
    if 0 in inside:
        entry[0] = frozenset((START,))
    out: dict[int, frozenset[Any]] = {}

    def through(b: int, values: frozenset[Any]) -> frozenset[Any]:
        for ins, value in kind[b]:
            values = _step(ins, value, values)
        return values

    order = [b for b in graph.rpo if b in inside]
    changed = True
    while changed:
        changed = False
        for b in order:
            if b != 0:
                preds = [out.get(p, frozenset()) for p in graph.blocks[b].pred if p in inside]
                new = frozenset().union(*preds)
                if new != entry[b]:
                    entry[b], changed = new, True
            o = through(b, entry[b])
            if o != out.get(b):
                out[b], changed = o, True

    def at(ins: Instruction) -> frozenset[Any]:
        b = graph.block_of(ins.index)
        values = entry.get(b, frozenset())
        for other, value in kind.get(b, ()):
            if other.index >= ins.index:
                break
            values = _step(other, value, values)
        return values

    return at


def _step(ins: Instruction, value: Hashable, values: frozenset[Any]) -> frozenset[Any]:
    return values | {value} if ins.guard is not None else frozenset((value,))


def cluster_wait(ins: Instruction) -> Hashable | None:
    """``barrier.cluster.wait`` (PTX ISA, barrier.cluster: it waits until every non-exited thread of the
    cluster has run ``barrier.cluster.arrive``), or a call to a function that may hold one (not one of the
    device runtime's): the analysis does not look inside, so it does not claim the wait is missing."""
    if ins.opcode.startswith("barrier.cluster.wait"):
        return "wait"
    if ins.head == "call":
        named = [p.strip() for p in ins.rest.split(",") if p.strip() and not p.strip().startswith("(")]
        callee = named[0] if named else "?"
        if callee not in RUNTIME and not callee.startswith("__nv_"):
            return "call"
    return None


def register_count(ins: Instruction) -> Hashable | None:
    """The count a ``setmaxnreg.inc/dec`` sets (PTX 9.7.19.x: the warp's per-thread register budget)."""
    if not ins.opcode.startswith("setmaxnreg"):
        return None
    value = ins.rest.strip().rstrip(";").strip()
    return (int(value) if value.isdigit() else "unknown", ins.line)
