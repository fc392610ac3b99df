"""Loops settle in few rounds where check judges nothing by a register's exact values, and keep them
where it does: a register that only steers branches (a trip count) is widened at a loop header as soon
as it changes there, one an address is built from (a pipeline stage) keeps its candidates."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import tmemviz
from tests.check.test_rules import LD, good
from tmemviz.families.explain.follow import follower
from tmemviz.families.explain.follow.counters import Counters
from tmemviz.families.explain.follow.evaluate import Thread
from tmemviz.families.explain.follow.kernel import Analysed
from tmemviz.families.explain.follow.machine import Machine
from tmemviz.families.explain.follow.values import values

LOOP = (
    "mov.b32 %r5, 0;\nmov.b32 %r6, 0;\n$L1:\nshl.b32 %r7, %r5, 6;\nadd.s32 %r3, %r2, %r7;\n"
    + LD.format(addr="%r3")
    + "tcgen05.wait::ld.sync.aligned;\nadd.s32 %r5, %r5, 1;\nand.b32 %r5, %r5, 3;\nadd.s32 %r6, %r6, 1;\n"
    "setp.lt.u32 %p1, %r6, 1000;\n@%p1 bra $L1;\n"
)
"""Four 64-column stages in turn (%r5, the address's), a thousand rounds (%r6, only the branch's)."""


def _analysed(text: str) -> Analysed:
    found: list[Analysed] = []
    original = follower.analyse

    def keep(*args: Any) -> Analysed:
        found.append(original(*args))
        return found[-1]

    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(follower, "analyse", keep)
        (checked,) = tmemviz.check(text=text).subject
    assert [f.rule for f in checked.findings if f.severity != "note"] == []
    (a,) = found
    return a


def _solved(a: Analysed, early: bool, ahead: bool = True) -> tuple[dict[int, Any], Counter[int]]:
    machine = Machine(a.plan, Thread(None, a.body.ntid), a.places)
    visits: Counter[int] = Counter()
    transfer = machine.transfer

    def counted(block: int, state: Any) -> Any:
        visits[block] += 1
        return transfer(block, state)

    machine.transfer = counted  # type: ignore[method-assign]
    with pytest.MonkeyPatch.context() as monkeypatch:
        if not early:
            monkeypatch.setattr(machine, "early", lambda header, old, new: new)
        if not ahead:
            monkeypatch.setattr(Counters, "ahead", lambda *args: None)
        return machine.solve(), visits


def test_a_trip_count_is_widened_at_once_and_a_stage_keeps_its_values() -> None:
    a = _analysed(good(256, LOOP))
    (header,) = a.plan.graph.headers
    assert "%r5" in a.plan.counted and "%r6" not in a.plan.counted
    states, visits = _solved(a, early=True)
    at = states[header].regs
    assert values(at["%r5"]) == [0, 1, 2, 3], "the stage the address is built from keeps each value"
    assert "%r6" not in at or values(at["%r6"]) is None, "the trip count is widened"
    # The stage run ahead: the header takes its four values on the first round (then the trip count,
    # widened, changes once more); without, a visit per value it gains (0; 0-1; 0-2; 0-3); without the
    # early widening, the rounds the trip count adds past those (a candidate a round until widened).
    behind, step = _solved(a, early=True, ahead=False)
    _, slow = _solved(a, early=False)
    assert behind == states
    assert visits[header] == 3 < step[header] == 4 < slow[header], (
        visits[header],
        step[header],
        slow[header],
    )


WRAPPED = (
    "mov.b32 %r5, 0;\nmov.b32 %r6, 0;\nadd.s32 %r9, %r1, 8;\n"
    "$L1:\nshl.b32 %r7, %r5, 6;\nadd.s32 %r3, %r2, %r7;\n"
    + LD.format(addr="%r3")
    + "tcgen05.wait::ld.sync.aligned;\nadd.s32 %r8, %r5, 1;\nsetp.eq.s32 %p2, %r8, 2;\n"
    "{\n.reg .pred P1;\nLAB_WAIT:\nmbarrier.try_wait.parity.shared::cta.b64 P1, [%r9], %r6, 1000;\n"
    "@P1 bra DONE;\nbra LAB_WAIT;\nDONE:\n}\n"
    "selp.b32 %r5, 0, %r8, %p2;\nadd.s32 %r6, %r6, 1;\nsetp.lt.u32 %p1, %r6, 1000;\n@%p1 bra $L1;\n"
)
"""Two 64-column stages (%r5) wrapped by ``setp.eq``/``selp`` (as CUTLASS's pipeline state is), with a
wait loop between the comparison and the selection (as CUTLASS's inline-assembly mbarrier wait is)."""


def test_a_stage_wrapped_by_selp_across_a_wait_loop_keeps_its_two_values() -> None:
    # Where the wait loop's header joins a round whose comparison was decided (the stage was 0) with one
    # where it was not, the predicate still says what it compared, and the selp still picks by it.
    a = _analysed(good(128, WRAPPED))
    outer = min(a.plan.graph.headers)
    states, _ = _solved(a, early=True)
    assert values(states[outer].regs["%r5"]) == [0, 1]


PHASED = (
    "mov.b32 %r5, 0;\nmov.b32 %r8, 0;\nmov.b32 %r6, 0;\n$L1:\nshl.b32 %r7, %r5, 6;\nadd.s32 %r3, %r2, %r7;\n"
    + LD.format(addr="%r3")
    + "tcgen05.wait::ld.sync.aligned;\nadd.s32 %r9, %r5, 1;\nsetp.eq.s32 %p2, %r9, 4;\n"
    "selp.b32 %r5, 0, %r9, %p2;\nselp.b32 %r4, 1, 0, %p2;\nxor.b32 %r8, %r8, %r4;\n"
    "add.s32 %r6, %r6, 1;\nsetp.lt.u32 %p1, %r6, 1000;\n@%p1 bra $L1;\n"
    "setp.eq.s32 %p3, %r8, 0;\n@%p3 bra $L2;\n"
    + LD.format(addr="%r2")
    + "tcgen05.wait::ld.sync.aligned;\n$L2:\n"
)
"""Four stages (%r5, an address's) and their phase (%r8, which only steers a branch after the loop), both run
ahead from one comparison."""


def test_a_counter_run_ahead_is_widened_as_the_rounds_widen_it() -> None:
    a = _analysed(good(256, PHASED))
    (header,) = a.plan.graph.headers
    assert "%r5" in a.plan.counted and "%r8" not in a.plan.counted and "%r8" in a.plan.live[header]
    states, visits = _solved(a, early=True)
    rounds, steps = _solved(a, early=True, ahead=False)
    assert values(states[header].regs["%r5"]) == [0, 1, 2, 3]
    assert states[header].regs["%r8"] == rounds[header].regs["%r8"], "the phase widened once it changed"
    assert values(states[header].regs["%r8"]) is None
    assert visits[header] < steps[header]


RESET = (
    "mov.b32 %r5, 0;\nmov.b32 %r6, 0;\nmov.b32 %r30, 1;\n$L1:\nshl.b32 %r7, %r5, 6;\nadd.s32 %r3, %r2, %r7;\n"
    + LD.format(addr="%r3")
    + "tcgen05.wait::ld.sync.aligned;\nadd.s32 %r9, %r5, 1;\nand.b32 %r5, %r9, 3;\n"
    "setp.eq.s32 %p2, %r30, 1;\n@!%p2 bra $SKIP;\nmov.b32 %r5, 1;\n$SKIP:\n"
    "add.s32 %r6, %r6, 1;\nsetp.lt.u32 %p1, %r6, 1000;\n@%p1 bra $L1;\n"
)
"""A stage stepped on every round's path, then set to 1 on a way that is always taken: it is 0 or 1 at
the header, though a run of the step alone would give it four values."""


def test_a_counter_written_off_every_rounds_path_is_left_to_the_rounds() -> None:
    a = _analysed(good(256, RESET))
    (header,) = a.plan.graph.headers
    states, _ = _solved(a, early=True)
    assert values(states[header].regs["%r5"]) == [0, 1]
