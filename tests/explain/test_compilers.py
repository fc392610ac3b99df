"""explain on every compiler's output: CUTLASS C++ inline asm, the CuTe DSL, nvcc, Triton (tests/kernels)."""

from __future__ import annotations

from pathlib import Path

import pytest

import tmemviz
from tmemviz.ptx.statements import statements

FIXTURES = Path(__file__).parents[1] / "kernels"
ALL = sorted(p.name for p in FIXTURES.glob("*.ptx"))


def explained(path: Path) -> dict:
    return tmemviz.explain([path]).lists()[0][1][0]


def tcgen05_statements(path: Path) -> list[int]:
    """First lines of statements whose opcode (after a guard) starts with tcgen05., by a plain split."""
    out = []
    for s in statements(path.read_text().splitlines(keepends=True)):
        code = s.text.split(None, 1)[1] if s.text.startswith("@") else s.text
        if s.kind == "instruction" and code.startswith("tcgen05."):
            out.append(s.first)
    return out


@pytest.mark.parametrize("name", ALL)
def test_every_tcgen05_statement_is_read_and_no_false_alarm(name: str) -> None:
    f = explained(FIXTURES / name)
    assert [i["line"] for i in f["instructions"]] == tcgen05_statements(FIXTURES / name)
    assert all("error" not in i and i["op"] != "unknown" for i in f["instructions"])
    assert f["warnings"] == [], "correct compiler output draws no warning"


@pytest.mark.parametrize("name", ALL)
def test_every_ld_st_cell_is_what_layout_gives(name: str) -> None:
    """Each ld/st's register -> (lane, col) map equals the ldst family's for the same line."""
    f = explained(FIXTURES / name)
    checked = 0
    for i in f["instructions"]:
        if i["op"] not in ("ld", "st", "ld.red"):
            continue
        want = tmemviz.layout(i["ptx"]).cells
        got = i["cells"]
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert (g["thread"], g["reg"], g["lane"], g["col"]) == (w.thread, w.reg, w.lane, w.col)
            assert g.get("half") == w.get("half")
            assert g["register"] == i["registers"][g["reg"]]
        checked += 1
    assert checked or name in ("mma_forms.ptx",), "every fixture but the mma one holds an ld or st"


def test_cutlass_inline_asm_is_read_without_spaces() -> None:
    f = explained(FIXTURES / "cutlass_atoms.ptx")
    by_line = {i["line"]: i for i in f["instructions"]}
    ld = by_line[64]  # tcgen05.ld.sync.aligned.32x32b.x16.b32{%r9, ...,%r24},[%r25];
    assert (ld["shape"], ld["num"], ld["base"]) == ("32x32b", 16, "%r25")
    assert ld["registers"] == [f"%r{k}" for k in range(9, 25)]
    st = by_line[155]  # tcgen05.st.sync.aligned.16x32bx2.x2.b32[%r50] , 2,{%r72, %r55};
    assert (st["shape"], st["split_offset"], st["registers"]) == ("16x32bx2", 2, ["%r72", "%r55"])


def test_cutlass_idesc_choice_and_runtime_scale_ids() -> None:
    f = explained(FIXTURES / "cutlass_atoms.ptx")
    dense, scaled = [i for i in f["instructions"] if i["op"] == "mma"]
    # selp.b32 %r121, 136314896, 136380432, %p4: B K-major or MN-major, everything else shared.
    idesc = dense["idesc"]
    assert idesc["candidates"] == ["0x08200010", "0x08210010"]
    assert (idesc["m"], idesc["n"], idesc["a_major"], idesc["b_major"]) == (128, 128, "K", None)
    assert idesc["varies"] == {"b_major": ["K", "MN"]}
    # make_runtime_instr_desc_block_scaled: SF IDs from the TMEM addresses' top bits, at run time.
    idesc = scaled["idesc"]
    assert (idesc["m"], idesc["n"], idesc["a_type"], idesc["scale_type"]) == (128, 256, "E4M3", "UE8M0")
    assert set(idesc["runtime"]) == {"sfa_id", "sfb_id"} and idesc["sfa_id"] is None
    assert scaled["layout"] == "D"


def test_cute_dsl_idesc_choice_of_four() -> None:
    f = explained(FIXTURES / "cute_dsl_gemm.ptx")
    mmas = [i for i in f["instructions"] if i["op"] == "mma"]
    assert mmas and all(m["idesc"]["m"] == 128 and m["idesc"]["n"] == 128 for m in mmas)
    assert mmas[0]["idesc"]["varies"] == {"negate_a": [False, True], "negate_b": [False, True]}
    assert len(mmas[0]["idesc"]["candidates"]) == 4


