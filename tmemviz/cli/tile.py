"""The ``tile`` command: a whole M x N accumulator loaded by a warpgroup (or two) of tcgen05.ld."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

from tmemviz.cli.options import (
    Detail,
    DetailOpt,
    DpiOpt,
    FormatOpt,
    LaneOffsetOpt,
    LayoutsOpt,
    MmaCtaGroupOpt,
    MRowOpt,
    NColOpt,
    OutputOpt,
    TaddrOpt,
    TitleOpt,
    deliver,
    show,
)
from tmemviz.cli.params import Option
from tmemviz.draw import records


class View(str, Enum):
    summary = "summary"
    grid = "grid"


TileMOpt = Annotated[
    int,
    Option(
        "--m",
        help="The MMA's M: 32 (.ws), 64, 128, or 256 (--cta-group 2); with the rest it picks layout A-G.",
    ),
]
WsOpt = Annotated[bool, Option("--ws", help="D of a weight-stationary tcgen05.mma.ws (layouts E, G; D).")]
SparseOpt = Annotated[
    bool, Option("--sparse", help="D of tcgen05.mma.sp (sparse A; layout C with --cta-group 2).")
]
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


def tile(
    n: TileNOpt = None,
    shape: TileShapeOpt = None,
    m: TileMOpt = 128,
    cta_group: MmaCtaGroupOpt = 1,
    ws: WsOpt = False,
    sparse: SparseOpt = False,
    lane_offset: LaneOffsetOpt = None,
    num: TileNumOpt = None,
    warps: WarpsOpt = 4,
    dtype: TileDtypeOpt = "f32",
    storage: StorageOpt = None,
    taddr: TaddrOpt = None,
    m_row: MRowOpt = None,
    n_col: NColOpt = None,
    view: Annotated[Optional[View], Option("--view", help="summary (instructions) or grid (D).")] = None,
    thread: Annotated[
        Optional[int],
        Option("--thread", help="Figures: keep this thread (of every warp, or of --warp) in color."),
    ] = None,
    warp: Annotated[Optional[int], Option("--warp", help="Figures: keep this warp in color.")] = None,
    format: FormatOpt = None,
    output: OutputOpt = None,
    detail: DetailOpt = Detail.auto,
    dpi: DpiOpt = 100,
    title: TitleOpt = None,
    layouts: LayoutsOpt = None,
) -> None:
    """Which warp, thread, instruction and register hold each element of an M x N accumulator tile."""
    from tmemviz import api
    from tmemviz.draw.document import output_format

    doc = api.tile(
        m=m,
        n=n,
        shape=shape,
        cta_group=cta_group,
        ws=ws,
        sparse=sparse,
        lane_offset=lane_offset,
        num=num,
        warps=warps,
        dtype=dtype,
        storage=storage,
        taddr=taddr,
        m_row=m_row,
        n_col=n_col,
        thread=thread,
        warp=warp,
        title=title,
        layouts=layouts,
    )
    fmt = output_format(output, format.value if format else None, doc)
    if m_row is not None and n_col is not None and fmt in ("txt", "json", "csv"):
        from tmemviz.families.tile import answers
        from tmemviz.families.tile.layout import element_at

        e = element_at(doc.subject, m_row, n_col)
        if fmt == "json":
            deliver(records.line(answers.cell_record(e)), output)
        elif fmt == "csv":
            deliver(records.csv_text(answers.CSV_HEADER, answers.csv_rows((e,))), output)
        else:
            deliver(answers.element_sentence(doc.subject, e) + "\n", output)
        return
    show(doc, format, output, view=view.value if view else None, detail=detail, dpi=dpi)


COMMANDS = {"tile": tile}
"""Command name -> function."""
