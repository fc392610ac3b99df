"""The schematic of a tile load, in the manner of PTX figures 205-218: too many elements to label.

D with m down and n across, one block per tcgen05.ld access filled in its warp's color
and named by warp, instruction and taddr, a thick frame per warp's part, a few sample
holders in the caption, and each block's detail in its tooltip (interactive page).
A 128 x 256 tile is 32,768 elements; this draws a few dozen blocks instead. Plain data
from :mod:`tmemviz.draw.spec`; no matplotlib here.
"""

from __future__ import annotations

from tmemviz.draw.palette import THREAD_COLORS
from tmemviz.draw.spec import Field, FigureSpec, Note, Outline, Panel, detail_mode
from tmemviz.families.tile.answers import (
    describe,
    layout_phrase,
    m_range,
    n_ranges,
    short_statement,
    taddr_operand,
)
from tmemviz.families.tile.layout import Element, Tile, element_at, elements

WIDTH_IN = 9.0
HEIGHT_IN = 6.5
MAX_CELL_W_IN = 0.42
MAX_CELL_H_IN = 0.24
LABEL_W_IN = 0.75
LABEL_H_IN = 0.13
WIDE_LABEL_IN = 2.2
"""Blocks at least this wide also name their taddr operand."""
WARP_LINE = 2.0
ACCESS_LINE = 0.6
ACCESS_COLOR = "#333333"
DIM_FILL = "#eeeeee"
NOTES_IN = 1.3
TICKS = 8


def wants_schematic(tile: Tile, detail: str) -> bool:
    """``schematic`` always, ``all`` never, ``auto`` above the labelling limit of :mod:`tmemviz.draw.spec`."""
    return detail_mode(detail, tile.m * tile.n) == "schematic"


def _ticks(count: int) -> tuple[tuple[float, str], ...]:
    step = max(1, count // TICKS)
    step = 1 << (step - 1).bit_length()  # a power of two: 0, 32, 64 ...
    marks = [*range(0, count, step), count - 1]
    return tuple((k + 0.5, str(k)) for k in sorted(set(marks)))


def tile_schematic(
    tile: Tile, *, thread: int | None = None, warp: int | None = None, title: str | None = None
) -> FigureSpec:
    """Every element colored by its thread as one image, a frame and name per access, a thick frame per
    warp's part; ``thread``/``warp`` keep those in color. Hovering an element names its holder."""
    cell_w = min(MAX_CELL_W_IN, WIDTH_IN / tile.n)
    cell_h = min(MAX_CELL_H_IN, HEIGHT_IN / tile.m)
    outlines: list[Outline] = []
    labels: list[Note] = []
    spans: dict[tuple[int, int], list[tuple[int, int, int, int]]] = {}
    for issued in tile.issued:
        m0, m1 = m_range(tile, issued)
        for a, b in n_ranges(tile, issued):
            w, h = b - a + 1, m1 - m0 + 1
            outlines.append(Outline(a, m0, w, h, ACCESS_LINE, ACCESS_COLOR))
            if w * cell_w >= LABEL_W_IN and h * cell_h >= LABEL_H_IN:
                text = f"w{issued.warp} i{issued.index}"
                if w * cell_w >= WIDE_LABEL_IN:
                    text += f": [{taddr_operand(tile, issued)}]"
                labels.append(Note(a + w / 2, m0 + h / 2, text, 7.0))
            spans.setdefault((issued.cta, issued.warp), []).append((m0, m1, a, b))
    beside: dict[float, list[str]] = {}
    for (cta, w), parts in sorted(spans.items()):
        for m0, m1, a, b in _rectangles(parts):
            outlines.append(Outline(a, m0, b - a + 1, m1 - m0 + 1, WARP_LINE))
            if b == tile.n - 1 or tile.path.placement != "folded":
                name = f"CTA {cta} w{w}" if tile.cta_group == 2 else f"warp {w}"
                beside.setdefault((m0 + m1 + 1) / 2, []).append(name)
    notes = [Note(tile.n + 1.5, y, ", ".join(sorted(set(names))), 7.0, "left") for y, names in beside.items()]
    panel = Panel(
        title="",
        width=tile.n,
        height=tile.m,
        cell_w_in=cell_w,
        boxes=(),
        fields=(element_field(tile, thread, warp),),
        x_ticks=_ticks(tile.n),
        y_ticks=_ticks(tile.m),
        outlines=tuple(outlines),
        notes=(*labels, *notes),
        cell_h_in=cell_h,
        y_label="m",
        margin_right_in=NOTES_IN,
    )
    text = caption(tile)
    if thread is not None or warp is not None:
        who = f"thread {thread}" if thread is not None else ""
        who += (" of " if who else "") + (f"warp {warp}" if warp is not None else "every warp")
        text += f"; in color: {who}"
    return FigureSpec(title=title or describe(tile), caption=text, panels=(panel,))


NAMES = ("m", "n", "cta", "warp", "thread", "instruction", "reg", "half", "lane", "col")
HALF_TEXT = ((-1, ""), (0, ".lo"), (1, ".hi"))


def _coordinates(e: Element) -> tuple[int, ...]:
    """One element's values in :data:`NAMES` order (``half`` -1 for 32-bit elements)."""
    half = -1 if e.half is None else e.half
    return (e.m, e.n, e.cta, e.warp, e.thread, e.instruction, e.reg, half, e.lane, e.col)


def element_field(tile: Tile, thread: int | None = None, warp: int | None = None) -> Field:
    """Every D[m][n] as one cell of a :class:`Field`: colored by thread (eight colors cycle), each cell
    carrying its holder so the interactive page names it on hover and finds ``T6 r3`` / ``L,C``."""
    n_total = tile.n
    every = elements(tile)  # sorted by (m, n), each element once: position = m * N + n, the cell index
    values = tuple(zip(*(_coordinates(e) for e in every), strict=True))
    dim = len(THREAD_COLORS)
    colors = tuple(
        e.thread % dim if (thread is None or e.thread == thread) and (warp is None or e.warp == warp) else dim
        for e in every
    )
    cta = "CTA {cta} " if tile.cta_group == 2 else ""
    return Field(
        0,
        0,
        n_total,
        tile.m,
        NAMES,
        values,
        colors,
        (*THREAD_COLORS, DIM_FILL),
        f"D[{{m}}][{{n}}] -> {cta}w{{warp}} T{{thread}} i{{instruction}} r{{reg}}{{half}} "
        "(lane {lane}, col {col})",
        texts=(("half", HALF_TEXT),),
        group=("cta", "warp", "thread") if tile.cta_group == 2 else ("warp", "thread"),
    )


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
        f"{describe(tile)}: {layout_phrase(tile)}. Every element colored by the thread holding it (eight "
        f"colors cycle over T0..T31); thin frames = one access of one tcgen05.ld "
        f"({short_statement(tile, tile.issued[0], 'taddr+OFFSET')}), named w (warp) i (instruction); thick "
        f"frames = each warp's part of D. Samples: {samples(tile)}. Hover or search (T6 r3, L,C) the -o "
        "FILE.html page for any element's holder, or draw every label with --detail all"
    )
