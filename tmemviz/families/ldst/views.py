"""What a tcgen05.ld/st layout looks like in a terminal: the lane x column grid, threads, shapes.

Plain data (:mod:`tmemviz.draw.table` views); :mod:`tmemviz.draw.terminal`
prints them. Sentences and records live in :mod:`tmemviz.families.ldst.answers`.
"""

from __future__ import annotations

from collections import defaultdict

from tmemviz.draw.palette import thread_color
from tmemviz.draw.table import ALERT, BOLD, DIM, ITALIC, Cell, Column, Styled, Table, View, on
from tmemviz.families.ldst.layout import Cell as LayoutCell
from tmemviz.families.ldst.layout import Instruction, reductions
from tmemviz.families.ldst.shapes import NUMS, Shape
from tmemviz.tmem import span_text

HALF_SUFFIX = {None: "", 0: ".lo", 1: ".hi"}
GAP = "…"


def caption(ins: Instruction) -> str:
    """The PTX instruction, what it costs in registers, and how to read the coordinates."""
    text = ins.mnemonic
    if ins.split_offset is not None:
        text += f" (immHalfSplitoff {ins.split_offset})"
    regs = ins.registers_per_thread
    text += f", {regs} register{'s' if regs != 1 else ''}/thread"
    if ins.taddr is None:
        text += f"; lanes and columns relative to {ins.base or 'taddr'}"
    else:
        lane, col = ins.taddr
        text += f"; absolute lanes and columns, taddr = lane {lane}, column {col}, warp {ins.warp}"
    if ins.pack:
        text += "; .lo = register bits 15:0, .hi = bits 31:16, each from bits 15:0 of its column"
    if ins.red is not None:
        text += f"; redval of each thread = {ins.red.op} of the registers it loads (one lane each)"
    return text


def cell_label(cell: LayoutCell) -> str:
    """``T6 r3``, or ``T6 r3.lo`` / ``T6 r3.hi`` for the halves of a packed register."""
    return f"T{cell.thread} r{cell.reg}{HALF_SUFFIX[cell.half]}"


def grid_view(ins: Instruction, cells: tuple[LayoutCell, ...], width: int) -> View:
    """Lanes as rows, TMEM columns as columns, split into column blocks that fit ``width``.

    Columns the instruction skips (between ``.16x32bx2`` halves) are shown as one
    ``…`` column, never silently dropped from the numbering.
    """
    at: dict[tuple[int, int], list[LayoutCell]] = defaultdict(list)
    for c in cells:
        at[(c.lane, c.col)].append(c)
    lanes = sorted({c.lane for c in cells})
    widths: dict[int, int] = defaultdict(int)
    for (_, col), group in at.items():
        widths[col] = max(widths[col], len(str(col)), len(" / ".join(cell_label(c) for c in group)))
    lane_width = max(4, len(str(lanes[-1])))
    blocks = _column_blocks(sorted(widths), widths, width - lane_width - 3)
    parts: list[Table | Styled] = []
    for n, block in enumerate(blocks, 1):
        title = "columns " + span_text(block)
        if len(blocks) > 1:
            title += f" (block {n} of {len(blocks)})"
        shown: list[int | None] = []
        for col in block:
            if shown and shown[-1] is not None and col != shown[-1] + 1:
                shown.append(None)
            shown.append(col)
        columns = [Column("lane", justify="right", style=BOLD, width=lane_width)]
        for col in shown:
            if col is None:
                columns.append(Column(GAP, justify="center", width=1))
            else:
                columns.append(Column(str(col), justify="center", no_wrap=True, width=widths[col]))
        rows = []
        for lane in lanes:
            row: list[Cell] = [str(lane)]
            for col in shown:
                row.append(Styled(GAP, DIM) if col is None else _cell_text(at.get((lane, col), [])))
            rows.append(tuple(row))
        parts.append(Table(tuple(columns), tuple(rows), title=title, show_edge=False))
    if ins.red is not None:
        parts.append(redval_table(ins))
    parts.append(Styled(caption(ins), ITALIC))
    return tuple(parts)


