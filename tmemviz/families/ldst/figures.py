"""Figure specs of tcgen05.ld/st: Matrix Fragment grids (PTX Figures 183-187) and pack/unpack (193).

Plain data built from :mod:`tmemviz.draw.spec`; no matplotlib here. Also the
family's gallery entries.
"""

from __future__ import annotations

from collections import defaultdict
from functools import partial

from tmemviz.catalog import Catalog
from tmemviz.draw.palette import THREAD_COLORS, thread_color
from tmemviz.draw.spec import (
    CHAR_IN,
    PANEL_WIDTH_IN,
    Arrow,
    Box,
    Field,
    FigureSpec,
    GalleryEntry,
    Note,
    Outline,
    Panel,
    chunk_columns,
    detail_mode,
)
from tmemviz.families.ldst.layout import Cell, Instruction, cells, make_instruction, reductions
from tmemviz.families.ldst.shapes import KIND
from tmemviz.families.ldst.views import caption, cell_label
from tmemviz.tmem import span_text

DIM_FILL = "#eeeeee"
OVERLAP_FILL = "#ff7f7f"


def cell_data(cell: Cell) -> tuple[tuple[str, str], ...]:
    """``lane``, ``col``, ``thread``, ``reg`` (and ``half`` when packed) of a cell's first owner."""
    data = [
        ("lane", str(cell.lane)),
        ("col", str(cell.col)),
        ("thread", str(cell.thread)),
        ("reg", str(cell.reg)),
    ]
    if cell.half is not None:
        data.append(("half", str(cell.half)))
    return tuple(data)


def tooltip(cell: Cell, owners: list[Cell]) -> str:
    """``lane 9, col 5 -> T6 r3`` (both owners when two halves overlap)."""
    who = " and ".join(cell_label(c) for c in owners)
    return f"lane {cell.lane}, col {cell.col} -> {who}"


def layout_spec(
    ins: Instruction,
    cells: tuple[Cell, ...],
    *,
    highlight: frozenset[int] = frozenset(),
    title: str | None = None,
    detail: str = "auto",
) -> FigureSpec:
    """One box per TMEM cell the instruction moves, in the style of PTX Figures 183-187.

    ``highlight`` keeps those threads in color and dims every other thread.
    Every cell is present; overlapping ``.16x32bx2`` halves share one box that
    names both owners. ``detail`` (``auto``/``all``/``schematic``): beyond
    :data:`~tmemviz.draw.spec.LABEL_LIMIT` cells ``auto`` draws :func:`schematic_spec`.
    """
    if detail_mode(detail, len({(c.lane, c.col) for c in cells})) == "schematic":
        return schematic_spec(ins, cells, highlight=highlight, title=title)
    text = caption(ins)
    if highlight:
        text += "; highlighted threads: " + ", ".join(f"T{t}" for t in sorted(highlight))
    panels = _grid_panels(ins, cells, highlight)
    return FigureSpec(title=title or ins.mnemonic, caption=text, panels=tuple(panels))


