"""Real kernels (tests/kernels/README.md): K.cubin and K.sass explain the same tcgen05 work as K.ptx.

The work of a record: op, ld/st shape, .num, pack, ld.red op, cp shape and multicast and decompression,
mma kind (SASS may name two kinds where only the idesc would tell; the PTX one must be among them).
Instructions ptxas makes nothing of (waits, fences, relinquish) are left out of the PTX side; copies
ptxas made (a retried alloc, split halves) count once: the comparison is of sets.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import explained, pip_tool

import tmemviz
from tests.cli_run import bad, ok
from tmemviz.families.explain.pairing import NO_INSTRUCTION

KERNELS = Path(__file__).parents[1] / "kernels"
CUBINS = sorted(p.stem for p in KERNELS.glob("*.cubin"))
LISTINGS = sorted(p.stem for p in KERNELS.glob("*.sass"))


def files(*paths: Path) -> list[dict]:
    return tmemviz.explain(list(paths)).lists()[0][1]


def ptx_line(sass: dict, record: dict) -> int:
    """The PTX line the pairing says ``record`` implements."""
    where = record.get("address") or record["line"]
    (line,) = [p["ptx_line"] for p in sass["pairing"]["pairs"] if where in p["sass"]]
    return line


def work(record: dict) -> tuple:
    red = (record.get("red") or {}).get("op")
    fields = ("shape", "num", "pack", "multicast", "decompress")
    return (record["op"], *(record.get(f) for f in fields), red)


def kinds(records: list[dict]) -> list[set[str]]:
    return [set(r["kind"].split(" or ")) for r in records if r["op"] == "mma"]


def same_work(ptx: dict, sass: dict) -> None:
    p = [r for r in ptx["instructions"] if r["op"] not in NO_INSTRUCTION]
    s = sass["instructions"]
    assert all("error" not in r for r in s), [r["error"] for r in s if "error" in r]
    assert sass["warnings"] == []
    assert {work(r) for r in s} == {work(r) for r in p}
    ptx_kinds = {r["kind"] for r in p if r["op"] == "mma"}
    assert all(k & ptx_kinds for k in kinds(s)) and len(kinds(s)) >= len(ptx_kinds)
    for r in s:
        for name in r.get("registers") or ():
            assert re.fullmatch(r"R\d+|RZ", name)
        if r.get("cells"):
            assert all(re.fullmatch(r"R\d+|RZ", c["register"]) for c in r["cells"])


@pytest.fixture(scope="module")
def nvdisasm() -> str:
    found = pip_tool("nvdisasm")
    if found is None:
        pytest.skip("nvdisasm is absent: pip install 'tmemviz[test]' brings nvidia-cuda-nvdisasm")
    return found


@pytest.mark.parametrize("name", CUBINS)
def test_cubin_explains_the_ptx_work(name: str, nvdisasm: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(Path(nvdisasm).parent), prepend=":")
    ptx, sass = explained(KERNELS / f"{name}.ptx", KERNELS / f"{name}.cubin")
    assert sass["language"] == "sass" and sass["target"] == ptx["target"]
    same_work(ptx, sass)
    # ptxas -lineinfo: each tcgen05 instruction has its Python line (hand-written PTX has none).
    if ".loc" in (KERNELS / f"{name}.ptx").read_text():
        lines = [r.get("source", {}).get("file", "") for r in sass["instructions"] if r["op"] != "dealloc"]
        assert all(f.endswith(".py") for f in lines)


@pytest.mark.parametrize("name", LISTINGS)
def test_listing_explains_the_ptx_work(name: str) -> None:
    ptx, sass = files(KERNELS / f"{name}.ptx", KERNELS / f"{name}.sass")
    same_work(ptx, sass)


def test_fixtures_cover_the_forms() -> None:
    assert {"triton_split_16x32bx2", "triton_mma_scaled"} <= set(LISTINGS)
    assert len(CUBINS) >= 6


def test_split_pairing_says_which_threads_and_the_split() -> None:
    ptx, sass = files(KERNELS / "triton_split_16x32bx2.ptx", KERNELS / "triton_split_16x32bx2.sass")
    halves = [r for r in sass["instructions"] if r.get("shape") == "16x32bx2"]
    assert [r["threads"] for r in halves] == [[0, 15], [16, 31]] * 4
    assert all(r["split_offset"] == 8 for r in halves)
    # The second half's address carries the split offset: +0x8 after +0x0, +0x18 after +0x10.
    assert [r["offset"]["col"] for r in halves] == [0, 8, 16, 24] * 2
    # PTX [%r2 + 16], 8: the SASS pair at +0x10/+0x18 is that line, the pair at +0x0/+0x8 the other.
    pairs = {p["ptx_line"]: p for p in sass["pairing"]["pairs"]}
    lines = [r["line"] for r in ptx["instructions"] if r["op"] in ("ld", "st")]
    assert all(len(pairs[n]["sass"]) == 2 and "split" in " ".join(pairs[n]["notes"]) for n in lines)
    for r in halves:
        owner = next(p for p in ptx["instructions"] if p["line"] == ptx_line(sass, r))
        assert owner["offset"]["col"] == r["offset"]["col"] - (8 if r["threads"] == [16, 31] else 0)
        assert owner["op"] == r["op"]
    assert sass["pairing"]["sass_without_ptx"] == []


def test_register_vector_of_a_real_kernel() -> None:
    """LDTM R12 of the split kernel: the PTX vector {%r19..%r26} is R12..R19, the cells the same."""
    ptx, sass = files(KERNELS / "triton_split_16x32bx2.ptx", KERNELS / "triton_split_16x32bx2.sass")
    first_ld = next(r for r in sass["instructions"] if r["op"] == "ld")
    assert first_ld["registers"] == [f"R{n}" for n in range(12, 20)]
    owner = next(p for p in ptx["instructions"] if p["line"] == ptx_line(sass, first_ld))
    mine = {(c["thread"], c["reg"], c["lane"], c["col"]) for c in first_ld["cells"]}
    theirs = {(c["thread"], c["reg"], c["lane"], c["col"]) for c in owner["cells"] if c["thread"] < 16}
    assert mine == theirs


def test_mma_scaled_kind_and_idesc_from_the_listing() -> None:
    ptx, sass = files(KERNELS / "triton_mma_scaled.ptx", KERNELS / "triton_mma_scaled.sass")
    mmas = [r for r in sass["instructions"] if r["op"] == "mma"]
    assert {r["kind"] for r in mmas} == {"mxf8f6f4"}
    assert {r["idesc"]["value"] for r in mmas if r["idesc"]} <= {
        r["idesc"]["value"] for r in ptx["instructions"] if r["op"] == "mma"
    }
    assert all(r["block_scale"] for r in mmas)


def test_cli_reads_a_listing_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    text = (KERNELS / "triton_split_16x32bx2.sass").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
    out = ok(capsys, "explain", "-", "-f", "json")
    assert '"language": "sass"' in out and "16dp32bit_t16_t31" in out


def test_a_listing_has_no_tmem_map_and_says_why(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    line = bad(capsys, "explain", str(KERNELS / "triton_mma_scaled.sass"), "-o", str(tmp_path / "m.png"))
    assert "is SASS" in line and "give the PTX" in line and not (tmp_path / "m.png").exists()


def test_cubin_without_nvdisasm_is_one_sentence(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("tmemviz.sass.cubin.find_nvdisasm", lambda: None)
    message = bad(capsys, "explain", str(KERNELS / "triton_st_16x64b.cubin"))
    assert "nvdisasm" in message and "nvidia-cuda-nvdisasm" in message and "pip install '.[sass]'" in message
    assert message.count("\n") <= 1


def test_an_elf_nvdisasm_refuses_is_one_sentence(
    capsys: pytest.CaptureFixture[str], nvdisasm: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(Path(nvdisasm).parent), prepend=":")
    broken = tmp_path / "k.cubin"
    broken.write_bytes(b"\x7fELF" + b"\0" * 60)
    message = bad(capsys, "explain", str(broken))
    assert message.startswith("error:") or "nvdisasm" in message


def _ptx_vector_offsets(text: str) -> dict[str, int]:
    """PTX register -> byte offset (from the first store's address) its doubled value is stored at."""
    base: dict[str, tuple[str, int]] = {}
    for m in re.finditer(r"add\.s64\s+(%rd\d+),\s*(%rd\d+),\s*(\d+);", text):
        base[m.group(1)] = (m.group(2), int(m.group(3)))
    doubled = dict(re.findall(r"add\.f32\s+(%r\d+),\s*(%r\d+),\s*\2;", text))
    out = {}
    for address, register in re.findall(r"st\.global\.b32 \[ (%rd\d+) \+ 0 \], \{ (%r\d+) \};", text):
        out[doubled[register]] = base.get(address, (address, 0))[1]
    return out


def _sass_register_offsets(text: str) -> dict[str, int]:
    """SASS register -> byte offset its doubled value (FADD Rd, Rs, Rs) is stored at (STG.E [R..+off])."""
    doubled = {d: s for d, s in re.findall(r"FADD (R\d+), (R\d+), \2 ;", text)}
    out = {}
    for offset, register in re.findall(
        r"STG\.E desc\[UR\d+\]\[R\d+\.64(?:\+(0x[0-9a-f]+))?\], (R\d+) ;", text
    ):
        out[doubled[register]] = int(offset or "0", 16)
    return out


def test_vector_registers_checked_on_a_real_kernel() -> None:
    """Triton's split kernel doubles every loaded value and stores it: element i of each PTX vector and
    register R<n+i> of the SASS instruction (R<n> named) land at the same global offset."""
    name = "triton_split_16x32bx2"
    ptx, sass = files(KERNELS / f"{name}.ptx", KERNELS / f"{name}.sass")
    ptx_at = _ptx_vector_offsets((KERNELS / f"{name}.ptx").read_text())
    sass_at = _sass_register_offsets((KERNELS / f"{name}.sass").read_text())
    loads = [r for r in sass["instructions"] if r["op"] == "ld" and r["threads"] == [0, 15]]
    assert len(loads) == 2
    checked = 0
    for s in loads:
        p = next(r for r in ptx["instructions"] if r["line"] == ptx_line(sass, s))
        for ptx_name, sass_name in zip(p["registers"], s["registers"], strict=True):
            assert ptx_at[ptx_name] == sass_at[sass_name], (ptx_name, sass_name)
            checked += 1
    assert checked == 16


@pytest.mark.parametrize("name", sorted(p.stem for p in KERNELS.glob("*.ptx")))
def test_every_ptx_fixture_assembled_here_explains_the_same_work(
    name: str, sass_tools: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every PTX fixture (Triton, CuTe DSL, nvcc, hand-written), assembled by ptxas 13.5 here as the
    committed cubins were (``-lineinfo``; the cubin stays in a temporary directory): its SASS explains
    the same tcgen05 work, and the pairing puts each SASS instruction on the PTX line ptxas says it
    comes from (the module assembled with each instruction's own PTX line as its debug line)."""
    source = KERNELS / f"{name}.ptx"
    cubin = assembled(source, sass_tools, tmp_path)
    monkeypatch.setenv("PATH", str(Path(sass_tools[1]).parent), prepend=":")
    ptx, sass = explained(source, cubin)
    same_work(ptx, sass)
    assert sass["pairing"]["sass_without_ptx"] == []
    assert misplaced(sass) == []
    compared = same_idesc(ptx, sass)
    assert shape_known(ptx, sass) == []
    # The kernels that build their descriptors in uniform registers (UPRMT, ULOP3, USHF, UIADD3, USEL
    # over loops and branches) are compared, not skipped.
    if name in ("cutlass_example72_nvfp4_gemm", "cute_dsl_fmha", "cute_dsl_gemm", "sass_idesc_flow"):
        assert compared >= 2


@functools.cache
def _line_tags() -> Any:
    """benchmarks/waits_in_sass.py, which tags each instruction with its own line; loaded by path, once
    (benchmarks/ is no package, and its check.py must not shadow the tests' own check package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "waits_in_sass", KERNELS.parents[1] / "benchmarks" / "waits_in_sass.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assembled(source: Path, sass_tools: tuple[str, str], tmp_path: Path) -> Path:
    """``source`` assembled by ptxas 13.5 with each instruction's own PTX line as its debug line (so
    nvdisasm -g names the PTX line each SASS instruction comes from)."""
    import subprocess

    text = source.read_text()
    target = re.search(r"^\s*\.target\s+(sm_\w+)", text, re.MULTILINE).group(1)
    cubin, lined = tmp_path / f"{source.stem}.cubin", tmp_path / "k.ptx"
    lined.write_text(_line_tags().tagged(text))
    done = subprocess.run(
        [sass_tools[0], f"-arch={target}", "-lineinfo", str(lined), "-o", str(cubin)], capture_output=True,
        text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return cubin


def misplaced(sass: dict) -> list[tuple[int, int]]:
    """(the PTX line the pairing says, the one ptxas says) for each SASS instruction they differ on; every
    PTX line must have its SASS too."""
    truth = {
        (r["function"], r.get("address")): (r.get("source") or {}).get("line") for r in sass["instructions"]
    }
    placed = [(p["ptx_line"], truth[p["function"], a]) for p in sass["pairing"]["pairs"] for a in p["sass"]]
    lonely = [
        (p["ptx_line"], 0)
        for p in sass["pairing"]["pairs"]
        if not p["sass"] and p["op"] not in NO_INSTRUCTION
    ]
    assert placed
    return [x for x in placed if x[0] != x[1]] + lonely


@pytest.mark.parametrize("name", sorted(p.name for p in (KERNELS / "moved").glob("*.ptx")))
def test_pairing_finds_blocks_ptxas_moved(
    name: str, sass_tools: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kernels whose blocks ptxas lays out in another order than the PTX's (a persistent warp-specialized
    Gluon GEMM, CUTLASS's grouped GEMM): each SASS tcgen05 instruction is paired with the PTX line ptxas
    says it comes from, and every PTX line finds its SASS (pairing in order alone misplaced some)."""
    source = KERNELS / "moved" / name
    cubin = assembled(source, sass_tools, tmp_path)
    monkeypatch.setenv("PATH", str(Path(sass_tools[1]).parent), prepend=":")
    _, sass = files(source, cubin)
    assert misplaced(sass) == []
    assert sass["pairing"]["sass_without_ptx"] == []


def shape_known(ptx: dict, sass: dict) -> list[str]:
    """The SASS MMAs whose M or N the SASS alone does not tell where their PTX line's idesc does (its
    constants followed through uniform and general registers, ``R2UR`` under ``ELECT``)."""
    by_line = {r["line"]: r for r in ptx["instructions"]}
    where = {a: p["ptx_line"] for p in sass["pairing"]["pairs"] for a in p["sass"]}
    missing = []
    for r in sass["instructions"]:
        if r["op"] != "mma":
            continue
        theirs = by_line[where[r["address"]]].get("idesc") or {}
        mine = {} if "idesc_from" in r else r.get("idesc") or {}
        if (
            theirs.get("m")
            and theirs.get("n")
            and (mine.get("m"), mine.get("n")) != (theirs["m"], theirs["n"])
        ):
            missing.append(f"{r['address']} {r['sass']}")
    return missing


def same_idesc(ptx: dict, sass: dict) -> int:
    """Each MMA whose idesc the SASS decodes by itself (uniform-register constants over the function's
    graph) allows every value its PTX line's idesc may hold, bit for bit where both know the bit: the
    SASS reading is never narrower than the PTX nor different from it. Returns how many were compared."""
    from tmemviz.families.explain.pairing import idesc_value

    by_line = {r["line"]: r for r in ptx["instructions"]}
    where = {a: p["ptx_line"] for p in sass["pairing"]["pairs"] for a in p["sass"]}
    compared = 0
    for r in sass["instructions"]:
        if r["op"] != "mma" or r.get("idesc") is None or "idesc_from" in r:
            continue
        mine = idesc_value(r["idesc"])
        theirs = idesc_value(by_line[where[r["address"]]].get("idesc"))
        if theirs is None:
            continue
        for t in theirs:
            assert any(
                (t.value ^ s.value) & t.known & s.known == 0 and s.known & ~t.known == 0 for s in mine
            ), (r["sass"], r["idesc"], by_line[where[r["address"]]]["idesc"])
        compared += 1
    return compared


def _streamed(paths: list[Path]) -> str:
    import io

    from tmemviz.api import catalog
    from tmemviz.families.explain.ops import Explainer
    from tmemviz.families.explain.source import scanned
    from tmemviz.families.explain.stream import write_json

    out = io.BytesIO()
    explainer = Explainer(catalog())
    write_json(scanned(paths, None, explainer), explainer, out.write)
    return out.getvalue().decode()


@pytest.mark.parametrize("name", LISTINGS)
def test_streamed_json_with_pairing_is_the_documents(name: str) -> None:
    paths = [KERNELS / f"{name}.ptx", KERNELS / f"{name}.sass"]
    text = _streamed(paths)
    assert text == tmemviz.explain(paths).to_json()
    assert '"language": "sass", "pairing": {"paired_with"' in text


@pytest.mark.parametrize("name", LISTINGS)
def test_table_from_row_sized_records_is_the_documents(
    name: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    paths = [str(KERNELS / f"{name}.ptx"), str(KERNELS / f"{name}.sass")]
    ok(capsys, "explain", *paths, "-o", str(tmp_path / "a.txt"))
    tmemviz.explain(paths).save(tmp_path / "b.txt")
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()
    assert "implements PTX line" in (tmp_path / "a.txt").read_text()
