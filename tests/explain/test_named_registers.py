"""Registers named without ``%`` (PTX ISA "Identifiers", ``.reg``), scale-factor addresses' bytes (bits
31:30) against the idesc's SF IDs, and scale-input-d: hand-written PTX, assembled by ptxas -arch=sm_100a
where it is installed (each kernel here is one ptxas accepts, or refuses for the reason said)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import tmemviz
from tmemviz.ptx.stream import events

HEAD = ".version 8.8\n.target sm_100a\n.address_size 64\n\n.visible .entry k(.param .u64 p)\n{\n"

NAMED = (
    HEAD
    + """\
.reg .b64 %rd<4>;
.reg .b32 tmem_acc, x<3>;
.reg .pred P;
.reg .b32 acc<4>;
ld.param.u64 %rd1, [p];
mov.b64 %rd2, %rd1;
ld.shared.u32 tmem_acc, [%rd1];
setp.ne.b64 P, %rd1, 0;
{
.reg .b32 idesc;
mov.b32 idesc, 0x08200490;
tcgen05.mma.cta_group::1.kind::f16 [tmem_acc], %rd1, %rd2, idesc, P;
mov.b32 my_idesc, 7;
tcgen05.mma.cta_group::1.kind::f16 [tmem_acc], %rd1, %rd2, idesc, 1, 8;
}
tcgen05.ld.sync.aligned.32x32b.x4.b32 {acc0, acc1, acc2, acc3}, [tmem_acc + 16];
add.s32 x0, acc0, acc1;
bar.sync 0;
ret;
}
"""
)
"""The CuTe DSL attention library's shape (an idesc and a TMEM address named without ``%``, an inline-asm
scope's own ``.reg``), a parameterized bare declaration (``acc<4>``), and a name that ends with another
(``my_idesc``, declared below)."""
NAMED = NAMED.replace(".reg .pred P;", ".reg .pred P;\n.reg .b32 my_idesc;")


def _ptxas() -> str | None:
    found = shutil.which("ptxas")
    try:
        import nvidia.cu13  # the test extra's nvidia-cuda-nvcc

        path = Path(nvidia.cu13.__path__[0]) / "bin" / "ptxas"
        return str(path) if path.exists() else found
    except ImportError:
        return found


def assemble(text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    ptxas = _ptxas()
    if ptxas is None:
        pytest.skip("no ptxas (the test extra's nvidia-cuda-nvcc)")
    source = tmp_path / "k.ptx"
    source.write_text(text)
    return subprocess.run(
        [ptxas, "-arch=sm_100a", str(source), "-o", str(tmp_path / "k.cubin")],
        capture_output=True,
        text=True,
        timeout=120,
    )


def explained(text: str) -> dict[str, Any]:
    return tmemviz.explain(text=text).lists()[0][1][0]


def mmas(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in record["instructions"] if i.get("op") == "mma"]


def test_named_registers_assemble(tmp_path: Path) -> None:
    result = assemble(NAMED, tmp_path)
    assert result.returncode == 0, result.stderr


def test_an_idesc_named_without_percent_decodes_m_and_n() -> None:
    f = explained(NAMED)
    first, second = mmas(f)
    for mma in (first, second):
        assert mma["idesc_operand"] == "idesc"
        assert (mma["idesc"]["m"], mma["idesc"]["n"], mma["idesc"]["a_type"]) == (128, 128, "BF16")
        assert mma["d"]["base"] == "tmem_acc" and mma["layout"] == "D"
        assert "is not a constant" not in mma["summary"]
    ld = next(i for i in f["instructions"] if i.get("op") == "ld")
    assert ld["base"] == "tmem_acc" and ld["registers"] == ["acc0", "acc1", "acc2", "acc3"]
    assert ld["offset"] == {"lane": 0, "col": 16}


@pytest.mark.parametrize(("consumed", "severity"), [(True, "note"), (False, "warning")])
def test_check_follows_a_load_into_named_registers(consumed: bool, severity: str) -> None:
    """check's wait-ld sees the load into acc0..acc3, a store to its cells before tcgen05.wait::ld, and
    whether a named register was consumed first (explain judges no order between instructions)."""
    store = "tcgen05.st.sync.aligned.32x32b.x1.b32 [tmem_acc + 16], {x1};\n"
    text = NAMED.replace("bar.sync 0;\n", store + "bar.sync 0;\n")
    text = text if consumed else text.replace("add.s32 x0, acc0, acc1;\n", "")
    (checked,) = tmemviz.check(text=text).subject
    lines = text.splitlines()
    st = lines.index(store.strip()) + 1
    ld = next(k for k, line in enumerate(lines, 1) if line.startswith("tcgen05.ld"))
    [finding] = [f for f in checked.findings if f.rule == "wait-ld"]
    assert (finding.line, finding.severity) == (st, severity)
    assert f"tcgen05.ld on line {ld}" in finding.message


@pytest.mark.parametrize("every", [False, True])
def test_both_readers_know_named_registers(every: bool) -> None:
    """explain's reader (values looked for when asked) and the eager one (check's) agree."""
    seen = []
    for e in events(NAMED.splitlines(keepends=True), every=every):
        if e.kind == "tcgen05" and e.line is not None and e.line.opcode.startswith("tcgen05.mma"):
            seen.append([b.value for b in e.fn.constants.get("idesc")])
    assert seen == [[0x08200490], [0x08200490]]


def test_a_declared_parameterized_name_is_a_register_of_the_body() -> None:
    from tmemviz.ptx.body import Collector

    collector = Collector()
    for e in events(NAMED.splitlines(keepends=True), every=True):
        collector.observe(e)
    collector.finish()
    [body] = collector.done
    add = next(i for i in body.instructions if i.head == "add")
    assert body.reads(add) == ["acc0", "acc1"] and body.writes(add) == ["x0"]
    assert "acc3" in body.names and "acc4" not in body.names and "my_idesc" in body.names


# -- scale-factor bytes ------------------------------------------------------------------------------


def scaled(byte_a: int, byte_b: int, sfa: int, sfb: int) -> str:
    """A block-scaled MMA whose scale-factor addresses name bytes ``byte_a``/``byte_b`` (bits 31:30) and
    whose idesc's SF IDs are ``sfa`` (bits 29-30) and ``sfb`` (bits 4-5)."""
    idesc = 0x08A00000 | sfa << 29 | sfb << 4  # kind::mxf8f6f4, E4M3 x E4M3, UE8M0, M = N = 128
    return (
        f"mov.b32 %r2, {idesc:#x};\nmov.b32 sfa, {byte_a << 30 | 0x100:#x};\n"
        f"mov.b32 sfb, {byte_b << 30 | 0x200:#x};\n"
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r1], %rd1, %rd1, %r2, [sfa], [sfb], %p1;\n"
    )


