"""The analysis's shortcuts give what the plain computation gives, on every compiled kernel of
tests/kernels: a block's notes kept from its last transfer (not a pass over the solution), a block
entered again not run again when what changed goes through it untouched, instructions
whose values do not depend on their operands not followed through them, the predicates of branches
around plain code not evaluated, the lane questions' slice, liveness by a worklist, the cycle collector
paused and restored."""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tmemviz
from tmemviz.families.explain.follow import counters, follower, reuse
from tmemviz.families.explain.follow.evaluate import Thread, effect, independent
from tmemviz.families.explain.follow.kernel import Analysed
from tmemviz.families.explain.follow.lanes import Lanes
from tmemviz.families.explain.follow.liveness import FEW, Live, Registers
from tmemviz.families.explain.follow.machine import Machine
from tmemviz.families.explain.follow.operands import followed
from tmemviz.families.explain.follow.plan import STEERS, Plan
from tmemviz.families.explain.follow.trace import Split
from tmemviz.families.explain.follow.values import ZERO, Pred, Sym, Vec
from tmemviz.ptx import constants as c

KERNELS = sorted((Path(__file__).resolve().parents[1] / "kernels").glob("*.ptx"))


_ANALYSED: dict[Path, list[Analysed]] = {}
_FINDINGS: dict[Path, list[Any]] = {}


@pytest.fixture(scope="module", autouse=True)
def _forget_analyses() -> Iterator[None]:
    yield
    _ANALYSED.clear()
    _FINDINGS.clear()


def analysed(path: Path) -> list[Analysed]:
    """Every function of ``path`` with tcgen05, as check analysed it: checked once for the tests of this
    module, which only read the analyses (each builds its own machine, plan or liveness from them) or the
    findings of that same check (:func:`_plain_findings`)."""
    if path in _ANALYSED:
        return _ANALYSED[path]
    found: list[Analysed] = []
    original = follower.analyse

    def keep(*args: Any) -> Analysed:
        a = original(*args)
        found.append(a)
        return a

    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(follower, "analyse", keep)
        (checked,) = tmemviz.check(str(path)).subject
    assert found, f"{path.name} has no function with tcgen05"
    _ANALYSED[path] = found
    _FINDINGS[path] = list(checked.findings)
    return found


