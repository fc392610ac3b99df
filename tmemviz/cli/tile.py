"""The ``tile`` command: a whole M x N accumulator loaded by a warpgroup (or two) of tcgen05.ld."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

from tmemviz.cli.options import LayoutsOpt, OutputOpt, TableFormat, TaddrOpt, catalog, deliver, terminal_width
from tmemviz.cli.params import Option
from tmemviz.draw import records
from tmemviz.tile.layout import Tile


class View(str, Enum):
    summary = "summary"
    grid = "grid"


TileMOpt = Annotated[int, Option("--m", help="Rows of D (M); 128 (cta_group::1).")]
TileNOpt = Annotated[Optional[int], Option("--n", help="Columns of D (N), in elements.", show_default=False)]
TileShapeOpt = Annotated[
    Optional[str],
    Option("--shape", help="ld shape: 32x32b, 16x64b, 16x128b, 16x256b or 16x32bx2.", show_default=False),
]
TileNumOpt = Annotated[
    Optional[str], Option("--num", help=".num per instruction [default: the largest that tiles N].")
]
WarpsOpt = Annotated[int, Option("--warps", help="4 (one warpgroup) or 8 (two).")]
TileDtypeOpt = Annotated[str, Option("--dtype", help="f32, f16 or bf16.")]
StorageOpt = Annotated[
    Optional[str],
    Option(
        "--storage",
        help="16-bit D in TMEM: packed (two per column, plain .b32 load) or unpacked (one per column, "
        ".pack::16b) [default: packed].",
    ),
]


def resolve(
    layouts: Optional[list[Path]],
    shape: Optional[str],
    n: Optional[int],
    m: int,
    num: Optional[str],
    warps: int,
    dtype: str,
    storage: Optional[str],
    taddr: Optional[str],
) -> Tile:
    """The tile the options describe (``--shape`` and ``--n`` are required)."""
    from tmemviz.errors import TmemvizError
    from tmemviz.tile.spelling import resolve_tile

    if shape is None or n is None:
        raise TmemvizError(
            "a tile needs --n and --shape, e.g. 'tmemviz tile --m 128 --n 256 --shape 16x256b'"
        )
    return resolve_tile(
        catalog(layouts),
        shape=shape,
        n=n,
        m=m,
        num=num,
        warps=warps,
        dtype=dtype,
        storage=storage,
        taddr=taddr,
    )


def tile(
    n: TileNOpt = None,
    shape: TileShapeOpt = None,
    m: TileMOpt = 128,
    num: TileNumOpt = None,
    warps: WarpsOpt = 4,
    dtype: TileDtypeOpt = "f32",
    storage: StorageOpt = None,
    taddr: TaddrOpt = None,
    m_row: Annotated[Optional[int], Option("--m-row", help="Ask about row m of D.")] = None,
    n_col: Annotated[Optional[int], Option("--n-col", help="Ask about column n of D.")] = None,
    view: Annotated[View, Option("--view", help="summary (instructions) or grid (D).")] = View.summary,
    format: Annotated[TableFormat, Option("--format", "-f", help="table, json or csv.")] = TableFormat.table,
    output: OutputOpt = None,
    layouts: LayoutsOpt = None,
) -> None:
    """Which warp, thread, instruction and register hold each element of an M x N accumulator tile."""
    from tmemviz.tile import answers
    from tmemviz.tile.layout import element_at, elements

    found = resolve(layouts, shape, n, m, num, warps, dtype, storage, taddr)
    if m_row is not None and n_col is not None:
        e = element_at(found, m_row, n_col)
        if format is TableFormat.json:
            deliver(records.line(answers.cell_record(e)), output)
        elif format is TableFormat.csv:
            deliver(records.csv_text(answers.CSV_HEADER, answers.csv_rows((e,))), output)
        else:
            deliver(answers.element_sentence(found, e) + "\n", output)
        return
    items = elements(found)
    if m_row is not None or n_col is not None:
        if m_row is not None:
            element_at(found, m_row, 0)  # a clear error for a row outside D
        if n_col is not None:
            element_at(found, 0, n_col)
        items = tuple(e for e in items if e.m == (m_row if m_row is not None else e.m))
        items = tuple(e for e in items if e.n == (n_col if n_col is not None else e.n))
    if format is TableFormat.json:
        deliver(document(answers.header(found), answers.instruction_records(found), items), output)
    elif format is TableFormat.csv:
        deliver(records.csv_text(answers.CSV_HEADER, answers.csv_rows(items)), output)
    else:
        from tmemviz.tile import views

        if view is View.grid or m_row is not None or n_col is not None:
            deliver(views.grid_view(found, items, terminal_width(output)), output)
        else:
            from tmemviz.ldst.shapes import KIND as LDST
            from tmemviz.tile.layout import compare

            by_shape = compare(catalog(layouts).shapes(LDST), found)
            deliver(views.summary_view(found, items, by_shape), output)


def document(header: dict[str, Any], instructions: list[dict[str, Any]], items: tuple[Any, ...]) -> str:
    """The JSON document: header fields, then ``instructions`` and ``cells``, one record per line."""
    from tmemviz.tile.answers import cell_record

    head = records.document(header, "instructions", instructions)
    cells = ",\n".join(f"  {json.dumps(cell_record(e))}" for e in items)
    # records.document closes the object after its list; reopen it to append the cells list.
    return head[: -len("\n}\n")] + ',\n "cells": [\n' + cells + "\n ]\n}\n"


COMMANDS = {"tile": tile}
"""Command name -> function."""
