"""The documentation gallery: what it holds, and that the committed copy is what `tmemviz gallery` makes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tmemviz import gallery
from tmemviz.catalog import Catalog
from tmemviz.cli import main
from tmemviz.families.ldst.shapes import KIND as LDST

REPO = Path(__file__).resolve().parents[1]
COMMITTED = REPO / "gallery"
PTX_SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
"""The five shapes of PTX Table 49 (Figures 183-187)."""


@pytest.fixture(autouse=True)
def _no_user_layouts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("TMEMVIZ_LAYOUTS", raising=False)
    yield


CP_NAMES = {
    # Every cp shape under every multicast it takes (PTX 9.7.16.9.2), one .cta_group::2 copy,
    # and the "where does row 40 land" figure.
    "cp.128x256b": "tcgen05.cp.cta_group::1.128x256b",
    "cp.128x128b": "tcgen05.cp.cta_group::1.128x128b",
    "cp.64x128b.warpx2_02_13": "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13",
    "cp.64x128b.warpx2_01_23": "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23",
    "cp.32x128b.warpx4": "tcgen05.cp.cta_group::1.32x128b.warpx4",
    "cp.4x256b": "tcgen05.cp.cta_group::1.4x256b",
    "cp.128x128b.cta_group2": "tcgen05.cp.cta_group::2.128x128b",
    "cp.64x128b.warpx2_01_23.row40": "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23",
}
DECOMPRESS_NAMES = {
    # name: (format, type or None for both 6-bit types, PTX figure text)
    "decompress.b4x16_p64": ("b4x16_p64", "e2m1", "Figures 194, 195"),
    "decompress.b6x16_p32": ("b6x16_p32", None, "Figure 196"),
    "decompress.b6x16_p32.e3m2": ("b6x16_p32", "e3m2", "Figure 197"),
    "decompress.b6x16_p32.e2m3": ("b6x16_p32", "e2m3", "Figure 198"),
}

SMEM_NAMES = {
    # PTX ISA 9.7.16.3 figures 188, 190-192 as printed, 189 corrected, two CUTLASS dense bf16 tiles:
    # name -> (PTX figure column, CuTe notation).
    "smem.K.none.tf32.fig188": ("Figure 188", "((8,2),(4,4)):((4,32),(1,64))"),
    "smem.K.32B.tf32.fig189-corrected": (
        "Figure 189 (corrected)",
        "Swizzle<1,4,3> o ((8,2),(4,2,2)):((8,64),(1,4,128))",
    ),
    "smem.MN.none.bf16.fig190": ("Figure 190", "((8,1,2),(8,2)):((1,8,64),(8,128))"),
    "smem.MN.32B.bf16.fig191": ("Figure 191", "Swizzle<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256))"),
    "smem.MN.64B.bf16.fig192": ("Figure 192", "Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512))"),
    "smem.K.128B.bf16.128x64": ("dense tile", "Swizzle<3,4,3> o ((8,16),(8,8)):((64,512),(1,8))"),
    "smem.MN.128B.bf16.128x32": ("dense tile", "Swizzle<3,4,3> o ((8,8,2),(8,4)):((1,8,2048),(64,512))"),
}

TILE_NAMES = {
    # Epilogue tiles (4 warps, default .num): name -> (shape, M, N, dtype, data-path layout, the instruction).
    "tile.128x64.f32.16x256b": ("16x256b", 128, 64, "f32", "D", "tcgen05.ld.sync.aligned.16x256b.x8.b32"),
    "tile.128x128.bf16.32x32b": ("32x32b", 128, 128, "bf16", "D", "tcgen05.ld.sync.aligned.32x32b.x64.b32"),
    "tile.64x32.f32.16x32bx2.F": ("16x32bx2", 64, 32, "f32", "F", "tcgen05.ld.sync.aligned.16x32bx2.x16.b32"),
    "tile.32x64.f32.32x32b.G": ("32x32b", 32, 64, "f32", "G", "tcgen05.ld.sync.aligned.32x32b.x16.b32"),
}
DATAPATH_NAMES = {f"datapath.{letter}": letter for letter in "ABCDEFG"}
"""One schematic per tcgen05.mma data-path layout (PTX figures 205-218)."""

SCALES_NAMES = {
    # Block-scaled MMA scale factors: name -> (operand, kind, sf_vec, M or N, K, .scale_vec).
    "scales.mxf8f6f4.sfa.block32": ("A", "mxf8f6f4", 32, 128, 256, "1X"),
    "scales.mxf4.sfa.block32": ("A", "mxf4", 32, 128, 256, "2X"),
    "scales.mxf4nvf4.sfb.block16": ("B", "mxf4nvf4", 16, 256, 64, "4X"),
}

SHIFT_NAMES = {
    # tcgen05.shift in one CTA and in both (PTX 9.7.16.9.3): name -> the instruction.
    "shift.cta_group1": "tcgen05.shift.cta_group::1.down",
    "shift.cta_group2": "tcgen05.shift.cta_group::2.down",
}


DESCRIPTOR_NAMES = {
    # The bit fields of one shared-memory descriptor (the dense K-major 128B tile's) and one
    # instruction descriptor (Triton's kind::f16 M=128 N=128): name -> (builder, value).
    "desc.0x4000404000010000": ("descriptor_spec", 0x4000404000010000),
    "idesc.f16.0x08200010": ("idesc_spec", 0x08200010),
}


def expected_names(shapes: list[str]) -> set[str]:
    names = {f"{s}.x{n}{p}" for s in shapes for n in (1, 2, 4) for p in ("", ".pack")}
    extra = set(CP_NAMES) | set(DECOMPRESS_NAMES) | set(SMEM_NAMES) | set(TILE_NAMES) | set(SCALES_NAMES)
    extra |= set(SHIFT_NAMES) | set(DATAPATH_NAMES) | set(DESCRIPTOR_NAMES)
    return names | {"16x32bx2.x8.split16", "pack", "unpack"} | extra


def mnemonic(shape: str, num: int, pack: bool) -> str:
    return f"tcgen05.ld.sync.aligned.{shape}.x{num}{'.pack::16b' if pack else ''}.b32"


def test_entries_cover_every_shape(catalog: Catalog) -> None:
    assert set(PTX_SHAPES) <= set(catalog.names(LDST))
    items = gallery.entries(catalog)
    names = [e.name for e in items]
    assert len(names) == len(set(names)), "gallery names are not unique"
    assert set(names) == expected_names(catalog.names(LDST))
    for e in items:
        # Each entry builds its figure later; what it will draw is in the partial's arguments.
        build, args, kw = e.build.func.__name__, e.build.args, e.build.keywords  # type: ignore[attr-defined]
        if e.name in CP_NAMES:
            assert build == "copy_spec"
            (copy,) = args
            assert copy.mnemonic == CP_NAMES[e.name] and copy.taddr is None
            assert kw == {"row": 40 if e.name.endswith(".row40") else None}
            assert e.instruction == f"`{copy.mnemonic}`"
            continue
        if e.name in DECOMPRESS_NAMES:
            fmt, kind, figure = DECOMPRESS_NAMES[e.name]
            assert build == "decompress_spec"
            form, number_type = args
            assert form.name == fmt and e.ptx_figure == figure
            assert (number_type.name if number_type else None) == kind
            continue
        if e.name in SMEM_NAMES:
            figure, notation = SMEM_NAMES[e.name]
            (layout,) = args
            assert build == "layout_spec" and figure in e.ptx_figure and layout.notation() == notation
            assert ("Note" in kw["note"] or "136 byte offsets" in kw["note"]) == e.name.endswith("corrected")
            continue
        if e.name in TILE_NAMES:
            shape, m, n, dtype, layout, instruction = TILE_NAMES[e.name]
            (tile,) = args
            assert (tile.shape.name, tile.m, tile.n, tile.dtype, tile.warps) == (shape, m, n, dtype, 4)
            assert tile.layout == layout
            assert tile.mnemonic == instruction and e.instruction == f"`{instruction}`"
            continue
        if e.name in DATAPATH_NAMES:
            (org,) = args
            assert build == "organization_spec" and org.path.name == DATAPATH_NAMES[e.name]
            assert e.ptx_figure == "after Figures " + ", ".join(map(str, org.path.figures))
            continue
        if e.name in SCALES_NAMES:
            (scales,) = args
            want = SCALES_NAMES[e.name]
            got = (scales.operand, scales.kind, scales.sf_vec, scales.extent, scales.k, scales.scale_vec)
            assert build == "scales_spec" and got == want and scales.cta_group == 1
            continue
        if e.name in SHIFT_NAMES:
            (shift,) = args
            assert build == "shift_spec" and shift.relative and shift.taddr == (0, 0)
            assert shift.mnemonic == SHIFT_NAMES[e.name] and e.instruction == f"`{shift.mnemonic}`"
            continue
        if e.name in DESCRIPTOR_NAMES:
            (decoded,) = args
            assert (build, decoded.value) == DESCRIPTOR_NAMES[e.name] and not decoded.problems
            assert f"`0x{decoded.value:0{16 if build == 'descriptor_spec' else 8}x}`" in e.instruction
            continue
        if e.name in ("pack", "unpack"):
            assert build == "pack_spec"
            assert args == ("ld" if e.name == "pack" else "st",)
            continue
        assert build == "instruction_spec"
        (ins,) = args
        assert ins.op == "ld" and ins.taddr is None
        if e.name == "16x32bx2.x8.split16":
            assert (ins.shape.name, ins.num, ins.pack, ins.split_offset) == ("16x32bx2", 8, False, 16)
            continue
        shape, num, *rest = e.name.split(".")
        assert (ins.shape.name, ins.num, ins.pack) == (shape, int(num[1:]), rest == ["pack"])
        assert ins.mnemonic == mnemonic(shape, ins.num, ins.pack)
        if ins.shape.split:
            # Side by side by default: the second half starts where the first ends.
            assert ins.split_offset == ins.access_width
        else:
            assert ins.split_offset is None


GALLERY_NAMES = re.findall(
    r"^\| (\S+) \(\[html\]", (COMMITTED / "README.md").read_text(encoding="utf-8"), re.M
)
"""The committed gallery's figures, in its index's order (the next tests hold the index to
``gallery.entries``): one test each, so that the drawing of the whole gallery, the longest single piece
of work of the suite, is shared by the workers instead of being one test that ends the run last."""


def test_committed_gallery_holds_every_entry_and_nothing_else(catalog: Catalog) -> None:
    items = gallery.entries(catalog)
    assert [e.name for e in items] == GALLERY_NAMES, "regenerate with `tmemviz gallery gallery`"
    pages = {f"{e.name}.{x}" for e in items for x in ("svg", "png", "html")}
    committed = sorted(p.name for p in COMMITTED.iterdir())
    assert committed == sorted(pages | {"README.md", "index.html"}), (
        "regenerate with `tmemviz gallery gallery`"
    )


@pytest.mark.parametrize("name", GALLERY_NAMES)
def test_committed_gallery_is_up_to_date(catalog: Catalog, name: str) -> None:
    """The entry's SVG, PNG and page, made as `tmemviz gallery` makes them (one spec, drawn once, its
    page linked to its neighbours), are the committed bytes."""
    items = gallery.entries(catalog)
    (index,) = [i for i, e in enumerate(items) if e.name == name]
    made = gallery.files(items, index)
    stale = [file for file, data in made.items() if data != (COMMITTED / file).read_bytes()]
    assert not stale, f"out of date in gallery/: {stale}; regenerate with `tmemviz gallery gallery`"


def test_the_command_writes_the_committed_files(
    catalog: Catalog, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tmemviz gallery` itself, on the first two entries (the test above checks every entry made as the
    command makes it): the same bytes as the committed files, the first page's links included."""
    monkeypatch.setenv("COLUMNS", "200")
    full = gallery.entries
    monkeypatch.setattr(gallery, "entries", lambda catalog: full(catalog)[:2])
    fresh = tmp_path / "g"
    assert main(["gallery", str(fresh)]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert out.startswith("wrote ")
    first, second = (e.name for e in full(catalog)[:2])
    # The second page links to no next page here, unlike the committed one: its figures are compared.
    same = [f"{first}.svg", f"{first}.png", f"{first}.html", f"{second}.svg", f"{second}.png"]
    stale = [f for f in same if (fresh / f).read_bytes() != (COMMITTED / f).read_bytes()]
    assert not stale, f"`tmemviz gallery` wrote other bytes than gallery/ holds: {stale}"
    assert (fresh / "README.md").read_text(encoding="utf-8") == gallery.index_markdown(full(catalog)[:2])


def test_index_names_each_figure_and_its_instruction(catalog: Catalog) -> None:
    index = (COMMITTED / "README.md").read_text(encoding="utf-8")
    assert index == gallery.index_markdown(gallery.entries(catalog))
    rows = {}
    for line in index.splitlines():
        m = re.match(r"^\| (\S+) \(", line)
        if m:
            rows[m.group(1)] = line
    assert set(rows) == expected_names(catalog.names(LDST))
    for name, row in rows.items():
        for fmt in ("html", "svg", "png"):
            assert f"]({name}.{fmt})" in row
            assert (COMMITTED / f"{name}.{fmt}").is_file()
        if name in CP_NAMES:
            assert f"`{CP_NAMES[name]}`" in row
            continue
        if name in DECOMPRESS_NAMES:
            fmt, _, figure_text = DECOMPRESS_NAMES[name]
            assert f".b8x16.{fmt}`" in row and figure_text in row
            continue
        if name in SMEM_NAMES:
            figure, notation = SMEM_NAMES[name]
            assert figure in row and f"`{notation}`" in row and "descriptor `0x" in row
            continue
        if name in TILE_NAMES:
            shape, *_, instruction = TILE_NAMES[name]
            assert f"`{instruction}`" in row and "4 warps" in row
            continue
        if name in SHIFT_NAMES:
            assert f"`{SHIFT_NAMES[name]}`" in row and "9.7.16.9.3" in row
            continue
        if name in DATAPATH_NAMES:
            letter = DATAPATH_NAMES[name]
            assert f"layout {letter} |" in row and "Figures 2" in row
            continue
        if name in SCALES_NAMES:
            _, kind, _, _, _, scale_vec = SCALES_NAMES[name]
            assert "32x128b.warpx4` ->" in row and f"kind::{kind}.block_scale.scale_vec::{scale_vec}" in row
            continue
        if name in DESCRIPTOR_NAMES:
            assert "descriptor `0x" in row and ("9.7.16.3" in row or "9.7.16.4.2" in row)
            continue
        if name == "pack":
            assert "`tcgen05.ld" in row and "pack::16b" in row and "Figure 193" in row
        elif name == "unpack":
            assert "`tcgen05.st" in row and "unpack::16b" in row and "Figure 193" in row
        elif name == "16x32bx2.x8.split16":
            assert f"`{mnemonic('16x32bx2', 8, False)}`" in row and "immHalfSplitoff 16" in row
        else:
            shape, num, *rest = name.split(".")
            assert f"`{mnemonic(shape, int(num[1:]), rest == ['pack'])}`" in row
            figure = catalog.get(LDST, shape).ptx_figure
            if figure is not None:
                assert f"Figure {figure}" in row


def test_index_html_links_every_page_and_each_page_links_back(catalog: Catalog) -> None:
    """``index.html`` is the gallery's front page offline: a link to every figure's page, and back."""
    items = gallery.entries(catalog)
    index = (COMMITTED / "index.html").read_bytes()
    assert index == gallery.index_html(items)
    text = index.decode()
    linked = re.findall(r'<th scope="row"><a href="([^"]+)">', text)
    assert linked == [f"{e.name}.html" for e in items]
    for e in items:
        for fmt in ("svg", "png"):
            assert f'href="{e.name}.{fmt}"' in text
    for i, e in enumerate(items):
        page = (COMMITTED / f"{e.name}.html").read_text(encoding="utf-8")
        assert '<a href="index.html" rel="index">' in page
        if i + 1 < len(items):
            assert f'href="{items[i + 1].name}.html" rel="next"' in page
        targets = re.findall(r'<a href="([^"]+)"', page)
        assert all((COMMITTED / t).is_file() for t in targets), e.name


def test_gallery_figures_stay_legible_and_small(catalog: Catalog) -> None:
    """P13: no gallery figure labels more cells than the label limit (bigger grids are schematics), and
    the schematic pages stay far below the 2 MB a gallery file may take."""
    from tmemviz.draw.html import page
    from tmemviz.draw.spec import LABEL_LIMIT

    schematics = []
    for e in gallery.entries(catalog):
        if e.name.startswith("tile."):  # the tile family moves to its own schematic separately
            continue
        spec = e.build()
        assert sum(1 for b in spec.boxes if b.label) <= LABEL_LIMIT, e.name
        if any(p.fields for p in spec.panels):
            schematics.append(e.name)
            assert len(page(spec)) < 1024 * 1024, e.name
    assert {"smem.K.128B.bf16.128x64", "smem.MN.128B.bf16.128x32"} <= set(schematics)


CAPTIONED = (
    "tile.32x64.f32.32x32b.G",
    "tile.128x64.f32.16x256b",
    "datapath.A",
    "scales.mxf4.sfa.block32",
    "unpack",
)
"""Gallery figures with the longest captions (they ran past the right edge before captions kept their
line breaks)."""


@pytest.mark.parametrize("name", CAPTIONED)
def test_gallery_captions_stay_inside_the_canvas(catalog: Catalog, name: str) -> None:
    """Every text of the PNG, as matplotlib's renderer measures it, lies inside the canvas."""
    from matplotlib.text import Text

    from tmemviz.draw.figure import draw

    (entry,) = [e for e in gallery.entries(catalog) if e.name == name]
    spec = entry.build()
    fig = draw(spec)
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    width, height = fig.bbox.width, fig.bbox.height
    texts = [t for t in fig.findobj(Text) if t.get_text()]
    assert any(len(t.get_text()) > 100 for t in texts), "the caption is among the texts measured"
    for t in texts:
        box = t.get_window_extent(renderer)
        inside = box.x0 >= -0.5 and box.y0 >= -0.5 and box.x1 <= width + 0.5 and box.y1 <= height + 0.5
        assert inside, f"{name}: {t.get_text()[:60]!r} reaches {box.x1:.0f} of {width:.0f} px"
