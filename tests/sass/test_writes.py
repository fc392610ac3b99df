"""What a SASS instruction does to the uniform registers (tmemviz.sass.writes and .bits): the registers
it writes, and values that are always right: every value the known bits allow is checked against the
concrete results (brute force over the unknown bits). Real kernels check the meanings against the PTX reader
(tests/sass/test_kernels.py::same_idesc)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tmemviz.ptx import constants as c
from tmemviz.sass.bits import add, funnel, lop3
from tmemviz.sass.facts import VARIES, apply
from tmemviz.sass.writes import DIVERGE, write_in

MASK = 0xFFFFFFFF


@st.composite
def partly_known(draw) -> c.Bits:  # type: ignore[no-untyped-def]
    """A 32-bit value with up to 4 unknown bits."""
    value = draw(st.integers(0, MASK))
    unknown = 0
    for bit in draw(st.lists(st.integers(0, 31), max_size=4)):
        unknown |= 1 << bit
    return c.Bits(value & ~unknown, MASK & ~unknown, 32)


def concrete(b: c.Bits) -> list[int]:
    """Every value ``b`` may be."""
    free = [i for i in range(32) if not b.known >> i & 1]
    out = []
    for bits in itertools.product((0, 1), repeat=len(free)):
        v = b.value & b.known
        for i, x in zip(free, bits, strict=True):
            v |= x << i
        out.append(v)
    return out


def allows(result: c.Value, v: int) -> bool:
    return any((x.value ^ v) & x.known == 0 for x in result)


@settings(max_examples=300, deadline=None)
@given(partly_known(), partly_known())
def test_add_allows_every_sum(a: c.Bits, b: c.Bits) -> None:
    result = add((a,), (b,))
    for x in concrete(a):
        for y in concrete(b):
            assert allows(result, (x + y) & MASK)


def test_add_keeps_bits_no_carry_reaches() -> None:
    """An unknown scale-factor ID (bits 4-5, 29-30) added into a descriptor with zeros there."""
    (r,) = add((c.Bits(0, 0x9FFFFFCF, 32),), c.const(0x08C02000))
    assert (r.value, r.known) == (0x08C02000, 0x9FFFFFCF)


@settings(max_examples=200, deadline=None)
@given(partly_known(), partly_known(), partly_known(), st.integers(0, 255))
def test_lop3_allows_every_result_and_is_exact_on_constants(
    a: c.Bits, b: c.Bits, d: c.Bits, lut: int
) -> None:
    result = lop3((a,), (b,), (d,), lut)

    def truth(x: int, y: int, z: int) -> int:
        return sum(
            ((lut >> ((x >> i & 1) << 2 | (y >> i & 1) << 1 | (z >> i & 1))) & 1) << i for i in range(32)
        )

    for x, y, z in itertools.islice(itertools.product(concrete(a), concrete(b), concrete(d)), 512):
        assert allows(result, truth(x, y, z))
    exact = lop3(c.const(a.value), c.const(b.value), c.const(d.value), lut)
    assert exact == c.const(truth(a.value, b.value, d.value))


@pytest.mark.parametrize(
    ("lo", "s", "hi", "mods", "expected"),
    [
        (0x1, 11, 0, ("L", "U32"), 0x800),  # USHF.L.U32 d, a, s, URZ: a << s
        (0, 4, 0x1C080, ("R", "U32", "HI"), 0x1C08),  # USHF.R.U32.HI d, URZ, s, a: a >> s
        (0, 31, 0x80000000, ("R", "S32", "HI"), MASK),  # arithmetic: the sign fills
        (0xF0000000, 4, 0x1, ("L", "U64", "HI"), 0x1F),  # the high word of hi:lo << 4
        (0x10, 4, 0x3, ("R", "U64"), 0x30000001),  # the low word of hi:lo >> 4
    ],
)
def test_funnel_shift(lo: int, s: int, hi: int, mods: tuple[str, ...], expected: int) -> None:
    assert funnel(c.const(lo), c.const(s), c.const(hi), mods) == c.const(expected)


def test_funnel_refuses_what_it_does_not_read() -> None:
    assert funnel(c.const(1), c.const(32), c.const(0), ("L", "U32")) is None  # amount past the word
    assert funnel(c.const(1), c.const(3), c.const(0), ("L", "W", "U32")) is None  # .W: not read
    assert funnel(c.const(1), c.unknown(), c.const(0), ("L", "U32")) is None


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("/*0010*/ UMOV UR10, 0x0 ;", ("UR10",)),
        ("/*0010*/ ELECT P1, UR4, PT ;", ("UR4",)),
        ("/*0010*/ UTCATOMSWS.FIND_AND_SET.ALIGN UP0, UR4, UR8 ;", ("UR4",)),
        ("/*0010*/ LDCU.128 UR20, c[0x0][0x390] ;", ("UR20", "UR21", "UR22", "UR23")),
        ("/*0010*/ UIMAD.WIDE.U32 UR12, UR4, 0x10, URZ ;", ("UR12", "UR13")),
        ("/*0010*/ USHF.L.U64.HI UR5, UR4, 0x3, UR5 ;", ("UR5",)),  # read: writes its one register
        ("/*0010*/ R2UR UR7, R7 ;", ("UR7",)),
        ("/*0010*/ S2UR UR8, SR_CgaCtaId ;", ("UR8",)),
        ("/*0010*/ ULOP3.LUT UP0, URZ, UR9, 0x1, URZ, 0xc0, !UPT ;", ()),  # URZ: nothing kept
        ("/*0010*/ UTCBAR [UR4], URZ ;", None),
        ("/*0010*/ SYNCS.EXCH.64 URZ, [UR6], UR4 ;", None),
        ("/*0010*/ @!PT UMOV UR4, 0x1 ;", None),  # never runs
    ],
)
def test_registers_written(text: str, written: tuple[str, ...] | None) -> None:
    found = write_in(text)
    assert (found.registers if found is not None else None) == written


def test_anything_else_writing_a_register_forgets_it() -> None:
    facts: dict = {}
    apply(write_in("UMOV UR13, 0x8100910"), facts)
    apply(write_in("R2UR UR13, R2"), facts)
    assert "UR13" not in facts
    apply(write_in("UMOV UR13, 0x8100910"), facts)
    apply(write_in("@P0 R2UR UR13, R2"), facts)  # maybe: the old value or an unknown one
    assert "UR13" not in facts


def test_a_predicate_written_ends_what_held_under_it() -> None:
    facts: dict = {}
    apply(write_in("@UP1 UMOV UR5, 0x2"), facts)
    assert [b.value for b in facts["UR5@UP1"]] == [2]
    apply(write_in("UIADD3 UR12, UP1, UPT, UR4, 0xc0, URZ"), facts)  # a carry out into UP1
    assert "UR5@UP1" not in facts


def test_a_value_built_from_one_that_varies_varies() -> None:
    facts = {"UR4": VARIES}
    apply(write_in("UIADD3 UR5, UPT, UPT, UR4, 0x10, URZ"), facts)
    assert facts["UR5"] is VARIES
    apply(write_in("UMOV UR5, 0x10"), facts)
    assert facts["UR5"] == c.const(0x10)


def run(lines: list[str], facts: dict | None = None) -> dict:
    """The facts after the listing lines, in order."""
    facts = {} if facts is None else facts
    for text in lines:
        write = write_in(text)
        if write is not None:
            apply(write, facts)
    return facts


def test_a_descriptor_through_general_registers() -> None:
    """CUTLASS's block-scaled GEMM (ptxas 13.5): a uniform register copied into a general one before the
    loop, back into a uniform one for the MMA; the scale-factor ID bits stay unknown."""
    facts = run([
        "/*39b0*/ IMAD.U32 R4, RZ, RZ, UR9 ;",
        "/*3a20*/ LOP3.LUT R4, R4, 0x10c0, RZ, 0xfc, !PT ;",
        "/*3a80*/ MOV.SPILL R3, UR19 ;",
        "/*3b50*/ R2UR UR4, R4 ;",
    ], {"UR9": (c.Bits(0, 0xFFFF9FFF, 32),), "UR19": c.const(7)})  # fmt: skip
    (value,) = facts["UR4"]
    assert (value.value, value.known) == (0x10C0, 0xFFFF9FFF)
    assert facts["R3"] == c.const(7)


def test_a_uniform_register_written_by_the_elected_thread_is_written() -> None:
    """``ELECT P0`` makes P0 true in exactly one thread: a uniform register written under ``@P0`` is
    written, with what that thread holds (its own ``@P0`` writes)."""
    body = [
        "/*06d0*/ ELECT P0, URZ, PT ;",
        "/*06f0*/ VOTEU.ANY UP0, P0 ;",  # reads P0: the election stands
        "/*0700*/ @P0 IMAD.MOV.U32 R2, RZ, RZ, 0x8200010 ;",
        "/*0740*/ @P0 ISETP.NE.AND P2, PT, R3, RZ, PT ;",
        "/*0750*/ @P0 SEL R2, R2, 0x8210010, !P2 ;",
        "/*0760*/ @P0 R2UR UR5, R2 ;",
    ]
    facts = run(body)
    assert sorted(b.value for b in facts["UR5"]) == [0x08200010, 0x08210010]
    assert "R2" not in facts  # other threads hold something else
    # Without the election the write may not happen: the old value (unknown) may stay.
    assert "UR5" not in run(body[1:])
    # The predicate written again, or the warp split by a branch on a thread predicate: no election.
    assert "UR5" not in run([*body[:4], "/*0748*/ ISETP.EQ.AND P0, PT, R3, RZ, PT ;", *body[4:]])
    facts = run(body[:5])
    apply(DIVERGE, facts)
    assert "UR5" not in run(body[5:], facts)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("/*36c0*/ HFMA2 R4, -RZ, RZ, 0, 0.0005035400390625 ;", 0x1020),  # a half-precision pair: a word
        ("/*36c0*/ HFMA2.MMA R5, -RZ, RZ, 0, 5.9604644775390625e-08 ;", 1),
        ("/*36c0*/ HFMA2 R5, -RZ, RZ, 1.875, 0 ;", 0x3F800000),
        ("/*36c0*/ HFMA2 R5, R2, RZ, 0, 1 ;", None),  # a product that is not zero
        ("/*36c0*/ HFMA2 R5, -RZ, RZ, 0, +QNAN ;", None),
    ],
)
def test_a_constant_made_of_two_halves(text: str, value: int | None) -> None:
    facts = run([text])
    assert facts.get(write_in(text).registers[0]) == (c.const(value) if value is not None else None)


@pytest.mark.parametrize(
    ("text", "written", "op"),
    [
        ("/*0010*/ IMAD.WIDE.U32 R4, R2, 0x10, RZ ;", ("R4", "R5"), None),
        ("/*0010*/ DADD R6, R2, R4 ;", ("R6", "R7"), None),
        ("/*0010*/ LDS.128 R8, [R2] ;", ("R8", "R9", "R10", "R11"), None),
        ("/*0010*/ CS2R R12, SRZ ;", ("R12", "R13"), None),
        ("/*0010*/ HMMA.16816.F32 R4, R8, R12, R4 ;", (), "R*"),  # an unstated number: every one
        ("/*0010*/ LDTM.x16 R4, tmem[UR5] ;", (), "R*"),
        ("/*0010*/ LOP3.LUT P0, R2, R3, 0x1, RZ, 0xc0, !PT ;", ("R2",), "ULOP3"),
        ("/*0010*/ ISETP.NE.AND P2, PT, R3, RZ, PT ;", (), None),  # its predicates only
    ],
)
def test_general_registers_written(text: str, written: tuple[str, ...], op: str | None) -> None:
    found = write_in(text)
    assert (found.registers, found.op) == (written, op)


def test_predicates_named_are_written_but_where_they_are_read() -> None:
    assert write_in("/*0010*/ ISETP.NE.AND P2, PT, R3, RZ, PT ;").predicates == ("P2",)
    assert write_in("/*0010*/ @P0 SEL R2, R2, 0x1, !P2 ;").predicates == ()
    assert write_in("/*0010*/ VOTEU.ANY UP0, P0 ;").predicates == ("UP0",)
    assert len(write_in("/*0010*/ R2P PR, R2, 0x7f ;").predicates) == 14  # every predicate
