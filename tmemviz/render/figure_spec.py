"""Figure specs: what to draw, as plain data, testable without matplotlib.

A spec is a list of panels; each panel is a grid of boxes (one per TMEM cell,
in panel units: x = column slot, y = lane row, top to bottom) with labels,
fill colors and hover tooltips, plus axis labels and markers. The drawing code
(:mod:`tmemviz.render.figure`) only turns this into matplotlib artists.

Large layouts stay legible by splitting their columns into numbered panels
stacked top to bottom, each at most :data:`PANEL_WIDTH_IN` inches wide with a
fixed cell size and font, so labels never shrink below a readable size.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tmemviz.mapper import Cell, Instruction
from tmemviz.render.palette import thread_color
from tmemviz.render.tables import caption, cell_label, column_ranges

CHAR_IN = 0.6 * 6.5 / 72
"""Width of one label character: DejaVu Sans Mono advances 0.6 em, at 6.5 pt."""
CELL_H_IN = 0.24
PANEL_WIDTH_IN = 20.0
DIM_FILL = "#eeeeee"
OVERLAP_FILL = "#ff7f7f"


@dataclass(frozen=True)
class Box:
    """One rectangle: a TMEM (half-)cell or a part of a diagram."""

    x: float
    y: float
    w: float
    h: float
    fill: str
    label: str
    tooltip: str
    dim: bool = False


@dataclass(frozen=True)
class Arrow:
    x0: float
    y0: float
    x1: float
    y1: float
    label: str = ""
    color: str = "#333333"


@dataclass(frozen=True)
class Note:
    """Free text at (x, y) in panel units."""

    x: float
    y: float
    text: str
    size: float = 8.0
    ha: str = "center"
    color: str = "black"


@dataclass(frozen=True)
class Panel:
    title: str
    width: float
    """Panel width in cell units (the number of column slots)."""
    height: float
    """Panel height in cell units (the number of lanes)."""
    cell_w_in: float
    boxes: tuple[Box, ...]
    x_ticks: tuple[tuple[float, str], ...] = ()
    y_ticks: tuple[tuple[float, str], ...] = ()
    markers: tuple[tuple[float, str], ...] = ()
    """Vertical lines at x with a label, e.g. where the second access starts."""
    arrows: tuple[Arrow, ...] = ()
    notes: tuple[Note, ...] = ()
    cell_h_in: float = CELL_H_IN


@dataclass(frozen=True)
class FigureSpec:
    title: str
    caption: str
    panels: tuple[Panel, ...]

    @property
    def boxes(self) -> tuple[Box, ...]:
        return tuple(b for p in self.panels for b in p.boxes)


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
) -> FigureSpec:
    """One box per TMEM cell the instruction moves, in the style of PTX Figures 183-187.

    ``highlight`` keeps those threads in color and dims every other thread.
    Every cell is present; overlapping ``.16x32bx2`` halves share one box that
    names both owners.
    """
    at: dict[tuple[int, int], list[Cell]] = defaultdict(list)
    for c in cells:
        at[(c.lane, c.col)].append(c)
    lanes = sorted({c.lane for c in cells})
    columns = sorted({c.col for c in cells})
    label_chars = max(len(" / ".join(cell_label(c) for c in group)) for group in at.values())
    cell_w = max(0.42, (label_chars + 1.5) * CHAR_IN)
    per_panel = max(1, int(PANEL_WIDTH_IN // cell_w))
    rep = ins.shape.columns_per_rep * (2 if ins.pack else 1)
    if per_panel > rep:
        per_panel -= per_panel % rep  # keep whole repetitions together
    chunks = [columns[i : i + per_panel] for i in range(0, len(columns), per_panel)]
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
                    )
                )
        ranges = column_ranges(chunk)
        panel_title = "columns " + ", ".join(f"{a}..{b}" if a != b else str(a) for a, b in ranges)
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
            )
        )
    text = caption(ins)
    if highlight:
        text += "; highlighted threads: " + ", ".join(f"T{t}" for t in sorted(highlight))
    return FigureSpec(title=title or ins.mnemonic, caption=text, panels=tuple(panels))


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
