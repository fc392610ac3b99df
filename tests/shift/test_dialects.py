"""tcgen05.shift in every dialect: every PTX line assembles (ptxas), CUDA and CCCL compile (nvcc).

A kernel may not mix .cta_group::1 and ::2 (PTX 9.7.16.9.3), so each CTA group gets its own file.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_run import bad, ok, run
from compile_run import assemble, compile_cuda

from tmemviz.code import DIALECTS
from tmemviz.families.shift import dialects
from tmemviz.families.shift.layout import Address, Shift, make_shift
from tmemviz.families.shift.shapes import builtin
from tmemviz.families.shift.spelling import parse_shift_line

IMMEDIATES = (0, 16, 1 << 20, (32 << 16) | 8)
GLUON_TCGEN05 = (
    "tcgen05_copy",
    "tcgen05_mma",
    "tcgen05_mma_scaled",
    "tcgen05_mma_barrier_count",
    "tcgen05_commit",
)
"""Every tcgen05_* function of Triton 3.9's triton.experimental.gluon.language.nvidia.blackwell (listed from
the installed package with grep, no GPU): none shifts, so tmemviz's gluon dialect has no code."""
CUTE_ARCH_SHIFT_HITS = 0
"""Files of CUTLASS's include/cute/arch (commit 7107b05, Aug 2026) naming tcgen05.shift: none."""


def shifts(group: int) -> list[Shift]:
    return [make_shift(builtin(), group, Address("%r2", imm)) for imm in IMMEDIATES]


def others(group: int) -> list[Shift]:
    """A negative immediate and an absolute [imm] address (ptxas takes both)."""
    return [
        make_shift(builtin(), group, Address("%r2", -4), base=(32, 8)),
        make_shift(builtin(), group, Address(None, 0x200008)),
    ]


@pytest.mark.parametrize("group", [1, 2])
def test_every_emitted_line_and_both_orders_assemble(ptxas: str, tmp_path: Path, group: int) -> None:
    lines = [dialects.ptx(s).code or "" for s in [*shifts(group), *others(group)]]
    # [imm] is emitted with the address in a register: ptxas 13.0 crashes on the absolute form.
    assert lines[-2:] == [
        f"tcgen05.shift.cta_group::{group}.down [%r0+-4];",
        f"tcgen05.shift.cta_group::{group}.down [%r0];",
    ]
    assert lines[0] == f"tcgen05.shift.cta_group::{group}.down [%r0];"
    # The reader's inputs, in both qualifier orders and as compilers print them, assemble as written.
    written = [
        f"tcgen05.shift.down.cta_group::{group} [%r0];",
        f"tcgen05.shift.cta_group::{group}.down [ %r0 + 1048576 ];",
        f"tcgen05.shift.cta_group::{group}.down [%r0+0x200008]; // two warps on",
        f"\ttcgen05.shift.cta_group::{group}.down \t[%r1];",
    ]
    for line in written:
        assert parse_shift_line(line).cta_group == group
    assert assemble(ptxas, tmp_path, lines + written) == ""
    # PTX 9.7.16.9.3 lists sm_103a too.
    assert assemble(ptxas, tmp_path, lines + written, target="sm_103a") == ""


@pytest.mark.parametrize(
    "line",
    [
        "tcgen05.shift.cta_group::1 [%r0];",  # no .down
        "tcgen05.shift.down [%r0];",  # no .cta_group
        "tcgen05.shift.cta_group::1.cta_group::1.down [%r0];",
        "tcgen05.shift.down.cta_group::1.down [%r0];",
        "tcgen05.shift.cta_group::1.down.31x256b [%r0];",
    ],
)
def test_what_the_reader_refuses_ptxas_refuses_too(
    ptxas: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str
) -> None:
    bad(capsys, "shift", line)
    assert assemble(ptxas, tmp_path, [line]) != ""


@pytest.mark.parametrize("group", [1, 2])
def test_cuda_wrappers_and_cccl_calls_compile(nvcc: str, tmp_path: Path, group: int) -> None:
    wrappers = [dialects.cuda(s).code or "" for s in shifts(group)]
    bodies = []
    for i, w in enumerate(wrappers):
        bodies.append(w.replace(f"tcgen05_shift_down_cta{group}(", f"shift{i}("))
    calls = "\n".join(f"  shift{i}(taddr);" for i in range(len(bodies)))
    cccl = "\n".join(f"  {dialects.cccl(s).code}" for s in [*shifts(group), *others(group)])
    absolute = dialects.cuda(others(group)[1]).code or ""
    bodies.append(absolute.replace(f"tcgen05_shift_down_cta{group}(", "absolute("))
    calls += "\n  absolute(0x200008u);"
    source = (
        "#include <cstdint>\n#include <cuda/ptx>\n"
        + "\n".join(bodies)
        + f"\n__global__ void k(uint32_t taddr) {{\n{calls}\n{cccl}\n}}\n"
    )
    assert compile_cuda(nvcc, tmp_path, source) == ""