def scaled_kernel(body: str) -> str:
    return (
        HEAD + ".reg .b64 %rd<4>;\n.reg .b32 %r<30>;\n.reg .pred %p<2>;\n.reg .b32 sfa, sfb;\n"
        "ld.param.u64 %rd1, [p];\nld.shared.u32 %r24, [%rd1];\nsetp.ne.b64 %p1, %rd1, 0;\nmov.b32 %r1, 0;\n"
        + body
        + "ret;\n}\n"
    )


CASES = [(a, s) for a in range(4) for s in range(4)]


def test_every_byte_and_sf_id_assembles(tmp_path: Path) -> None:
    body = "".join(scaled(a, 3 - a, s, 3 - s) for a, s in CASES)
    result = assemble(scaled_kernel(body), tmp_path)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(("byte", "sf"), CASES)
def test_the_byte_and_the_sf_id_are_shown_and_differing_is_no_warning(byte: int, sf: int) -> None:
    f = explained(scaled_kernel(scaled(byte, 3 - byte, sf, 3 - sf)))
    [mma] = mmas(f)
    # lane and column relative to the register (as an ld/st's); the byte is the address's own
    assert mma["scale_a"] == {"base": "sfa", "lane": 0, "col": 0, "byte": byte}
    assert mma["scale_b"] == {"base": "sfb", "lane": 0, "col": 0, "byte": 3 - byte}
    assert (mma["idesc"]["sfa_id"], mma["idesc"]["sfb_id"]) == (sf, 3 - sf)
    assert f"A scale factors at sfa + lane 0, column 0, byte {byte}" in mma["summary"]
    # A fixed address with the SF ID stepped along K is how DeepGEMM and TensorRT-LLM's shipped kernels
    # pick each K step's byte (flashinfer-cubin 0.6.13); CUTLASS keeps the two equal: neither is a bug.
    assert not [w for w in f["warnings"] if "scale-factor" in w["message"]]


