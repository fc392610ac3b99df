"""Rich renderables: the layout grid, the per-thread list and the shape table.

Each builder returns a renderable and takes the terminal width it must fit,
so nothing here owns a console; the CLI prints what it gets.
"""

from __future__ import annotations

from collections import defaultdict

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tmemviz.catalog import NUMS, Catalog
from tmemviz.mapper import Cell, Instruction
from tmemviz.render.palette import thread_color

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
        text += "; lanes and columns relative to taddr"
    else:
        lane, col = ins.taddr
        text += f"; absolute lanes and columns, taddr = lane {lane}, column {col}, warp {ins.warp}"
    if ins.pack:
        text += "; .lo = register bits 15:0, .hi = bits 31:16, each from bits 15:0 of its column"
    return text


def cell_label(cell: Cell) -> str:
    """``T6 r3``, or ``T6 r3.lo`` / ``T6 r3.hi`` for the halves of a packed register."""
    return f"T{cell.thread} r{cell.reg}{HALF_SUFFIX[cell.half]}"


def grid_view(ins: Instruction, cells: tuple[Cell, ...], width: int) -> RenderableType:
    """Lanes as rows, TMEM columns as columns, split into column blocks that fit ``width``.

    Columns the instruction skips (between ``.16x32bx2`` halves) are shown as one
    ``…`` column, never silently dropped from the numbering.
    """
    at: dict[tuple[int, int], list[Cell]] = defaultdict(list)
    for c in cells:
        at[(c.lane, c.col)].append(c)
    lanes = sorted({c.lane for c in cells})
    widths: dict[int, int] = defaultdict(int)
    for (_, col), group in at.items():
        widths[col] = max(widths[col], len(str(col)), len(" / ".join(cell_label(c) for c in group)))
    lane_width = max(4, len(str(lanes[-1])))
    blocks = _column_blocks(sorted(widths), widths, width - lane_width - 3)
    parts: list[RenderableType] = []
    for n, block in enumerate(blocks, 1):
        title = "columns " + ", ".join(f"{a}..{b}" if a != b else str(a) for a, b in column_ranges(block))
        if len(blocks) > 1:
            title += f" (block {n} of {len(blocks)})"
        table = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False)
        table.add_column("lane", justify="right", style="bold", width=lane_width)
        shown: list[int | None] = []
        for col in block:
            if shown and shown[-1] is not None and col != shown[-1] + 1:
                shown.append(None)
            shown.append(col)
        for col in shown:
            if col is None:
                table.add_column(GAP, justify="center", width=1)
            else:
                table.add_column(str(col), justify="center", no_wrap=True, width=widths[col])
        for lane in lanes:
            row: list[RenderableType] = [str(lane)]
            for col in shown:
                row.append(Text(GAP, style="dim") if col is None else _cell_text(at.get((lane, col), [])))
            table.add_row(*row)
        parts.append(table)
    parts.append(Text(caption(ins), style="italic"))
    return Group(*parts)


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


def column_ranges(columns: list[int]) -> list[tuple[int, int]]:
    """Sorted columns as inclusive runs: ``[0, 1, 16]`` -> ``[(0, 1), (16, 16)]``."""
    out: list[tuple[int, int]] = []
    for col in columns:
        if out and col == out[-1][1] + 1:
            out[-1] = (out[-1][0], col)
        else:
            out.append((col, col))
    return out


def _cell_text(group: list[Cell]) -> Text:
    if not group:
        return Text("·", style="dim")
    label = " / ".join(cell_label(c) for c in group)
    if len(group) > 1:
        return Text(label, style="bold white on red")
    return Text(label, style=f"black on {thread_color(group[0].thread)}")


def threads_view(ins: Instruction, cells: tuple[Cell, ...]) -> RenderableType:
    """One row per thread: each register with its (lane, col), or both halves when packed."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, caption=caption(ins), caption_justify="left")
    table.add_column("thread", justify="right", style="bold")
    table.add_column("register -> (lane, col)" + ("  [bits 15:0 + bits 31:16]" if ins.pack else ""))
    by_reg: dict[tuple[int, int], list[Cell]] = defaultdict(list)
    for c in cells:
        by_reg[(c.thread, c.reg)].append(c)
    for thread in range(32):
        entries = []
        for reg in range(ins.registers_per_thread):
            spots = "+".join(f"({c.lane},{c.col})" for c in by_reg[(thread, reg)])
            entries.append(f"r{reg}:{spots}")
        table.add_row(Text(f"T{thread}", style=f"black on {thread_color(thread)}"), "  ".join(entries))
    return table


def shapes_view(catalog: Catalog) -> RenderableType:
    """Every shape with its names, geometry and registers per ``.num`` (PTX Table 49/50)."""
    figures = ", ".join(f"{s.ptx_name} {s.ptx_figure}" for s in catalog.shapes if s.ptx_figure is not None)
    table = Table(
        title="tcgen05.ld / tcgen05.st shapes",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1, 0, 0),
        caption=(
            "lanes and bits moved per lane per repetition; registers per thread for each .num "
            f"(PTX Tables 49/50), NA = not a legal .num. PTX figures: {figures}."
        ),
        caption_justify="left",
    )
    table.add_column("shape", no_wrap=True)
    table.add_column("CUTLASS", no_wrap=True)
    table.add_column("lanes", justify="right", no_wrap=True)
    table.add_column("bits", justify="right", no_wrap=True)
    for n in NUMS:
        table.add_column(f"x{n}", justify="right", no_wrap=True)
    for s in catalog.shapes:
        regs = [str(s.registers_per_rep * n) if n <= s.max_num else "NA" for n in NUMS]
        bits = f"{s.bits_per_rep}x2" if s.split else str(s.bits_per_rep)
        table.add_row(s.ptx_name, ", ".join(s.aliases) or "-", str(s.lanes), bits, *regs)
    return table
