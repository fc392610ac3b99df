"""The statement reader: any spacing, comments anywhere, scopes vs. vectors, bounded statements."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tmemviz.errors import TmemvizError
from tmemviz.ptx.line import Address, parse_immediate, parse_line
from tmemviz.ptx.statements import statements

LD = "tcgen05.ld.sync.aligned.32x32b.x4.b32"
SPELLINGS = [
    f"{LD} {{%r1, %r2, %r3, %r4}}, [%r9+16];",
    f"{LD}{{%r1,%r2,%r3,%r4}},[%r9+16];",  # nvcc inline asm as CUTLASS writes it
    f"{LD}\t{{ %r1 ,\n %r2,\n\t%r3, %r4 }} ,\n [ %r9 + 16 ] ;",
    f"{LD} /* c */ {{%r1, %r2, /* c\n c */ %r3, %r4}}, // c\n [%r9 + 0x10];",
]


@pytest.mark.parametrize("text", SPELLINGS)
def test_every_spacing_reads_the_same(text: str) -> None:
    (s,) = [s for s in statements(text.splitlines(keepends=True)) if s.kind == "instruction"]
    line = parse_line(s.text)
    assert line.opcode == LD
    assert line.vectors() == (("%r1", "%r2", "%r3", "%r4"),)
    assert line.address() == Address("%r9", 16)
    assert s.first == 1 and s.last == text.count("\n") + 1


def test_cutlass_st_with_split_offset_and_no_spaces() -> None:
    text = "tcgen05.st.sync.aligned.16x32bx2.x2.b32[%r134] , 2,{%r138, %r139};"
    (s,) = statements([text])
    line = parse_line(s.text)
    assert line.operands == ("[%r134]", "2", "{%r138, %r139}")


def test_scopes_labels_directives() -> None:
    text = """.version 9.0
