"""The TMEM map's cells: what colour each gets, what its tooltip says, what the page can find."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace as Region

import tmemviz
from tmemviz.families.explain.figures import ERROR, FREE, MMA_D, PAST, READ, WRITTEN, paint

KERNELS = Path(__file__).parents[1] / "kernels"


def region(line: int, op: str, what: str, cols: tuple[int, int], lanes=(0, 127), writes=True, outside=False):  # type: ignore[no-untyped-def]
    return Region(line=line, op=op, what=what, lanes=lanes, cols=cols, writes=writes, outside=outside)


def test_colours_by_precedence_and_clash() -> None:
    d = region(10, "mma", "D", (0, 31))
    ld = region(20, "ld", "cells", (16, 47), writes=False)
    cp = region(30, "cp", "rows", (24, 39), lanes=(0, 31))
    colors, lines, kinds, texts = paint(64, 64, [d, ld, cp])
    at = lambda lane, col: colors[lane * 64 + col]  # noqa: E731
    assert at(0, 0) == MMA_D and at(100, 16) == MMA_D, "an MMA's D shows over the ld reading it"
    assert at(100, 40) == READ and at(100, 50) == FREE
    assert at(0, 28) == ERROR, "a copy's rows landing in an MMA's D"
    assert at(0, 36) == WRITTEN and at(40, 28) == MMA_D
    assert dict(texts)[kinds[28]] == (
        "line 10: tcgen05.mma writes D; line 20: tcgen05.ld reads; line 30: tcgen05.cp writes rows"
    )
    assert lines[0] == 10 and lines[50] == -1


def test_past_the_allocation() -> None:
    colors, _, _, _ = paint(96, 64, [region(5, "st", "cells", (48, 79), lanes=(0, 31))])
    assert colors[60] == WRITTEN and colors[70] == ERROR and colors[90] == PAST and colors[96 * 40] == FREE


def test_pair_allocation_and_unplaced_accesses_are_said() -> None:
    spec = tmemviz.check(KERNELS / "check_cute_dsl_gemm_2cta.ptx").figure("auto")
    assert "each CTA of the pair" in spec.panels[0].title
    loop = tmemviz.check(KERNELS / "check_cutlass_tmem.ptx").figure("auto")
    assert "not drawn" not in loop.caption, "the loop's loads are placed: its counter is followed"
    assert len(loop.panels) == 2
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


def test_the_page_finds_a_line(tmp_path: Path) -> None:
    import html

    page = tmemviz.check(KERNELS / "check_triton_mma_n128.ptx").save(tmp_path / "m.html").read_text()
    page = html.unescape(page)
    assert '"group":["line"]' in page and '"names":["lane","col","line","touch"]' in page
    assert "line 457: tcgen05.mma writes D" in page


def test_no_allocation_still_draws() -> None:
    spec = tmemviz.check(KERNELS / "mma_forms.ptx").figure("auto")
    assert spec.panels[0].title == "no tcgen05.alloc found"
