"""Figures: the pure figure spec against the mapper, big layouts, highlighting, SVG, PNG and CLI errors.

The spec tests need no matplotlib and cover every shipped shape at x1, x2, x4,
packed and unpacked: each box must be exactly one TMEM cell of
:func:`tmemviz.mapper.cells`, labelled with the owner(s) that
:func:`tmemviz.mapper.which` names (formatted here, independently of the
renderers). Only a handful of figures are actually drawn, to keep this file fast.
"""

from __future__ import annotations

import math
import os
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from tmemviz.catalog import Catalog, load_catalog
from tmemviz.cli import main
from tmemviz.cli.options import KINDS
from tmemviz.draw import spec as draw_spec
from tmemviz.draw.spec import FigureSpec
from tmemviz.errors import TmemvizError
from tmemviz.families.ldst import figures as figure_spec
from tmemviz.families.ldst import layout as mapper
from tmemviz.families.ldst.figures import layout_spec, pack_spec
from tmemviz.families.ldst.shapes import KIND as LDST

REPO = Path(__file__).resolve().parents[1]
SVG_NS = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
HALF = {None: "", 0: ".lo", 1: ".hi"}
PTX_SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
"""The five shapes of PTX Table 49; the catalog must ship at least these."""
SHAPE_NAMES = load_catalog((), KINDS).names(LDST)
SMALL = [(name, num, pack) for name in SHAPE_NAMES for num in (1, 2, 4) for pack in (False, True)]
TOOLTIP = re.compile(r"^lane (\d+), col (\d+) -> (.+)$")
LABEL_PT = 6.5
MONO_ADVANCE_EM = 0.6020508
"""DejaVu Sans Mono's advance width (1233/2048 em), for label extents in the SVG."""


@pytest.fixture(autouse=True)
def _no_user_layouts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("TMEMVIZ_LAYOUTS", raising=False)
    yield


def owner_text(owner: mapper.Owner) -> str:
    return f"T{owner.thread} r{owner.reg}{HALF[owner.half]}"


def expected_label(ins: mapper.Instruction, lane: int, col: int) -> str:
    return " / ".join(owner_text(o) for o in mapper.which(ins, lane, col))


def expected_tooltip(ins: mapper.Instruction, lane: int, col: int) -> str:
    """``lane L, col C -> T6 r3``; two overlapping owners are joined by ``and``."""
    return f"lane {lane}, col {col} -> " + " and ".join(owner_text(o) for o in mapper.which(ins, lane, col))


def tooltip_cell(text: str) -> tuple[int, int]:
    m = TOOLTIP.match(text)
    assert m, f"tooltip {text!r} is not 'lane L, col C -> owner'"
    return int(m.group(1)), int(m.group(2))


def check_spec_matches_mapper(ins: mapper.Instruction, spec: FigureSpec) -> None:
    """Boxes <-> distinct (lane, col) of mapper.cells, one to one, with which()'s owners."""
    want = {(c.lane, c.col) for c in mapper.cells(ins)}
    got = [tooltip_cell(b.tooltip) for b in spec.boxes]
    assert len(got) == len(set(got)), "some TMEM cell has more than one box"
    assert set(got) == want
    for box, (lane, col) in zip(spec.boxes, got, strict=True):
        assert box.label == expected_label(ins, lane, col), (lane, col)
        assert box.tooltip == expected_tooltip(ins, lane, col), (lane, col)
    # The axes agree with the tooltips: a box's tick labels name its own lane and column.
    for panel in spec.panels:
        x_ticks = dict(panel.x_ticks)
        y_ticks = dict(panel.y_ticks)
        for box in panel.boxes:
            lane, col = tooltip_cell(box.tooltip)
            assert 0 <= box.x < panel.width and 0 <= box.y < panel.height
            assert x_ticks[box.x + 0.5] == str(col)
            assert y_ticks[box.y + 0.5] == str(lane)


def build(catalog: Catalog, name: str, num: int, pack: bool = False, **kw: object) -> mapper.Instruction:
    return mapper.make_instruction(catalog.get(LDST, name), num, pack=pack, **kw)  # type: ignore[arg-type]


def spec_of(ins: mapper.Instruction, **kw: object) -> FigureSpec:
    return layout_spec(ins, mapper.cells(ins), **kw)  # type: ignore[arg-type]