def test_cccl_wrapper_is_the_one_in_the_header(nvcc: str, tmp_path: Path) -> None:
    """CCCL's generated header (found through nvcc's own dependency list) writes the syntax line's order."""
    source = tmp_path / "deps.cu"
    source.write_text("#include <cuda/ptx>\n")
    done = subprocess.run(
        [nvcc, "-std=c++17", "-arch=sm_100a", "-M", str(source)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = {Path(w) for w in done.stdout.replace("\\\n", " ").split() if w.endswith("tcgen05_shift.h")}
    assert found, "nvcc's <cuda/ptx> includes no tcgen05_shift.h"
    text = "".join(p.read_text() for p in found)
    assert "tcgen05_shift_down(" in text
    for group in (1, 2):
        assert f"tcgen05.shift.cta_group::{group}.down [%0];" in text
        assert dialects.cccl(make_shift(builtin(), group)).code == (
            f"cuda::ptx::tcgen05_shift_down(cuda::ptx::cta_group_{group}, taddr);"
        )


def test_cute_dsl_prints_the_syntax_order() -> None:
    """What CuTe DSL's experimental tcgen05_shift compiled to (fixture) reads back as the same shift."""
    fixture = Path(__file__).parent / "cute_dsl_shift.ptx"
    lines = [x for x in fixture.read_text().splitlines() if not x.startswith("//")]
    assert [parse_shift_line(x).cta_group for x in lines] == [1, 2]
    for group, line in zip((1, 2), lines, strict=True):
        shift = make_shift(builtin(), group, Address("%r1"))
        assert " ".join(line.split()) == shift.statement()
        assert (
            dialects.cute_dsl(shift).code == f"prims.tcgen05_shift(taddr, group=prims.CTAGroup.CTA_{group})"
        )


def test_no_cutlass_atom_and_no_gluon_operation() -> None:
    shift = make_shift(builtin(), 1)
    assert not any("shift" in name for name in GLUON_TCGEN05)
    assert dialects.gluon(shift).code is None
    assert CUTE_ARCH_SHIFT_HITS == 0 and dialects.cutlass(shift).code is None


def test_ptx_command_every_dialect(capsys: pytest.CaptureFixture[str]) -> None:
    out = json.loads(ok(capsys, "ptx", "tcgen05.shift.down.cta_group::2 [taddr1];", "-f", "json"))
    assert out["instruction"] == "tcgen05.shift.cta_group::2.down"
    codes = {d["dialect"]: d for d in out["dialects"]}
    assert list(codes) == list(DIALECTS)
    assert codes["ptx"]["code"] == "tcgen05.shift.cta_group::2.down [taddr1];"  # the line's own name kept
    assert codes["cutlass"]["code"] is None and "no tcgen05.shift atom" in codes["cutlass"]["notes"][0]
    assert codes["gluon"]["code"] is None and "Gluon has no tcgen05.shift" in codes["gluon"]["notes"][0]
    code, line, err = run(capsys, "ptx", "@%p1 tcgen05.shift.cta_group::1.down [%r2+16]; // x", "-e", "ptx")
    assert code == 0 and line == "@%p1 tcgen05.shift.cta_group::1.down [%r2+16];\n"  # guard and register kept
    assert "tmemviz: note: assembles with ptxas -arch=sm_100a" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--num", "x2"], "--num does not apply to tcgen05.shift"),
        (["--multicast", "warpx4"], "--multicast does not apply to tcgen05.shift"),
        (["--cta-group", "2"], "says .cta_group::1 but --cta-group says 2"),
        (["-e", "gluon"], "gluon cannot express tcgen05.shift.cta_group::1.down"),
        (["-e", "cutlass"], "cutlass cannot express"),
    ],
)
def test_ptx_command_refuses(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert message in bad(capsys, "ptx", "tcgen05.shift.cta_group::1.down [t];", *args)
