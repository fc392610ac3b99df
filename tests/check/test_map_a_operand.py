"""An MMA reading A from Tensor Memory (``[a-tmem]``): explain's record carries A's address, the map
draws A in its own band, and check's rules see the cells A reads."""

from __future__ import annotations

from pathlib import Path

from ptxas_run import assemble_lines

import tmemviz
from tmemviz.families.explain.mapbands import KINDS
from tmemviz.families.explain.regions import a_extent, footprints

KERNELS = Path(__file__).parents[1] / "kernels"
OWN = KERNELS / "check_a_in_tmem.ptx"
"""Ours: four warps store A (columns 64-71), one thread's kind::tf32 MMA reads it into D (columns 0-63)."""


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_ptxas_assembles_the_kernel(ptxas: str, tmp_path: Path) -> None:
    lines = OWN.read_text().splitlines()
    where = {i: line.strip() for i, line in enumerate(lines, 1) if "tcgen05." in line}
    status, rejected = assemble_lines(ptxas, tmp_path, lines, where)
    assert status == 0 and not rejected, rejected


def test_the_record_carries_a_s_address() -> None:
    (mma,) = [i for i in tmemviz.explain(OWN).cells[0]["instructions"] if i["op"] == "mma"]
    assert mma["a_in_tmem"] and mma["a_tmem"] == {"base": "%r7", "lane": 0, "col": 0}
    assert mma["layout"] == "D" and mma["idesc"]["n"] == 64
    assert ("A", "%r7", (0, 127), (0, 7)) in footprints(mma)


def test_a_has_its_band_where_the_stores_put_it() -> None:
    text = OWN.read_text()
    mma = line_of(text, "@%p2 tcgen05.mma")
    (checked,) = tmemviz.check(OWN).subject
    assert not [f for f in checked.findings if f.severity != "note"], "the kernel is clean"
    (regions,) = checked.regions.values()
    (a,) = [r for r in regions if r.line == mma and r.what == "A"]
    assert (a.lanes, a.cols, a.writes, a.exact) == ((0, 127), (64, 71), False, True)
    stored = {r.cols for r in regions if r.op == "st"}
    assert stored == {a.cols}, "A is read where the four warps stored it"
    spec = tmemviz.check(OWN).figure("auto")
    names = [n.text for p in spec.panels for n in p.notes]
    assert "A operand in Tensor Memory, issued by warp 0" in names
    boxes = [b for p in spec.panels for b in p.boxes if b.fill == KINDS["A"][1] and b.data]
    assert boxes and all(b.data[0] == ("line", str(mma)) for b in boxes)
    assert any(s.label == KINDS["A"][0] for s in spec.legend)


def test_a_store_not_waited_for_before_the_mma_reading_it_is_found() -> None:
    """Before A's cells were known, an MMA reading A right after the tcgen05.st writing it passed."""
    text = OWN.read_text().replace("\ttcgen05.wait::st.sync.aligned;\n", "")
    found = [(f.line, f.severity, f.rule) for f in tmemviz.check(text=text).subject[0].findings]
    assert (line_of(text, "@%p2 tcgen05.mma"), "warning", "wait-ld") in found


def test_a_past_the_allocation_is_found() -> None:
    """A at columns 64-71 of a 64-column allocation: the MMA reads past it."""
    text = OWN.read_text().replace("b32 [%r3], 128;", "b32 [%r3], 64;").replace("%r4, 128;", "%r4, 64;")
    found = tmemviz.check(text=text).subject[0].findings
    mma = line_of(text, "@%p2 tcgen05.mma")
    assert any(f.line == mma and f.rule == "outside-allocation" and "(A)" in f.message for f in found)


def test_the_attention_kernel_reads_p_as_a_from_tensor_memory() -> None:
    """CuTe DSL's attention kernel: P (the softmax, stored with tcgen05.st) is the second MMA's A."""
    (checked,) = tmemviz.check(KERNELS / "cute_dsl_fmha.ptx").subject
    (regions,) = checked.regions.values()
    a = sorted({r.cols for r in regions if r.what == "A"})
    assert len(a) == 8 and all(hi - lo == 7 for lo, hi in a), "one K step of 8 columns per MMA"
    assert (a[0][0], a[-1][1]) == (256, 319)


def test_where_a_s_cells_are_not_known_only_its_first_cell_is_claimed() -> None:
    record = {"op": "mma", "kind": "f8f6f4", "sparse": False, "layout": "D", "idesc": {"n": 64},
              "d": {"base": None}, "a_tmem": {"base": "%r2", "lane": 0, "col": 16}}  # fmt: skip
    assert footprints(record) == [("A's first cell", "%r2", (0, 0), (16, 16))]
    assert a_extent({**record, "kind": "f16", "sparse": True}) is None
    assert a_extent({**record, "kind": "f16", "layout": "F"}) is not None