def test_seeded_hazard_in_real_dsl_code_is_caught_by_check() -> None:
    """The DSL epilogue waits (tcgen05.wait::ld) after its four loads and stores every register before the
    tcgen05.dealloc; drop the wait and those reads (the st.global after the first ld) and check's wait-ld
    flags the release before the dealloc: the loads may still be reading. explain judges no order."""
    text = (FIXTURES / "cute_dsl_gemm.ptx").read_text().splitlines(keepends=True)
    first_ld = next(n for n, t in enumerate(text) if "tcgen05.ld." in t)
    readers = ("st.", "cvt", "mul", "max", "add.f", "fma", "mov.b64", "mov.b32 {", "mov.b32 \t{", "prmt")
    kept = [
        t for n, t in enumerate(text) if n <= first_ld or "tcgen05" in t or not t.strip().startswith(readers)
    ]

    def wait_ld(lines: list[str]) -> list[tuple[str, str]]:
        (checked,) = tmemviz.check(text="".join(lines)).subject
        return [(f.severity, f.message) for f in checked.findings if f.rule == "wait-ld"]

    assert wait_ld(kept) == [], "the wait alone suffices"
    cut = [t for t in kept if "tcgen05.wait::ld" not in t]
    assert tmemviz.explain(text="".join(cut)).lists()[0][1][0]["warnings"] == []
    found = wait_ld(cut)
    assert [s for s, _ in found] == ["warning"] and "may still be reading Tensor Memory" in found[0][1]


def test_cute_dsl_fmha() -> None:
    f = explained(FIXTURES / "cute_dsl_fmha.ptx")
    mmas = [i for i in f["instructions"] if i["op"] == "mma"]
    # S = Q K^T and O += P V, 8 MMAs of K = 16 each over head dimension / key block 128; P is read
    # from Tensor Memory (columns 256.., 8 columns of f16 pairs per MMA), V is MN-major.
    assert len(mmas) == 16 and all(m["idesc"]["m"] == 128 and m["idesc"]["n"] == 128 for m in mmas)
    pv = [m for m in mmas if m["a_in_tmem"]]
    assert len(pv) == 8 and all(m["idesc"]["b_major"] == "MN" for m in pv)
    assert all(m["idesc"]["b_major"] == "K" for m in mmas if not m["a_in_tmem"])


def test_alloc_columns_from_a_register_the_function_set() -> None:
    # mov.b32 %r7, 256; tcgen05.alloc... [%r6], %r7; (CUTLASS); the DSL FMHA allocates 512 the same way.
    for name, columns in (("cutlass_atoms.ptx", 256), ("cute_dsl_fmha.ptx", 512)):
        f = explained(FIXTURES / name)
        got = [i["columns"] for i in f["instructions"] if i["op"] in ("alloc", "dealloc")]
        assert got == [columns, columns]


def test_cutlass_example_70_two_sm_gemm() -> None:
    f = explained(FIXTURES / "cutlass_example70_gemm.ptx")
    mmas = [i for i in f["instructions"] if i["op"] == "mma"]
    # SM100_MMA_F16BF16_2x1SM_SS 256x128: one constant idesc each, M=256 with cta_group::2 -> layout A.
    assert mmas and all((m["idesc"]["m"], m["idesc"]["n"], m["layout"]) == (256, 128, "A") for m in mmas)
    lds = [i for i in f["instructions"] if i["op"] == "ld"]
    assert lds and all((i["shape"], i["num"]) == ("32x32b", 16) for i in lds)


def test_cutlass_example_72_block_scaled_nvfp4() -> None:
    f = explained(FIXTURES / "cutlass_example72_nvfp4_gemm.ptx")
    mmas = [i for i in f["instructions"] if i["op"] == "mma"]
    assert mmas and all(m["kind"] == "mxf4nvf4" and m["block_scale"] for m in mmas)
    for m in mmas:
        idesc = m["idesc"]  # everything but the scale-factor IDs is known at compile time
        assert (idesc["m"], idesc["n"], idesc["a_type"], idesc["scale_type"]) == (256, 256, "E2M1", "UE4M3")
        assert set(idesc["runtime"]) == {"sfa_id", "sfb_id"}
    assert sum(i["op"] == "cp" for i in f["instructions"]) == 24