def _plain_findings(path: Path) -> list[Any]:
    """:func:`_findings` of the check :func:`analysed` made (the analyse hook only keeps what it returns),
    made now if no test of this module has asked for ``path`` yet."""
    if path not in _FINDINGS:
        analysed(path)
    return _FINDINGS[path]


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_notes_kept_from_the_solve_are_those_of_a_pass_over_it(path: Path) -> None:
    compared = 0
    for a in analysed(path):
        for t in a.traces:
            machine = Machine(a.plan, Thread(t.warps, a.body.ntid), a.places)
            states = machine.solve()
            try:
                kept = machine.trace(states)
            except Split:
                continue  # the group parts ways at an exit: analyse splits it (the pass raises the same)
            machine._exact = False  # the pass over the solution, as check made it before
            assert machine.trace(states) == kept
            compared += 1
    assert compared


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_a_block_not_run_again_gives_what_running_it_does(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """:mod:`~tmemviz.families.explain.follow.reuse`: the solve with blocks' last outcomes reused reaches
    the states and notes of the solve that runs every visit, for every group of warps check ran."""
    solved = []
    for a in analysed(path):
        for t in a.traces:
            machine = Machine(a.plan, Thread(t.warps, a.body.ntid), a.places)
            states = machine.solve()
            try:
                solved.append((a, t, states, machine.trace(states)))
            except Split:
                continue
    monkeypatch.setattr(reuse.Outcomes, "again", lambda self, block, state: None)
    for a, t, states, kept in solved:
        machine = Machine(a.plan, Thread(t.warps, a.body.ntid), a.places)
        plain = machine.solve()
        assert plain == states
        assert machine.trace(plain) == kept
    assert solved


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_counters_run_ahead_reach_what_the_rounds_reach(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """:mod:`~tmemviz.families.explain.follow.counters`: the solve whose loop headers take their
    counters' values at once reaches, for every group of warps check ran, the states of the solve that
    goes round for each value (but for the order of a value's candidates, which is the order they came
    in, and the branch facts that solve forgot by widening after its third round: the settled loop
    keeps them), and check's findings are the same. It fails where a counter is run past a branch that
    refines it (test_widening holds the early widening and the writes off the rounds' path)."""
    solved = []
    for a in analysed(path):
        for t in a.traces:
            machine = Machine(a.plan, Thread(t.warps, a.body.ntid), a.places)
            try:
                states = machine.solve()
                machine.trace(states)
            except Split:
                continue
            solved.append((a, t, states))
    findings = [(f.line, f.severity, f.rule, f.message) for f in _plain_findings(path)]
    monkeypatch.setattr(counters.Counters, "ahead", lambda *args: None)
    for a, t, ahead in solved:
        rounds = Machine(a.plan, Thread(t.warps, a.body.ntid), a.places).solve()
        assert ahead.keys() == rounds.keys()
        for block, s in ahead.items():
            r = rounds[block]
            assert {k: _sorted(v) for k, v in s.regs.items()} == {k: _sorted(v) for k, v in r.regs.items()}
            assert (s.life, s.pending, s.stored, s.waited) == (r.life, r.pending, r.stored, r.waited)
            assert s.facts >= r.facts
    (checked,) = tmemviz.check(str(path)).subject
    assert [(f.line, f.severity, f.rule, f.message) for f in checked.findings] == findings
    assert solved


def _sorted(v: Any) -> Any:
    """A value with its candidates in one order (a set of numbers held as a tuple)."""
    if type(v) is tuple and all(type(b) is c.Bits for b in v):
        return tuple(sorted(set(v), key=lambda b: (b.width, b.known, b.value)))
    if type(v) is Sym:
        return Sym(v.base, _sorted(v.offset))
    if type(v) is Vec:
        return Vec(tuple(_sorted(x) for x in v.items))
    if type(v) is Pred and v.cond is not None:
        return Pred(v.truth, (*v.cond[:2], _sorted(v.cond[2]), *v.cond[3:]))
    return v


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_independent_instructions_give_the_same_whatever_they_read(path: Path) -> None:
    """What :func:`independent` says of every instruction the slices meet holds: effect is the same
    whatever its operands hold (nothing known, a constant, a base plus an offset, a predicate's)."""
    getters = [
        lambda _: None,
        lambda _: c.const(4),
        lambda _: Sym(("var", "smem"), ZERO),
        lambda _: c.choice(c.const(0), c.const(1)),
    ]
    seen = 0
    for a in analysed(path):
        thread = Thread(0, a.body.ntid)
        for ins in a.plan.instructions:
            if ins.index not in a.plan.whole or not independent(ins):
                continue
            results = [effect(a.body, ins, get, thread) for get in getters]
            assert all(r == results[0] for r in results), ins.text
            seen += 1
    assert seen


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_the_grown_slice_is_the_slice_without_cuts(path: Path) -> None:
    for a in analysed(path):
        fresh = Plan(a.body)
        needed: list[str] = []
        chosen: set[int] = set()
        for ins in fresh.instructions:
            if ins.head == "tcgen05":
                chosen.add(ins.index)
                needed.extend(followed(a.body, ins, fresh.reads(ins)))
            elif ins.head == "mbarrier":
                chosen.add(ins.index)
                needed.extend(r for o in ins.rest.split(",") if "[" in o for r in a.body.registers(o))
            elif ins.head in ("bra", "brx", "ret", "exit", "trap") and ins.guard is not None:
                chosen.add(ins.index)
                needed.extend(fresh.reads(ins))
        whole = fresh._close(chosen, set(), needed, cut=False)[0]
        assert a.plan.whole == whole
        assert a.plan.relevant <= whole
        # What the evaluated slice leaves out is read only by independent instructions.
        for ins in a.plan.instructions:
            if ins.index in a.plan.relevant and not independent(ins):
                for r in fresh.reads(ins):
                    assert all(d.index in a.plan.relevant for d in fresh.defs.get(r, ())), ins.text


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_branches_left_unevaluated_are_around_plain_code(path: Path) -> None:
    """Every guarded branch whose predicate the evaluated slice leaves out meets its other way again over
    code with nothing the analysis follows, judged with the final slice (not only the slice of the round
    that left it out); every guarded exit is evaluated."""
    for a in analysed(path):
        plan = a.plan
        for ins in plan.instructions:
            if ins.guard is None or ins.index in plan.relevant:
                continue
            assert ins.head not in ("brx", "ret", "exit", "trap"), ins.text
            if ins.head == "bra":
                block = plan.graph.block_of(ins.index)
                assert plan._region_is_plain(block, plan.relevant, plan.live), ins.text


def test_findings_are_those_of_every_branch_evaluated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Following both ways of a branch around plain code instead of its predicate changes no finding, on
    every compiled kernel: check again with every guarded branch's predicate in the evaluated slice (as
    it was before the steering slice) and compare."""

    def every_branch(plan: Plan) -> tuple[frozenset[int], frozenset[str], list[str], list[frozenset[str]]]:
        chosen, seen, skipped = set(plan._operands[0]), set(plan._operands[1]), list(plan._operands[2])
        steer = [i for i in plan.instructions if i.head in STEERS and i.guard is not None]
        chosen.update(i.index for i in steer)
        skipped += plan._close(chosen, seen, [r for i in steer for r in plan.reads(i)], True)[2]
        return frozenset(chosen), frozenset(seen), skipped, plan._live(chosen)

    fewer = {
        path: [(f.line, f.severity, f.rule, f.message) for f in _plain_findings(path)] for path in KERNELS
    }
    monkeypatch.setattr(Plan, "_steering", property(every_branch))
    for path in KERNELS:
        assert [(f.line, f.severity, f.rule, f.message) for f in _findings(path)] == fewer[path], path.name


def _findings(path: Path) -> list[Any]:
    (checked,) = tmemviz.check(str(path)).subject
    return list(checked.findings)


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_liveness_by_worklist_is_liveness_by_sweeps(path: Path) -> None:
    for a in analysed(path):
        plan = a.plan
        uses, kills = [], []
        for code in plan.code:
            use: set[str] = set()
            kill: set[str] = set()
            for ins in code:
                if ins.index in plan.relevant:
                    use.update(r for r in plan.reads(ins) if r not in kill)
                    if ins.guard is None:
                        kill.update(plan.writes(ins))
            uses.append(use)
            kills.append(kill)
        live = [set(u) for u in uses]
        changed = True
        while changed:
            changed = False
            for b in reversed(range(len(live))):
                out = set().union(*(live[s] for s in plan.graph.blocks[b].succ))
                new = uses[b] | (out - kills[b])
                if new != live[b]:
                    live[b], changed = new, True
        assert list(plan.live) == [frozenset(x) for x in live]
        # What the solve asks of the bits (Live.kept, Live.holds) is what the sets say.
        names = sorted(set().union(*live, *uses, *kills, {"%nothing"}))
        every = dict.fromkeys(names, 0)
        for b, expected in enumerate(live):
            assert plan.live.kept(b, every) == {r: 0 for r in names if r in expected}
            assert [r for r in names if plan.live.holds(b, r)] == [r for r in names if r in expected]


def test_liveness_asked_of_many_bits_is_what_the_sets_say() -> None:
    """A block with more live registers than Live.kept makes a set for (a large kernel's): the bits
    asked one register at a time keep what the set keeps."""
    registers = Registers()
    names = tuple(f"%r{i}" for i in range(200))
    bits = registers._bits(names)
    few, many = bits & 0b1011, bits & ~(1 << 7) & ~(1 << 150)  # 3 live, 198 live
    assert few.bit_count() <= FEW < many.bit_count()  # a set made for the first, bits asked of the second
    live = Live([few, many], registers)
    regs = {"%r0": 1, "%r7": 2, "%r150": 3, "%r199": 4, "%q": 5}
    for block, expected in ((0, {"%r0": 1}), (1, {"%r0": 1, "%r199": 4})):
        assert live.kept(block, regs) == expected
        assert [r for r in regs if live.holds(block, r)] == list(expected)
    assert live.kept(1, {"%r1": 0}) == {"%r1": 0}


@pytest.mark.parametrize("enabled", [True, False])
def test_the_cycle_collector_is_left_as_it_was(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        tmemviz.check(str(KERNELS[0]))
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_the_analysis_makes_no_reference_cycles() -> None:
    """With the collector paused (tmemviz.gcpause), anything the analysis leaves in a cycle stays in
    memory until the file is done: a function's code, graph or plan in a cycle would hold every function
    of a 13 MB module at once. Checked on the kernel with the most functions and warp roles here."""
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        tmemviz.check(str(KERNELS[0].with_name("cute_dsl_fmha.ptx")))
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        kept = {f"{type(o).__module__}.{type(o).__name__}" for o in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was:
            gc.enable()
    follow = "tmemviz.families.explain.follow."
    function = {"tmemviz.ptx.body.Body", "tmemviz.ptx.body.Instruction", "tmemviz.flow.cfg.Graph",
                f"{follow}plan.Plan", f"{follow}proofs.Proofs", f"{follow}machine.Machine"}  # fmt: skip
    assert not kept & function, kept & function


def _every_lane_plainly(plan: Plan) -> set[int]:
    """The instructions every lane runs, the plain way: what may differ between lanes followed from the
    lane's position over every instruction of the function, then every block a lane-dependent branch
    or exit decides."""
    lanes = Lanes(plan)
    tainted: set[str] = set()
    grew = True
    while grew:  # sweeps over every instruction until none taints anything more
        before = len(tainted)
        for ins in plan.instructions:
            if lanes._differs(ins, tainted):
                tainted.update(plan.writes(ins))
        grew = len(tainted) > before
    graph, divergent = plan.graph, set()
    for b in graph.blocks:
        code = plan.code[b.index]
        last = code[-1] if code else None
        if last is None or last.guard is None or last.guard.lstrip("!") not in tainted:
            continue
        if last.head in ("ret", "exit", "trap"):
            divergent |= graph.reaches(b.succ)
        elif len(b.succ) >= 2:
            stop = graph.ipdom.get(b.index, -1)
            avoid = frozenset((stop,)) if stop >= 0 else frozenset()
            divergent |= graph.reaches([s for s in b.succ if s != stop], avoid)
    return {
        i.index for i in plan.instructions if i.guard is None and graph.block_of(i.index) not in divergent
    }


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_the_lane_questions_follow_only_the_branches_before_them(path: Path) -> None:
    """Lanes answers each instruction from the branches that reach it and what their predicates are
    computed from (asked in any order, each answer kept for the next): what the whole function's lane
    dependence says, on every instruction."""
    asked = 0
    for a in analysed(path):
        expected = _every_lane_plainly(a.plan)
        lanes = Lanes(a.plan)
        order = list(a.plan.instructions)
        random.Random(7).shuffle(order)
        for ins in order:
            assert lanes.every_lane(ins) == (ins.index in expected), ins.text
            asked += 1
    assert asked
