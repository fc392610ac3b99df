"""PTX lines as compilers print them: the shared reader; ld/st/cp answers apply the address immediate."""

from __future__ import annotations

import json

import pytest

import tmemviz
from tests.cli_run import bad, ok, run
from tmemviz.errors import TmemvizError
from tmemviz.ptx.line import parse_address, parse_immediate, parse_line

# Lines as Triton 3.9 prints them for sm_100a (facts: mma-facts.md section 5), plus hand-made variants.
TRITON_ST = (
    "@%p2 tcgen05.st.sync.aligned.16x64b.x8.b32 [%r2 + 1048576], {%r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10};"
)


@pytest.mark.parametrize(
    ("text", "base", "offset"),
    [
        ("[%r2]", "%r2", 0),
        ("[%r2+16]", "%r2", 16),
        ("[%r2 + 1048576]", "%r2", 1048576),
        ("[ %r149 + 0 ]", "%r149", 0),
        ("[%r2+0x100000]", "%r2", 1 << 20),
        ("[%r2+-4]", "%r2", -4),
        ("[64]", None, 64),
    ],
)
def test_addresses(text: str, base: str | None, offset: int) -> None:
    address = parse_address(text)
    assert (address.base, address.offset) == (base, offset)


def test_lane_col_split_is_the_taddr_split() -> None:
    # PTX 9.7.16.2: lane in bits 31:16, column in bits 15:0 -- for every lane/column pair in range.
    for lane in range(0, 128, 7):
        for col in range(0, 512, 31):
            assert parse_address(f"[%r1 + {(lane << 16) | col}]").lane_col == (lane, col)


@pytest.mark.parametrize(
    ("text", "value"), [("0", 0), ("17", 17), ("0x1F", 31), ("0b101", 5), ("010", 8), ("7U", 7), ("-3", -3)]
)
def test_immediates(text: str, value: int) -> None:
    assert parse_immediate(text) == value


@pytest.mark.parametrize("text", ["%r1", "1.5", "0x", "abc", "0d3FF0000000000000"])
def test_not_immediates(text: str) -> None:
    assert parse_immediate(text) is None


def test_guards_comments_and_line_breaks() -> None:
    line = parse_line(
        "  @!%p13   tcgen05.ld.sync.aligned.32x32b.x2.b32\n\t{%r1,\n %r2}, [ %r9 + 128 ] ; // load"
    )
    assert line.guard == "!%p13"
    assert line.opcode == "tcgen05.ld.sync.aligned.32x32b.x2.b32"
    assert line.operands == ("{%r1, %r2}", "[%r9 + 128]")
    assert line.comment == "load"
    assert line.vectors() == (("%r1", "%r2"),)
    assert parse_line("/* a */ tcgen05.wait::st.sync.aligned;").operands == ()


@pytest.mark.parametrize(
    "text", ["", "@%p1", "tcgen05.st [%r1], {%r2", "tcgen05.ld [%r1]]", "a; b;", "tcgen05.st [%r1], , {%r2}"]
)
def test_malformed_lines(text: str) -> None:
    with pytest.raises(TmemvizError):
        parse_line(text)


def test_predicated_st_applies_the_lane_immediate() -> None:
    doc = tmemviz.layout(TRITON_ST)
    plain = tmemviz.layout(
        "tcgen05.st.sync.aligned.16x64b.x8.b32 [%r2], {%r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10};"
    )
    moved = dict(doc.lists())["cells"]
    base = dict(plain.lists())["cells"]
    assert len(moved) == len(base) == 32 * 8
    for a, b in zip(moved, base, strict=True):
        assert (a["thread"], a["reg"]) == (b["thread"], b["reg"])
        assert (a["lane"], a["col"]) == (b["lane"] + 16, b["col"])
    assert doc.header["base"] == "%r2" and doc.header["offset"] == {"lane": 16, "col": 0}
    assert any("relative to the base register %r2" in n for n in doc.notes)


def test_which_and_where_work_in_the_base_register_frame() -> None:
    doc = tmemviz.layout(TRITON_ST)
    for cell in dict(doc.lists())["cells"]:
        found = doc.which(lane=cell["lane"], col=cell["col"])
        assert (found["thread"], found["reg"]) == (cell["thread"], cell["reg"])
        assert doc.where(thread=cell["thread"], reg=cell["reg"])["cells"] == [
            {"lane": cell["lane"], "col": cell["col"]}
        ]


def test_taddr_is_the_base_register_value() -> None:
    line = "@%p2 tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r3, %r4}, [%r2 + 128];"
    relative = dict(tmemviz.layout(line).lists())["cells"]
    absolute = dict(tmemviz.layout(line, taddr="32,8").lists())["cells"]
    for r, a in zip(relative, absolute, strict=True):
        assert (a["lane"], a["col"]) == (r["lane"] + 32, r["col"] + 8)
    assert relative[0]["col"] == 128


