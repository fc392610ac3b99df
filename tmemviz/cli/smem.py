"""Commands for shared-memory operands: ``smem`` (canonical layouts) and ``desc`` (the descriptor)."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated, Optional

from tmemviz.cli.options import AnswerFormat, LayoutsOpt, OutputOpt, TableFormat, catalog, deliver
from tmemviz.cli.params import Argument, Option
from tmemviz.draw import records
from tmemviz.errors import TmemvizError


class CellLabel(str, Enum):
    byte = "byte"
    chunk = "chunk"


MajorOpt = Annotated[
    Optional[str],
    Option("--major", help="K (K contiguous) or MN (M/N contiguous).", show_default=False),
]
SwizzleOpt = Annotated[
    Optional[str],
    Option("--swizzle", help="none, 32B, 64B or 128B (also SW128, SWIZZLE_128B, Swizzle<3,4,3>)."),
]
DtypeOpt = Annotated[
    Optional[str], Option("--dtype", help="e4m3, e5m2, s8, u8, f16, bf16, tf32, f32 or s32.")
]
RowsOpt = Annotated[Optional[int], Option("--rows", help="Dense tile: M/N extent in elements.")]
ColsOpt = Annotated[Optional[int], Option("--cols", help="Dense tile: K extent in elements.")]
MOpt = Annotated[Optional[int], Option("--m", help="PTX formula: repeat count m (M/N blocks).")]
KOpt = Annotated[Optional[int], Option("--k", help="PTX formula: repeat count k (K blocks).")]
LboOpt = Annotated[Optional[str], Option("--lbo", help="PTX formula: leading byte offset, in bytes.")]
SboOpt = Annotated[Optional[str], Option("--sbo", help="PTX formula: stride byte offset, in bytes.")]
CellsOpt = Annotated[
    Optional[CellLabel],
    Option("--cells", help="What each grid cell shows: byte or chunk [default: byte]."),
]


def smem(
    major: MajorOpt = None,
    swizzle: SwizzleOpt = None,
    dtype: DtypeOpt = None,
    rows: RowsOpt = None,
    cols: ColsOpt = None,
    m: MOpt = None,
    k: KOpt = None,
    lbo: LboOpt = None,
    sbo: SboOpt = None,
    offset: Annotated[
        Optional[str], Option("--offset", help="Which element sits at this byte offset?")
    ] = None,
    cells: CellsOpt = None,
    format: Annotated[TableFormat, Option("--format", "-f", help="table, json or csv.")] = TableFormat.table,
    output: OutputOpt = None,
    layouts: LayoutsOpt = None,
) -> None:
    """A canonical shared-memory layout of a tcgen05.mma operand: each element's byte, LBO/SBO, descriptor."""
    from tmemviz.smem import answers
    from tmemviz.smem.spelling import resolve_layout
    from tmemviz.values import parse_int

    layout, dense = resolve_layout(
        catalog(layouts),
        major=major,
        swizzle=swizzle,
        dtype=dtype,
        rows=rows,
        cols=cols,
        m=m,
        k=k,
        lbo=lbo,
        sbo=sbo,
    )
    if cells is not None and (format is not TableFormat.table or offset is not None):
        raise TmemvizError("--cells chooses what the grid shows; it applies to the table view only")
    if offset is not None:
        byte = parse_int(offset, "--offset")
        if format is TableFormat.csv:
            raise TmemvizError("--offset answers in text or json, not csv")
        if format is TableFormat.json:
            deliver(records.line(answers.offset_record(layout, byte)), output)
        else:
            deliver(answers.offset_sentence(layout, byte) + "\n", output)
        return
    if format is TableFormat.json:
        deliver(
            records.document(answers.layout_header(layout), "cells", answers.cell_records(layout)), output
        )
    elif format is TableFormat.csv:
        rows_out = ((r, c, b) for r, c, b in layout.cells())
        deliver(records.csv_text(answers.CSV_HEADER, rows_out), output)
    else:
        from tmemviz.cli.options import terminal_width
        from tmemviz.smem.views import layout_view

        view = layout_view(layout, terminal_width(output), (cells or CellLabel.byte).value)
        deliver(view, output, answers.notes(layout, dense))


def desc(
    value: Annotated[
        Optional[str],
        Argument(metavar="HEX", help="A descriptor to decode, e.g. 0x4000404000010000.", show_default=False),
    ] = None,
    start_address: Annotated[
        Optional[str],
        Option("--start-address", help="Encode: shared-memory byte address [default: 0]."),
    ] = None,
    lbo: Annotated[
        Optional[str], Option("--lbo", help="Encode: LBO in bytes [default: unused, encoded 1].")
    ] = None,
    sbo: Annotated[Optional[str], Option("--sbo", help="Encode: SBO in bytes.")] = None,
    swizzle: Annotated[
        Optional[str], Option("--swizzle", help="Encode: none, 32B, 64B, 128B or 128B_base32B.")
    ] = None,
    base_offset: Annotated[
        Optional[int], Option("--base-offset", help="Encode: matrix base offset 0..7 [default: 0].")
    ] = None,
    lbo_mode: Annotated[
        Optional[str],
        Option("--lbo-mode", help="Encode: relative (0) or absolute (1) [default: relative]."),
    ] = None,
    format: Annotated[AnswerFormat, Option("--format", "-f", help="text or json.")] = AnswerFormat.text,
    output: OutputOpt = None,
) -> None:
    """Decode a tcgen05 shared-memory descriptor into its fields, or encode one from them."""
    from tmemviz.catalog import load_catalog
    from tmemviz.smem.descriptor import decode, encode
    from tmemviz.smem.spelling import parse_descriptor, parse_lbo_mode, swizzle_name
    from tmemviz.values import parse_int

    fields = {
        "--start-address": start_address,
        "--lbo": lbo,
        "--sbo": sbo,
        "--swizzle": swizzle,
        "--base-offset": base_offset,
        "--lbo-mode": lbo_mode,
    }
    given = [name for name, v in fields.items() if v is not None]
    if value is not None and given:
        raise TmemvizError(f"give either a descriptor to decode or fields to encode, not both ({given[0]})")
    notes: list[str] = []
    if value is not None:
        found = decode(parse_descriptor(value))
    else:
        if sbo is None or swizzle is None:
            raise TmemvizError(
                "give a descriptor to decode (tmemviz desc 0x...) or, to encode one, --sbo and --swizzle"
            )
        _, name = swizzle_name(load_catalog(), swizzle)
        if lbo is None:
            notes.append(
                "LBO not given: encoded 1 (16 bytes), what CUTLASS puts in a field the layout does not use"
            )
        found = decode(
            encode(
                parse_int(start_address, "--start-address") if start_address is not None else 0,
                parse_int(lbo, "--lbo") if lbo is not None else None,
                parse_int(sbo, "--sbo"),
                name,
                base_offset if base_offset is not None else 0,
                parse_lbo_mode(lbo_mode) if lbo_mode is not None else 0,
            )
        )
    for problem in found.problems:
        sys.stderr.write(f"tmemviz: warning: {problem}\n")
    if format is AnswerFormat.json:
        deliver(records.line(found.to_record()), output)
    else:
        from tmemviz.smem.views import descriptor_view

        deliver(descriptor_view(found), output, notes)


COMMANDS = {"smem": smem, "desc": desc}
"""Command name -> function, in the order ``--help`` lists them."""
