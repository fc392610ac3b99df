"""Scale-factor figures say what the layout says: every TMEM byte and every chunk byte, labelled by its SF."""

from __future__ import annotations

from pathlib import Path

import pytest

from tmemviz.catalog import Catalog
from tmemviz.draw.html import page
from tmemviz.families.scales import figures, layout
from tmemviz.families.scales.spelling import resolve_scales

CASES = [("A", 32, "mxf4", 128, 256), ("B", 16, None, 192, 128), ("B", 32, None, 64, 128)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_every_box_names_the_scale_factor_there(catalog: Catalog, case) -> None:
    operand, vec, kind, extent, k = case
    given = {"m": extent} if operand == "A" else {"n": extent}
    s = resolve_scales(catalog, operand=operand, sf_vec=vec, k=k, kind=kind, **given)
    spec = figures.scales_spec(s, detail="all")
    *tmem, chunk = spec.panels
    seen = 0
    for panel in tmem:
        for box in panel.boxes:
            data = dict(box.data)
            if not data:
                assert box.label == "" and "padding" in box.tooltip
                continue
            row, kb = int(data["row"]), int(data["kblock"])
            spot = (int(data["lane"]), int(data["col"]), int(data["byte"]))
            assert box.label == f"{row}:{kb}"
            assert (0, *spot) in {tuple(x) for x in layout.landings(s, row, kb)}
            assert int(data["smem"]) == layout.smem_byte(s, row, kb)
            seen += 1
    assert seen == s.rows * s.kblocks, "each scale factor once in lanes 0..31"
    assert sum(len(p.boxes) for p in tmem) == 32 * 4 * s.columns
    first = layout.transfers(s)[0]
    for box in chunk.boxes:
        data = dict(box.data)
        if data:
            assert (
                layout.smem_byte(s, int(data["row"]), int(data["kblock"])) == first.smem + 16 * box.y + box.x
            )
    assert page(spec).startswith(b"<!DOCTYPE html>")


def test_gallery_entries_build(catalog: Catalog) -> None:
    entries = figures.gallery_entries(catalog)
    assert [e.name for e in entries] == [
        "scales.mxf8f6f4.sfa.block32",
        "scales.mxf4.sfa.block32",
        "scales.mxf4nvf4.sfb.block16",
    ]
    for e in entries:
        spec = e.build()
        assert spec.panels and ".scale_vec::" in spec.title


def test_cta_group_2_figure_shows_the_asked_ctas_rows(catalog: Catalog) -> None:
    s = resolve_scales(catalog, operand="A", sf_vec=32, m=256, k=128, cta_group=2)
    for cta in (0, 1):
        spec = figures.scales_spec(s, cta=cta)
        rows = {int(dict(b.data)["row"]) for p in spec.panels for b in p.boxes if b.data}
        assert rows == set(range(128 * cta, 128 * cta + 128))
        assert f"TMEM of CTA {cta}" in spec.panels[0].title and f"in CTA {cta}" in spec.panels[-1].title


def check_schematic(s, spec, stride: int = 1) -> None:  # type: ignore[no-untyped-def]
    """Every TMEM byte of lanes 0..31 is one field cell naming a distinct SF; every ``stride``-th cell is
    checked against the forward mapping (where the SF's copy lands it) and its shared-memory byte."""
    *tmem, _ = spec.panels
    seen = set()
    columns = set()
    for panel in tmem:
        assert not panel.boxes
        (field,) = panel.fields
        assert field.rows == 32 and field.cols <= figures.SCHEMATIC_SLOTS
        for i in range(field.size):
            r = field.record(i)
            assert r["lane"] == i // field.cols
            columns.add(r["col"])
            if field.colors[i] == figures.PAD_COLOR:
                assert r["row"] == -1 and field.tooltip_of(i).endswith(": padding")
                assert layout.source_of(s, r["lane"], r["col"], r["byte"]) is None
                continue
            row, kb = r["row"], r["kblock"]
            assert (row, kb) not in seen
            seen.add((row, kb))
            if i % stride:
                continue
            assert (0, r["lane"], r["col"], r["byte"]) in {tuple(x) for x in layout.landings(s, row, kb)}
            assert r["smem"] == layout.smem_byte(s, row, kb) and r["mma"] == kb // s.per_mma
            assert field.tooltip_of(i).startswith(f"SF{s.operand}[{row}][{kb}] -> lane {r['lane']} ")
    assert len(seen) == s.rows * s.kblocks
    assert columns == set(range(s.col0, s.col0 + s.columns))


def test_big_figures_are_schematics_unless_asked(catalog: Catalog) -> None:
    from tmemviz.draw.spec import LABEL_LIMIT

    s = resolve_scales(catalog, operand="B", sf_vec=16, n=256, k=256)
    auto = figures.scales_spec(s)
    assert sum(1 for b in auto.boxes if b.label) <= LABEL_LIMIT and "schematic" in auto.caption
    check_schematic(s, auto)
    full = figures.scales_spec(s, detail="all")
    assert sum(1 for b in full.boxes if b.label) == 32 * 4 * s.columns + 32 * 16
    small = figures.scales_spec(resolve_scales(catalog, operand="A", sf_vec=32, m=128, k=128))
    assert "schematic" not in small.caption
    padded = resolve_scales(catalog, operand="B", sf_vec=16, n=192, k=128)
    check_schematic(padded, figures.scales_spec(padded, detail="schematic"))


def test_p18_big_map_is_a_light_schematic(tmp_path: Path) -> None:
    """P18: this map was an 18 MB SVG (840 MB to draw as PNG); a schematic: PNG <= 1 MB, SVG/HTML <= 2 MB."""
    import tmemviz

    doc = tmemviz.scales(operand="B", sf_vec=16, n=256, k=2048, cta_group=2)
    spec = doc.figure("auto")
    check_schematic(doc.subject, spec, stride=61)
    assert len(spec.panels) == 5  # 1024 bytes across in four images of 256, and the chunk
    for suffix, limit in (("png", 1 << 20), ("svg", 2 << 20), ("html", 2 << 20)):
        assert doc.save(tmp_path / f"s.{suffix}").stat().st_size <= limit, suffix
