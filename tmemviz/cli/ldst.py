"""Commands for tcgen05.ld / tcgen05.st: ``layout``, ``which``, ``where``."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

from tmemviz.cli import complete
from tmemviz.cli.options import (
    AnswerFormat,
    Detail,
    DetailOpt,
    DpiOpt,
    FormatOpt,
    LayoutsOpt,
    OutputOpt,
    TaddrOpt,
    TitleOpt,
    questions,
    show,
)
from tmemviz.cli.params import Argument, Option
from tmemviz.draw import records
from tmemviz.families.ldst import answers, layout
from tmemviz.families.ldst.spelling import parse_half


class View(str, Enum):
    grid = "grid"
    threads = "threads"


class Op(str, Enum):
    ld = "ld"
    st = "st"


ShapeArg = Annotated[
    str,
    Argument(
        metavar="SHAPE",
        help="Shape: 16x256b, .16x256b, a CUTLASS name (16dp256b4x_16b) or a whole PTX instruction.",
        show_default=False,
        autocompletion=complete.ldst_names,
    ),
]
NumOpt = Annotated[
    Optional[str],
    Option("--num", "-n", help=".num repetition: x1..x128 (or 1..128).", autocompletion=complete.nums),
]
PackOpt = Annotated[bool, Option("--pack", "--unpack", help=".pack::16b (ld) / .unpack::16b (st).")]
SplitOpt = Annotated[
    Optional[int],
    Option("--split-offset", help="immHalfSplitoff of .16x32bx2, in columns [default: num, 2*num packed]."),
]
WarpOpt = Annotated[
    Optional[int], Option("--warp", help="Issuing warp (0..31); warp % 4 picks the lane band.")
]
OpOpt = Annotated[Optional[Op], Option("--op", help="ld or st [default: ld, or what SHAPE says].")]
RedOpt = Annotated[
    Optional[str], Option("--red", help="min or max: tcgen05.ld.red (32x32b, 16x32bx2; .num >= x2).")
]
RedTypeOpt = Annotated[Optional[str], Option("--type", help="With --red: u32, s32 or f32.")]
AbsOpt = Annotated[bool, Option("--abs", help="With --red and f32: reduce absolute values.")]
NanOpt = Annotated[bool, Option("--nan", help="With --red and f32: .NaN (a NaN input gives NaN).")]


def instruction(
    layouts: Optional[list[Path]],
    shape: str,
    num: Optional[str],
    pack: bool,
    split_offset: Optional[int],
    taddr: Optional[str],
    warp: Optional[int],
    op: Optional[Op],
    red: Optional[str] = None,
    red_type: Optional[str] = None,
    red_abs: bool = False,
    red_nan: bool = False,
) -> layout.Instruction:
    """The instruction the SHAPE argument and options describe (through the API); warnings go to stderr."""
    from tmemviz import api

    ins: layout.Instruction = api.layout(
        shape,
        num=num,
        pack=pack,
        split_offset=split_offset,
        taddr=taddr,
        warp=warp,
        op=op.value if op else None,
        red=red,
        red_type=red_type,
        red_abs=red_abs,
        red_nan=red_nan,
        layouts=layouts,
    ).subject
    for warning in ins.warnings:
        sys.stderr.write(f"tmemviz: warning: {warning}\n")
    return ins


def layout_command(
    shape: ShapeArg,
    num: NumOpt = None,
    pack: PackOpt = False,
    split_offset: SplitOpt = None,
    taddr: TaddrOpt = None,
    warp: WarpOpt = None,
    op: OpOpt = None,
    red: RedOpt = None,
    red_type: RedTypeOpt = None,
    red_abs: AbsOpt = False,
    red_nan: NanOpt = False,
    view: Annotated[View, Option("--view", help="grid (lanes x columns) or threads.")] = View.grid,
    highlight: Annotated[
        Optional[str], Option("--highlight", help="Figures: threads kept in color, e.g. 0,17; others dimmed.")
    ] = None,
    format: FormatOpt = None,
    output: OutputOpt = None,
    detail: DetailOpt = Detail.auto,
    dpi: DpiOpt = 100,
    title: TitleOpt = None,
    layouts: LayoutsOpt = None,
) -> None:
    """Show the whole layout of one tcgen05.ld/st: every thread, register, lane and column."""
    from tmemviz import api

    doc = api.layout(
        shape,
        num=num,
        pack=pack,
        split_offset=split_offset,
        taddr=taddr,
        warp=warp,
        op=op.value if op else None,
        red=red,
        red_type=red_type,
        red_abs=red_abs,
        red_nan=red_nan,
        highlight=highlight,
        title=title,
        layouts=layouts,
    )
    show(doc, format, output, view=view.value, detail=detail, dpi=dpi)


BatchOpt = Annotated[
    Optional[str],
    Option("--batch", metavar="FILE", help="Answer every line of FILE ('-' = stdin) in one run, streaming."),
]


def which(
    shape: ShapeArg,
    lane: Annotated[
        Optional[int],
        Option(
            "--lane",
            help="TMEM lane (relative to taddr, or to a PTX line's base register; absolute with --taddr).",
        ),
    ] = None,
    col: Annotated[
        Optional[int],
        Option("--col", help="TMEM 32-bit column (relative like --lane; absolute with --taddr)."),
    ] = None,
    num: NumOpt = None,
    half: Annotated[
        Optional[str], Option("--half", help="lo (bits 15:0) or hi (bits 31:16) of the cell.")
    ] = None,
    pack: PackOpt = False,
    split_offset: SplitOpt = None,
    taddr: TaddrOpt = None,
    warp: WarpOpt = None,
    op: OpOpt = None,
    red: RedOpt = None,
    red_type: RedTypeOpt = None,
    red_abs: AbsOpt = False,
    red_nan: NanOpt = False,
    format: Annotated[AnswerFormat, Option("--format", "-f", help="text or json.")] = AnswerFormat.text,
    batch: BatchOpt = None,
    layouts: LayoutsOpt = None,
) -> int:
    """Which thread and register hold TMEM lane L, column C?"""
    ins = instruction(
        layouts, shape, num, pack, split_offset, taddr, warp, op, red, red_type, red_abs, red_nan
    )
    which_half = parse_half(half) if half is not None else None

    def answer(lane: int, col: int) -> str:
        owners = layout.which(ins, lane, col, which_half)
        if format is AnswerFormat.json:
            return records.line(answers.which_record(ins, lane, col, owners))
        return answers.which_sentence(ins, lane, col, owners) + "\n"

    return questions(answer, ("--lane", lane), ("--col", col), batch, as_json=format is AnswerFormat.json)


def where(
    shape: ShapeArg,
    thread: Annotated[
        Optional[int], Option("--thread", "-t", help="Thread (lane id in the warp, 0..31).")
    ] = None,
    reg: Annotated[
        Optional[int], Option("--reg", "-r", help="Register index i of r_i in the vector operand.")
    ] = None,
    num: NumOpt = None,
    pack: PackOpt = False,
    split_offset: SplitOpt = None,
    taddr: TaddrOpt = None,
    warp: WarpOpt = None,
    op: OpOpt = None,
    red: RedOpt = None,
    red_type: RedTypeOpt = None,
    red_abs: AbsOpt = False,
    red_nan: NanOpt = False,
    format: Annotated[AnswerFormat, Option("--format", "-f", help="text or json.")] = AnswerFormat.text,
    batch: BatchOpt = None,
    layouts: LayoutsOpt = None,
) -> int:
    """Where in TMEM does thread T's register r come from (ld) or go to (st)?"""
    ins = instruction(
        layouts, shape, num, pack, split_offset, taddr, warp, op, red, red_type, red_abs, red_nan
    )

    def answer(thread: int, reg: int) -> str:
        found = layout.where(ins, thread, reg)
        if format is AnswerFormat.json:
            return records.line(answers.where_record(ins, thread, reg, found))
        return answers.where_sentence(ins, thread, reg, found) + "\n"

    return questions(answer, ("--thread", thread), ("--reg", reg), batch, as_json=format is AnswerFormat.json)


COMMANDS = {"layout": layout_command, "which": which, "where": where}
"""Command name -> function, in the order ``--help`` lists them."""