def test_a_byte_in_the_immediate_over_an_unknown_base_is_relative_and_judged_nowhere() -> None:
    """CUTLASS's ``base + 0x40000000 + 464``: lane 0, column 464; the byte is 1 above the base's, whose
    value explain does not know (check knows the allocation): no lane 16384, no warning."""
    body = (
        "mov.b32 %r2, 0x08a00000;\n"
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r1], %rd1, %rd1, %r2, [%r24+1073742288], "
        "[%r24], %p1;\n"
    )
    f = explained(scaled_kernel(body))
    [mma] = mmas(f)
    assert mma["scale_a"] == {"base": "%r24", "lane": 0, "col": 464, "byte": None, "byte_offset": 1}
    assert mma["scale_b"] == {"base": "%r24", "lane": 0, "col": 0, "byte": None}
    assert not [w for w in f["warnings"] if "scale-factor" in w["message"]]


def test_a_choice_of_idescs_shows_the_sf_id_they_share() -> None:
    body = (
        "selp.b32 %r3, 0x08a00000, 0x08a02000, %p1;\nor.b32 %r2, %r3, 0x40000000;\n"  # SF A ID 2 either way
        "mov.b32 sfa, 0x40000000;\nmov.b32 sfb, 0;\n"
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r1], %rd1, %rd1, %r2, [sfa], [sfb], %p1;\n"
    )
    f = explained(scaled_kernel(body))
    [mma] = mmas(f)
    assert mma["idesc"]["sfa_id"] == 2 and mma["scale_a"]["byte"] == 1
    assert not [w for w in f["warnings"] if "scale-factor" in w["message"]]


# -- scale-input-d ----------------------------------------------------------------------------------


def dense(kind: str, operands: str) -> str:
    """One MMA of ``kind`` whose operands after A and B are ``operands`` (idesc 0x08200490 in %r2)."""
    return HEAD + (
        ".reg .b64 %rd<4>;\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\nld.param.u64 %rd1, [p];\n"
        "setp.ne.b64 %p1, %rd1, 0;\nmov.b32 %r1, 0;\nmov.b32 %r2, 0x08200490;\n"
        f"tcgen05.mma.cta_group::1.kind::{kind} [%r1], %rd1, %rd1, {operands};\nret;\n}}\n"
    )


@pytest.mark.parametrize(
    ("enable", "scale", "computes"),
    [
        ("%p1", "", "D = A x B + D where %p1 is true, D = A x B where it is false"),
        ("%p1", ", 8", "D = A x B + D x 2^-8 where %p1 is true, D = A x B where it is false"),
        ("1", ", 15", "D = A x B + D x 2^-15"),
        ("1", ", 0", "D = A x B + D"),
        ("0", ", 3", "D = A x B"),
    ],
)
def test_scale_input_d_is_explained_as_what_d_becomes(enable: str, scale: str, computes: str) -> None:
    f = explained(dense("f16", f"%r2, {enable}{scale}"))
    [mma] = mmas(f)
    assert mma["computes"] == computes and computes in mma["summary"]
    assert mma["scale_input_d"] == (int(scale[2:]) if scale else None) and mma["enable_input_d"] == enable
    assert not [w for w in f["warnings"] if "scale-input-d" in w["message"]]


@pytest.mark.parametrize(
    ("kind", "scale", "said", "ptxas_accepts"),
    [
        ("f16", 16, "scale-input-d 16 is out of range", False),
        ("tf32", 15, None, True),
        ("f8f6f4", 1, "not .kind::f8f6f4", False),
        ("i8", 2, "not .kind::i8 (PTX ISA tcgen05.mma); ptxas 13.0 and 13.5 accept it", True),
    ],
)
def test_a_scale_input_d_the_isa_does_not_allow_is_a_warning(
    kind: str, scale: int, said: str | None, ptxas_accepts: bool, tmp_path: Path
) -> None:
    text = dense(kind, f"%r2, %p1, {scale}")
    messages = [w["message"] for w in explained(text)["warnings"] if "scale-input-d" in w["message"]]
    assert (said is None and messages == []) or (said is not None and any(said in m for m in messages))
    if _ptxas() is not None:
        assert (assemble(text, tmp_path).returncode == 0) == ptxas_accepts


@pytest.mark.parametrize(
    "operands",
    ["%r2, %p1, %r3", "%r2, [%r1], [%r1], %p1, 4"],
    ids=["a register as scale-input-d", "an operand after a block-scaled MMA's enable-input-d"],
)
def test_what_no_mma_form_takes_after_enable_input_d_is_an_error(operands: str) -> None:
    kind = "f16" if operands.count("[") == 0 else "mxf8f6f4.block_scale"
    f = explained(dense(kind, operands))
    [mma] = mmas(f)
    assert "error" in mma and any("PTX 9.7.16.10.9" in w["message"] for w in f["warnings"])
