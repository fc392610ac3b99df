"""Commands for tcgen05.cp: ``cp`` (where rows land) and ``decompress`` (4/6-bit widening)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

from tmemviz.cli import complete
from tmemviz.cli.options import (
    CtaOpt,
    Detail,
    DetailOpt,
    DpiOpt,
    FormatOpt,
    LayoutsOpt,
    OutputOpt,
    TaddrOpt,
    TitleOpt,
    deliver,
    show,
)
from tmemviz.cli.params import Argument, Option
from tmemviz.draw import records
from tmemviz.errors import TmemvizError

if TYPE_CHECKING:
    from tmemviz.families.cp.layout import Copy

CopyShapeArg = Annotated[
    str,
    Argument(
        help=(
            "cp shape: 128x256b, 4x256b, 128x128b, 64x128b, 32x128b; qualifiers may follow "
            "(64x128b.warpx2::01_23), or give a whole tcgen05.cp line or a CUTLASS SM100_UTCCP_* name."
        ),
        metavar="SHAPE",
        show_default=False,
        autocompletion=complete.cp_names,
    ),
]
MulticastOpt = Annotated[
    Optional[str],
    Option("--multicast", "-m", help="warpx2::02_13, warpx2::01_23 or warpx4 (as the shape requires)."),
]
CtaGroupOpt = Annotated[
    Optional[str],
    Option("--cta-group", help="1 or 2 (.cta_group::2 also writes the peer CTA) [default: 1]."),
]
DecompressOpt = Annotated[
    Optional[str], Option("--decompress", help="b4x16_p64 or b6x16_p32 (.b8x16.<fmt> decompression).")
]


def cp(
    shape: CopyShapeArg,
    multicast: MulticastOpt = None,
    cta_group: CtaGroupOpt = None,
    decompress: DecompressOpt = None,
    taddr: TaddrOpt = None,
    row: Annotated[Optional[int], Option("--row", help="Where does this source row land?")] = None,
    word: Annotated[
        Optional[int], Option("--word", help="With --row: only this 32-bit word of the row.")
    ] = None,
    lane: Annotated[Optional[int], Option("--lane", help="Which source row/word fills this lane?")] = None,
    col: Annotated[Optional[int], Option("--col", help="With --lane: the TMEM column.")] = None,
    cta: CtaOpt = 0,
    format: FormatOpt = None,
    output: OutputOpt = None,
    detail: DetailOpt = Detail.auto,
    dpi: DpiOpt = 100,
    title: TitleOpt = None,
    layouts: LayoutsOpt = None,
) -> None:
    """Where tcgen05.cp puts each source row and word: TMEM cta, lane and column."""
    from tmemviz import api
    from tmemviz.draw.document import FIGURES, output_format
    from tmemviz.families.cp import answers, layout

    doc = api.cp(
        shape,
        multicast=multicast,
        cta_group=cta_group,
        decompress=decompress,
        taddr=taddr,
        row=row if word is None else None,
        title=title,
        layouts=layouts,
    )
    fmt = output_format(output, format.value if format else None, doc)
    copy: Copy = doc.subject
    if row is not None and (lane is not None or col is not None):
        raise TmemvizError("give either --row (where does it land) or --lane and --col (what lands here)")
    if word is not None and row is None:
        raise TmemvizError("--word needs --row: it picks one 32-bit word of that source row")
    if (lane is None) != (col is None):
        raise TmemvizError("--lane and --col go together: they name one TMEM cell")
    if cta != 0 and lane is None:
        raise TmemvizError("--cta goes with --lane and --col: it picks this CTA (0) or the peer (1)")
    if fmt in FIGURES or (row is None and lane is None):
        show(doc, format, output, detail=detail, dpi=dpi)  # the figure marks --row
        return
    notes = copy.notes() if fmt == "txt" else ()
    if lane is not None and col is not None:
        found = layout.source_of(copy, lane, col, cta)
        if fmt == "json":
            record = {"instruction": copy.mnemonic, **answers.landing_record(copy, found)}
            body = records.line({**record, "notes": list(copy.notes())})
        elif fmt == "csv":
            body = records.csv_text(answers.csv_header(copy), answers.csv_rows(copy, (found,)))
        else:
            body = answers.source_sentence(copy, found) + "\n"
        deliver(body, output, notes)
        return
    if row is not None:
        hits = layout.row_landings(copy, row, word)
        if fmt == "json":
            body = records.line(
                {
                    "instruction": copy.mnemonic,
                    "row": row,
                    "word": word,
                    "cells": [answers.landing_record(copy, x) for x in hits],
                    "notes": list(copy.notes()),
                }
            )
        elif fmt == "csv":
            body = records.csv_text(answers.csv_header(copy), answers.csv_rows(copy, hits))
        else:
            body = answers.row_sentence(copy, row, word, hits) + "\n"
        deliver(body, output, notes)


def decompress(
    fmt: Annotated[
        str,
        Argument(metavar="FORMAT", help="b4x16_p64 (4-bit) or b6x16_p32 (6-bit).", show_default=False),
    ],
    type: Annotated[
        Optional[str],
        Option("--type", "-t", help="e2m1 (4-bit), e3m2 or e2m3 (6-bit): names the bits, decodes values."),
    ] = None,
    hex: Annotated[
        Optional[str],
        Option("--hex", help="Source bytes, byte 0 first: the data bytes or the whole 16-byte chunk."),
    ] = None,
    elements: Annotated[
        Optional[str], Option("--elements", help="16 element codes instead, e.g. 1,2,0x7,0b0101,...")
    ] = None,
    format: FormatOpt = None,
    output: OutputOpt = None,
    dpi: DpiOpt = 100,
    title: TitleOpt = None,
) -> None:
    """How tcgen05.cp widens 16 packed 4/6-bit elements into 8-bit containers; a byte calculator."""
    from tmemviz import api

    show(api.decompress(fmt, type=type, hex=hex, elements=elements, title=title), format, output, dpi=dpi)


COMMANDS = {"cp": cp, "decompress": decompress}
"""Command name -> function, in the order ``--help`` lists them."""