def _grid_panels(ins: Instruction, cells: tuple[Cell, ...], highlight: frozenset[int]) -> list[Panel]:
    """The labelled grid: one box per cell, columns split into panels of whole repetitions."""
    at: dict[tuple[int, int], list[Cell]] = defaultdict(list)
    for c in cells:
        at[(c.lane, c.col)].append(c)
    lanes = sorted({c.lane for c in cells})
    columns = sorted({c.col for c in cells})
    label_chars = max(len(" / ".join(cell_label(c) for c in group)) for group in at.values())
    cell_w = max(0.42, (label_chars + 1.5) * CHAR_IN)
    rep = ins.shape.columns_per_rep * (2 if ins.pack else 1)
    chunks = chunk_columns(columns, cell_w, rep)  # keep whole repetitions together
    second = (ins.origin[1] + ins.split_offset) if ins.split_offset is not None else None
    panels = []
    for n, chunk in enumerate(chunks, 1):
        slot = {col: i for i, col in enumerate(chunk)}
        boxes = []
        for col in chunk:
            for row, lane in enumerate(lanes):
                group = at.get((lane, col))
                if not group:
                    continue
                first = group[0]
                dim = bool(highlight) and not any(c.thread in highlight for c in group)
                fill = OVERLAP_FILL if len(group) > 1 else thread_color(first.thread)
                boxes.append(
                    Box(
                        x=slot[col],
                        y=row,
                        w=1,
                        h=1,
                        fill=DIM_FILL if dim else fill,
                        label=" / ".join(cell_label(c) for c in group),
                        tooltip=tooltip(first, group),
                        dim=dim,
                        data=cell_data(first),
                    )
                )
        panel_title = "columns " + span_text(chunk)
        if len(chunks) > 1:
            panel_title += f" (panel {n} of {len(chunks)})"
        markers = []
        for i, col in enumerate(chunk):
            notes = []
            if col == second:
                notes.append(f"taddr + immHalfSplitoff ({ins.split_offset})")
            if i and col != chunk[i - 1] + 1:
                notes.append(f"columns {chunk[i - 1] + 1}..{col - 1} not accessed")
            if notes:
                markers.append((float(i), "; ".join(notes)))
        red_notes = _redval_notes(ins, chunk, lanes)
        panels.append(
            Panel(
                title=panel_title,
                width=len(chunk),
                height=len(lanes),
                cell_w_in=cell_w,
                boxes=tuple(boxes),
                x_ticks=tuple((i + 0.5, str(col)) for i, col in enumerate(chunk)),
                y_ticks=tuple((r + 0.5, str(lane)) for r, lane in enumerate(lanes)),
                markers=tuple(markers),
                notes=red_notes,
                margin_right_in=REDVAL_MARGIN_IN if red_notes else 0.0,
            )
        )
    return panels


SCHEMATIC_CELL_IN = 0.2
"""Widest a schematic cell gets: the image is a map, not a table (labels are in the key panel)."""
TICKS = 16
"""About this many labelled column ticks on a schematic: one per repetition, or one per few."""
HALF_TEXT = ((-1, ""), (0, ".lo"), (1, ".hi"))


def schematic_spec(
    ins: Instruction,
    cells: tuple[Cell, ...],
    *,
    highlight: frozenset[int] = frozenset(),
    title: str | None = None,
) -> FigureSpec:
    """The PTX-figure style for layouts too big to label: the first repetition in full, then every cell
    as one colored map with a frame per repetition, column ranges, each repetition's first register,
    and a legend; every cell's owner stays in the interactive page (hover/search) and in ``all``."""
    per_rep = ins.shape.registers_per_rep
    key = tuple(c for c in cells if c.reg < per_rep)
    regs = "register r0" if per_rep == 1 else f"registers r0..r{per_rep - 1}"
    first = _grid_panels(ins, key, highlight)
    key_panels = [
        Panel(**{**p.__dict__, "title": f"repetition 0 in full ({regs}): {p.title}"}) for p in first
    ]
    return FigureSpec(
        title=title or ins.mnemonic,
        caption=caption(ins) + "; " + SCHEMATIC_LEGEND,
        panels=(*key_panels, _map_panel(ins, cells, highlight)),
    )


SCHEMATIC_LEGEND = (
    "schematic: the top panel names every cell of the first repetition; below, every cell the "
    "instruction moves, colored by its thread as above (eight colors cycle over T0..T31), framed per "
    "repetition (.num), with each repetition's first register under it. Hover or search the -o FILE.html "
    "page for any cell's thread and register, or draw every label with --detail all"
)


