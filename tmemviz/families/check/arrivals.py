"""The ``arrive-count`` rule: a whole warp arriving on an mbarrier that expects one arrival.

``mbarrier.init [bar], count`` sets how many arrivals complete a phase (PTX 9.7.13.15, mbarrier: "the
expected arrival count"); each thread that runs ``mbarrier.arrive`` is one arrival. A warp whose 32
lanes all arrive on a barrier initialised with count 1 completes the phase 32 times over: the phase
over-advances, so a waiter may pass a phase nothing produced or wait for one that already went by
(triton PR #9498). Which lanes run an arrive: :class:`~tmemviz.families.explain.follow.lanes.Lanes`
(only an arrive under no lane-dependent guard or branch is counted 32 times); which barrier it names: the
places the analysis gives its address (one known place per stage, where the kernel's constants say).
A warning: whether it hangs or races depends on the schedule. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.check.findings import Finding
from tmemviz.families.explain.follow.kernel import Analysed
from tmemviz.families.explain.follow.lanes import Lanes
from tmemviz.ptx.line import parse_immediate


def arrive_findings(a: Analysed) -> Iterable[Finding]:
    inits = _inits(a)
    if not any(count == 1 for count, _ in inits.values()):
        return
    lanes = Lanes(a.plan)
    for t in a.traces:
        if t.warps is None:  # any thread: whether a whole warp runs it is not known
            continue
        for ins, places in t.barriers:
            if not ins.opcode.startswith("mbarrier.arrive") or not places or "shared::cluster" in ins.opcode:
                continue
            counted = _operands(ins)[2:] and "expect_tx" not in ins.opcode  # expect_tx's is bytes
            if counted:
                continue  # an explicit arrival count
            ones = sorted({inits[p][1] for p in places if p in inits and inits[p][0] == 1})
            if not ones or not lanes.every_lane(ins):
                continue  # no barrier of count 1 (asked first: which lanes run it is the dearer question)
            yield Finding(
                ins.line, a.severity("warning", t.warps, ins.index), "arrive-count",
                f"{ins.opcode.split('.shared')[0]} runs in all 32 lanes{a.who(t.warps, ins.index)}, but the "
                f"mbarrier was initialised with count 1 on line {ones[0]}: 32 arrivals over-advance its "
                "phase, so a waiter may pass a phase nothing produced or wait forever (triton PR #9498); "
                "arrive from one lane (under elect.sync or a lane-0 predicate), or init the count to 32",
            )  # fmt: skip


def _inits(a: Analysed) -> dict[Any, tuple[int | None, int]]:
    """Place -> (its init count, the init's line); a place initialised with two counts is left out."""
    out: dict[Any, tuple[int | None, int]] = {}
    clash: set[Any] = set()
    for t in a.traces:
        for ins, places in t.barriers:
            if not ins.opcode.startswith("mbarrier.init") or not places or len(places) != 1:
                continue
            operands = _operands(ins)
            count = _constant(a.plan.defs, operands[1]) if len(operands) > 1 else None
            (place,) = places
            if place in out and out[place][0] != count:
                clash.add(place)
            out.setdefault(place, (count, ins.line))
    return {p: v for p, v in out.items() if p not in clash}


def _operands(ins: Any) -> list[str]:
    try:
        return [o.strip() for o in ins.parsed.operands]
    except TmemvizError:  # an unreadable statement: no operands known
        return []


def _constant(defs: dict[str, list[Any]], operand: str) -> int | None:
    """An immediate, or the one constant the register is ever moved."""
    value = parse_immediate(operand)
    if value is not None:
        return value
    found = defs.get(operand, [])
    if len(found) != 1 or found[0].head != "mov":
        return None
    return parse_immediate(found[0].text.split(",")[-1].strip())
