"""The TMEM map: one band per kind of user, lifetimes, findings where they are, a legend, readable text
inside the canvas, the same bytes every time."""

from __future__ import annotations

import itertools
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest

import tmemviz
from tmemviz.draw.spec import FigureSpec, Panel
from tmemviz.families.explain.figures import TEXT_PT, columns_panel
from tmemviz.families.explain.mapbands import ALLOCATED, FINDING, KINDS, OUTSIDE, bands

KERNELS = Path(__file__).parents[1] / "kernels"
CLEAN = KERNELS / "check_triton_mma_n128.ptx"
REAL = ("cute_dsl_fmha.ptx", "cutlass_example70_gemm.ptx", "check_triton_two_buffers.ptx")
"""An attention kernel, a persistent CUTLASS GEMM (2-CTA, warp-specialized), a Triton double buffer."""
BUDGET = "Tensor Memory budget"
"""What a budget panel's title says."""


def seeded() -> FigureSpec:
    """The clean Triton kernel with its alloc halved: its MMA and loads reach past the allocation."""
    text = CLEAN.read_text().replace("shared::cta.b32 [%r4], 128;", "shared::cta.b32 [%r4], 64;")
    return tmemviz.check(text=text).figure("auto")


def strips(panel: Panel) -> list[tuple[float, float]]:
    """Each band's strip (top, bottom) in panel units: where its allocated background lies."""
    return sorted({(b.y, b.y + b.h) for b in panel.boxes if b.fill == ALLOCATED})


@pytest.mark.parametrize("name", REAL)
def test_each_user_has_a_band_and_bands_do_not_overlap(name: str) -> None:
    spec = tmemviz.check(KERNELS / name).figure("auto")
    columns = [p for p in spec.panels if p.title.startswith("columns")]
    budgets = [p for p in spec.panels if BUDGET in p.title]
    (checked,) = tmemviz.check(KERNELS / name).subject
    assert len(budgets) == len([k for k in checked.kernels if k.allocs]), "a budget per kernel"
    assert columns and len(columns) * 2 + len(budgets) == len(spec.panels), "a lifetime and columns per alloc"
    for panel in columns:
        bands_ = strips(panel)
        assert all(a[1] < b[0] for a, b in itertools.pairwise(bands_)), "bands overlap"
        for box in panel.boxes:
            inside = [s for s in bands_ if s[0] <= box.y and box.y + box.h <= s[1] + 1e-9]
            assert len(inside) == 1, f"{box.tooltip} is not inside exactly one band"
        # no two kinds share a band: each band's regions have one colour (or the error colour)
        for top, bottom in bands_:
            fills = {b.fill for b in panel.boxes if top <= b.y < bottom} - {ALLOCATED, "#ffffff", OUTSIDE}
            assert len(fills) <= 1, fills


def test_the_gemm_shows_its_accumulator_stages_and_its_epilogue_warps() -> None:
    spec = tmemviz.check(KERNELS / "cutlass_example70_gemm.ptx").figure("auto")
    names = [n.text for p in spec.panels for n in p.notes]
    assert "MMA accumulator (D), 4 stages, issued by warp 0" in names
    assert "warps 4-7: tcgen05.ld reads" in names, "the loads sit in their own band, not under D"
    (checked,) = tmemviz.check(KERNELS / "cutlass_example70_gemm.ptx").subject
    (kernel,) = checked.kernels
    (alloc,) = kernel.allocs
    assert alloc.frees and alloc.by == (0,) and alloc.cta_group == 2
    assert any("dealloc on line" in n for n in names)


def test_legend_names_each_colour_used() -> None:
    spec = tmemviz.check(KERNELS / "cute_dsl_fmha.ptx").figure("auto")
    labels = [s.label for s in spec.legend]
    assert labels[:4] == [KINDS["D"][0], KINDS["A"][0], KINDS["st"][0], KINDS["ld"][0]]
    assert "allocated" in labels and "past the allocation" in labels
    assert "columns held at once (budget)" in labels and "the target's capacity" in labels
    drawn = [p for p in spec.panels if p.title.startswith("columns") or BUDGET in p.title]
    used = {b.fill for p in drawn for b in p.boxes}
    assert used <= {s.color for s in spec.legend}, "every colour of the bands and the budget is in the legend"
    frames = {o.color for p in spec.panels for o in p.outlines}
    assert frames <= {s.color for s in spec.legend if s.frame}, "every frame is in the legend as a frame"


def test_titles_name_files_without_directories() -> None:
    spec = tmemviz.check(KERNELS / "cute_dsl_fmha.ptx").figure("auto")
    assert spec.title == "TMEM map: cute_dsl_fmha.ptx"
    assert all(str(KERNELS) not in p.title and "/" not in p.title.split(":")[0] for p in spec.panels)


