"""Explain's values over every path (tmemviz.ptx.lazy, ``Lazy.complete``): a register two paths set
differently is one of their values, one a loop steps is unknown, one written once keeps its value across
labels; and on random functions with branches and loops, every value an execution can bring to a
tcgen05 instruction is one the answer allows (executions enumerated here, independently)."""

from __future__ import annotations

import re

import pytest

import tmemviz
from tmemviz.ptx.stream import events

MMA = "tcgen05.mma.cta_group::1.kind::f16 [%r4], %rd1, %rd2, %r5, 0;"


def idesc(body: list[str]) -> dict | None:
    text = "\n".join(
        [".visible .entry k()", "{", ".reg .b32 %r<20>;", ".reg .pred %p<4>;", *body, "ret;", "}"]
    )
    (record,) = [r for r in tmemviz.explain(text=text).lists()[0][1][0]["instructions"] if r["op"] == "mma"]
    return record


@pytest.mark.parametrize(
    ("body", "hex_", "candidates"),
    [
        # Written once above a loop's label: that value on every path (CUTLASS hoists its idesc so).
        (["mov.b32 %r5, 0x08200010;", "LOOP:", MMA, "@%p1 bra LOOP;"], "0x08200010", None),
        # Two paths, two descriptors: one of them.
        (["@%p1 bra WIDE;", "mov.b32 %r5, 0x08100010;", "bra.uni JOIN;", "WIDE:", "mov.b32 %r5, 0x08200010;",
          "JOIN:", MMA], None, ["0x08100010", "0x08200010"]),
        # Stepped around a loop: no one value.
        (["mov.b32 %r5, 0x08040010;", "LOOP:", MMA, "add.u32 %r5, %r5, 0x40000;", "@%p1 bra LOOP;"],
         None, None),
        # Written again after the MMA with no label between: the last write before it, exactly.
        (["LOOP:", "mov.b32 %r5, 0x08200010;", MMA, "mov.b32 %r5, 0x08100010;", "@%p1 bra LOOP;"],
         "0x08200010", None),
    ],
)  # fmt: skip
def test_values_over_paths(body: list[str], hex_: str | None, candidates: list[str] | None) -> None:
    record = idesc(body)
    found = record["idesc"] or {}
    assert (found.get("hex"), found.get("candidates")) == (hex_, candidates), record["summary"]
    if record["idesc"] is None:
        assert "on every path" in record["summary"]


def answers(lines: list[str]) -> list[tuple[int, object]]:
    """(line, value of %r1) at each tcgen05 instruction, answered at the function's end over its paths."""
    out, held = [], []
    for e in events(lines, paths=True):
        if e.kind == "tcgen05":
            held.append((e.statement.first, e.fn.constants.point))
        elif e.kind == "end":
            for line, place in held:
                e.fn.constants.point = place
                out.append((line, e.fn.constants.get("%r1")))
            held.clear()
    return out


ASK = "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r9], %r1;"


def executions(program: list[str], limit: int = 40) -> dict[int, set[int]]:
    """Every value %r1 holds at each tcgen05 line on the executions of ``program`` (its statements, one
    per line from line 3) of at most ``limit`` steps, either way at each conditional branch; a path
    that reads a register never written stops (PTX leaves it undefined)."""
    labels = {s[:-1]: i for i, s in enumerate(program) if s.endswith(":")}
    seen: dict[int, set[int]] = {}
    stack: list[tuple[int, dict[str, int], int]] = [(0, {}, 0)]
    visited: set[tuple[int, tuple[tuple[str, int], ...]]] = set()
    while stack:
        pc, regs, steps = stack.pop()
        state = (pc, tuple(sorted(regs.items())))
        if pc >= len(program) or steps > limit or state in visited:
            continue
        visited.add(state)
        s = program[pc]
        nxt = [(pc + 1, regs)]
        if m := re.match(r"mov.b32 %r(\d), (\d+);", s):
            nxt = [(pc + 1, {**regs, m[1]: int(m[2])})]
        elif m := re.match(r"add.u32 %r(\d), %r(\d), (\d+);", s):
            if m[2] not in regs:
                continue
            nxt = [(pc + 1, {**regs, m[1]: (regs[m[2]] + int(m[3])) & 0xFFFFFFFF})]
        elif m := re.match(r"(@%p1 )?bra(?:\.uni)? (\w+);", s):
            nxt = [(labels[m[2]], regs)] + ([(pc + 1, regs)] if m[1] else [])
        elif s == ASK:
            if "1" not in regs:
                continue
            seen.setdefault(pc + 3, set()).add(regs["1"])
        stack.extend((p, r, steps + 1) for p, r in nxt)
    return seen


def test_property_every_execution_is_allowed() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    statement = st.one_of(
        st.builds("mov.b32 %r{}, {};".format, st.integers(1, 2), st.sampled_from([0, 64, 128, 256])),
        st.builds(
            "add.u32 %r{}, %r{}, {};".format, st.integers(1, 2), st.integers(1, 2), st.sampled_from([1, 32])
        ),
        st.builds("@%p1 bra L{};".format, st.integers(0, 3)),
        st.builds("bra.uni L{};".format, st.integers(0, 3)),
        st.just(ASK),
    )

    @settings(max_examples=300, deadline=None)
    @given(st.lists(statement, max_size=14), st.permutations(range(15)))
    def check(body: list[str], places: list[int]) -> None:
        program = list(body)
        for k, at in enumerate(sorted(places[:4])):  # the four labels, somewhere
            program.insert(min(at + k, len(program)), f"L{k}:")
        program = ["mov.b32 %r1, 0;", "mov.b32 %r2, 64;", *program]
        lines = [".entry k()", "{", *program, "}"]
        got = dict(answers(lines))
        assert dict(answers([f"{line}\n" for line in lines])) == got  # a file's lines, or a text's
        for line, values in executions(program).items():
            allowed = got[line]
            if allowed is None:
                continue  # unknown: allows anything
            for v in values:
                assert any((v ^ b.value) & b.known == 0 for b in allowed), (program, line, v, allowed)

    check()
