"""What scale-factor answers look like in a terminal: the copies, the MMAs, the TMEM grid.

Plain data (:mod:`tmemviz.draw.table` views); nothing here owns a console.
"""

from __future__ import annotations

from tmemviz.draw.palette import thread_color
from tmemviz.draw.table import BOLD, DIM, ITALIC, Cell, Column, Styled, Table, View, on
from tmemviz.families.scales import layout
from tmemviz.families.scales.answers import copy_statement
from tmemviz.families.scales.layout import Scales, Transfer
from tmemviz.families.scales.spelling import idesc_bits, mma_statement, sf_id_field, sf_id_unit


def copy_color(index: int) -> str:
    """Copies share the thread palette: copy ``i`` is drawn like thread ``i``."""
    return thread_color(index)


def caption(s: Scales) -> str:
    rows = f"M = {s.extent}" if s.operand == "A" else f"N = {s.extent}"
    text = (
        f"SF{s.operand} of {rows}, K = {s.k}, block {s.sf_vec} (.kind::{s.kind}, .scale_vec::{s.scale_vec}): "
        f"{s.rows} rows x {s.kblocks} blocks per CTA in {s.tiles * s.kchunks} chunks of 512 bytes; "
        "chunk row r, word c holds rows 32c+r, bytes = 4 consecutive blocks; "
        "each copy writes lanes r, r+32, r+64, r+96"
    )
    if s.cta_group == 2:
        text += (
            "; .cta_group::2: each CTA's TMEM receives the chunk at the same offset of its own shared memory"
            + (" (CTA c holds rows 128c..128c+127 of A)" if s.operand == "A" else " (both hold all of B)")
        )
    return text


def copies_table(s: Scales, items: tuple[Transfer, ...]) -> Table:
    columns = (
        Column("copy", justify="right"),
        Column("smem bytes", justify="right", no_wrap=True),
        Column("TMEM columns", justify="right", no_wrap=True),
        Column("rows", justify="right", no_wrap=True),
        Column("kblocks", justify="right", no_wrap=True),
    )
    rows: list[tuple[Cell, ...]] = []
    for tr in items:
        first = layout.CHUNK_ROWS * tr.tile
        last = min(first + layout.CHUNK_ROWS, s.rows) - 1
        kb = layout.CHUNK_BLOCKS * tr.kchunk
        rows.append(
            (
                Styled(str(tr.index), on(copy_color(tr.index))),
                f"{tr.smem}..{tr.smem + layout.CHUNK_BYTES - 1}",
                f"{tr.col}..{tr.col + layout.CHUNK_BLOCKS - 1}",
                f"{first}..{last}",
                f"{kb}..{kb + layout.CHUNK_BLOCKS - 1}",
            )
        )
    return Table(columns, tuple(rows), title="copies: one 512-byte chunk each", title_justify="left")


def mma_table(s: Scales) -> Table:
    width = layout.mma_columns(s)
    columns = (
        Column("mma", justify="right"),
        Column("K", justify="right", no_wrap=True),
        Column("kblocks", justify="right", no_wrap=True),
        Column("scale TMEM columns", justify="right", no_wrap=True),
        Column(sf_id_field(s), justify="right"),
        Column(f"{sf_id_unit(s)} (bytes)", justify="right", no_wrap=True),
        Column("idesc |=", justify="right", no_wrap=True),
    )
    rows = []
    for r in layout.reads(s):
        blocks = f"{r.kblocks[0]}..{r.kblocks[-1]}" if len(r.kblocks) > 1 else str(r.kblocks[0])
        span = f"{r.sf_id}..{r.sf_id + s.per_mma - 1}" if s.per_mma > 1 else str(r.sf_id)
        rows.append(
            (
                str(r.index),
                f"{r.k_first}..{r.k_last}",
                blocks,
                f"{r.col}..{r.col + width - 1}" if width > 1 else str(r.col),
                str(r.sf_id),
                span,
                f"0x{idesc_bits(s, r.sf_id):08x}",
            )
        )
    return Table(columns, tuple(rows), title="MMAs along K", title_justify="left")


def summary_view(s: Scales) -> View:
    """The copies, the MMAs, and how to read them."""
    items = layout.transfers(s)
    return (
        Styled(
            f"each copy: {copy_statement(items[0])} with taddr + its first column and sdesc's start address "
            "at its smem byte"
        ),
        copies_table(s, items),
        Styled(f"each MMA: {mma_statement(s)}"),
        mma_table(s),
        Styled(caption(s), ITALIC),
    )


def tmem_view(s: Scales, width: int = 160, cta: int = 0) -> View:
    """Lanes 0..31 by TMEM column (PTX figures 231-239): each column holds one row's 4 blocks.

    Lanes 32..127 hold the same (the copies write all four 32-lane partitions).
    """
    per = 13
    shown = max(1, min(s.columns, (width - 6) // per))
    cols = [s.col0 + c for c in range(shown)]
    columns = [Column("lane", justify="right", style=BOLD)]
    columns += [Column(f"col {c}", justify="center", no_wrap=True) for c in cols]
    trs = {tr.col: tr for tr in layout.transfers(s)}
    rows: list[tuple[Cell, ...]] = []
    for lane in range(layout.SUBPARTITION):
        cells: list[Cell] = [str(lane)]
        for col in cols:
            first = layout.source_of(s, lane, col, 0, cta)
            if first is None:
                cells.append(Styled("pad", DIM))
                continue
            row, kb = first
            tr = trs[col - (col - s.col0) % layout.CHUNK_BLOCKS]
            cells.append(Styled(f"{row}:{kb}-{kb + 3}", on(copy_color(tr.index))))
        rows.append(tuple(cells))
    more = (
        f"; columns {cols[-1] + 1}..{s.col0 + s.columns - 1} not shown (widen the terminal)"
        if shown < s.columns
        else ""
    )
    title = (
        f"TMEM{' of CTA ' + str(cta) if s.cta_group == 2 else ''}: 'row:a-b' = SF{s.operand} of that row, "
        f"blocks a..b in bytes 0..3 of the column; lanes 32..127 the same{more}"
    )
    return (Table(tuple(columns), tuple(rows), title=title, title_justify="left", padding=(0, 0)),)
