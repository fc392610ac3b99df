"""Constants looked for when asked (explain's reader) equal the eager tracker's at every tcgen05
instruction: on every fixture kernel, and on random functions."""

from __future__ import annotations

from pathlib import Path

import pytest

from tmemviz.files import text_lines
from tmemviz.ptx.registers import registers
from tmemviz.ptx.stream import events

KERNELS = sorted((Path(__file__).parents[1] / "kernels").glob("*.ptx"))


def asked(lines: list[str], every: bool) -> list[tuple[int, str, object]]:
    """(line, register, value) for every register operand of every tcgen05 instruction."""
    out = []
    for e in events(lines, every=every):
        if e.kind == "tcgen05" and e.line is not None:
            for operand in e.line.operands:
                for name in registers(operand):
                    out.append((e.statement.first, name, e.fn.constants.get(name)))
    return out


@pytest.mark.parametrize("path", KERNELS, ids=[p.name for p in KERNELS])
def test_every_fixture_gets_the_eager_values(path: Path) -> None:
    lines = list(text_lines(path))
    lazy, eager = asked(lines, False), asked(lines, True)
    assert lazy == eager
    if path.name.startswith(("cute_dsl", "cutlass")):  # their MMA descriptors and alloc sizes are constants
        assert any(v is not None for _, _, v in eager)