def test_findings_are_marked_where_they_are() -> None:
    spec = seeded()
    _, life, columns = spec.panels
    frames = [o for o in columns.outlines if o.color == FINDING]
    assert frames, "the regions at the findings' lines are framed"
    framed = {
        b.data[0][1] for b in columns.boxes for o in frames if (b.x, b.y, b.w) == (o.x, o.y, o.w) and b.data
    }
    assert {"457", "510"} <= framed
    marks = [b for b in life.boxes if b.fill == FINDING]
    assert {b.data[0][1] for b in marks} == {"457", "466", "510", "1290"}, "errors and warnings, no notes"
    listed = [n.text for n in life.notes if n.color == FINDING]
    assert any(t.startswith("line 1290: warning dealloc-mismatch") for t in listed)
    assert any(s.color == FINDING and s.frame for s in spec.legend)
    past = [b for b in columns.boxes if b.fill == OUTSIDE]
    assert past and all(b.x >= 64 for b in past), (
        "only the columns past the allocation are in the error colour"
    )
    clean = tmemviz.check(CLEAN).figure("auto")
    assert not any(o.color == FINDING for p in clean.panels for o in p.outlines)
    assert not any(s.color == FINDING for s in clean.legend), "no finding, no such legend entry"


def test_explain_draws_no_findings_but_the_same_bands() -> None:
    explained = tmemviz.explain(CLEAN).figure("auto")
    checked = tmemviz.check(CLEAN).figure("auto")
    assert explained.panels == checked.panels


def region(
    line: int, op: str, what: str, cols: tuple[int, int], lanes=(0, 127), warps=(), outside=False
) -> Any:  # type: ignore[no-untyped-def]
    return NS(line=line, op=op, what=what, lanes=lanes, cols=cols, writes=op != "ld", outside=outside,
              exact=True, warps=warps, alloc=0)  # fmt: skip


def test_bands_by_kind_and_warpgroup_and_clash() -> None:
    rs = [
        region(10, "mma", "D", (0, 63), warps=(1,)),
        region(20, "ld", "cells", (0, 31), lanes=(0, 31), warps=(4,)),
        region(21, "ld", "cells", (0, 31), lanes=(32, 63), warps=(5,)),
        region(22, "ld", "cells", (0, 31), lanes=(0, 31), warps=(8,)),
        region(30, "cp", "rows", (32, 35), lanes=(0, 31), warps=(1,)),
        region(40, "mma", "A scale factors", (100, 100), warps=(1,)),
    ]
    found = bands(rs, 128)
    assert [(b.kind, b.group) for b in found] == [
        ("D", ()),
        ("scales", ()),
        ("cp", (0,)),
        ("ld", (1,)),
        ("ld", (2,)),
    ]
    assert [b.name for b in found][3] == "warps 4-5: tcgen05.ld reads"
    panel, flags = columns_panel(NS(columns=128, cta_group=1), rs, [])
    cp = [b for b in panel.boxes if b.data and b.data[0] == ("line", "30")]
    assert cp and cp[0].fill == OUTSIDE and "shares cells with an MMA's D" in cp[0].tooltip
    ld = [b for b in panel.boxes if b.data and b.data[0] == ("line", "20")]
    assert ld[0].fill == KINDS["ld"][1], "a load reading D is no clash"
    assert flags == {"outside"}


def test_the_page_finds_a_line(tmp_path: Path) -> None:
    import html

    page = tmemviz.check(CLEAN).save(tmp_path / "m.html").read_text()
    page = html.unescape(page)
    assert 'data-line="457"' in page and 'data-group="line"' in page
    assert "line 457: tcgen05.mma writes D (warp 0)" in page
    assert '<ul class="legend"' in page and "MMA accumulator (D)" in page


def test_pair_allocation_and_unplaced_accesses_are_said() -> None:
    spec = tmemviz.check(KERNELS / "check_cute_dsl_gemm_2cta.ptx").figure("auto")
    assert BUDGET in spec.panels[0].title and "each CTA of the pair" in spec.panels[1].title
    loop = tmemviz.check(KERNELS / "check_cutlass_tmem.ptx").figure("auto")
    assert "not drawn" not in loop.caption, "the loop's loads are placed: its counter is followed"
    assert len(loop.panels) == 6, "two kernels: a budget, a lifetime and columns each"
    (checked,) = tmemviz.check(KERNELS / "check_cutlass_tmem.ptx").subject
    lines = {r.line for r in checked.regions["_Z9gemm_tilePfmm"]}
    loads = {i for i, text in enumerate((KERNELS / "check_cutlass_tmem.ptx").read_text().splitlines(), 1)
             if "tcgen05.ld." in text and i < 230}  # fmt: skip
    assert loads and loads <= lines
    unplaced = tmemviz.check(text=_UNPLACED).figure("auto")
    assert "1 tcgen05 access(es) not drawn" in unplaced.caption


_UNPLACED = """.version 8.6
.target sm_100a
.address_size 64
.visible .entry k(.param .u32 p)
{
.reg .b32 %r<9>;
.extern .shared .align 16 .b8 smem[];
mov.b32 %r1, smem;
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
ld.param.u32 %r2, [p];
tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r3};
tcgen05.wait::st.sync.aligned;
ld.shared.b32 %r4, [smem];
tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r4, 32;
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
ld.shared.b32 %r5, [smem];
tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r5, 32;
ret;
}
"""


