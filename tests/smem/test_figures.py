"""Shared-memory figure specs (plain data) and the `figure smem` command's PNG and SVG files."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from cli_run import bad, ok

from tmemviz.draw.palette import THREAD_COLORS
from tmemviz.families.smem.examples import figure_189_corrected, ptx_figure
from tmemviz.families.smem.figures import ATOM_LINE_PT, CHUNK_LINE_PT, FIG_189_NOTE, layout_spec
from tmemviz.families.smem.layout import SmemLayout, dense_tile

LAYOUTS = {
    "fig188": lambda: ptx_figure(188),
    "fig189-corrected": figure_189_corrected,
    "fig190": lambda: ptx_figure(190),
    "fig191": lambda: ptx_figure(191),
    "fig192": lambda: ptx_figure(192),
    "K-128B-bf16": lambda: dense_tile("K", "128B", "bf16", 128, 64),
    "MN-128B-bf16": lambda: dense_tile("MN", "128B", "bf16", 128, 32),
    "K-64B-e4m3": lambda: dense_tile("K", "64B", "e4m3", 16, 128),
}


@pytest.fixture(params=sorted(LAYOUTS))
def layout(request: pytest.FixtureRequest) -> SmemLayout:
    return LAYOUTS[request.param]()  # type: ignore[no-any-return]


def test_every_element_is_one_box_with_its_byte(layout: SmemLayout) -> None:
    spec = layout_spec(layout, detail="all")
    expected = {f"row {r}, col {c} -> byte {b}": str(b) for r, c, b in layout.cells()}
    got = [(box.tooltip, box.label) for box in spec.boxes]
    assert len(got) == layout.rows * layout.cols
    assert dict(got) == expected
    for panel in spec.panels:
        for box in panel.boxes:
            row = int(box.tooltip.split(",")[0].removeprefix("row "))
            assert box.y == row and (box.w, box.h) == (1, 1)


def test_chunk_labels_and_colors(layout: SmemLayout) -> None:
    spec = layout_spec(layout, label="chunk", detail="all")
    for box in spec.boxes:
        byte = int(box.tooltip.rsplit(" ", 1)[1])
        assert box.label == str(byte // 16)
        assert box.fill == THREAD_COLORS[byte // 16 % 8]


def test_every_chunk_and_atom_is_framed(layout: SmemLayout) -> None:
    spec = layout_spec(layout, detail="all")
    chunks = {b // 16 for _, _, b in layout.cells()}
    atoms = {b // layout.swizzle.repeat_bytes for _, _, b in layout.cells()}
    frames = [o for p in spec.panels for o in p.outlines]
    thin = [o for o in frames if o.width == CHUNK_LINE_PT]
    thick = [o for o in frames if o.width == ATOM_LINE_PT]
    assert len(thin) == len(chunks) and len(thick) >= len(atoms)
    # Frames tile the grid: every element inside exactly one chunk frame and one atom frame (an atom
    # cut by a panel edge is framed piece by piece).
    assert sum(o.w * o.h for o in thin) == sum(o.w * o.h for o in thick) == layout.rows * layout.cols
    per = 16 * 8 // layout.bits
    for o in thin:
        # A 16-byte chunk is T elements along K (K-major) or along M/N (MN-major), never split.
        assert (o.w, o.h) == ((per, 1) if layout.major == "K" else (1, per))


@pytest.mark.parametrize(("major", "swizzle"), [(m, s) for m in ("K", "MN") for s in ("32B", "64B", "128B")])
def test_swizzled_colors_permute_within_the_repeat(major: str, swizzle: str) -> None:
    # PTX 9.7.16.3: Swizzle<B,4,3> XORs the chunk bits with the row-of-atom bits, so each of the 8 rows
    # of an atom holds the colors it would hold unswizzled, permuted; only rows whose XOR value is 0
    # keep their order (1 row in 8 for 128B, 2 for 64B, 4 for 32B).
    layout = dense_tile(major, swizzle, "bf16", *((8, 64) if major == "K" else (64, 8)))
    fill = {}
    for box in layout_spec(layout).boxes:
        row, col = (int(v) for v in box.tooltip.split(" -> ")[0].replace("row ", "").split(", col "))
        fill[(row, col)] = box.fill
    per, width = 8, layout.swizzle.chunks_per_row  # bf16: 8 elements per chunk
    moved = 0
    for atom_row in range(8):  # K-major: grid row; MN-major: grid column (one K row)
        spots = [(atom_row, j * per) if major == "K" else (j * per, atom_row) for j in range(width)]
        shown = [fill[s] for s in spots]
        plain = [THREAD_COLORS[layout.unswizzled_byte_of(*s) // 16 % 8] for s in spots]
        assert sorted(shown) == sorted(plain)
        moved += shown != plain
    assert moved == 8 - 8 // width


def test_figure_189_note_and_caption() -> None:
    spec = layout_spec(figure_189_corrected(), note=FIG_189_NOTE)
    texts = " ".join(n.text for p in spec.panels for n in p.notes)
    assert "136 byte" in texts and "Note:" in texts
    assert spec.caption.startswith(
        "Swizzle<1,4,3> o ((8,2),(4,2,2)):((8,64),(1,4,128)); LBO unused (encoded 1)"
    )
    assert "descriptor 0xc000401000010000" in spec.caption


def test_wide_tiles_split_into_panels_of_whole_chunks() -> None:
    spec = layout_spec(dense_tile("K", "128B", "bf16", 128, 64), detail="all")  # 64-column atoms: too wide
    assert [p.width for p in spec.panels] == [40, 24]  # whole 8-element chunks
    spec = layout_spec(dense_tile("K", "64B", "bf16", 8, 128))  # 32-column atoms fit a panel
    assert [p.width for p in spec.panels] == [32] * 4  # by chunks alone it would be 40, 40, 40, 8


BIG = ("K-128B-bf16", "MN-128B-bf16")


@pytest.mark.parametrize("name", BIG)
def test_big_tiles_are_a_schematic_whose_map_holds_every_byte(name: str) -> None:
    layout = LAYOUTS[name]()
    spec = layout_spec(layout)  # auto: more elements than labels a figure should hold
    assert spec == layout_spec(layout, detail="schematic")
    (field,) = [f for p in spec.panels for f in p.fields]
    assert (field.cols, field.rows) == (layout.cols, layout.rows)
    expected = {(r, c): b for r, c, b in layout.cells()}
    for i in range(field.size):
        row, col = divmod(i, field.cols)
        byte = expected[(row, col)]
        assert field.tooltip_of(i) == f"row {row}, col {col} -> byte {byte}"
        assert field.palette[field.colors[i]] == THREAD_COLORS[byte // 16 % 8]
        assert field.record(i)["chunk"] == byte // 16
    assert field.selects_by == ("chunk",)
    # The key: the first swizzle atom, every element labelled with its byte.
    rows, cols = (8, 64) if layout.major == "K" else (64, 8)
    got = {(box.tooltip, box.label) for box in spec.boxes}
    assert got == {
        (f"row {r}, col {c} -> byte {b}", str(b)) for (r, c), b in expected.items() if r < rows and c < cols
    }
    # One thick frame per atom on the map.
    atoms = {b // layout.swizzle.repeat_bytes for b in expected.values()}
    map_panel = next(p for p in spec.panels if p.fields)
    assert len([o for o in map_panel.outlines if o.width == ATOM_LINE_PT]) == len(atoms)
    assert "--detail all" in " ".join(n.text for n in map_panel.notes)


def test_small_layouts_stay_labelled_and_all_forces_labels() -> None:
    assert not any(p.fields for p in layout_spec(ptx_figure(192)).panels)
    assert any(p.fields for p in layout_spec(ptx_figure(192), detail="schematic").panels)
    assert len(layout_spec(LAYOUTS["K-128B-bf16"](), detail="all").boxes) == 128 * 64


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_figure_command_writes_files(capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"fig191.{fmt}"
    args = ["figure", "smem", "--major", "MN", "--swizzle", "32B", "--dtype", "bf16", "--m", "2", "--k", "2"]
    ok(capsys, *args, "--lbo", "256", "--sbo", "512", "-o", str(out))
    data = out.read_bytes()
    if fmt == "png":
        assert data.startswith(b"\x89PNG")
        return
    text = data.decode()
    layout = ptx_figure(191)
    for r, c, b in layout.cells():
        assert f"<title>{html.escape(f'row {r}, col {c} -> byte {b}', quote=False)}</title>" in text
    assert "Swizzle&lt;1,4,3&gt; o ((8,2,2),(8,2)):((1,8,128),(16,256))" in text


def test_figure_command_dense_tile_and_bad_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "tile.svg"
    ok(
        capsys,
        "figure",
        "smem",
        "--major",
        "K",
        "--swizzle",
        "SW128",
        "--dtype",
        "bf16",
        "--rows",
        "8",
        "--cols",
        "64",
        "-o",
        str(out),
    )
    assert out.read_text().count("<title>row ") == 8 * 64
    base = [
        "figure",
        "smem",
        "--major",
        "K",
        "--swizzle",
        "128B",
        "--dtype",
        "bf16",
        "--rows",
        "8",
        "--cols",
        "64",
    ]
    assert "No such option: --num" in bad(capsys, *base, "--num", "x2", "-o", str(out))
    assert "No such option: --taddr" in bad(capsys, *base, "--taddr", "0,0", "-o", str(out))
    assert "unexpected extra argument" in bad(capsys, *base[:2], "128B", "-o", str(out))
    assert "--lbo do not go together" in bad(capsys, *base, "--lbo", "16", "-o", str(out))
    assert "No such option: --major" in bad(capsys, "figure", "16x256b", "--major", "K", "-o", str(out))
