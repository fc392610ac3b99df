"""One function of a PTX module analysed: its plan, where its allocations are, and one trace per warp.

A kernel's warps take different paths (warp-specialized kernels branch on the warp index, computed from
``%tid.x``), so the function is run once per warp of the CTA when its header bounds the threads
(``.reqntid``/``.maxntid``) and its slice reads the thread's position; otherwise once, for any thread.
Pure: no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from tmemviz.families.explain.follow.evaluate import Thread
from tmemviz.families.explain.follow.machine import Machine, Split, Trace
from tmemviz.families.explain.follow.places import Places
from tmemviz.families.explain.follow.plan import Plan
from tmemviz.flow.dataflow import Unconverged
from tmemviz.gcpause import paused
from tmemviz.ptx.body import Body

MAX_WARPS = 32
"""A CTA has at most 1024 threads (PTX ISA 5.2.3)."""
MAX_UNBOUNDED = 4000
"""A function without launch bounds is run for each of 32 thread groups up to this many evaluated
instructions; a larger one once, for any thread."""
_POSITION = ("%tid", "%laneid", "%warpid")


@dataclass
class Analysed:
    body: Body
    plan: Plan
    places: Places
    traces: list[Trace] = field(default_factory=list)
    unconverged: bool = False
    bounded: bool = True
    """The header bounds the threads: every warp run exists in some launch. Without bounds, the analysis
    runs 32 groups of threads (by ``%tid.x``), of which only the first surely exists."""

    @property
    def per_warp(self) -> bool:
        return any(t.warp is not None for t in self.traces)

    def severity(self, severity: str, warps: Warps, index: int) -> str:
        """A finding's severity as seen in ``warps`` at instruction ``index``: without launch bounds, a
        note unless they hold the first warp to reach the instruction (so whether it holds depends on how
        many threads the CTA has, not only on whether the instruction runs)."""
        return severity if self.surely(warps, index) else "note"

    def surely(self, warps: Warps, index: int) -> bool:
        group = _group(warps)
        if self.bounded or not group:
            return True
        block = self.plan.graph.block_of(index)
        first = min((t.warp for t in self.traces if block in t.blocks and t.warp is not None), default=None)
        return first is None or min(group) <= first

    def who(self, warps: Warps, index: int) -> str:
        """`` in warp 3``, `` in warps 4-7`` (and, without launch bounds, on what it rests), or nothing."""
        group = _group(warps)
        if not group or not self.per_warp:
            return ""
        if self.surely(group, index):
            return " in " + _named(group)
        return (
            f" in threads {32 * min(group)}..{32 * max(group) + 31} (if the CTA has that many: the kernel "
            "declares no .maxntid/.reqntid)"
        )


Warps = "int | tuple[int, ...] | None"


def _group(warps: Any) -> tuple[int, ...]:
    if warps is None:
        return ()
    return (warps,) if isinstance(warps, int) else tuple(warps)


def _named(group: tuple[int, ...]) -> str:
    """``warp 3``, ``warps 4-7``, ``warps 0, 2 and 5``.

    >>> _named((3,)), _named((4, 5, 6, 7)), _named((0, 2, 5))
    ('warp 3', 'warps 4-7', 'warps 0, 2 and 5')
    """
    if len(group) == 1:
        return f"warp {group[0]}"
    if list(group) == list(range(group[0], group[-1] + 1)):
        return f"warps {group[0]}-{group[-1]}"
    return "warps " + ", ".join(map(str, group[:-1])) + f" and {group[-1]}"


def analyse(body: Body, explainer: Any, catalog: Any, alone: bool) -> Analysed:
    """Run ``body`` for every warp (or once); ``alone``: no function it calls may allocate. The cycle
    collector is paused meanwhile (:mod:`tmemviz.gcpause`: why)."""
    with paused():
        return _analyse(body, explainer, catalog, alone)


def _analyse(body: Body, explainer: Any, catalog: Any, alone: bool) -> Analysed:
    plan = Plan(body)
    places = Places(plan, explainer, catalog, alone)
    out = Analysed(body, plan, places)
    warps = body.warps
    # Whether the slice reads the thread's position, what evaluated instructions read included even
    # where their values do not depend on it (the whole slice holds the one that is followed).
    positional = any(
        any(p in ins.text for p in _POSITION)
        for ins in plan.instructions
        if ins.index in plan.relevant
    ) or any(
        any(p in ins.text for p in _POSITION)
        for ins in plan.instructions
        if ins.index in plan.whole
    )  # fmt: skip
    if warps is None and len(plan.whole) <= MAX_UNBOUNDED:
        warps, out.bounded = MAX_WARPS, False  # any launch: up to 1024 threads
    positions: list[int | None] = (
        list(range(warps)) if warps is not None and warps <= MAX_WARPS and positional else [None]
    )
    # Warps that take the same paths are run as one group; a branch that parts them splits it.
    groups: list[tuple[int, ...] | None] = [tuple(w for w in positions if w is not None) or None]
    while groups:
        group = groups.pop(0)
        machine = Machine(plan, Thread(group, body.ntid), places)
        try:
            states = machine.solve()
            trace = machine.trace(states)
        except Split as split:
            groups[:0] = split.parts
            continue
        except Unconverged:
            out.unconverged = True
            return out
        out.traces.append(trace)
    out.traces.sort(key=lambda t: t.warp if t.warp is not None else -1)
    return out


def allocations(a: Analysed) -> dict[Any, dict[str, Any]]:
    """Per allocation key: its alloc lines, the nCols they take, the warps that allocate and free it, and
    the lines of its deallocs."""
    out: dict[Any, dict[str, Any]] = defaultdict(
        lambda: {
            "lines": set(),
            "columns": set(),
            "by": set(),
            "freed_by": set(),
            "frees": set(),
            "at": set(),
        }
    )
    for t in a.traces:
        for ins, key, _, columns in t.allocs:
            out[key]["lines"].add(ins.line)
            out[key]["at"].add(ins.index)
            out[key]["columns"].add(columns)
            out[key]["by"].add(t.warps)
        for ins, key, _, _ in t.deallocs:
            if key is not None:
                out[key]["freed_by"].add(t.warps)
                out[key]["frees"].add(ins.line)
    return out
