"""What a tile load looks like in a terminal: the summary of instructions, and the grid of D.

Plain data (:mod:`tmemviz.draw.table` views); :mod:`tmemviz.draw.terminal` prints them.
"""

from __future__ import annotations

from tmemviz.draw.palette import thread_color
from tmemviz.draw.table import BOLD, DIM, ITALIC, Cell, Column, Styled, Table, View, on
from tmemviz.families.tile.answers import (
    layout_phrase,
    m_range,
    n_ranges,
    plan_lines,
    ranges_text,
    short_statement,
    taddr_operand,
)
from tmemviz.families.tile.contiguity import runs
from tmemviz.families.tile.layout import Element, Tile
from tmemviz.tmem import span_text

HALF_SUFFIX = {None: "", 0: ".lo", 1: ".hi"}


def label(e: Element) -> str:
    """``w3 T17 i2 r5`` (``r5.lo`` / ``r5.hi`` for the halves of a 16-bit register)."""
    return f"w{e.warp} T{e.thread} i{e.instruction} r{e.reg}{HALF_SUFFIX[e.half]}"


def summary_view(tile: Tile, items: tuple[Element, ...], by_shape: list[tuple[str, int | None]]) -> View:
    """The plan in words, then one row per instruction: warp, index, lanes, columns, n, taddr."""
    parts: list[Table | Styled] = [Styled(line) for line in plan_lines(tile, runs(tile, items), by_shape)]
    columns = (
        Column("warp", justify="right", style=BOLD),
        Column("i", justify="right"),
        Column("lanes", no_wrap=True),
        Column("TMEM columns", no_wrap=True),
        Column("m of D", no_wrap=True),
        Column("n of D", no_wrap=True),
        Column("taddr operand", no_wrap=True),
    )
    rows = []
    for issued in (i for i in tile.issued if i.cta == 0):
        lo, hi = issued.ins.lane_range()
        m_lo, m_hi = m_range(tile, issued)
        cols = ", ".join(f"{a}..{b}" for a, b in issued.ins.column_ranges())
        rows.append(
            (
                str(issued.warp),
                f"i{issued.index}",
                f"{lo}..{hi}",
                cols,
                f"{m_lo}..{m_hi}",
                ranges_text(n_ranges(tile, issued)),
                taddr_operand(tile, issued),
            )
        )
    parts.append(Table(columns, tuple(rows), show_edge=False))
    first = short_statement(tile, tile.issued[0], "taddr+OFFSET")
    parts.append(Styled(f"every instruction: {first}", ITALIC))
    parts.append(
        Styled(
            f"taddr = D's base address (lane {tile.base[0]}, column {tile.base[1]}); OFFSET = lane << 16 "
            "| column (PTX 9.7.16.2); r0, r1 ... = that instruction's vector; --format json has every line",
            ITALIC,
        )
    )
    return tuple(parts)


def grid_view(tile: Tile, items: tuple[Element, ...], width: int) -> View:
    """D with m down and n across, each cell naming its holder, in column blocks that fit ``width``."""
    at = {(e.m, e.n): e for e in items}
    rows_m = sorted({e.m for e in items})
    cols_n = sorted({e.n for e in items})
    widths = {n: len(str(n)) for n in cols_n}
    for e in items:
        widths[e.n] = max(widths[e.n], len(label(e)))
    head = max(3, len(str(rows_m[-1])))
    blocks: list[list[int]] = [[]]
    used = 0
    for n in cols_n:
        cost = widths[n] + 3
        if blocks[-1] and used + cost > width - head - 3:
            blocks.append([])
            used = 0
        blocks[-1].append(n)
        used += cost
    parts: list[Table | Styled] = []
    for k, block in enumerate(blocks, 1):
        title = "n " + span_text(block) + (f" (block {k} of {len(blocks)})" if len(blocks) > 1 else "")
        columns = [Column("m", justify="right", style=BOLD, width=head)]
        columns += [Column(str(n), justify="center", no_wrap=True, width=widths[n]) for n in block]
        rows = []
        for m in rows_m:
            row: list[Cell] = [str(m)]
            for n in block:
                e = at.get((m, n))
                row.append(Styled("·", DIM) if e is None else Styled(label(e), on(thread_color(e.thread))))
            rows.append(tuple(row))
        parts.append(Table(tuple(columns), tuple(rows), title=title, show_edge=False))
    parts.append(
        Styled(
            f"D[m][n] -> warp w, thread T, instruction i, register r ({tile.mnemonic}; "
            f"{layout_phrase(tile)}); "
            "'tmemviz tile ... --view summary' lists the instructions",
            ITALIC,
        )
    )
    return tuple(parts)
