"""The schematic of a tile load, in the manner of PTX figures 205-218: too many elements to label.

D with m down and n across, one block per tcgen05.ld access filled in its warp's color
and named by warp, instruction and taddr, a thick frame per warp's part, a few sample
holders in the caption, and each block's detail in its tooltip (interactive page).
A 128 x 256 tile is 32,768 elements; this draws a few dozen blocks instead. Plain data
from :mod:`tmemviz.draw.spec`; no matplotlib here.
"""

from __future__ import annotations

from tmemviz.draw.palette import thread_color
from tmemviz.draw.spec import Box, FigureSpec, Note, Outline, Panel
from tmemviz.tile.answers import (
    describe,
    layout_phrase,
    m_range,
    n_ranges,
    short_statement,
    taddr_operand,
)
from tmemviz.tile.layout import Tile, element_at

SCHEMATIC_ABOVE = 2048
"""``--detail auto`` draws this schematic above this many elements (labels stop being legible)."""
WIDTH_IN = 9.0
HEIGHT_IN = 6.5
MAX_CELL_W_IN = 0.42
MAX_CELL_H_IN = 0.24
LABEL_W_IN = 0.75
LABEL_H_IN = 0.13
WIDE_LABEL_IN = 2.2
"""Blocks at least this wide also name their taddr operand."""
WARP_LINE = 2.0
NOTES_IN = 1.3
TICKS = 8


def wants_schematic(tile: Tile, detail: str) -> bool:
    """``schematic`` always, ``all`` never, ``auto`` above :data:`SCHEMATIC_ABOVE` elements."""
    return detail == "schematic" or (detail == "auto" and tile.m * tile.n > SCHEMATIC_ABOVE)


def _ticks(count: int) -> tuple[tuple[float, str], ...]:
    step = max(1, count // TICKS)
    step = 1 << (step - 1).bit_length()  # a power of two: 0, 32, 64 ...
    marks = [*range(0, count, step), count - 1]
    return tuple((k + 0.5, str(k)) for k in sorted(set(marks)))


def tile_schematic(tile: Tile, *, warp: int | None = None, title: str | None = None) -> FigureSpec:
    """Every access as a block of D in its warp's color (``warp`` keeps that warp in color)."""
    cell_w = min(MAX_CELL_W_IN, WIDTH_IN / tile.n)
    cell_h = min(MAX_CELL_H_IN, HEIGHT_IN / tile.m)
    boxes: list[Box] = []
    spans: dict[tuple[int, int], list[tuple[int, int, int, int]]] = {}
    for issued in tile.issued:
        m0, m1 = m_range(tile, issued)
        picked = warp is None or issued.warp == warp
        fill = thread_color(4 * issued.cta + issued.warp) if picked else "#eeeeee"
        ptx = short_statement(tile, issued)
        for a, b in n_ranges(tile, issued):
            w, h = b - a + 1, m1 - m0 + 1
            fits = w * cell_w >= LABEL_W_IN and h * cell_h >= LABEL_H_IN
            who = f"CTA {issued.cta} warp {issued.warp}" if tile.cta_group == 2 else f"warp {issued.warp}"
            label = f"w{issued.warp} i{issued.index}" if fits else ""
            if fits and w * cell_w >= WIDE_LABEL_IN:
                label += f": [{taddr_operand(tile, issued)}]"
            tip = f"{who}, i{issued.index}: D rows {m0}..{m1}, n {a}..{b}; {ptx}"
            data = (
                ("cta", str(issued.cta)),
                ("warp", str(issued.warp)),
                ("instruction", str(issued.index)),
                ("m", f"{m0}-{m1}"),
                ("n", f"{a}-{b}"),
                ("taddr", taddr_operand(tile, issued)),
                ("group", "warp"),
            )
            boxes.append(Box(a, m0, w, h, fill, label, tip, dim=not picked, data=data))
            spans.setdefault((issued.cta, issued.warp), []).append((m0, m1, a, b))
    outlines: list[Outline] = []
    beside: dict[float, list[str]] = {}
    for (cta, w), parts in sorted(spans.items()):
        for m0, m1, a, b in _rectangles(parts):
            outlines.append(Outline(a, m0, b - a + 1, m1 - m0 + 1, WARP_LINE))
            if b == tile.n - 1 or tile.path.placement != "folded":
                name = f"CTA {cta} w{w}" if tile.cta_group == 2 else f"warp {w}"
                beside.setdefault((m0 + m1 + 1) / 2, []).append(name)
    notes = tuple(
        Note(tile.n + 1.5, y, ", ".join(sorted(set(names))), 7.0, "left") for y, names in beside.items()
    )
    panel = Panel(
        title="",
        width=tile.n,
        height=tile.m,
        cell_w_in=cell_w,
        boxes=tuple(boxes),
        x_ticks=_ticks(tile.n),
        y_ticks=_ticks(tile.m),
        outlines=tuple(outlines),
        notes=notes,
        cell_h_in=cell_h,
        y_label="m",
        margin_right_in=NOTES_IN,
    )
    return FigureSpec(title=title or describe(tile), caption=caption(tile), panels=(panel,))


def _rectangles(parts: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """A warp's blocks merged into its rectangles of D: one per band part (rows x n range)."""
    by_rows: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for m0, m1, a, b in parts:
        by_rows.setdefault((m0, m1), []).append((a, b))
    merged_rows: dict[tuple[int, int], list[int]] = {}
    for (m0, m1), ranges in by_rows.items():
        key = (min(a for a, _ in ranges), max(b for _, b in ranges))
        merged_rows.setdefault(key, []).extend((m0, m1))
    return [(min(ms), max(ms), a, b) for (a, b), ms in merged_rows.items()]


def samples(tile: Tile) -> str:
    """A few holders spelled out: the pattern inside each block without labelling every element."""
    picks = [(0, 0), (0, 1), (1, 0), (tile.m - 1, tile.n - 1)]
    out = []
    for m, n in picks:
        e = element_at(tile, m, n)
        half = {None: "", 0: ".lo", 1: ".hi"}[e.half]
        cta = f"CTA {e.cta} " if tile.cta_group == 2 else ""
        out.append(f"D[{m}][{n}] = {cta}w{e.warp} T{e.thread} i{e.instruction} r{e.reg}{half}")
    return "; ".join(out)


def caption(tile: Tile) -> str:
    """What the schematic shows, the layout it rests on, and where the per-element detail is."""
    return (
        f"{describe(tile)}: {layout_phrase(tile)}. Each block is one access of one tcgen05.ld "
        f"({short_statement(tile, tile.issued[0], 'taddr+OFFSET')}), in its warp's color, named w (warp) "
        f"i (instruction); thick frames = each warp's part of D. Samples: {samples(tile)}. Each block's "
        "thread/register pattern is 'tmemviz layout' of its shape; hover a block of the -o FILE.html page "
        "for its PTX, or draw every element with --detail all (or ask with --m-row/--n-col)"
    )
