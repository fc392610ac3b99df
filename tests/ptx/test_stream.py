"""The event stream: constants looked for when asked (explain) give what eager tracking gives."""

from __future__ import annotations

import pytest

from tmemviz.ptx import lazy
from tmemviz.ptx.stream import events

MMA = "tcgen05.mma.cta_group::1.kind::f16 [%r4], %rd1, %rd2, %r6, 1;"


def idesc_at_mma(body: list[str], every: bool = False, newlines: bool = False) -> list[int] | None:
    """The values %r6 may hold at the MMA (None when unknown). ``newlines``: lines as a file gives them
    (the reader may then skip plain lines and search them later)."""
    lines = [".entry k()", "{", *body, MMA, "}"]
    if newlines:
        lines = [line + "\n" for line in lines]
    for e in events(lines, every=every):
        if e.kind == "tcgen05" and e.line is not None and e.line.opcode.startswith("tcgen05.mma"):
            got = e.fn.constants.get("%r6")
            return None if got is None else sorted(b.value for b in got if b.exact)
    raise AssertionError("no mma")


CASES = [
    (["mov.b32 %r6, 5;"], [5]),
    (["mov.b32 %r6, 5;", "ld.global.b32 %r6, [%rd1];"], None),
    (["mov.b32 %r6, 5;", "ld.global.b32 %r6, [%rd1];", "mov.b32 %r6, 7;"], [7]),
    (["mov.b32 %r6, 5;", "@%p1 mov.b32 %r6, 7;"], [5, 7]),
    (["mov.b32 %r5, 5;", "add.s32 %r6, %r5, 1;", "mov.b32 %r5, 9;"], [6]),
    (["mov.b32 %r5, 5;", "mul.lo.s32 %r5, %r5, 3;", "or.b32 %r6, %r5, 0;"], None),
    (["selp.b32 %r1, 16384, 0, %p3;", "selp.b32 %r2, 8, 16, %p2;", "or.b32 %r6, %r2, %r1;"],
     [8, 16, 16392, 16400]),
    (["mov.b64 %rd9, 4294967298;", "mov.b64 {%r5, %r6}, %rd9;"], [1]),
    (["mov.b32 %r6, 5;", "mov.b64 {%r6, %r7}, %rd9;"], None),
]  # fmt: skip


@pytest.mark.parametrize(("body", "want"), CASES)
def test_constants_looked_for_equal_eager_ones(body: list[str], want: list[int] | None) -> None:
    assert idesc_at_mma(body) == want  # statements read one by one, looked through when asked
    assert idesc_at_mma(body, newlines=True) == want  # plain lines skipped, searched when asked
    assert idesc_at_mma(body, every=True) == want  # every=True follows every instruction eagerly


@pytest.mark.parametrize(("body", "want"), CASES)
def test_a_chain_too_long_to_look_back_is_followed_forward(
    monkeypatch: pytest.MonkeyPatch, body: list[str], want: list[int] | None
) -> None:
    monkeypatch.setattr(lazy, "_DEPTH", 0)
    assert idesc_at_mma(body, newlines=True) == want


def test_a_long_chain_of_writes_gives_the_eager_value() -> None:
    body = ["mov.b32 %r6, 1;"] + ["add.s32 %r6, %r6, 1;"] * 1000 + ["@%p1 add.s32 %r6, %r6, 2;"]
    assert idesc_at_mma(body, newlines=True) == idesc_at_mma(body, every=True) == [1001, 1003]


def test_a_huge_number_is_said_when_its_value_is_asked_for() -> None:
    lines = [".entry k()", "{", "mov.b32 %r6, 1" + "0" * 5000 + ";", "ret;", "}"]
    problems = [e for e in events(lines, every=True) if e.kind == "problem"]
    assert len(problems) == 1 and "64-bit" in str(problems[0].message)
    asked = [".entry k()", "{", "mov.b32 %r6, 1" + "0" * 5000 + ";", MMA, "}"]
    for e in events([line + "\n" for line in asked]):
        if e.kind == "tcgen05":
            assert e.fn.constants.get("%r6") is None
            assert [(n, "64-bit" in m) for n, m in e.fn.constants.problems] == [(3, True)]


def test_the_reader_judges_no_order_between_instructions() -> None:
    """When a tcgen05.ld is complete is check's wait-ld rule (it follows every path); the shared reader
    yields the instructions, not a straight-line verdict of its own."""
    ld = "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r9];"
    st = "tcgen05.st.sync.aligned.32x32b.x1.b32 [%r9], {%r3};"
    kinds = [e.kind for e in events([".entry k()", "{", ld, st, "bar.sync 0;", "}"])]
    assert kinds == ["function", "tcgen05", "tcgen05"]


PIECES = [".entry k()", "{", "}", ";", "\n", " ", ",", "%r1", "%r2", "[%r3]", "{%r1, %r2}", "@%p1 ",
          "tcgen05.ld.sync.aligned.32x32b.x2.b32 ", "tcgen05.st.sync.aligned.32x32b.x2.b32 ",
          "tcgen05.mma.cta_group::1.kind::f16 ", "tcgen05.wait::ld.sync.aligned", "mov.b32 ", "selp.b32 ",
          "or.b32 ", "bar.sync 0", "$L1:", "1" * 50, "-4", "0x10", "//", "/*", "*/", "mov.b64 "]  # fmt: skip


def test_property_events_never_raise() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.sampled_from(PIECES), max_size=40))
    def check(pieces: list[str]) -> None:
        text = "".join(pieces)
        for e in events(text.splitlines(keepends=True), every=True):
            assert e.kind in ("target", "function", "tcgen05", "instruction", "label", "directive", "problem",
                              "open", "close")  # fmt: skip
        import tmemviz  # and what explain makes of it: records and warnings, never an exception

        tmemviz.explain(text=text).to_json()

    check()


def test_a_vector_that_is_none_is_a_problem_not_an_exception() -> None:
    """Found by the property above: ``{%r1, %r2}.entry k()`` splits as one operand starting with ``{``."""
    text = "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}.entry k();\n"
    [e] = list(events([text], every=True))
    assert e.kind == "problem" and "is not a register vector" in str(e.message)
