"""The control-flow graph against brute force on random functions: dominators and post-dominators by
removing a block and asking what is still reachable, loops by their definition."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tmemviz.flow.cfg import JUMP, LABEL, PLAIN, STOP, Graph, Step, build


@st.composite
def functions(draw) -> list[Step]:  # type: ignore[no-untyped-def]
    n = draw(st.integers(1, 14))
    labels = [f"L{i}" for i in range(draw(st.integers(0, 5)))]
    steps: list[Step] = []
    for i in range(n):
        kind = draw(st.sampled_from([PLAIN, PLAIN, LABEL, JUMP, JUMP, STOP]))
        if kind == LABEL and labels:
            name = labels[i % len(labels)]
            if any(s.name == name for s in steps):
                kind = PLAIN
            else:
                steps.append(Step(LABEL, name))
                continue
        if kind == JUMP and labels:
            steps.append(
                Step(JUMP, targets=(draw(st.sampled_from(labels)),), conditional=draw(st.booleans()))
            )
        elif kind == STOP:
            steps.append(Step(STOP, conditional=draw(st.booleans()), exits=draw(st.booleans())))
        else:
            steps.append(Step())
    return steps


def _reach(g: Graph, start: int, removed: int | None) -> set[int]:
    return g.reaches([start], frozenset() if removed is None else frozenset({removed}))


@settings(max_examples=300, deadline=None)
@given(functions())
def test_dominators_are_what_removal_says(steps: list[Step]) -> None:
    g = build(steps)
    reachable = _reach(g, 0, None)
    assert set(g.rpo) == reachable
    for b in reachable:
        for a in reachable:
            # a dominates b exactly when b is unreachable from the entry without a.
            expected = a == b or (a != 0 and b not in _reach(g, 0, a)) or a == 0
            assert g.dominates(a, b) == expected, (a, b)


@settings(max_examples=300, deadline=None)
@given(functions())
def test_post_dominators_are_what_removal_says(steps: list[Step]) -> None:
    g = build(steps)
    exits = {b.index for b in g.blocks if b.exits}

    def reaches_exit(start: int, removed: int) -> bool:
        return bool(g.reaches([start], frozenset({removed})) & exits)

    for b, parent in g.ipdom.items():
        if b == -1 or parent == -1:
            continue
        # Every path from b to an exit passes through its immediate post-dominator.
        assert not reaches_exit(b, parent) or b == parent


@settings(max_examples=300, deadline=None)
@given(functions())
def test_loops_are_natural(steps: list[Step]) -> None:
    g = build(steps)
    # Every edge whose head dominates its tail, asked of each reachable edge (back_edges asks only those
    # going back in reverse post-order).
    assert g.back_edges == [(b, s) for b in g.rpo for s in g.blocks[b].succ if g.dominates(s, b)]
    for head, body in g.loops.items():
        for b in body:
            assert g.dominates(head, b)
            # Every block of the loop reaches its header again without leaving the loop.
            assert head in g.reaches(g.blocks[b].succ, frozenset(range(len(g.blocks))) - body) or b == head


def test_blocks_and_edges() -> None:
    g = build(
        [Step(), Step(JUMP, targets=("out",), conditional=True), Step(LABEL, "top"), Step(),
         Step(JUMP, targets=("top",), conditional=True), Step(LABEL, "out"), Step(STOP)]
    )  # fmt: skip
    assert [(b.start, b.end) for b in g.blocks] == [(0, 2), (2, 5), (5, 7)]
    assert [b.succ for b in g.blocks] == [[1, 2], [2, 1], []]
    assert g.back_edges == [(1, 1)] and g.loops == {1: frozenset({1})}
    assert g.exits == [2] and g.ipdom[0] == 2


def test_unknown_targets_are_flagged() -> None:
    g = build([Step(JUMP, targets=("nowhere",)), Step(JUMP), Step(STOP, exits=False)])
    assert [b.unresolved for b in g.blocks] == [True, True, False]
    assert g.blocks[2].dies and not g.blocks[2].exits


def test_an_unreachable_block_jumping_into_a_loop_is_no_part_of_it() -> None:
    """Found by the sweep above: a jump after an unconditional jump (unreachable) into a loop."""
    steps = [Step(), Step(LABEL, "L1"), Step(LABEL, "L0"), Step(JUMP, targets=("L1",)),
             Step(JUMP, targets=("L0",))]  # fmt: skip
    g = build(steps)
    assert g.loops == {1: frozenset({1, 2})}