def redval_table(ins: Instruction) -> Table:
    """tcgen05.ld.red: per lane, whose redval reduces which of its columns."""
    assert ins.red is not None
    by_lane: dict[int, list[str]] = defaultdict(list)
    for r in reductions(ins):
        by_lane[r.lane].append(f"T{r.thread} = {ins.red.op}({span_text(r.cols)})")
    rows = [(str(lane), "   ".join(texts)) for lane, texts in sorted(by_lane.items())]
    columns = (Column("lane", justify="right", style=BOLD), Column(f"redval ({ins.red.words})", no_wrap=True))
    return Table(columns, tuple(rows), show_edge=False)


def _column_blocks(columns: list[int], widths: dict[int, int], room: int) -> list[list[int]]:
    """Greedy split: each column costs its width plus padding and divider (3 characters)."""
    blocks: list[list[int]] = [[]]
    used = 0
    for col in columns:
        cost = widths[col] + 3
        if blocks[-1] and blocks[-1][-1] != col - 1:
            cost += 4  # the "…" gap column
        if blocks[-1] and used + cost > room:
            blocks.append([])
            used = 0
            cost = widths[col] + 3
        blocks[-1].append(col)
        used += cost
    return blocks


def _cell_text(group: list[LayoutCell]) -> Styled:
    if not group:
        return Styled("·", DIM)
    label = " / ".join(cell_label(c) for c in group)
    if len(group) > 1:
        return Styled(label, ALERT)
    return Styled(label, on(thread_color(group[0].thread)))


def threads_view(ins: Instruction, cells: tuple[LayoutCell, ...]) -> View:
    """One row per thread: each register with its (lane, col), or both halves when packed."""
    by_reg: dict[tuple[int, int], list[LayoutCell]] = defaultdict(list)
    for c in cells:
        by_reg[(c.thread, c.reg)].append(c)
    rows = []
    for thread in range(32):
        entries = []
        for reg in range(ins.registers_per_thread):
            spots = "+".join(f"({c.lane},{c.col})" for c in by_reg[(thread, reg)])
            entries.append(f"r{reg}:{spots}")
        if ins.red is not None:
            r = reductions(ins)[thread]
            entries.append(f"redval:({r.lane},{span_text(r.cols)})")
        rows.append((Styled(f"T{thread}", on(thread_color(thread))), "  ".join(entries)))
    header = "register -> (lane, col)" + ("  [bits 15:0 + bits 31:16]" if ins.pack else "")
    columns = (Column("thread", justify="right", style=BOLD), Column(header))
    return (Table(columns, tuple(rows), caption=caption(ins), caption_justify="left", show_edge=False),)


def shapes_view(shapes: tuple[Shape, ...]) -> View:
    """Every shape with its names, geometry and registers per ``.num`` (PTX Table 49/50)."""
    figures = ", ".join(f"{s.ptx_name} {s.ptx_figure}" for s in shapes if s.ptx_figure is not None)
    columns = [
        Column("shape", no_wrap=True),
        Column("CUTLASS", no_wrap=True),
        Column("lanes", justify="right", no_wrap=True),
        Column("bits", justify="right", no_wrap=True),
    ]
    columns += [Column(f"x{n}", justify="right", no_wrap=True) for n in NUMS]
    rows = []
    for s in shapes:
        regs = [str(s.registers_per_rep * n) if n <= s.max_num else "NA" for n in NUMS]
        bits = f"{s.bits_per_rep}x2" if s.split else str(s.bits_per_rep)
        rows.append((s.ptx_name, ", ".join(s.aliases) or "-", str(s.lanes), bits, *regs))
    table = Table(
        tuple(columns),
        tuple(rows),
        title="tcgen05.ld / tcgen05.st shapes",
        caption=(
            "lanes and bits moved per lane per repetition; registers per thread for each .num "
            f"(PTX Tables 49/50), NA = not a legal .num. PTX figures: {figures}."
        ),
        caption_justify="left",
        padding=(0, 1, 0, 0),
        pad_edge=False,
    )
    return (table,)
