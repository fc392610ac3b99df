"""tmemviz explain on real compiler output (fixtures/README.md says how each was made) and made-up kernels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tmemviz
from tests.cli_run import bad, ok, run

FIXTURES = Path(__file__).parents[1] / "kernels"


def explained(text: str) -> dict:
    """The one file record of ``text`` explained."""
    return tmemviz.explain(text=text).lists()[0][1][0]


def by_op(record: dict, op: str) -> list[dict]:
    return [i for i in record["instructions"] if i["op"] == op]


def tcgen05_lines(path: Path) -> list[int]:
    """Line numbers whose code (not a comment) starts a tcgen05 statement, found without tmemviz."""
    out = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        code = line.split("//")[0].strip()
        if code.startswith("@"):
            code = code.split(None, 1)[1] if " " in code else ""
        if code.startswith("tcgen05."):
            out.append(number)
    return out


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.ptx")))
def test_every_tcgen05_line_of_real_output_is_explained(name: str) -> None:
    path = FIXTURES / name
    f = tmemviz.explain([path]).lists()[0][1][0]
    assert [i["line"] for i in f["instructions"]] == tcgen05_lines(path)
    assert all("error" not in i for i in f["instructions"])
    assert f["warnings"] == [], "correct compiler output draws no warning"


def test_triton_epilogue_mma_and_ld() -> None:
    f = tmemviz.explain([FIXTURES / "triton_mma_epilogue.ptx"]).lists()[0][1][0]
    assert f["target"] == "sm_100a"
    (mma,) = by_op(f, "mma")
    assert (mma["kind"], mma["cta_group"], mma["idesc_operand"]) == ("f16", 1, "%r6")
    idesc = mma["idesc"]  # Triton moved 134742032 into %r6: a 128x32 f32 accumulator of f16 A/B
    assert (idesc["value"], idesc["m"], idesc["n"], idesc["d_type"], idesc["a_type"]) == (
        134742032, 128, 32, "F32", "F16"
    )  # fmt: skip
    assert mma["layout"] == "D"  # PTX 9.7.16.10.5: M=128, .cta_group::1 -> layout D (mma-facts.md section 1)
    (ld,) = by_op(f, "ld")
    assert (ld["shape"], ld["num"], ld["base"], ld["offset"]) == ("32x32b", 32, "%r14", {"lane": 0, "col": 0})
    # PTX Figure (32x32b): thread t reads lane t; register k of .x32 reads column k. Names in vector order.
    names = ld["registers"]
    assert names == [f"%r{k}" for k in range(15, 47)]
    for cell in ld["cells"]:
        assert (cell["lane"], cell["col"], cell["register"]) == (
            cell["thread"],
            cell["reg"],
            names[cell["reg"]],
        )
    assert len(ld["cells"]) == 32 * 32
    (alloc,) = by_op(f, "alloc")
    assert alloc["columns"] == 32


def test_triton_16x64b_lane_immediate() -> None:
    f = tmemviz.explain([FIXTURES / "triton_st_16x64b.ptx"]).lists()[0][1][0]
    sts = by_op(f, "st")
    assert [s["offset"] for s in sts] == [{"lane": 0, "col": 0}, {"lane": 16, "col": 0}]
    assert all(s["guard"] == "%p2" for s in sts)
    first, second = ({(c["thread"], c["reg"]): c for c in s["cells"]} for s in sts)
    assert first.keys() == second.keys()
    for key, cell in first.items():
        moved = second[key]
        assert (moved["lane"], moved["col"]) == (cell["lane"] + 16, cell["col"])
    assert {c["lane"] for c in second.values()} == set(range(16, 32))
    lds = by_op(f, "ld")
    assert lds[1]["registers"][0] == "%r27" and lds[1]["offset"]["lane"] == 16


def test_ld_red_target_follows_ptxas() -> None:
    text = (FIXTURES / "triton_ld_red_sm103a.ptx").read_text()
    (red,) = by_op(explained(text), "ld.red")
    assert red["red"] == {"op": "max", "type": "f32", "abs": False, "nan": False}
    # ptxas (CUDA 13.0) refuses this ld.red for sm_100a, sm_100f, sm_120a; accepts sm_103f, sm_110a, sm_110f.
    for target, refused in [("sm_100a", True), ("sm_100f", True), ("sm_120a", True), ("sm_103f", False),
                            ("sm_110a", False), ("sm_110f", False)]:  # fmt: skip
        f = explained(text.replace(".target sm_103a", f".target {target}"))
        flagged = [w for w in f["warnings"] if "ld.red" in w["message"]]
        assert bool(flagged) == refused, target


def test_nvcc_inline_asm_forms() -> None:
    f = tmemviz.explain([FIXTURES / "nvcc_inline_asm.ptx"]).lists()[0][1][0]
    mma, ws = by_op(f, "mma")
    assert mma["idesc"]["n"] == 128 and not mma["ws"]
    assert ws["ws"] and ws["collector"] == ["collector::b0::fill"] and ws["idesc"]["n"] == 64
    cps = by_op(f, "cp")
    assert [(c["shape"], c["multicast"]) for c in cps] == [("128x256b", None), ("32x128b", "warpx4")]
    (shift,) = by_op(f, "shift")
    assert shift["rows"] == {"from_lanes": [0, 30], "to_lanes": [1, 31], "cols": [0, 7]}
    (ld,) = by_op(f, "ld")
    assert (ld["shape"], ld["split_offset"]) == ("16x32bx2", 4)
    assert {op for i in f["instructions"] for op in [i["op"]]} >= {
        "alloc", "dealloc", "relinquish_alloc_permit", "commit", "fence::before_thread_sync",
        "fence::after_thread_sync", "wait::ld", "wait::st", "st",
    }  # fmt: skip


def test_vector_length_mismatch_as_ptxas_refuses_it() -> None:
    # nvcc compiled `tcgen05.ld...16x32bx2.x2.b32 {4 registers}`; ptxas said "Argument vector size mismatch".
    text = (FIXTURES / "nvcc_inline_asm.ptx").read_text().replace("16x32bx2.x4.b32", "16x32bx2.x2.b32")
    f = explained(text)
    (ld,) = by_op(f, "ld")
    assert "error" in ld
    assert any("register vector has 4" in w["message"] and w["line"] == ld["line"] for w in f["warnings"])


KERNEL = """
.version 9.0
.target sm_100a
.visible .entry first()
{
  mov.b32 %r6, 136314896;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 48;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 1024;
  tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r10, %r11}, [%r2];
  add.f32 %r12, %r10, %r10;
  tcgen05.st.sync.aligned.32x32b.x2.b32 [%r2 + 2], {%r12, %r12};
  tcgen05.ld.sync.aligned.16x32bx2.x4.b32 {%r20, %r21, %r22, %r23}, [%r3], 2;
  tcgen05.wait::ld.sync.aligned;
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r30}, [%r2];
  bar.sync 0;
  tcgen05.mma.cta_group::2.kind::f16 [%r4], %rd1, %rd2, %r6, 1;
}
.visible .func second()
{
  tcgen05.mma.cta_group::1.kind::f16 [%r4], %rd1, %rd2, %r6, 1;
}
"""


def test_warnings_have_line_numbers() -> None:
    f = explained(KERNEL)
    lines = {w["line"]: w["message"] for w in f["warnings"]}
    assert "power of 2" in lines[7] and "power of 2" in lines[8]
    assert "overlap" in lines[12]
    assert "same .cta_group" in lines[16] and "line 7" in lines[16]
    # The st at line 11 and the bar.sync at line 15 come before tcgen05.wait::ld: that order is check's
    # wait-ld rule (it follows every path), not a warning of explain's.
    assert set(lines) == {7, 8, 12, 16}


def test_layout_letters_and_illegal_shapes() -> None:
    # mma-facts.md section 1 (PTX 9.7.16.10.5): M=128 .cta_group::2 dense -> B, sparse -> C; M=256 -> A;
    # .ws M=64 -> E, M=32 -> G.
    cases = [
        ("tcgen05.mma.cta_group::2.kind::f16", 128, 128, "B"),
        ("tcgen05.mma.sp.cta_group::2.kind::f16", 128, 128, "C"),
        ("tcgen05.mma.cta_group::2.kind::f16", 256, 128, "A"),
        ("tcgen05.mma.ws.cta_group::1.kind::f16", 64, 128, "E"),
        ("tcgen05.mma.ws.cta_group::1.kind::f16", 32, 64, "G"),
        ("tcgen05.mma.cta_group::1.kind::f16", 64, 8, "F"),
    ]
    for opcode, m, n, letter in cases:
        sp = ", [%r9]" if ".sp." in opcode else ""
        value = ((n >> 3) << 17) | ((m >> 4) << 24) | (1 << 4) | ((1 << 2) if sp else 0)
        text = f".entry k()\n{{\nmov.b32 %r6, {value};\n{opcode} [%r4], %rd1, %rd2{sp}, %r6, 1;\n}}\n"
        f = explained(text)
        (mma,) = by_op(f, "mma")
        assert (mma["layout"], f["warnings"]) == (letter, []), opcode
    bad_text = (
        ".entry k()\n{\nmov.b32 %r6, 0x10200010;\n"
        "tcgen05.mma.cta_group::1.kind::f16 [%r4], %rd1, %rd2, %r6, 1;\n}\n"
    )
    f = explained(bad_text)  # M=256 needs .cta_group::2
    assert by_op(f, "mma")[0]["layout"] is None and f["warnings"][0]["line"] == 4


def test_functions_keep_their_own_constants() -> None:
    f = explained(KERNEL)
    first, second = by_op(f, "mma")
    assert first["function"] == "first" and first["idesc"]["m"] == 128
    assert second["function"] == "second" and second["idesc"] is None  # %r6 was moved in another function
    assert "not a constant" in second["summary"]


def test_several_files_and_the_json_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = tmp_path / "a.ptx"
    a.write_text(KERNEL)
    data = json.loads(ok(capsys, "explain", str(a), str(FIXTURES / "triton_st_16x64b.ptx"), "-f", "json"))
    assert [Path(f["path"]).name for f in data["files"]] == ["a.ptx", "triton_st_16x64b.ptx"]
    assert set(data["files"][0]) == {"path", "target", "instructions", "warnings"}
    st = by_op(data["files"][1], "st")[1]
    assert {
        "line",
        "ptx",
        "op",
        "shape",
        "num",
        "pack",
        "split_offset",
        "base",
        "offset",
        "registers",
        "cells",
    } <= set(st)
    assert set(st["cells"][0]) == {"thread", "reg", "register", "lane", "col"}
    rows = ok(capsys, "explain", str(FIXTURES / "triton_st_16x64b.ptx"), "-f", "csv").splitlines()
    assert rows[0] == "path,line,op,thread,reg,half,register,lane,col"
    assert len(rows) == 1 + 4 * 32 * 8 and rows[-1].split(",")[1] == "215"
    table = ok(capsys, "explain", str(a))
    assert "warnings" in table and "power of 2" in table


def test_stdin_and_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    binary = tmp_path / "k.cubin"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))
    assert "not" in bad(capsys, "explain", str(binary))
    latin = tmp_path / "latin.ptx"
    latin.write_bytes("// caf\xe9\n".encode("latin-1"))
    assert "UTF-8" in bad(capsys, "explain", str(latin))
    assert "cannot read" in bad(capsys, "explain", str(tmp_path / "missing.ptx"))
    assert "directory" in bad(capsys, "explain", str(tmp_path))
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(KERNEL.encode())))
    code, out, _ = run(capsys, "explain", "-", "-f", "json")
    assert code == 0 and json.loads(out)["files"][0]["path"] == "-"


def test_save_writes_what_the_cli_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = FIXTURES / "triton_mma_epilogue.ptx"
    doc = tmemviz.explain([source])
    saved = doc.save(tmp_path / "api.json").read_bytes()
    ok(capsys, "explain", str(source), "-o", str(tmp_path / "cli.json"))
    assert saved == (tmp_path / "cli.json").read_bytes()
    assert "tcgen05" in doc.to_text()


def test_several_statements_on_one_line_and_across_lines() -> None:
    text = (
        ".entry k()\n{\n"
        " { .reg .pred p; setp.ne.b32 p, %r1, 0; @p tcgen05.wait::ld.sync.aligned; }\n"
        " tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1,\n   %r2}, [%r3]; // two lines\n}\n"
    )
    f = explained(text)
    assert [(i["line"], i["op"]) for i in f["instructions"]] == [(3, "wait::ld"), (4, "ld")]
    assert f["instructions"][0]["guard"] == "p"
    assert f["instructions"][1]["registers"] == ["%r1", "%r2"]


def test_every_mma_form_ptxas_accepts() -> None:
    f = tmemviz.explain([FIXTURES / "mma_forms.ptx"]).lists()[0][1][0]
    got = [
        (i["kind"], i["sparse"], i["ws"], i["a_in_tmem"], i["idesc_operand"], "sp_meta" in i, "scale_a" in i)
        for i in by_op(f, "mma")
    ]
    assert got == [
        ("f16", False, False, False, "%r4", False, False),
        ("f16", False, False, True, "%r4", False, False),
        ("f16", True, False, False, "%r13", True, False),
        ("f16", False, True, False, "%r4", False, False),
        ("f16", True, True, False, "%r13", True, False),
        ("mxf4nvf4", False, False, False, "%r11", False, True),
        ("mxf8f6f4", False, False, False, "%r12", False, True),
        ("f16", False, False, False, "%r4", False, False),
        ("f16", False, False, True, "%r4", False, False),
        ("f16", False, True, False, "%r4", False, False),
    ]
    assert by_op(f, "mma")[2]["idesc"]["sparse"] is True
    text = (FIXTURES / "mma_forms.ptx").read_text().replace("0x08200014", "0x08200010")
    warned = explained(text)["warnings"]
    assert [w["line"] for w in warned] == [i["line"] for i in by_op(f, "mma") if i["sparse"]]
    nvf4 = by_op(f, "mma")[5]["idesc"]
    assert (nvf4["n"], nvf4["scale_type"], nvf4["a_type"]) == (256, "UE4M3", "E2M1")


def test_mangled_lines_never_crash() -> None:
    """Random edits of real tcgen05 lines: explained, warned about or one TmemvizError, never a traceback."""
    import random

    from tmemviz.errors import TmemvizError

    lines = [
        line
        for p in sorted(FIXTURES.glob("*.ptx"))
        for line in p.read_text().splitlines()
        if "tcgen05" in line or "mov.b32" in line
    ]
    rng = random.Random(7)
    alphabet = "{}[],;+ %@!.:0x123abcr/*\n"
    for _ in range(1500):
        chars = list(rng.choice(lines))
        for _ in range(rng.randint(1, 5)):
            pos = rng.randrange(len(chars) + 1)
            if rng.random() < 0.5 and chars:
                del chars[min(pos, len(chars) - 1)]
            else:
                chars.insert(pos, rng.choice(alphabet))
        text = ".entry k()\n{\nmov.b32 %r6, 136314896;\n" + "".join(chars) + "\n}\n"
        try:
            doc = tmemviz.explain(text=text)
            doc.to_json()
            doc.to_text()
        except TmemvizError:
            pass


def test_ptx_text_is_not_terminal_markup() -> None:
    text = (
        ".entry k()\n{\ntcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [/r8];\n"
        ".\ttcgen05.wait::ld;\n}\n"
    )
    out = tmemviz.explain(text=text).to_text()
    assert "[/r8]" in out


def test_triton_block_scaled_descriptors() -> None:
    # Triton moved 143130624, 680001552, 1216872480, 1753743408 into the idesc registers of its four K=32
    # steps; read by hand (PTX mxf8f6f4 table): UE8M0 (bit 23), N=32, M=128, A and B scale IDs 0, 1, 2, 3.
    f = tmemviz.explain([FIXTURES / "triton_mma_scaled.ptx"]).lists()[0][1][0]
    mmas = by_op(f, "mma")
    assert [m["idesc"]["value"] for m in mmas] == [143130624, 680001552, 1216872480, 1753743408]
    for step, m in enumerate(mmas):
        d = m["idesc"]
        assert (m["kind"], m["block_scale"], m["scale_vec"]) == ("mxf8f6f4", True, "block32")
        assert (d["sfa_id"], d["sfb_id"], d["scale_type"], d["n"], d["m"]) == (step, step, "UE8M0", 32, 128)
        assert (d["a_type"], d["b_type"], m["layout"]) == ("E4M3", "E4M3", "D")


def test_a_name_containing_tcgen05_is_not_an_instruction() -> None:
    text = (
        ".visible .func tcgen05_helper(\n  .param .b32 x\n)\n{\n mov.b32 %r6, 136314896;\n"
        " tcgen05.mma.cta_group::1.kind::f16 [%r4], %rd1, %rd2, %r6, 1;\n}\n"
    )
    f = explained(text)
    assert [(i["line"], i["function"], i["idesc"]["n"]) for i in f["instructions"]] == [
        (6, "tcgen05_helper", 128)
    ]
    assert f["warnings"] == []