def subprocess_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TMEMVIZ_LAYOUTS", "FORCE_COLOR")}
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def cli_ok(capsys: pytest.CaptureFixture[str], *args: str) -> None:
    code, out, err = run_cli(capsys, *args)
    assert code == 0, f"tmemviz {' '.join(args)} exited {code}: {err}"
    assert err == "" and out == ""


# --------------------------------------------------------------------------- spec vs mapper


def test_catalog_ships_the_ptx_shapes(catalog: Catalog) -> None:
    assert set(PTX_SHAPES) <= set(catalog.names(LDST))
    assert len(SMALL) >= 6 * len(PTX_SHAPES)


@pytest.mark.parametrize(("name", "num", "pack"), SMALL, ids=[f"{n}.x{k}{'.pack' * p}" for n, k, p in SMALL])
def test_spec_boxes_are_the_mapper_cells(catalog: Catalog, name: str, num: int, pack: bool) -> None:
    ins = build(catalog, name, num, pack)
    spec = spec_of(ins)
    check_spec_matches_mapper(ins, spec)
    assert spec.title == ins.mnemonic
    assert not any(b.dim for b in spec.boxes)
    if pack:
        assert all(b.label.endswith((".lo", ".hi")) for b in spec.boxes)


def test_spec_split_offset_16_at_x8(catalog: Catalog) -> None:
    """The PTX example: .16x32bx2.x8 with immHalfSplitoff 16 leaves columns 8..15 out."""
    ins = build(catalog, "16x32bx2", 8, split_offset=16)
    spec = spec_of(ins)
    check_spec_matches_mapper(ins, spec)
    cols = sorted({tooltip_cell(b.tooltip)[1] for b in spec.boxes})
    assert cols == [*range(8), *range(16, 24)]
    assert len(spec.boxes) == 16 * 16
    assert all(" / " not in b.label for b in spec.boxes)
    (panel,) = spec.panels
    assert [t for _, t in panel.x_ticks] == [str(c) for c in cols]
    markers = dict(panel.markers)
    assert set(markers) == {8.0}  # slot 8 is column 16
    assert "immHalfSplitoff (16)" in markers[8.0]
    assert "columns 8..15 not accessed" in markers[8.0]


def test_spec_overlapping_ld_halves_name_both_owners(catalog: Catalog) -> None:
    ins = build(catalog, "16x32bx2", 8, split_offset=4)
    spec = spec_of(ins)
    check_spec_matches_mapper(ins, spec)
    assert len(spec.boxes) == 16 * 12  # columns 0..11, one box per cell
    for box in spec.boxes:
        lane, col = tooltip_cell(box.tooltip)
        owners = mapper.which(ins, lane, col)
        if 4 <= col <= 7:
            assert len(owners) == 2
            assert box.label.count(" / ") == 1
            assert all(owner_text(o) in box.label and owner_text(o) in box.tooltip for o in owners)
            assert box.fill == figure_spec.OVERLAP_FILL
        else:
            assert len(owners) == 1 and " / " not in box.label
            assert box.fill != figure_spec.OVERLAP_FILL


def test_building_specs_does_not_import_matplotlib(tmp_path: Path) -> None:
    script = """
import sys
from tmemviz import cli, gallery
from tmemviz.families.ldst import layout as mapper
from tmemviz.catalog import load_catalog
from tmemviz.families.ldst.figures import layout_spec, pack_spec
from tmemviz.cli.options import KINDS
from tmemviz.families.ldst.shapes import KIND as LDST
catalog = load_catalog((), KINDS)
for name in catalog.names(LDST):
    ins = mapper.make_instruction(catalog.get(LDST, name), 4, pack=True)
    layout_spec(ins, mapper.cells(ins), highlight=frozenset({0, 17}), title="t")
pack_spec("ld"); pack_spec("st")
gallery.index_markdown(gallery.entries(catalog))
print("matplotlib" in sys.modules)
if len(sys.argv) > 1:
    import tmemviz.draw.figure
    print("matplotlib" in sys.modules)
"""
    plain = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=subprocess_env(), cwd=tmp_path
    )
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.split() == ["False"]
    # The control: drawing does import matplotlib, and the check above would notice.
    control = subprocess.run(
        [sys.executable, "-c", script, "draw"],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        cwd=tmp_path,
    )
    assert control.returncode == 0, control.stderr
    assert control.stdout.split() == ["False", "True"]


# --------------------------------------------------------------------------- big layouts

