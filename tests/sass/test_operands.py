"""Operand forms of real cubins, on kernels of our own (tests/kernels/sass_operands, sass_sm103a:
hand-written PTX, ptxas 13.5): negative and carrying address immediates, constant addresses, RZ stores,
and the sm_103a MMA forms, each explained with no warning and the same cells as its PTX line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import explained, pip_tool

KERNELS = Path(__file__).parents[1] / "kernels"


@pytest.fixture(scope="module")
def pair(request: pytest.FixtureRequest) -> dict[str, tuple[dict, dict]]:
    nvdisasm = pip_tool("nvdisasm")
    if nvdisasm is None:
        pytest.skip("nvdisasm is absent: pip install 'tmemviz[test]' brings nvidia-cuda-nvdisasm")
    monkey = pytest.MonkeyPatch()
    monkey.setenv("PATH", str(Path(nvdisasm).parent), prepend=":")
    request.addfinalizer(monkey.undo)
    out = {}
    for name in ("sass_operands", "sass_sm103a"):
        ptx, sass = explained(KERNELS / f"{name}.ptx", KERNELS / f"{name}.cubin")
        assert sass["warnings"] == [] and ptx["warnings"] == []
        assert not [r for r in sass["instructions"] if "error" in r]
        out[name] = (ptx, sass)
    return out


def by_sass(document: dict) -> dict[str, dict]:
    return {r["sass"]: r for r in document["instructions"]}


def cells(record: dict) -> set[tuple]:
    return {(c["thread"], c["reg"], c["lane"], c["col"]) for c in record["cells"]}


def moved(record: dict, lane: int, col: int) -> set[tuple]:
    return {(t, r, la + lane, co + col) for t, r, la, co in cells(record)}


def ptx_of(ptx: dict, sass: dict, record: dict) -> dict:
    (line,) = [p["ptx_line"] for p in sass["pairing"]["pairs"] if record["address"] in p["sass"]]
    return next(r for r in ptx["instructions"] if r["line"] == line)


def test_negative_and_carrying_immediates(pair: dict) -> None:
    """The PTX adds -128, +128, +65408 (lane + 1, -128 columns) and -64 to one register; SASS folds them
    into the immediates of one uniform register each: relative to it, the same cells moved by that."""
    ptx, sass = pair["sass_operands"]
    got = by_sass(sass)
    folded = (("LDTM.x2 R6, tmem[UR4+-0x80]", (0, -128)), ("LDTM.x2 R8, tmem[UR5+0x80]", (0, 128)),
              ("LDTM.16dp64bit R10, tmem[UR6+0xff80]", (1, -128)))  # fmt: skip
    for text, (lane, col) in folded:
        r = got[text]
        assert r["offset"] == {"lane": lane, "col": col}
        assert cells(r) == moved(ptx_of(ptx, sass, r), lane, col), text
    first, second = (
        got["STTM.16dp32bit_t0_t15.x2 tmem[UR6+-0x40], R6"],
        got["STTM.16dp32bit_t16_t31.x2 tmem[UR6+-0x20], R6"],
    )
    assert first["split_offset"] == second["split_offset"] == 32
    assert cells(first) | cells(second) == moved(ptx_of(ptx, sass, first), 0, -64)
    assert "columns -64..-63 relative to UR6" in first["summary"]


def test_constant_addresses(pair: dict) -> None:
    ptx, sass = pair["sass_operands"]
    got = by_sass(sass)
    for text, (lane, col) in (("LDTM.16dp64bit.x2 R2, tmem[0x100008]", (16, 8)),
                              ("STTM.16dp256bit tmem[0x8], R4", (0, 8))):  # fmt: skip
        r = got[text]
        assert r["base"] is None and r["offset"] == {"lane": lane, "col": col}
        assert cells(r) == moved(ptx_of(ptx, sass, r), lane, col)
    cp = got["UTCCP.T.S tmem[0x40], gdesc[UR6]"]
    assert cp["base"] is None and cp["offset"] == {"lane": 0, "col": 64} and "columns 64..71" in cp["summary"]


def test_a_store_of_zeros(pair: dict) -> None:
    """STTM.x8 tmem[UR4], RZ: the vector is all RZ (ptxas names RZ only for a vector of zeros)."""
    ptx, sass = pair["sass_operands"]
    for text in ("STTM.x8 tmem[UR4], RZ", "STTM.16dp256bit tmem[UR5+0x8], RZ"):
        r = by_sass(sass)[text]
        assert set(r["registers"]) == {"RZ"} and {c["register"] for c in r["cells"]} == {"RZ"}
        assert cells(r) == cells(ptx_of(ptx, sass, r)) and "reads as zero" in r["summary"]


def test_sm103a_mma_forms(pair: dict) -> None:
    ptx, sass = pair["sass_sm103a"]
    mmas = {r["sass"].split()[0]: r for r in sass["instructions"] if r["op"] == "mma"}
    assert set(mmas) == {"UTCOMMA.BLOCK16", "UTCHMMA", "UTCHMMA.ASHIFT", "UTCQMMA.WS"}
    assert mmas["UTCOMMA.BLOCK16"]["kind"] == "mxf4nvf4" and mmas["UTCOMMA.BLOCK16"]["scale_vec"] == "block16"
    scaled = mmas["UTCHMMA"]
    assert scaled["kind"] == "f16" and re.search(r", !?UP(T|\d+), 4;$", scaled["ptx"])  # scale-input-d
    assert ".ashift" in mmas["UTCHMMA.ASHIFT"]["ptx"] and mmas["UTCHMMA.ASHIFT"]["kind"] == "tf32"
    ws = mmas["UTCQMMA.WS"]
    assert (
        ws["ws"] and ws["layout"] == "E" and re.search(r", !?UP(T|\d+), UR\d+;$", ws["ptx"])
    )  # the zero-column mask
    for r in mmas.values():  # every idesc a constant: decoded, the same as the PTX's
        assert r["idesc"]["value"] == ptx_of(ptx, sass, r)["idesc"]["value"] and "idesc_from" not in r