.target sm_100a // t
.visible .entry k(
\t.param .u64 p
)
.maxntid 128, 1, 1
{
\t.reg .b32 %r<9>;
$L__BB0_1: mov.b32 %r1, 5;
\t// begin inline asm
\t{ .reg .pred P1; setp.ne.b32 P1, %r1, 0;
\t@P1 bra $L__BB0_1; }
$L__BB0_2:
\tret;
}
"""
    got = [(s.kind, s.text, s.first) for s in statements(text.splitlines(keepends=True))]
    assert got == [
        ("directive", ".version 9.0", 1),
        ("directive", ".target sm_100a", 2),
        ("directive", ".visible .entry k(\n\t.param .u64 p\n)", 3),
        ("directive", ".maxntid 128, 1, 1", 6),
        ("open", "{", 7),
        ("directive", ".reg .b32 %r<9>", 8),
        ("label", "$L__BB0_1", 9),
        ("instruction", "mov.b32 %r1, 5", 9),
        ("open", "{", 11),
        ("directive", ".reg .pred P1", 11),
        ("instruction", "setp.ne.b32 P1, %r1, 0", 11),
        ("instruction", "@P1 bra $L__BB0_1", 12),
        ("close", "}", 12),
        ("label", "$L__BB0_2", 13),
        ("instruction", "ret", 14),
        ("close", "}", 15),
    ]


def test_a_data_initializer_is_not_a_scope() -> None:
    (s,) = statements([".global .align 4 .b32 x[2] = {1,", " 2};"])
    assert (s.kind, s.first, s.last) == ("directive", 1, 2)


def test_a_statement_that_never_ends_is_cut_and_reading_goes_on() -> None:
    lines = ["tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1,\n"] + ["%r2, %r2, %r2, %r2,\n"] * 10_000
    lines += ["}, [%r3];\n", "ret;\n"]
    got = list(statements(lines, max_chars=4096))
    assert got[0].kind == "overlong" and got[0].first == 1 and len(got[0].text) <= 200
    assert got[-1] == ("instruction", "ret", 10_003, 10_003)


def test_one_huge_line_without_newline_is_cut() -> None:
    got = list(statements(["tcgen05.st [%r1], {" + "%r2, " * 100_000], max_chars=1000))
    assert [s.kind for s in got] == ["overlong"]


def test_unterminated_at_end_of_text() -> None:
    assert list(statements(["mov.b32 %r1, 5"])) == [("unterminated", "mov.b32 %r1, 5", 1, 1)]


def test_numbers_past_pythons_digit_limit_are_one_error() -> None:
    with pytest.raises(TmemvizError, match="64-bit"):
        parse_immediate("1" + "0" * 5000)
    with pytest.raises(TmemvizError, match="64-bit"):
        parse_line("tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2 + 1" + "0" * 5000 + "], {%r3};").address()


def test_address_immediates_beyond_32_bits_and_negative_ones() -> None:
    with pytest.raises(TmemvizError, match="32-bit TMEM address"):
        _ = Address("%r2", 1 << 32).lane_col
    with pytest.raises(TmemvizError, match="--taddr"):
        _ = Address("%r2", -4).lane_col
    # One 32-bit add: lane 1 column 2 minus 4 borrows from the lane.
    assert Address("%r2", -4).lane_col_from((1, 2)) == (-1, 65532)
    assert Address("%r2", 0x10010).lane_col_from((3, 4)) == (1, 16)


NAMES = st.sampled_from(["%r1", "%r22", "%rd3", "%p1"])
SPACE = st.sampled_from(["", " ", "\t", "\n", " \n\t ", "/* x */", "//c\n"])


@given(st.lists(NAMES, min_size=1, max_size=6), st.lists(SPACE, min_size=12, max_size=12))
def test_property_spacing_never_changes_the_operands(regs: list[str], gaps: list[str]) -> None:
    g = iter(gaps * 4)
    vector = "{" + next(g) + ("," + next(g)).join(regs) + next(g) + "}"
    text = f"{LD}{next(g)}{vector}{next(g)},{next(g)}[{next(g)}%r9{next(g)}+{next(g)}16{next(g)}]{next(g)};"
    found = [s for s in statements((text + "\n").splitlines(keepends=True)) if s.kind == "instruction"]
    assert len(found) == 1
    line = parse_line(found[0].text)
    assert line.vectors() == (tuple(regs),) and line.address() == Address("%r9", 16)


def test_ld_st_cp_refuse_big_immediates_and_add_negative_ones_as_32_bits() -> None:
    import tmemviz

    ld = "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r2 + IMM];"
    with pytest.raises(TmemvizError, match="32-bit TMEM address"):
        tmemviz.layout(ld.replace("IMM", "0x100000000"))
    with pytest.raises(TmemvizError, match="32-bit TMEM address"):
        tmemviz.cp("tcgen05.cp.cta_group::1.128x256b [%r1 + 0x100000000], %rd1;")
    with pytest.raises(TmemvizError, match="--taddr"):
        tmemviz.layout(ld.replace("IMM", "-4"))
    # With the base's value: one 32-bit add, lane 0 column 8 - 4 = column 4.
    cells = tmemviz.layout(ld.replace("IMM", "-4"), taddr=(0, 8)).cells
    assert {c.col for c in cells} == {4}
    # Lane 1 column 2 - 4 borrows from the lane: lane 0, column 65534, outside Tensor Memory.
    with pytest.raises(TmemvizError, match="outside Tensor Memory"):
        tmemviz.layout(ld.replace("IMM", "-4"), taddr=(1, 2))


def test_a_long_data_initializer_is_no_overlong_statement() -> None:
    """nvcc writes curand's 102,400-byte tables as one 460 KB .global line: read, kept short, no warning."""
    data = ".global .align 4 .b8 table[102400] = {" + ", ".join(["202"] * 102_400) + "};\n"
    got = list(statements([data, "ret;\n"]))
    assert [s.kind for s in got] == ["directive", "instruction"]
    assert got[0].text.startswith(".global .align 4 .b8 table") and len(got[0].text) <= 4200


def test_a_function_declaration_with_its_parameters_on_the_next_lines() -> None:
    text = [".extern .func __assertfail\n", "(\n", "\t.param .b64 a,\n", "\t.param .b32 b\n", ")\n", ";\n",
            ".visible .entry k()\n", "{\n", "ret;\n", "}\n"]  # fmt: skip
    got = [(s.kind, s.first, s.last) for s in statements(text)]
    # The declaration ends with its parameter list; the lone `;` after it is an empty statement.
    assert got == [("directive", 1, 5), ("directive", 7, 7), ("open", 8, 8), ("instruction", 9, 9),
                   ("close", 10, 10)]  # fmt: skip


PIECES = st.sampled_from(["tcgen05.ld.sync.aligned.32x32b.x1.b32", " ", "\n", ";", "{", "}", "(", ")", "[",
                          "]", ",", "%r1", "//", "/*", "*/", '"', ":", "$L1", ".entry k", ".func", "@%p1",
                          ".global .b8 x[2] = ", "0x10", "\t", ".target sm_100a", "mov.b32"])  # fmt: skip


@given(st.lists(PIECES, max_size=40))
def test_property_any_text_reads_without_an_exception(pieces: list[str]) -> None:
    text = "".join(pieces)
    got = list(statements(text.splitlines(keepends=True), max_chars=64))
    assert all(s.first <= s.last for s in got)