BIG = [("32x32b", 128, False, 4096), ("16x256b", 32, True, 8192), ("16x32bx2", 128, False, 4096)]


@pytest.mark.parametrize(("name", "num", "pack", "count"), BIG, ids=[f"{b[0]}.x{b[1]}" for b in BIG])
def test_big_layouts_split_into_panels(catalog: Catalog, name: str, num: int, pack: bool, count: int) -> None:
    ins = build(catalog, name, num, pack)
    spec = spec_of(ins, detail="all")
    assert len(spec.boxes) == count
    check_spec_matches_mapper(ins, spec)
    assert len(spec.panels) > 1
    # Panels take the columns in order, each exactly once, top to bottom.
    shown = [int(t) for p in spec.panels for _, t in p.x_ticks]
    assert shown == sorted({c.col for c in mapper.cells(ins)})
    for n, panel in enumerate(spec.panels, 1):
        assert panel.width * panel.cell_w_in <= draw_spec.PANEL_WIDTH_IN
        assert f"panel {n} of {len(spec.panels)}" in panel.title
        for box in panel.boxes:
            assert len(box.label) * draw_spec.CHAR_IN < panel.cell_w_in, box.label


# --------------------------------------------------------------------------- schematic (detail policy)


def field_tooltips(spec: FigureSpec) -> dict[tuple[int, int], str]:
    """Every present field cell's hover text, by the (lane, col) its tooltip names."""
    out: dict[tuple[int, int], str] = {}
    for panel in spec.panels:
        for f in panel.fields:
            for i, color in enumerate(f.colors):
                if color >= 0:
                    text = f.tooltip_of(i)
                    cell = tooltip_cell(text)
                    assert cell not in out, f"{cell} drawn twice"
                    out[cell] = text
    return out


SCHEMATIC = [*BIG, ("16x32bx2", 64, True, 4096)]


@pytest.mark.parametrize(
    ("name", "num", "pack", "count"), SCHEMATIC, ids=[f"{b[0]}.x{b[1]}{'p' * b[2]}" for b in SCHEMATIC]
)
def test_auto_draws_big_layouts_as_a_schematic_that_keeps_every_owner(
    catalog: Catalog, name: str, num: int, pack: bool, count: int
) -> None:
    ins = build(catalog, name, num, pack, **({"split_offset": 256} if name == "16x32bx2" and pack else {}))
    spec = spec_of(ins)  # auto
    assert spec == spec_of(ins, detail="schematic")
    # Few labels: only the first repetition is written out (the key panel).
    assert 0 < len(spec.boxes) <= draw_spec.LABEL_LIMIT
    regs = ins.shape.registers_per_rep
    assert {tooltip_cell(b.tooltip) for b in spec.boxes} == {
        (c.lane, c.col) for c in mapper.cells(ins) if c.reg < regs
    }
    check_labels = {tooltip_cell(b.tooltip): b.label for b in spec.boxes}
    for (lane, col), label in check_labels.items():
        assert label == expected_label(ins, lane, col)
    # The map holds every cell once, each hover text what which() says (computed independently here).
    tips = field_tooltips(spec)
    assert set(tips) == {(c.lane, c.col) for c in mapper.cells(ins)}
    assert len(tips) == count
    for (lane, col), text in tips.items():
        assert text == expected_tooltip(ins, lane, col)
    assert "--detail all" in spec.caption and "schematic" in spec.caption


def test_schematic_names_both_owners_where_halves_overlap(catalog: Catalog) -> None:
    ins = build(catalog, "16x32bx2", 128, split_offset=16)  # halves overlap: two owners per cell
    tips = field_tooltips(spec_of(ins))
    assert set(tips) == {(c.lane, c.col) for c in mapper.cells(ins)}
    both = [t for t in tips.values() if " and " in t]
    assert both
    for (lane, col), text in tips.items():
        assert text == expected_tooltip(ins, lane, col)


def test_detail_policy_switches_above_the_label_limit(catalog: Catalog) -> None:
    small = build(catalog, "32x32b", 64)  # 2048 cells: the limit itself stays labelled
    big = build(catalog, "32x32b", 128)
    assert len({(c.lane, c.col) for c in mapper.cells(small)}) == draw_spec.LABEL_LIMIT
    assert not any(p.fields for p in spec_of(small).panels)
    assert any(p.fields for p in spec_of(big).panels)
    assert any(p.fields for p in spec_of(small, detail="schematic").panels)
    assert not any(p.fields for p in spec_of(big, detail="all").panels)
    with pytest.raises(TmemvizError, match="--detail must be"):
        spec_of(big, detail="some")


