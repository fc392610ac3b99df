"""Scale-factor figures say what the layout says: every TMEM byte and every chunk byte, labelled by its SF."""

from __future__ import annotations

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


def test_big_figures_are_schematics_unless_asked(catalog: Catalog) -> None:
    from tmemviz.draw.spec import LABEL_LIMIT

    s = resolve_scales(catalog, operand="B", sf_vec=16, n=256, k=256)
    auto = figures.scales_spec(s)
    assert sum(1 for b in auto.boxes if b.label) <= LABEL_LIMIT and "schematic" in auto.caption
    assert all(b.tooltip for b in auto.boxes), "every byte keeps its SF in its tooltip"
    full = figures.scales_spec(s, detail="all")
    assert sum(1 for b in full.boxes if b.label) == 32 * 4 * s.columns + 32 * 16
    small = figures.scales_spec(resolve_scales(catalog, operand="A", sf_vec=32, m=128, k=128))
    assert "schematic" not in small.caption
