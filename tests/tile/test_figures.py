"""Tile figure specs (plain data), the `figure tile` command and the tile gallery entries."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from cli_run import bad, ok
from tile.oracle import holders

from tmemviz.catalog import Catalog
from tmemviz.families.ldst.shapes import KIND as LDST
from tmemviz.families.tile.figures import DIM_FILL, WARP_LINE, gallery_entries, tile_spec
from tmemviz.families.tile.layout import Tile, elements, make_tile


def tile_of(catalog: Catalog, shape: str, n: int, **kw: object) -> Tile:
    return make_tile(catalog.get(LDST, shape), n, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("shape", "n", "kw"),
    [("16x256b", 64, {}), ("32x32b", 32, {"dtype": "bf16"}), ("16x32bx2", 32, {"warps": 8})],
)
def test_one_box_per_element_with_its_data(
    catalog: Catalog, shape: str, n: int, kw: dict[str, object]
) -> None:
    tile = tile_of(catalog, shape, n, **kw)
    spec = tile_spec(tile, elements(tile))
    oracle = holders(shape, n, tile.warps, tile.dtype, tile.storage)
    assert len(spec.boxes) == 128 * n
    seen = set()
    for box in spec.boxes:
        data = dict(box.data)
        keys = ["m", "n", "warp", "thread", "instruction", "reg"] + (["half"] if tile.storage else [])
        assert list(data) == [*keys, "lane", "col", "group"]
        assert data["group"] == "warp thread"
        m, j = int(data["m"]), int(data["n"])
        warp, thread, index, reg, half, lane, col = oracle[(m, j)]
        assert (int(data["lane"]), int(data["col"])) == (lane, col)
        assert (int(data["warp"]), int(data["thread"]), int(data["instruction"]), int(data["reg"])) == (
            warp,
            thread,
            index,
            reg,
        )
        assert data.get("half") == (None if half is None else str(half))
        assert box.tooltip.startswith(f"D[{m}][{j}] -> w{warp} T{thread} i{index} r{reg}")
        assert box.tooltip.endswith(f"(lane {lane}, col {col})")
        seen.add((m, j))
    assert len(seen) == 128 * n


def test_warps_and_instructions_are_framed(catalog: Catalog) -> None:
    tile = tile_of(catalog, "16x128b", 32, num=4)  # 4 warps x 4 instructions (2 steps x lanes +0/+16)
    spec = tile_spec(tile, elements(tile))
    outlines = [o for p in spec.panels for o in p.outlines]
    assert sum(o.width == WARP_LINE for o in outlines) == 4
    assert sum(o.width != WARP_LINE for o in outlines) == 16
    notes = [n.text for p in spec.panels for n in p.notes]
    assert notes == ["warp 0", "warp 1", "warp 2", "warp 3"]


def test_thread_highlight_dims_the_rest(catalog: Catalog) -> None:
    tile = tile_of(catalog, "16x256b", 16)
    spec = tile_spec(tile, elements(tile), thread=5, warp=2)
    lit = [b for b in spec.boxes if not b.dim]
    assert lit and all(dict(b.data)["thread"] == "5" and dict(b.data)["warp"] == "2" for b in lit)
    assert all(b.fill == DIM_FILL for b in spec.boxes if b.dim)
    assert len(lit) == tile.registers_per_thread  # f32: one element per register
    every = tile_spec(tile, elements(tile), thread=5)
    assert sum(not b.dim for b in every.boxes) == 4 * tile.registers_per_thread


def test_gallery_entries(catalog: Catalog) -> None:
    entries = {e.name: e for e in gallery_entries(catalog)}
    assert list(entries) == [
        "tile.128x64.f32.16x256b",
        "tile.128x128.bf16.32x32b",
        "tile.64x32.f32.16x32bx2.F",
        "tile.32x64.f32.32x32b.G",
    ]
    assert len(entries["tile.64x32.f32.16x32bx2.F"].build().boxes) == 64 * 32
    assert entries["tile.128x64.f32.16x256b"].instruction == "`tcgen05.ld.sync.aligned.16x256b.x8.b32`"
    assert entries["tile.128x128.bf16.32x32b"].instruction == "`tcgen05.ld.sync.aligned.32x32b.x64.b32`"
    (panel,) = entries["tile.128x64.f32.16x256b"].build().panels  # 8192 elements: the schematic
    assert panel.fields[0].size == 128 * 64 and not panel.boxes


def test_figure_tile_writes_an_svg_with_tooltips(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "t.svg"
    ok(capsys, "figure", "tile", "--n", "16", "--shape", "16x64b", "--thread", "3", "-o", str(out))
    text = out.read_text()
    assert (
        html.escape("D[9][1] -> w0 T7 i0 r0 (lane 9, col 1)") in text
    )  # 16x64b: lane 8 + (t>>2), col (t>>1)&1
    assert text.count("<title>") >= 128 * 16


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("tile", "--n", "16", "--shape", "16x64b", "--pack"), "No such option: --pack"),
        (("16x256b", "--n", "16"), "No such option: --n"),
        (("smem", "--thread", "3"), "No such option: --thread"),
        (("tile", "--n", "16", "--shape", "16x64b", "--thread", "40"), "--thread must be 0..31"),
        (("tile", "--n", "16", "--shape", "16x64b", "--warp", "5"), "--warp must be 0..3"),
        (("tile", "extra", "--n", "16"), "unexpected extra argument"),
    ],
)
def test_figure_tile_refusals(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    assert message in bad(capsys, "figure", *args, "-o", "x.svg")


def test_big_tiles_are_schematics_within_budget(tmp_path: Path) -> None:
    """P13 targets for a 128 x 256 tile: PNG <= 1 MB, SVG/HTML <= 2 MB; the field holds every element's
    holder (as the tile's own elements say), the frames cover D exactly once per access."""
    import tmemviz

    for args in ({}, {"m": 256, "cta_group": 2}, {"m": 64, "lane_offset": 16}, {"m": 32, "ws": True}):
        m_total = int(args.get("m", 128))  # type: ignore[call-overload]
        doc = tmemviz.tile(n=256, shape="16x256b" if m_total != 64 else "16x32bx2", **args)
        spec = doc.figure("auto")
        (panel,) = spec.panels
        (field,) = panel.fields
        assert (field.rows, field.cols) == (m_total, 256)
        for e in elements(doc.subject)[::97]:
            record = field.record(e.m * 256 + e.n)
            assert record["thread"] == e.thread and record["reg"] == e.reg and record["cta"] == e.cta
            assert record["lane"] == e.lane and record["warp"] == e.warp
        thin = [o for o in panel.outlines if o.width < 1]
        area = sum(o.w * o.h for o in thin)
        assert area == m_total * 256
        assert len(thin) <= 64 and "Samples: D[0][0] = " in spec.caption
    doc = tmemviz.tile(n=256, shape="16x256b")
    for suffix, limit in (("png", 1 << 20), ("svg", 2 << 20), ("html", 2 << 20)):
        path = doc.save(tmp_path / f"t.{suffix}")
        assert path.stat().st_size <= limit
    picked = tmemviz.tile(n=256, shape="16x256b", thread=5, warp=2)
    (field,) = picked.figure("auto").panels[0].fields
    lit = [i for i, c in enumerate(field.colors) if c < 8]
    assert lit and all(field.record(i)["thread"] == 5 and field.record(i)["warp"] == 2 for i in lit)
    full = doc.figure("all")
    assert sum(len(p.boxes) for p in full.panels) == 128 * 256