def test_schematic_highlight_dims_the_other_threads_in_the_map(catalog: Catalog) -> None:
    ins = build(catalog, "32x32b", 128)
    spec = spec_of(ins, highlight=frozenset({3}))
    (field,) = [f for p in spec.panels for f in p.fields]
    for i, color in enumerate(field.colors):
        thread = field.record(i)["thread"]
        assert (field.palette[color] == figure_spec.DIM_FILL) is (thread != 3)


# --------------------------------------------------------------------------- highlight

HIGHLIGHTS = [
    ("32x32b", 1, False, {}, frozenset({0, 17})),
    ("16x256b", 4, True, {}, frozenset({5})),
    ("16x32bx2", 8, False, {"split_offset": 4}, frozenset({16})),
    ("16x128b", 2, False, {}, frozenset(range(32))),
]


@pytest.mark.parametrize(
    ("name", "num", "pack", "kw", "threads"), HIGHLIGHTS, ids=[f"{h[0]}.x{h[1]}" for h in HIGHLIGHTS]
)
def test_highlight_dims_exactly_the_other_threads(
    catalog: Catalog, name: str, num: int, pack: bool, kw: dict[str, int], threads: frozenset[int]
) -> None:
    ins = build(catalog, name, num, pack, **kw)
    plain = spec_of(ins)
    spec = spec_of(ins, highlight=threads)
    check_spec_matches_mapper(ins, spec)
    dimmed = 0
    for box, before in zip(spec.boxes, plain.boxes, strict=True):
        lane, col = tooltip_cell(box.tooltip)
        other = not any(o.thread in threads for o in mapper.which(ins, lane, col))
        assert box.dim is other, box.tooltip
        if other:
            dimmed += 1
            assert box.fill == figure_spec.DIM_FILL
        else:
            assert box.fill == before.fill != figure_spec.DIM_FILL
    assert dimmed == sum(1 for b in spec.boxes if b.dim)
    assert 0 < dimmed < len(spec.boxes) or threads == frozenset(range(32))
    assert all(f"T{t}" in spec.caption for t in threads)


