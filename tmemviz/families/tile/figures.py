"""Figure specs of a tile load: D with warps as bands, instructions outlined, one thread highlighted.

Plain data built from :mod:`tmemviz.draw.spec`; no matplotlib here. Also the
family's gallery entries.
"""

from __future__ import annotations

from functools import partial

from tmemviz.catalog import Catalog
from tmemviz.draw.palette import thread_color
from tmemviz.draw.spec import CHAR_IN, Box, FigureSpec, GalleryEntry, Note, Outline, Panel, chunk_columns
from tmemviz.families.ldst.shapes import KIND as LDST
from tmemviz.families.tile.answers import describe, layout_phrase, m_range, n_ranges, short_statement
from tmemviz.families.tile.layout import Element, Tile, elements, make_tile
from tmemviz.families.tile.views import HALF_SUFFIX
from tmemviz.tmem import span_text

DIM_FILL = "#eeeeee"
WARP_LINE = 2.0
INSTRUCTION_LINE = 1.0
INSTRUCTION_COLOR = "#444444"
WARP_MARGIN_IN = 0.7
"""Room right of the grid for the ``warp 3`` notes."""


def label(e: Element, single: bool = False) -> str:
    """``T17 i2 r5``: the warp is the band the cell sits in (and its tooltip).

    With ``single`` (one instruction per warp) the ``i0`` is left out, keeping wide tiles narrower.
    """
    which = "" if single else f" i{e.instruction}"
    return f"T{e.thread}{which} r{e.reg}{HALF_SUFFIX[e.half]}"


def element_data(e: Element) -> tuple[tuple[str, str], ...]:
    """m, n, warp, thread, instruction, reg (half for 16-bit elements), the TMEM lane and column, and
    the selection group: an interactive page selects one warp's thread (thread ids repeat per warp)
    and finds "L,C" by TMEM lane and column."""
    data = [
        ("m", str(e.m)),
        ("n", str(e.n)),
        ("warp", str(e.warp)),
        ("thread", str(e.thread)),
        ("instruction", str(e.instruction)),
        ("reg", str(e.reg)),
    ]
    if e.half is not None:
        data.append(("half", str(e.half)))
    data += [("lane", str(e.lane)), ("col", str(e.col)), ("group", "warp thread")]
    return tuple(data)


def tooltip(e: Element) -> str:
    """``D[37][5] -> w1 T22 i0 r1 (lane 37, col 5)``."""
    who = f"w{e.warp} T{e.thread} i{e.instruction} r{e.reg}{HALF_SUFFIX[e.half]}"
    return f"D[{e.m}][{e.n}] -> {who} (lane {e.lane}, col {e.col})"


def tile_spec(
    tile: Tile,
    items: tuple[Element, ...],
    *,
    thread: int | None = None,
    warp: int | None = None,
    title: str | None = None,
) -> FigureSpec:
    """D with m down and n across; thick frames around each warp's part, thin ones around each access.

    ``thread`` keeps that thread (of every warp, or of ``warp`` only) in color and dims the rest;
    ``warp`` alone keeps that warp.
    """
    at = {(e.m, e.n): e for e in items}
    rows = sorted({e.m for e in items})
    single = len(tile.issued_by(0)) == 1
    width = max(len(label(e, single)) for e in items)
    cell_w = max(0.42, (width + 1.5) * CHAR_IN)
    group = tile.width // tile.shape.accesses  # n of one access: keep whole accesses in a panel
    chunks = chunk_columns(sorted({e.n for e in items}), cell_w, group)
    row_of = {m: i for i, m in enumerate(rows)}
    panels = []
    for k, chunk in enumerate(chunks, 1):
        lo, hi = chunk[0], chunk[-1]
        boxes = []
        for n in chunk:
            for m in rows:
                e = at[(m, n)]
                picked = (thread is None or e.thread == thread) and (warp is None or e.warp == warp)
                fill = thread_color(e.thread) if picked else DIM_FILL
                boxes.append(
                    Box(
                        n - lo,
                        row_of[m],
                        1,
                        1,
                        fill,
                        label(e, single),
                        tooltip(e),
                        dim=not picked,
                        data=element_data(e),
                    )
                )
        outlines, notes = _frames(tile, lo, hi, row_of)
        panel_title = "n " + span_text(chunk) + (f" (panel {k} of {len(chunks)})" if len(chunks) > 1 else "")
        panels.append(
            Panel(
                title=panel_title,
                width=len(chunk),
                height=len(rows),
                cell_w_in=cell_w,
                boxes=tuple(boxes),
                x_ticks=tuple((n - lo + 0.5, str(n)) for n in chunk),
                y_ticks=tuple((row_of[m] + 0.5, str(m)) for m in rows),
                outlines=outlines,
                notes=notes,
                y_label="m (TMEM lane)" if tile.layout == "D" else "m",
                margin_right_in=WARP_MARGIN_IN,
            )
        )
    text = (
        f"{describe(tile)}: {layout_phrase(tile)}. Every instruction: "
        f"{short_statement(tile, tile.issued[0], 'taddr+OFFSET')} "
        f"{tile.registers_per_thread} registers per thread. Cells: thread T, "
        f"{'register r (one instruction per warp, i0)' if single else 'instruction i, register r'}; "
        "thick frames = warps, thin frames = one access of one instruction"
    )
    if thread is not None:
        text += f"; highlighted: thread {thread}" + (
            f" of warp {warp}" if warp is not None else " of every warp"
        )
    elif warp is not None:
        text += f"; highlighted: warp {warp}"
    return FigureSpec(title=title or f"{describe(tile)}", caption=text, panels=tuple(panels))