@pytest.mark.parametrize("path", KERNELS[::3], ids=[p.name for p in KERNELS[::3]])
def test_kept_lines_sealed_early_give_the_same_values(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """A long function's kept lines are joined and let go (Gate.SEAL): the answers do not change."""
    from tmemviz.ptx.gate import Gate

    lines = list(text_lines(path))
    eager = asked(lines, True)
    monkeypatch.setattr(Gate, "SEAL", 2)
    assert asked(lines, False) == eager


def test_the_gate_skips_most_lines_of_a_real_kernel() -> None:
    """The point of the lazy reader: most lines of a kernel are never read statement by statement."""
    lines = list(text_lines(Path(__file__).parents[1] / "kernels" / "cute_dsl_fmha.ptx"))
    for e in events(lines):
        fn = e.fn
    read = len(fn.constants._texts)  # the statements read one by one (the rest were skipped)
    assert read < len(lines) / 2


OPS = ["mov.b32 %r{a}, {k};", "mov.b32 %r{a}, %r{b};", "add.s32 %r{a}, %r{b}, {k};",
       "or.b32 %r{a}, %r{b}, %r{c};", "selp.b32 %r{a}, {k}, 16, %p1;", "@%p2 mov.b32 %r{a}, {k};",
       "shl.b32 %r{a}, %r{b}, 3;", "and.b32 %r{a}, %r{b}, 255;", "ld.global.b32 %r{a}, [%rd1];",
       "mul.lo.s32 %r{a}, %r{b}, %r{c};", "mov.b64 %rd{a}, {{%r{b}, %r{c}}};",
       "mov.b64 {{%r{a}, %r{b}}}, %rd{c};",
       "cvt.u32.u64 %r{a}, %rd{b};", "setp.ne.s32 %p1, %r{a}, 0;", "$L{k}:", "bra $L{k};", "// %r{a} = 1;",
       "tcgen05.ld.sync.aligned.32x32b.x2.b32 {{%r{a}, %r{b}}}, [%r9];", "st.global.b32 [%rd1], %r{a};",
       "tcgen05.mma.cta_group::1.kind::f16 [%r{a}], %rd1, %rd2, %r{b}, 1;",
       "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r9], %r{a};",
       "mov.b32 %r{a},\n {k};", "{{ .reg .b32 t; mov.b32 %r{a}, {k}; }}",
       "mov.b32 %r{a}, 5; mov.b32 %r{b}, 6;",
       "bar.sync 0;", "tcgen05.wait::ld.sync.aligned;",
       "add.s32 %r{a}, %r{b}, %r{a}{c};", "mov.b32 %r{a}{b}, {k};",
       ".reg .b32 r<{k}>;", "mov.b32 r{a}, {k};", "or.b32 r{a}, r{b}, %r{c};", "mov.b32 %r{a}, r{b};",
       "add.s32 my_r{a}, r{b}, {k};", "mov.b64 {{_, r{a}}}, %rd{c};", "mov.b64 %rd{a}, {k};",
       "mov.b32 r{a}{b}, my_r{c};", "@P{a} mov.b32 r{b}, {k};",
       "tcgen05.mma.cta_group::1.kind::f16 [t{a}], %rd1, %rd2, r{b}, P{c};"]  # fmt: skip
"""The statements random functions are made of (two-digit registers share a prefix with one-digit ones:
``%r13`` and ``%r1``; a name without ``%`` may end another: ``r1`` and ``my_r1``)."""


def test_a_longer_register_name_on_a_writing_line_hides_no_write() -> None:
    """``add.s32 %r3, %r1, %r35`` writes %r3 though the last ``%r3`` on its line starts ``%r35``."""
    lines = [".entry k()\n", "{\n", "\tmov.b32 %r3, 5;\n", "\tld.global.b32 %r35, [%rd1];\n",
             "\tadd.s32 %r3, %r1, %r35;\n", "\tbar.sync 0;\n",
             "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r9], %r3;\n", "}\n"]  # fmt: skip
    assert asked(lines, False) == asked(lines, True)
    assert [v for _, name, v in asked(lines, False) if name == "%r3"] == [None]


MMA_R = "\ttcgen05.mma.cta_group::1.kind::f16 [%r9], %rd1, %rd2, %r{a}, 1;\n"


@pytest.mark.parametrize(
    "between",
    [[], ["\tadd.s32 %r40, %r4, 1;\n"], ["\tmov.b32 %r4, 7;\n"], ["\tmov.b32 %r4, 7; // c\n"],
     ["\t@%p1 mov.b32 %r4, 7;\n"], ["\tld.global.b32 %r4, [%rd1];\n"], ["\tmov.b32 %r44, 7;\n"],
     ["\ttcgen05.ld.sync.aligned.32x32b.x1.b32 {%r4}, [%r9];\n"], ["\tmov.b64 {%r4, %r5}, %rd7;\n"],
     ["\t{\n", "\tmov.b32 %r4, 9;\n", "\t}\n"], ["$L1:\n", "\tmov.b32 %r4, 3;\n"]],
)  # fmt: skip
def test_a_register_asked_again_is_looked_for_again_where_it_may_be_written(between: list[str]) -> None:
    """The answer to a register asked at one MMA stands at the next only when nothing between writes
    it (Lazy.get's fast path): a kept line, a statement read one by one, an ld that loads it."""
    body = ["\tmov.b32 %r4, 5;\n", MMA_R.format(a=4), *between, MMA_R.format(a=4), *between,
            MMA_R.format(a=4)]  # fmt: skip
    lines = [".visible .entry k()\n", "{\n", *body, "\tret;\n", "}\n"]
    assert asked(lines, False) == asked(lines, True)


def test_property_random_functions_get_the_eager_values() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    op = st.tuples(st.sampled_from(OPS), st.integers(1, 6), st.integers(1, 6), st.integers(1, 6),
                   st.sampled_from([0, 1, 7, 128, 16384, 138420240]))  # fmt: skip

    @settings(max_examples=400, deadline=None)
    @given(st.lists(op, max_size=30))
    def check(body: list[tuple[str, int, int, int, int]]) -> None:
        text = [o.format(a=a, b=b, c=c, k=k) for o, a, b, c, k in body]
        lines = [f"{line}\n" for line in [".entry k()", "{", *"\n".join(text).split("\n"), "}"]]
        assert asked(lines, False) == asked(lines, True)

    check()


def test_property_random_functions_sealed_early(monkeypatch: pytest.MonkeyPatch) -> None:
    from tmemviz.ptx.gate import Gate

    monkeypatch.setattr(Gate, "SEAL", 1)
    test_property_random_functions_get_the_eager_values()


def test_property_a_kept_lines_start_is_found_from_either_end() -> None:
    from itertools import accumulate

    from hypothesis import given
    from hypothesis import strategies as st

    from tmemviz.ptx.segments import Segment

    @given(st.lists(st.text("ab \t;", max_size=5)), st.booleans())
    def check(pieces: list[str], last_ends: bool) -> None:
        lines = [p + "\n" for p in pieces]
        if lines and not last_ends:
            lines[-1] = lines[-1][:-1] or "x"
        text = "".join(lines)
        starts = list(accumulate(map(len, lines), initial=0))
        for walk in (0, 2, 32):
            with pytest.MonkeyPatch.context() as m:
                m.setattr(Segment, "WALK", walk)
                segment = Segment(0, text, len(lines))
                for k in [*range(len(lines)), *reversed(range(len(lines)))]:
                    assert segment.line_start(k) == starts[k]

    check()


def test_property_kept_lines_with_a_word_are_those_of_every_line() -> None:
    """A function's kept lines holding a word (found in the joined text) are the kept lines that hold it,
    a line once however often it holds the word, never a line that holds no statement. (Every line kept
    ends with its newline: the reader keeps no other.)"""
    from hypothesis import given
    from hypothesis import strategies as st

    from tmemviz.ptx.lazy import Lazy

    line = st.sampled_from(["\n", "\tcall f, (%r1);\n", "\tcall call;\n", "// call\n", "$Lcall:\n",
                            "\t.loc 1 2 3\n", "  \n", "\tmov.b32 %r1, 2;\n"])  # fmt: skip

    @given(st.lists(st.lists(line, max_size=6), max_size=4), st.integers(1, 40))
    def check(parts: list[list[str]], base: int) -> None:
        keep: list[str] = []
        lazy = Lazy(keep, base)
        for part in parts:  # joined a part at a time, as a search joins what was kept since
            keep.extend(part)
            lazy.seal()
        every = list(lazy.plain_lines())
        assert list(lazy.plain_lines("call")) == [(n, t) for n, t in every if "call" in t]
        assert all(t.strip()[:2] != "//" and not t.strip().endswith(":") for _, t in every)
        numbers = [base + i for i, t in enumerate(x for p in parts for x in p) if t.strip()]
        assert {n for n, _ in every} <= set(numbers)

    check()


@pytest.mark.parametrize("path", KERNELS, ids=[p.name for p in KERNELS])
def test_every_register_at_tcgen05_instructions_is_the_eager_value(path: Path) -> None:
    """Not only a tcgen05's operands: every register the module names, asked at every third tcgen05
    instruction (every seventh where it names thousands), read from the file (its blocks, runs of
    skipped lines) and by the eager tracker line by line."""
    import re

    lines = list(text_lines(path))
    names = sorted(set(re.findall(r"%[A-Za-z_$][\w$]*", "".join(lines))))
    step = 3 if len(names) < 1000 else 7

    def values(source: object, every: bool) -> list[tuple[int, str, object]]:
        out = []
        seen = 0
        for e in events(source, every=every):  # type: ignore[arg-type]
            if e.kind == "tcgen05":
                seen += 1
                if seen % step == 1:  # the CuTe DSL FMHA names 4,621 registers at 155
                    out.extend((e.statement.first, n, e.fn.constants.get(n)) for n in names)
        return out

    assert values(text_lines(path), False) == values(lines, True)
