"""tcgen05.cp in every dialect: PTX assembles, CUDA and CCCL compile, CUTLASS and CuTe DSL names match.

All 36 copies (shape x multicast x .cta_group x decompression) are few enough to
check every time. A kernel may not mix .cta_group::1 and ::2 (ptxas refuses it),
so each CTA group gets its own file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import bad, ok, run
from compile_run import assemble, compile_units

from tmemviz.catalog import Catalog
from tmemviz.families.cp import dialects
from tmemviz.families.cp.layout import Copy, make_copy
from tmemviz.families.cp.shapes import KIND as CP

ATOMS = Path(__file__).resolve().parents[1] / "cutlass_atoms.txt"
FORMATS = (None, "b4x16_p64", "b6x16_p32")
# The CuTe DSL op classes of cutlass.cute.nvgpu.tcgen05 (nvidia-cutlass-dsl 4.8), by PTX qualifiers.
CUTE_OPS = {
    "128x256b": "Cp128x256bOp",
    "128x128b": "Cp128x128bOp",
    "4x256b": "Cp4x256bOp",
    "32x128b.warpx4": "Cp4x32x128bOp",
    "64x128b.warpx2::02_13": "Cp2x64x128b0213Op",
    "64x128b.warpx2::01_23": "Cp2x64x128b0123Op",
}


def every_copy(catalog: Catalog, group: int) -> list[Copy]:
    return [
        make_copy(shape, placement.multicast, group, fmt)
        for shape in catalog.shapes(CP)
        for placement in shape.placements
        for fmt in FORMATS
    ]


@pytest.mark.parametrize("group", [1, 2])
def test_every_ptx_line_assembles(ptxas: str, tmp_path: Path, catalog: Catalog, group: int) -> None:
    copies = every_copy(catalog, group)
    assert len(copies) == 18
    lines = [dialects.ptx(cp).code or "" for cp in copies]
    assert all(line.endswith("[%r0], %rd0;") for line in lines)
    assert assemble(ptxas, tmp_path, lines) == ""


@pytest.mark.parametrize("group", [1, 2])
def test_every_cuda_wrapper_and_cccl_call_compiles(
    nvcc: str, tmp_path: Path, catalog: Catalog, group: int
) -> None:
    copies = every_copy(catalog, group)
    functions = [dialects.cuda(cp).code or "" for cp in copies]
    names = [f.split("void ")[1].split("(")[0] for f in functions]
    assert len(set(names)) == len(names)
    calls = "\n".join(f"  {name}(taddr, sdesc);" for name in names)
    source = (
        "#include <cstdint>\n"
        + "\n".join(functions)
        + f"\n__global__ void k(uint32_t taddr, uint64_t sdesc) {{\n{calls}\n}}\n"
    )
    cccl = "\n".join(f"  {dialects.cccl(cp).code}" for cp in copies)
    cccl_source = (
        "#include <cstdint>\n#include <cuda/ptx>\n"
        f"__global__ void k(uint32_t taddr, uint64_t sdesc) {{\n{cccl}\n}}\n"
    )
    assert compile_units(nvcc, tmp_path, [source, cccl_source]) == ""


def test_cutlass_names_are_cutlass_atoms_issuing_the_same_ptx(catalog: Catalog) -> None:
    atoms = {}
    for line in ATOMS.read_text().splitlines():
        if line.startswith("SM100_UTCCP_"):
            name, mnemonic = line.split()
            atoms[name] = mnemonic
    assert len(atoms) == 12
    named = {}
    for group in (1, 2):
        for cp in every_copy(catalog, group):
            code = dialects.cutlass(cp)
            if cp.decompress is not None:
                assert code.code is None and "do not decompress" in code.notes[0]
                continue
            assert code.code is not None
            named[code.code] = cp.mnemonic
    assert named == atoms


def test_cute_dsl_ops(catalog: Catalog) -> None:
    for group, word in ((1, "ONE"), (2, "TWO")):
        for cp in every_copy(catalog, group):
            code = dialects.cute_dsl(cp)
            if cp.decompress is not None:
                assert code.code is None and "src_format" in code.notes[0]
            else:
                key = cp.qualifiers
                assert code.code == f"tcgen05.{CUTE_OPS[key]}(tcgen05.CtaGroup.{word})"


@pytest.mark.usefixtures("plain_terminal")
def test_ptx_command_for_a_copy(capsys: pytest.CaptureFixture[str]) -> None:
    line = "tcgen05.cp.cta_group::2.64x128b.warpx2::02_13"
    code, out, _ = run(capsys, "ptx", line, "--emit", "ptx")
    assert (code, out) == (0, f"{line} [%r0], %rd0;\n")
    code, out, _ = run(capsys, "ptx", line, "--emit", "cccl")
    assert (
        code == 0
        and out == "cuda::ptx::tcgen05_cp_64x128b_warpx2_02_13(cuda::ptx::cta_group_2, taddr, sdesc);\n"
    )
    code, out, _ = run(capsys, "ptx", "SM100_UTCCP_4x32dp128bit_1cta", "--emit", "cute-dsl")
    assert code == 0 and out == "tcgen05.Cp4x32x128bOp(tcgen05.CtaGroup.ONE)\n"
    code, out, _ = run(capsys, "ptx", "64x128b", "-m", "warpx2::01_23", "--cta-group", "2", "-e", "cutlass")
    assert code == 0 and out == "SM100_UTCCP_2x64dp128bitlw0123_2cta\n"
    record = json.loads(ok(capsys, "ptx", "128x256b", "--decompress", "b6x16_p32", "-f", "json"))
    assert record["instruction"] == "tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32"
    gluon = next(d for d in record["dialects"] if d["dialect"] == "gluon")
    assert gluon["code"] is None and gluon["notes"]


@pytest.mark.usefixtures("plain_terminal")
def test_ptx_command_refuses_for_a_copy(capsys: pytest.CaptureFixture[str]) -> None:
    assert "--num applies to tcgen05.ld/st" in bad(capsys, "ptx", "128x256b", "--num", "x2")
    assert "requires .warpx2" in bad(capsys, "ptx", "64x128b")
    assert "do not decompress" in bad(capsys, "ptx", "128x128b", "--decompress", "b4x16_p64", "-e", "cutlass")