def test_cli_commands_take_predicated_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert "lane 16" in ok(capsys, "which", TRITON_ST, "--lane", "16", "--col", "0")
    assert "lane 16, column 0" in ok(capsys, "where", TRITON_ST, "--thread", "0", "--reg", "0")
    code, out, _ = run(capsys, "ptx", TRITON_ST, "--emit", "ptx")
    assert code == 0 and "tcgen05.st.sync.aligned.16x64b.x8.b32" in out
    data = json.loads(ok(capsys, "layout", TRITON_ST, "-f", "json"))
    assert min(c["lane"] for c in data["cells"]) == 16
    assert "outside" in bad(capsys, "which", TRITON_ST, "--lane", "0", "--col", "0")


def test_vector_length_is_still_checked() -> None:
    with pytest.raises(TmemvizError, match="register vector has 2"):
        tmemviz.layout("@%p2 tcgen05.st.sync.aligned.16x64b.x8.b32 [%r2 + 1048576], {%r3, %r4};")


def test_cp_line_with_guard_and_column_immediate() -> None:
    doc = tmemviz.cp("@%p1 tcgen05.cp.cta_group::1.128x256b [%r1 + 32], %rd4; // copy")
    plain = tmemviz.cp("tcgen05.cp.cta_group::1.128x256b [%r1], %rd4;")
    _, moved = doc.lists()[0]
    _, base = plain.lists()[0]
    assert len(moved) == len(base)
    assert [c["col"] for c in moved] == [c["col"] + 32 for c in base]
    assert any("%r1" in n for n in doc.notes)


def test_emitted_lines_keep_the_immediate_and_assemble(ptxas: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """What `tmemviz ptx` prints for compiler lines with guards and immediates assembles for sm_100a."""
    from ptxas_run import assemble_lines

    lines = [
        TRITON_ST,
        "@!%p2 tcgen05.ld.sync.aligned.16x64b.x8.b32 {%r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10},"
        " [%r2+0x100000];",
        "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r3, %r4}, [ %r2 + 128 ];",
        "tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%r3, %r4}, [%r2 + 1048584], 2;",
    ]
    emitted = [tmemviz.layout(line).subject.statement("%r2") for line in lines]
    assert "[%r2 + 1048576]" in emitted[0] and "[%r2 + 1048576]" in emitted[1]
    assert "[%r2 + 128]" in emitted[2] and "[%r2 + 1048584], 2" in emitted[3]
    head = [".version 8.8", ".target sm_100a", ".address_size 64", ".visible .entry k(.param .u32 p)", "{",
            "  .reg .b32 %r<300>;", "  .reg .b32 r<300>;", "  ld.param.u32 %r2, [p];"]  # fmt: skip
    body = [f"  {s}" for s in emitted]
    where = {len(head) + 1 + i: s for i, s in enumerate(emitted)}
    status, rejected = assemble_lines(ptxas, tmp_path, [*head, *body, "  ret;", "}"], where)
    assert (status, rejected) == (0, {})


def test_guarded_cp_line_in_ptx_keeps_its_immediate(ptxas: str, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from ptxas_run import assemble_lines

    code, out, _ = run(
        capsys, "ptx", "@%p1 tcgen05.cp.cta_group::1.128x256b [%r1 + 32], %rd4;", "--emit", "ptx"
    )
    # The line comes back as written: its guard and its registers (P18).
    assert code == 0 and out.strip() == "@%p1 tcgen05.cp.cta_group::1.128x256b [%r1 + 32], %rd4;"
    head = [".version 8.8", ".target sm_100a", ".address_size 64", ".visible .entry k(.param .u32 p)", "{",
            "  .reg .pred %p<2>;", "  .reg .b32 %r<4>;", "  .reg .b64 %rd<5>;", "  ld.param.u32 %r1, [p];",
            "  setp.ne.u32 %p1, %r1, 0;"]  # fmt: skip
    status, rejected = assemble_lines(ptxas, tmp_path, [*head, f"  {out.strip()}", "  ret;", "}"], {11: out})
    assert (status, rejected) == (0, {})


def test_cuda_and_cccl_with_the_immediate_compile(nvcc: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The CUDA wrapper and the cuda::ptx call of compiler lines with immediates compile with nvcc."""
    from compile_run import compile_units
    from ldst.test_dialects import cccl_source, cuda_source

    lines = [TRITON_ST, "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r3, %r4}, [%r2 + 0x200080];"]
    instructions = [tmemviz.layout(line).subject for line in lines]
    assert compile_units(nvcc, tmp_path, [cuda_source(instructions), cccl_source(instructions)]) == ""