def test_highlight_in_svg_greys_the_other_labels(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "h.svg"
    cli_ok(capsys, "figure", "32x32b", "-n", "x1", "--highlight", "0-3,17", "-o", str(out))
    root = ET.fromstring(out.read_bytes())
    labels = {
        t.text: t.get("style", "")
        for t in root.iter(f"{SVG_NS}text")
        if t.text and re.fullmatch(r"T\d+ r\d+", t.text)
    }
    assert len(labels) == 32
    for t in range(32):
        grey = "fill: #777777" in labels[f"T{t} r0"]
        assert grey is (t not in (0, 1, 2, 3, 17)), t


# --------------------------------------------------------------------------- SVG


@pytest.fixture(scope="module")
def svg_16x256b_x4(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, bytes]:
    """16x256b.x4 rendered to SVG twice by the CLI."""
    out = []
    for name in ("a.svg", "b.svg"):
        path = tmp_path_factory.mktemp("svg") / name
        assert main(["figure", "16x256b", "--num", "x4", "-o", str(path)]) == 0
        out.append(path.read_bytes())
    return out[0], out[1]


def _box(g: ET.Element) -> tuple[float, float, float, float]:
    path = g.find(f"{SVG_NS}path")
    assert path is not None
    nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", path.get("d", ""))]
    xs, ys = nums[0::2], nums[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def test_svg_has_one_tooltip_per_cell(catalog: Catalog, svg_16x256b_x4: tuple[bytes, bytes]) -> None:
    ins = build(catalog, "16x256b", 4)
    root = ET.fromstring(svg_16x256b_x4[0])
    titles = list(root.iter(f"{SVG_NS}title"))
    assert len(titles) == 512
    cells = [g for g in root.iter(f"{SVG_NS}g") if re.fullmatch(r"cell\d+", g.get("id", ""))]
    assert len(cells) == 512
    seen = set()
    for g in cells:
        (title,) = g.findall(f"{SVG_NS}title")
        lane, col = tooltip_cell(title.text or "")
        assert title.text == expected_tooltip(ins, lane, col)
        seen.add((lane, col))
    assert seen == {(c.lane, c.col) for c in mapper.cells(ins)}


def test_svg_labels_are_text_inside_their_cells(svg_16x256b_x4: tuple[bytes, bytes]) -> None:
    """Every cell label is a searchable <text> drawn within its own box (not mirrored, not clipped)."""
    root = ET.fromstring(svg_16x256b_x4[0])
    texts: dict[str, list[tuple[float, float]]] = {}
    for t in root.iter(f"{SVG_NS}text"):
        m = re.search(r"translate\(([-\d.]+) ([-\d.]+)\)", t.get("transform", ""))
        if t.text and m:
            texts.setdefault(t.text, []).append((float(m.group(1)), float(m.group(2))))
    advance = MONO_ADVANCE_EM * LABEL_PT
    misplaced = []
    for g in root.iter(f"{SVG_NS}g"):
        if not re.fullmatch(r"cell\d+", g.get("id", "")):
            continue
        title = g.find(f"{SVG_NS}title")
        assert title is not None and title.text
        label = title.text.split(" -> ", 1)[1]
        assert label in texts, f"label {label!r} is not a <text> element"
        x0, y0, x1, y1 = _box(g)
        inside = [
            (x, y) for x, y in texts[label] if x0 <= x and x + len(label) * advance <= x1 and y0 < y < y1
        ]
        if len(inside) != 1:
            box = f"{x0:.1f},{y0:.1f}..{x1:.1f},{y1:.1f}"
            misplaced.append(f"{title.text}: box {box}, text at {texts[label]}")
    assert not misplaced, f"{len(misplaced)} labels outside their cells, e.g. {misplaced[:3]}"


def test_svg_axis_labels_sit_beside_their_rows_and_columns(
    svg_16x256b_x4: tuple[bytes, bytes],
) -> None:
    """Lane numbers left of their row, column numbers above their column."""
    root = ET.fromstring(svg_16x256b_x4[0])
    rows: dict[int, tuple[float, float]] = {}
    columns: dict[int, tuple[float, float, float]] = {}
    for g in root.iter(f"{SVG_NS}g"):
        title = g.find(f"{SVG_NS}title")
        if not re.fullmatch(r"cell\d+", g.get("id", "")) or title is None:
            continue
        lane, col = tooltip_cell(title.text or "")
        x0, y0, x1, y1 = _box(g)
        rows.setdefault(lane, (y0, y1))
        left, right, top = columns.get(col, (x0, x1, y0))
        columns[col] = (left, right, min(top, y0))
    grid_left = min(left for left, _, _ in columns.values())
    numbers: dict[str, list[tuple[float, float]]] = {}
    for t in root.iter(f"{SVG_NS}text"):
        m = re.search(r"translate\(([-\d.]+) ([-\d.]+)\)", t.get("transform", ""))
        if t.text and t.text.isdigit() and m:
            numbers.setdefault(t.text, []).append((float(m.group(1)), float(m.group(2))))
    for lane, (y0, y1) in rows.items():
        assert any(x < grid_left and y0 < y < y1 for x, y in numbers.get(str(lane), [])), f"lane {lane}"
    for col, (x0, x1, top) in columns.items():
        assert any(x0 < x < x1 and top - 15 < y < top for x, y in numbers.get(str(col), [])), f"col {col}"


def test_svg_is_deterministic_and_undated(svg_16x256b_x4: tuple[bytes, bytes]) -> None:
    first, second = svg_16x256b_x4
    assert first.startswith(b"<?xml")
    assert b"<dc:date>" not in first
    assert first == second


# --------------------------------------------------------------------------- PNG


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize("dpi", [None, 50])
def test_png_size_follows_the_figure_and_dpi(
    catalog: Catalog, capsys: pytest.CaptureFixture[str], tmp_path: Path, dpi: int | None
) -> None:
    from tmemviz.draw.figure import draw

    out = tmp_path / "f.png"
    extra = ["--dpi", str(dpi)] if dpi is not None else []
    cli_ok(capsys, "figure", "16x32bx2", "-n", "x8", "--split-offset", "16", "-o", str(out), *extra)
    fig = draw(spec_of(build(catalog, "16x32bx2", 8, split_offset=16)))
    w_in, h_in = fig.get_size_inches()
    scale = dpi or 100
    # The canvas has whole pixels: the exact size, rounded down.
    assert png_size(out.read_bytes()) == (math.floor(w_in * scale + 1e-6), math.floor(h_in * scale + 1e-6))


# --------------------------------------------------------------------------- CLI


def test_pack_and_unpack_figures(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cli_ok(capsys, "figure", "pack", "-o", str(tmp_path / "x.png"))
    assert png_size((tmp_path / "x.png").read_bytes())[0] > 0
    cli_ok(capsys, "figure", "unpack", "-o", str(tmp_path / "x.svg"))
    root = ET.fromstring((tmp_path / "x.svg").read_bytes())
    words = " ".join(t.text or "" for t in root.iter(f"{SVG_NS}text"))
    assert "unpack::16b" in words and "tcgen05.st" in words
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.png", "x.svg"]


def test_figure_to_stdout(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "tmemviz", "figure", "16x64b", "-n", "x2", "-o", "-", "--format", "svg"]
    done = subprocess.run(cmd, capture_output=True, env=subprocess_env(), cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert done.stdout.startswith(b"<?xml")
    root = ET.fromstring(done.stdout)
    assert len(list(root.iter(f"{SVG_NS}title"))) == 16 * 4
    assert list(tmp_path.iterdir()) == []


def test_figure_png_to_stdout(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "tmemviz", "figure", "pack", "-o", "-", "-f", "PNG"]
    done = subprocess.run(cmd, capture_output=True, env=subprocess_env(), cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(PNG_SIGNATURE)


OLD = b"an earlier figure"
ERRORS = {
    "jpg-suffix": ["figure", "16x64b", "-o", "f.jpg"],
    "no-suffix": ["figure", "16x64b", "-o", "f"],
    "stdout-without-format": ["figure", "16x64b", "-o", "-"],
    "format-pdf": ["figure", "16x64b", "-o", "old.png", "--format", "pdf"],
    "missing-directory": ["figure", "16x64b", "-o", "missing/f.png"],
    "target-is-directory": ["figure", "16x64b", "-o", "taken.svg"],
    "target-is-directory-format": ["figure", "16x64b", "-o", "taken.svg", "-f", "svg"],
    "highlight-40": ["figure", "16x64b", "-o", "old.png", "--highlight", "40"],
    "illegal-num": ["figure", "16x256b", "--num", "x64", "-o", "old.png"],
    "not-a-num": ["figure", "16x256b", "--num", "x3", "-o", "old.png"],
    "dpi": ["figure", "16x64b", "-o", "old.png", "--dpi", "5"],
    "unknown-shape": ["figure", "16x512b", "-o", "old.png"],
}


@pytest.mark.parametrize("args", ERRORS.values(), ids=ERRORS.keys())
def test_figure_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    """One 'tmemviz:' line, status 2, and the directory exactly as it was (no temp files)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.png").write_bytes(OLD)
    (tmp_path / "taken.svg").mkdir()
    code, out, err = run_cli(capsys, *args)
    assert "Traceback" not in err
    assert code == 2, f"exit status {code}, stderr {err!r}"
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tmemviz: ") and len(lines[0]) > 12, err
    assert out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.png", "taken.svg"]
    assert (tmp_path / "old.png").read_bytes() == OLD
    assert list((tmp_path / "taken.svg").iterdir()) == []


def test_figure_replaces_an_existing_target(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control for the error cases: a good command does overwrite old.png, leaving no temp file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.png").write_bytes(OLD)
    cli_ok(capsys, "figure", "16x64b", "-o", "old.png")
    assert (tmp_path / "old.png").read_bytes().startswith(PNG_SIGNATURE)
    assert [p.name for p in tmp_path.iterdir()] == ["old.png"]


def test_pack_spec_directions() -> None:
    """Figure 193: ld arrows run TMEM -> register, st arrows register -> TMEM."""
    ld, st = pack_spec("ld"), pack_spec("st")
    assert "pack::16b" in ld.title and "tcgen05.ld" in ld.title
    assert "unpack::16b" in st.title and "tcgen05.st" in st.title
    (ld_panel,), (st_panel,) = ld.panels, st.panels
    assert all(a.y0 < a.y1 for a in ld_panel.arrows)  # TMEM row 0/1 down to the register row 3
    assert all(a.y0 > a.y1 for a in st_panel.arrows)
    assert len(ld_panel.arrows) == len(st_panel.arrows) == 2