def _map_panel(ins: Instruction, cells: tuple[Cell, ...], highlight: frozenset[int]) -> Panel:
    at: dict[tuple[int, int], list[Cell]] = defaultdict(list)
    for c in cells:
        at[(c.lane, c.col)].append(c)
    lane0, lane1 = min(c.lane for c in cells), max(c.lane for c in cells)
    col0, col1 = min(c.col for c in cells), max(c.col for c in cells)
    cols, rows = col1 - col0 + 1, lane1 - lane0 + 1
    palette = (*THREAD_COLORS, OVERLAP_FILL, DIM_FILL)
    names = ("lane", "col", "thread", "reg", "half")
    values: list[list[int]] = [[-1] * (cols * rows) for _ in names]
    colors = [-1] * (cols * rows)
    special = []
    for (lane, col), group in at.items():
        i = (lane - lane0) * cols + (col - col0)
        c = group[0]
        for k, v in enumerate((lane, col, c.thread, c.reg, -1 if c.half is None else c.half)):
            values[k][i] = v
        dim = bool(highlight) and not any(g.thread in highlight for g in group)
        colors[i] = len(palette) - 1 if dim else (8 if len(group) > 1 else c.thread % len(THREAD_COLORS))
        if len(group) > 1:
            special.append((i, tooltip(c, group)))
    cell_w = min(SCHEMATIC_CELL_IN, PANEL_WIDTH_IN / cols)
    field = Field(
        0,
        0,
        cols,
        rows,
        names,
        tuple(tuple(v) for v in values),
        tuple(colors),
        palette,
        "lane {lane}, col {col} -> T{thread} r{reg}{half}",
        texts=(("half", HALF_TEXT),),
        special=tuple(special),
    )
    reps = _rep_spans(ins, cells)
    step = max(1, -(-len(reps) // TICKS))
    ticks, notes, outlines = [], [], []
    for n, (k, a, b) in enumerate(reps):
        thin = (b - a + 1) * cell_w < 0.15  # narrow repetitions: a heavy frame would hide the colors
        outlines.append(Outline(a - col0, 0, b - a + 1, rows, 0.3 if thin else 0.8, "#333333"))
        if n % step == 0:
            ticks.append((a - col0 + 0.5, str(a)))
            notes.append(Note(a - col0, rows + 0.6, f"r{k * ins.shape.registers_per_rep}", 6.0, "left"))
    second = (ins.origin[1] + ins.split_offset) if ins.split_offset is not None else None
    markers = []
    if second is not None:
        markers.append((float(second - col0), f"taddr + immHalfSplitoff ({ins.split_offset})"))
    red_notes = _redval_notes(ins, list(range(col0, col1 + 1)), list(range(lane0, lane1 + 1)))
    return Panel(
        title=f"every cell: columns {col0}..{col1} (frames: repetitions; under them: first register)",
        width=cols,
        height=rows + 1.2,
        cell_w_in=cell_w,
        boxes=(),
        x_ticks=tuple(ticks),
        y_ticks=tuple((r + 0.5, str(lane0 + r)) for r in range(0, rows, 4 if rows > 16 else 2)),
        markers=tuple(markers),
        notes=(*notes, *red_notes),
        outlines=tuple(outlines),
        margin_right_in=REDVAL_MARGIN_IN if red_notes else 0.0,
        fields=(field,),
    )


def _rep_spans(ins: Instruction, cells: tuple[Cell, ...]) -> list[tuple[int, int, int]]:
    """(repetition, first column, last column) of each repetition's contiguous column runs, by column."""
    cols: dict[int, set[int]] = defaultdict(set)
    for c in cells:
        cols[c.reg // ins.shape.registers_per_rep].add(c.col)
    spans = []
    for k, members in cols.items():
        run = sorted(members)
        start = run[0]
        for a, b in zip(run, [*run[1:], None], strict=True):
            if b != a + 1:
                spans.append((k, start, a))
                if b is not None:
                    start = b
    return sorted(spans, key=lambda s: s[1])


REDVAL_MARGIN_IN = 2.6
"""Room right of a tcgen05.ld.red grid for the "-> T3 redval" notes."""


def _redval_notes(ins: Instruction, chunk: list[int], lanes: list[int]) -> tuple[Note, ...]:
    """tcgen05.ld.red: right of each lane, whose redval ends in this panel and what it reduces.

    Each thread's reduced segment is one lane's run of its columns; the note
    goes beside the panel holding the segment's last column.
    """
    if ins.red is None:
        return ()
    ending: dict[int, list[str]] = defaultdict(list)
    for r in reductions(ins):
        if r.cols[-1] in chunk:
            ending[r.lane].append(f"T{r.thread} redval = {ins.red.op}({span_text(r.cols)})")
    row = {lane: i for i, lane in enumerate(lanes)}
    return tuple(
        Note(len(chunk) + 0.2, row[lane] + 0.5, "; ".join(texts), 6.5, "left")
        for lane, texts in ending.items()
    )


def pack_spec(op: str) -> FigureSpec:
    """The PTX Figure 193 idea: two 16-bit halves of adjacent columns <-> one 32-bit register.

    ld ``.pack::16b`` takes bits 15:0 of columns 2c and 2c+1 into register bits
    15:0 and 31:16; st ``.unpack::16b`` writes them back (PTX 9.7.16.8.2).
    """
    load = op == "ld"
    tmem = "#a6cee3"
    reg = "#b2df8a"
    unused = "#f4f4f4"
    boxes = [
        Box(0, 0, 2, 1, unused, "bits 31:16 (unused)", "TMEM column 2c, bits 31:16: not accessed"),
        Box(2, 0, 2, 1, tmem, "a = bits 15:0", "TMEM column 2c, bits 15:0 -> register bits 15:0"),
        Box(5, 0, 2, 1, unused, "bits 31:16 (unused)", "TMEM column 2c+1, bits 31:16: not accessed"),
        Box(7, 0, 2, 1, tmem, "b = bits 15:0", "TMEM column 2c+1, bits 15:0 -> register bits 31:16"),
        Box(2.5, 3, 2, 1, reg, "b  (bits 31:16)", "register bits 31:16 <-> TMEM column 2c+1, bits 15:0"),
        Box(4.5, 3, 2, 1, reg, "a  (bits 15:0)", "register bits 15:0 <-> TMEM column 2c, bits 15:0"),
    ]
    # a (column 2c) <-> register bits 15:0; b (column 2c+1) <-> bits 31:16.
    pairs = (((3.0, 1.0), (5.5, 3.0)), ((8.0, 1.0), (3.5, 3.0)))
    arrows = tuple(Arrow(*tm, *rg) if load else Arrow(*rg, *tm) for tm, rg in pairs)
    notes = (
        Note(2, -0.35, "TMEM column 2c (32 bits)"),
        Note(7, -0.35, "TMEM column 2c+1 (32 bits)"),
        Note(4.5, 4.45, "one 32-bit register r_i"),
    )
    name = ".pack::16b (tcgen05.ld)" if load else ".unpack::16b (tcgen05.st)"
    panel = Panel(
        title="",
        width=9,
        height=4,
        cell_w_in=0.75,
        boxes=tuple(boxes),
        arrows=arrows,
        notes=notes,
        cell_h_in=0.45,
    )
    return FigureSpec(
        title=f"{name}: 16-bit halves of adjacent TMEM columns <-> one 32-bit register",
        caption=(
            (
                "tcgen05.ld .pack::16b packs two 16-bit chunks into one register. "
                if load
                else "tcgen05.st .unpack::16b unpacks one register into two 16-bit chunks. "
            )
            + "Only bits 15:0 of each TMEM column are moved (after PTX ISA 9.7.16.8.2, Figure 193)."
        ),
        panels=(panel,),
    )


GALLERY_NUMS = (1, 2, 4)


def instruction_spec(ins: Instruction) -> FigureSpec:
    """The whole layout of ``ins``, as the gallery draws it."""
    return layout_spec(ins, cells(ins))


def gallery_entries(catalog: Catalog) -> list[GalleryEntry]:
    """Every shape at x1, x2, x4, plain and packed; the PTX split-offset example; pack and unpack."""
    out: list[GalleryEntry] = []
    for shape in catalog.shapes(KIND):
        figure = f"Figure {shape.ptx_figure}" if shape.ptx_figure is not None else "-"
        for num in GALLERY_NUMS:
            for pack in (False, True):
                ins = make_instruction(shape, num, pack=pack)
                stem = f"{shape.name}.x{num}{'.pack' if pack else ''}"
                note = (
                    f"split offset {ins.split_offset} (CUTLASS: halves side by side)" if shape.split else ""
                )
                out.append(_entry(stem, ins, figure, note))
        if shape.split:
            # The PTX ISA's own example: tcgen05.ld.red.sync.aligned.16x32bx2.x8... [taddr3], 16.
            ins = make_instruction(shape, 8, split_offset=16)
            out.append(_entry(f"{shape.name}.x8.split16", ins, figure, "split offset 16 (the PTX example)"))
    for op, name, text in (
        ("ld", "pack", "`tcgen05.ld...pack::16b.b32`"),
        ("st", "unpack", "`tcgen05.st...unpack::16b.b32`"),
    ):
        qualifier = "pack::16b" if op == "ld" else "unpack::16b"
        out.append(
            GalleryEntry(name, text, "Figure 193", f"tcgen05.{op} .{qualifier}", partial(pack_spec, op))
        )
    return out


def _entry(stem: str, ins: Instruction, figure: str, note: str) -> GalleryEntry:
    what = f"`{ins.mnemonic}`"
    if ins.split_offset is not None:
        what += f", immHalfSplitoff {ins.split_offset}"
    return GalleryEntry(stem, what, figure, note, partial(instruction_spec, ins))