def _frames(
    tile: Tile, lo: int, hi: int, row_of: dict[int, int]
) -> tuple[tuple[Outline, ...], tuple[Note, ...]]:
    """Frames of each warp's part and each instruction access within n ``lo..hi``; ``warp w`` notes."""
    outlines: list[Outline] = []
    warp_spans: dict[int, list[tuple[int, int, int, int]]] = {}
    for issued in tile.issued:
        m0, m1 = m_range(tile, issued)
        for a, b in n_ranges(tile, issued):
            a, b = max(a, lo), min(b, hi)
            if a > b:
                continue
            outlines.append(
                Outline(a - lo, row_of[m0], b - a + 1, m1 - m0 + 1, INSTRUCTION_LINE, INSTRUCTION_COLOR)
            )
            warp_spans.setdefault((issued.cta, issued.warp), []).append((m0, m1, a, b))
    notes: list[Note] = []
    beside: dict[float, list[str]] = {}
    for (cta, w), spans in sorted(warp_spans.items()):
        name = f"CTA {cta} warp {w}" if tile.cta_group == 2 else f"warp {w}"
        # A warp's part of D is one rectangle (a folded layout's band is one part of N).
        m0, m1 = min(s[0] for s in spans), max(s[1] for s in spans)
        a, b = min(s[2] for s in spans), max(s[3] for s in spans)
        outlines.append(Outline(a - lo, row_of[m0], b - a + 1, m1 - m0 + 1, WARP_LINE))
        beside.setdefault((row_of[m0] + row_of[m1] + 1) / 2, []).append(name)
    for y, names in beside.items():
        notes.append(Note(hi - lo + 1.3, y, ", ".join(names), 7.0, "left"))
    return tuple(outlines), tuple(notes)


GALLERY = (
    ("16x256b", 64, "f32", {}),
    ("32x32b", 128, "bf16", {}),
    ("16x32bx2", 32, "f32", {"m": 64}),
    ("32x32b", 64, "f32", {"m": 32, "ws": True}),
)
"""The epilogue tiles the gallery draws: (shape, N, dtype, MMA), 4 warps, default .num; the MMA
defaults to M = 128, .cta_group::1 (layout D); M = 64 is layout F, M = 32 with .ws layout G."""


def gallery_entries(catalog: Catalog) -> list[GalleryEntry]:
    """128 x 64 f32 with .16x256b, 128 x 128 bf16 with .32x32b, and layouts F and G."""
    from tmemviz.families.datapath.shapes import KIND as DATAPATH

    out: list[GalleryEntry] = []
    for name, n, dtype, mma in GALLERY:
        shape = catalog.get(LDST, name)
        tile = make_tile(shape, n, dtype=dtype, paths=catalog.shapes(DATAPATH), **mma)  # type: ignore[arg-type]
        figure = f"after Figure {shape.ptx_figure}" if shape.ptx_figure is not None else "-"
        note = f"{tile.m} x {n} {dtype} accumulator, 4 warps, {len(tile.issued_by(0))} instructions per warp"
        if tile.storage == "packed":
            note += ", two elements per TMEM column"
        suffix = "" if tile.layout == "D" else f".{tile.layout}"
        if tile.layout != "D":
            note += f", data-path layout {tile.layout}"
        out.append(
            GalleryEntry(
                f"tile.{tile.m}x{n}.{dtype}.{name}{suffix}",
                f"`{tile.mnemonic}`",
                figure,
                note,
                partial(_gallery_spec, tile),
            )
        )
    return out


def _gallery_spec(tile: Tile) -> FigureSpec:
    """As ``-o`` draws it by default: labelled up to the label limit, else the schematic."""
    from tmemviz.families.tile.schematic import tile_schematic, wants_schematic

    if wants_schematic(tile, "auto"):
        return tile_schematic(tile)
    return tile_spec(tile, elements(tile))
