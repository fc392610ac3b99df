"""The constant tracker against plain integer arithmetic, and on the shapes compilers write."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tmemviz.ptx import constants as c
from tmemviz.ptx.line import parse_line
from tmemviz.ptx.registers import Constants, destinations, sources

U32 = st.integers(0, (1 << 32) - 1)


def run(*lines: str) -> Constants:
    k = Constants()
    for text in lines:
        k.update(parse_line(text))
    return k


def values(k: Constants, reg: str) -> list[int]:
    got = k.get(reg)
    assert got is not None and all(b.exact for b in got)
    return sorted(b.value for b in got)


@given(U32, U32, st.integers(0, 31))
def test_exact_arithmetic_matches_python(a: int, b: int, s: int) -> None:
    k = run(f"mov.b32 %r1, {a};", f"mov.u32 %r2, {b};", "or.b32 %r3, %r1, %r2;", "and.b32 %r4, %r1, %r2;",
            "xor.b32 %r5, %r1, %r2;", f"shl.b32 %r6, %r1, {s};", f"shr.u32 %r7, %r1, {s};",
            "add.s32 %r8, %r1, %r2;", f"shr.s32 %r9, %r1, {s};", "cvt.u16.u32 %rs1, %r1;",
            "cvt.s32.s16 %r10, %rs1;", "mov.b64 %rd1, {%r1, %r2};",
            "mov.b64 {%r11, %r12}, %rd1;")  # fmt: skip
    m = (1 << 32) - 1
    signed = a - (1 << 32) if a >> 31 else a
    low16 = a & 0xFFFF
    expect = {"%r3": a | b, "%r4": a & b, "%r5": a ^ b, "%r6": (a << s) & m, "%r7": a >> s,
              "%r8": (a + b) & m, "%r9": (signed >> s) & m, "%rs1": low16,
              "%r10": (low16 - (1 << 16) if low16 >> 15 else low16) & m, "%rd1": a | b << 32,
              "%r11": a, "%r12": b}  # fmt: skip
    for reg, want in expect.items():
        assert values(k, reg) == [want], reg


@given(st.lists(U32, min_size=1, max_size=4), st.lists(U32, min_size=1, max_size=4))
def test_choices_or_pairwise(xs: list[int], ys: list[int]) -> None:
    lines = [f"mov.b32 %r1, {xs[0]};"] + [f"@%p{i} mov.b32 %r1, {x};" for i, x in enumerate(xs[1:])]
    lines += [f"mov.b32 %r2, {ys[0]};"] + [f"@%p{i} mov.b32 %r2, {y};" for i, y in enumerate(ys[1:])]
    k = run(*lines, "or.b32 %r3, %r1, %r2;")
    assert values(k, "%r3") == sorted({x | y for x in xs for y in ys})


def test_cute_dsl_idesc_is_a_choice_of_four() -> None:
    # As the CuTe DSL writes it (dense GEMM, sm_100a): negate/major bits chosen at run time.
    k = run("selp.b32 %r58, 16384, 0, %p3;", "selp.b32 %r59, 136323088, 136314896, %p2;",
            "or.b32 %r16, %r59, %r58;")  # fmt: skip
    assert values(k, "%r16") == sorted({a | b for a in (16384, 0) for b in (136323088, 136314896)})


def test_runtime_bits_stay_unknown_the_rest_known() -> None:
    # A scale-factor ID from a register, shifted into bits 4..5 and ORed into a constant.
    k = run("and.b32 %r2, %r1, 3;", "shl.b32 %r3, %r2, 4;", "or.b32 %r4, %r3, 0x08000000;")
    (bits,) = k.get("%r4")
    assert bits.value == 0x08000000 and bits.known == 0xFFFFFFFF & ~0x30


def test_any_other_write_forgets_and_a_guarded_write_without_an_old_value_is_unknown() -> None:
    k = run("mov.b32 %r1, 5;", "ld.global.b32 %r1, [%rd1];")
    assert k.get("%r1") is None
    assert run("@%p1 mov.b32 %r1, 5;").get("%r1") is None
    assert run("mov.b32 %r1, 5;", "mul.lo.s32 %r1, %r1, 3;").get("%r1") is None
    assert run("mov.f32 %f1, 0f3F800000;").get("%f1") is None


def test_prmt_and_halves() -> None:
    k = run("mov.b32 %r1, 0x11223344;", "mov.b32 %r2, 0x55667788;", "prmt.b32 %r3, %r1, %r2, 0x5410;",
            "mov.b32 {%rs1, %rs2}, %r3;", "mov.b32 %r4, {%rs2, %rs1};")  # fmt: skip
    assert values(k, "%r3") == [0x77883344]
    assert values(k, "%rs1") == [0x3344] and values(k, "%rs2") == [0x7788]
    assert values(k, "%r4") == [0x33447788]


def test_too_many_candidates_merge_into_shared_bits() -> None:
    lines = ["mov.b32 %r1, 0x100;"] + [f"@%p{i} mov.b32 %r1, {0x100 | i << 20};" for i in range(1, 100)]
    got = run(*lines).get("%r1")
    assert len(got) <= c.MAX_CANDIDATES and any(not b.exact for b in got)
    assert all(b.known & 0x100 and b.value & 0x100 for b in got)


def test_reads_and_writes() -> None:
    line = parse_line("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r3];")
    assert (destinations(line), sources(line)) == (["%r1", "%r2"], ["%r3"])
    line = parse_line("tcgen05.st.sync.aligned.32x32b.x2.b32 [%r3], {%r1, %r2};")
    assert (destinations(line), sources(line)) == ([], ["%r3", "%r1", "%r2"])
    line = parse_line("@!%p2 cvt.rn.f16x2.f32 %r9, %r2, %r1;")
    assert (destinations(line), sources(line)) == (["%r9"], ["%p2", "%r2", "%r1"])
    assert c.describe(c.choice(c.const(1), c.const(2))) == "one of 0x00000001, 0x00000002"


@given(st.lists(st.tuples(U32, U32), min_size=1, max_size=6))
def test_a_remembered_evaluation_is_the_evaluation_for_those_values(pairs: list[tuple[int, int]]) -> None:
    """registers.evaluated answers a statement again from what it gave for the same values only."""
    from tmemviz.ptx.registers import evaluate, evaluated

    for text in ("or.b32 %r3, %r1, %r2;", "selp.b32 %r3, %r1, %r2, %p1;", "mov.b64 %rd3, {%r1, %r2};",
                 "shl.b32 %r3, %r1, 3;", "add.s32 %r3, %r1, %r2;"):  # fmt: skip
        line = parse_line(text)
        for a, b in pairs + pairs[::-1]:
            got = {"%r1": c.const(a), "%r2": c.const(b) if b % 3 else None}.get
            assert evaluated(line, destinations(line), got) == evaluate(line, destinations(line), got)
