"""The TMEM map's budget: the allocations a kernel holds at once, their stages, against the target's
capacity; the same count as check's ``capacity`` rule and budget note."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from check.test_catalogue import CAPACITY, FREE_FIRST
from check.test_map import drawn_text, outside_canvas

import tmemviz
from tmemviz.draw.spec import FigureSpec, Panel
from tmemviz.families.explain.figures import TEXT_PT
from tmemviz.families.explain.mapbands import KINDS
from tmemviz.families.explain.mapbudget import FRAME, HELD, OVER

KERNELS = Path(__file__).parents[1] / "kernels"
OVER_TEXT = CAPACITY.format(free="", later=FREE_FIRST)
OVER_TITLE = "cap: Tensor Memory budget, .target sm_100a: 576 of 512 columns held at once, 64 over"
"""512 columns (two 256-column MMA stages) held while 64 more are allocated: 576 of 512."""


def budget_of(spec: FigureSpec) -> list[Panel]:
    return [p for p in spec.panels if "Tensor Memory budget" in p.title]


def line_of(text: str, needle: str, nth: int = 0) -> int:
    return [i for i, line in enumerate(text.splitlines(), 1) if needle in line][nth]


def test_over_the_capacity_each_allocation_its_stages_and_the_excess() -> None:
    doc = tmemviz.check(text=OVER_TEXT)
    (panel,) = budget_of(doc.figure("auto"))
    first, second = line_of(OVER_TEXT, "tcgen05.alloc"), line_of(OVER_TEXT, "tcgen05.alloc", 1)
    held = [b for b in panel.boxes if b.fill == HELD]
    assert [(b.x, b.w, b.label) for b in held] == [(0, 512, f"L{first}: 512"), (512, 64, f"L{second}: 64")]
    stages = [(b.x, b.w, b.label) for b in panel.boxes if b.fill == KINDS["D"][1]]
    assert stages == [(0, 256, "stage 0"), (256, 256, "stage 1")], "the kernel's constants place two stages"
    (over,) = [b for b in panel.boxes if b.fill == OVER]
    assert (over.x, over.w) == (512, 64) and "past the 512 an SM of .target sm_100a has" in over.tooltip
    (frame,) = panel.outlines
    assert (frame.x, frame.w, frame.color) == (0, 512, FRAME), "the capacity is framed"
    assert panel.width == 576 and (512.0, "512") in panel.x_ticks
    assert not panel.notes
    assert panel.title == OVER_TITLE
    assert all(f"held at once at line {second}" in b.tooltip for b in held), "where the peak is"
    capacity = [f for f in doc.subject[0].findings if f.rule == "capacity"]
    assert capacity and "576 columns" in capacity[0].message, "the text and the map say the same count"
    labels = [s.label for s in doc.figure("auto").legend]
    assert labels[-3:] == [
        "columns held at once (budget)",
        "the target's capacity",
        "past the target's capacity",
    ]


def test_freed_first_the_peak_is_one_allocation() -> None:
    text = CAPACITY.format(free=FREE_FIRST, later="")
    (panel,) = budget_of(tmemviz.check(text=text).figure("auto"))
    assert not [b for b in panel.boxes if b.fill == OVER]
    assert panel.width == 512
    assert panel.title.endswith(": 512 of 512 columns held at once")


def test_a_clean_kernel_and_the_note_agree() -> None:
    path = KERNELS / "check_triton_mma_n128.ptx"
    doc = tmemviz.check(path)
    (panel,) = budget_of(doc.figure("auto"))
    alloc = line_of(path.read_text(), "tcgen05.alloc")
    assert panel.title == "mma_n128: Tensor Memory budget, .target sm_100a: 128 of 512 columns held at once"
    (held,) = [b for b in panel.boxes if b.fill == HELD]
    assert (held.x, held.w, held.label) == (0, 128, f"L{alloc}: 128")
    (note,) = [f for f in doc.subject[0].findings if f.rule == "alloc-columns" and f.severity == "note"]
    assert "holds up to 128 of the SM's 512" in note.message
    assert budget_of(tmemviz.explain(path).figure("auto")) == [panel], "explain's map draws the same budget"


def test_the_axis_ends_at_the_target_s_capacity(monkeypatch: pytest.MonkeyPatch) -> None:
    """The capacity comes from the target's row of the one table: a smaller one is drawn, and exceeded."""
    from tmemviz.ptx import targets

    monkeypatch.setitem(targets.CAPACITIES, 100, (256, "a test's"))
    (panel,) = budget_of(tmemviz.check(text=CAPACITY.format(free=FREE_FIRST, later="")).figure("auto"))
    assert panel.title.endswith(".target sm_100a: 512 of 256 columns held at once, 256 over")
    assert panel.outlines[0].w == 256 and panel.width == 512
    (over,) = [b for b in panel.boxes if b.fill == OVER]
    assert (over.x, over.w) == (256, 256)


def test_an_ncols_in_a_register_is_not_counted() -> None:
    text = (
        CAPACITY.format(free=FREE_FIRST, later="")
        .replace("b32 [%r4], 512;", "b32 [%r4], %r9;")
        .replace("mov.u32 %r4, slot;", "mov.u32 %r4, slot;\nld.param.u32 %r9, [out];")
    )
    (panel,) = budget_of(tmemviz.check(text=text).figure("auto"))
    assert not [b for b in panel.boxes if b.fill == HELD]
    assert panel.title.endswith(".target sm_100a: not counted (an nCols is not known)")
    assert panel.outlines[0].w == 512, "the capacity is drawn all the same"


@pytest.mark.parametrize("which", ["over", "a-operand"])
def test_every_text_is_inside_the_canvas_and_at_least_9_pt(which: str) -> None:
    if which == "over":
        spec = tmemviz.check(text=OVER_TEXT).figure("auto")
    else:
        spec = tmemviz.check(KERNELS / "check_a_in_tmem.ptx").figure("auto")
    texts = drawn_text(spec)
    assert any("Tensor Memory budget" in t for t, _, _ in texts), "the budget's text is measured"
    assert not sorted({(t, s) for t, s, _ in texts if s < TEXT_PT})
    assert not outside_canvas(spec)


def test_the_page_draws_the_budget(tmp_path: Path) -> None:
    page = html.unescape(tmemviz.check(text=OVER_TEXT).save(tmp_path / "m.html").read_text())
    assert f'aria-label="{OVER_TITLE}"' in page
    assert f'fill="{OVER}"' in page and f'stroke="{FRAME}"' in page
    assert "columns 512-575: past the 512 an SM of .target sm_100a has" in page
    assert "past the target's capacity</li>" in page, "the legend says it"