def test_no_allocation_still_draws() -> None:
    spec = tmemviz.check(KERNELS / "mma_forms.ptx").figure("auto")
    assert spec.panels[0].title == "no tcgen05.alloc found"


def drawn_text(spec: FigureSpec) -> list[tuple[str, float, tuple[float, float, float, float]]]:
    """Every text the PNG draws: (text, size in points, its extent in pixels x0, y0, x1, y1), measured by
    matplotlib's renderer (cell labels and ticks, drawn without per-text layout, by their monospace
    advance, which is what they are drawn with)."""
    from matplotlib.text import Text

    from tmemviz.draw.figure import MONO_ADVANCE, Labels, draw

    fig = draw(spec)
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    out = []
    for t in fig.findobj(Text):
        if t.get_text() and t.get_visible():
            bb = t.get_window_extent(renderer)
            out.append((t.get_text(), float(t.get_fontsize()), (bb.x0, bb.y0, bb.x1, bb.y1)))
    for artist in fig.axes[0].get_children():
        if isinstance(artist, Labels):
            size = artist._size
            width_px = MONO_ADVANCE * size * fig.dpi / 72
            for x, y, text, _ in artist._items:
                px, py = fig.axes[0].transData.transform((x, y))
                half = width_px * len(text) / 2
                out.append(
                    (text, size, (px - half, py - size * fig.dpi / 144, px + half, py + size * fig.dpi / 144))
                )
    return out


def outside_canvas(spec: FigureSpec) -> list[str]:
    from tmemviz.draw.figure import draw

    fig = draw(spec)
    w, h = fig.bbox.width, fig.bbox.height
    return [
        t
        for t, _, (x0, y0, x1, y1) in drawn_text(spec)
        if x0 < -0.5 or y0 < -0.5 or x1 > w + 0.5 or y1 > h + 0.5
    ]


@pytest.mark.parametrize("name", REAL)
def test_every_text_is_inside_the_canvas_and_at_least_9_pt(name: str) -> None:
    spec = tmemviz.check(KERNELS / name).figure("auto")
    texts = drawn_text(spec)
    assert any(t.startswith("First, each kernel's") for t, _, _ in texts), "the caption is measured too"
    small = sorted({(t, s) for t, s, _ in texts if s < TEXT_PT})
    assert not small, small
    assert not outside_canvas(spec)


def test_a_finding_list_stays_inside_the_canvas() -> None:
    assert not outside_canvas(seeded())


def test_the_tile_caption_wraps_inside_the_canvas() -> None:
    """The tile figure's long caption ran off the right edge (its line breaks were made spaces)."""
    spec = tmemviz.tile(m=128, n=64, shape="16x256b").figure("auto")
    assert len(spec.caption) > 200
    assert not outside_canvas(spec)
    wrapped = [t for t, _, _ in drawn_text(spec) if t.startswith(spec.caption[:60])]
    assert wrapped and "\n" in wrapped[0]


def test_the_map_is_the_same_bytes_every_time(tmp_path: Path) -> None:
    doc = tmemviz.check(KERNELS / "cute_dsl_fmha.ptx")
    for suffix in ("png", "svg", "html"):
        one, two = (
            doc.save(tmp_path / f"a.{suffix}").read_bytes(),
            doc.save(tmp_path / f"b.{suffix}").read_bytes(),
        )
        assert one == two, suffix


@pytest.mark.parametrize("command", ["check", "explain"])
def test_a_notebook_display_builds_the_map_once(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The HTML and the PNG of a result's display (and a later save) share one map: a large kernel's
    took seconds per build. Counted, not timed."""
    from tmemviz.families.explain import figures

    built = []
    real = figures.map_spec

    def counting(*args: Any, **kwargs: Any) -> FigureSpec:
        built.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(figures, "map_spec", counting)
    doc = getattr(tmemviz, command)(CLEAN)
    bundle = doc._repr_mimebundle_()
    assert {"text/html", "image/png"} <= set(bundle)
    assert len(built) == 1
    doc._repr_mimebundle_()
    assert doc.figure("schematic") is doc.figure("auto")
    assert len(built) == 1, "once per result"
    getattr(tmemviz, command)(CLEAN)._repr_mimebundle_()
    assert len(built) == 2, "another result builds its own"


def test_the_map_is_made_only_where_it_is_drawn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """check makes each kernel's TMEM map only when the output draws it (png, svg, html): the findings are
    the same without it, and the command line's figure is the one the map makes."""
    from cli_run import run

    from tmemviz.api import catalog
    from tmemviz.families.check.source import check_sources

    drawn, plain = (check_sources([CLEAN], None, catalog(None), maps=m)[0] for m in (True, False))
    assert drawn.kernels and drawn.regions and not plain.kernels and not plain.regions
    assert [f.record() for f in drawn.findings] == [f.record() for f in plain.findings]
    out = tmp_path / "map.svg"
    assert run(capsys, "check", str(CLEAN), "-o", str(out))[0] in (0, 1)
    assert out.read_bytes() == tmemviz.check(CLEAN).save(tmp_path / "api.svg").read_bytes()
    assert run(capsys, "check", str(CLEAN), "-f", "json")[0] in (0, 1)
