"""The ``shift`` command: which lane each 32-byte element moves to under tcgen05.shift."""

from __future__ import annotations

from typing import Annotated, Optional

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

InstructionArg = Annotated[
    str,
    Argument(
        help=(
            "A tcgen05.shift line in either qualifier order: 'tcgen05.shift.cta_group::1.down [taddr];' "
            "or 'tcgen05.shift.down.cta_group::1 [taddr];' (guard, [reg+imm] and // comments allowed)."
        ),
        metavar="INSTRUCTION",
        show_default=False,
        autocompletion=complete.shift_names,
    ),
]


def shift(
    instruction: InstructionArg,
    taddr: TaddrOpt = None,
    lane: Annotated[
        Optional[int],
        Option("--lane", help="Where does this lane's element go, and what does it hold after?"),
    ] = None,
    cta: CtaOpt = 0,
    format: FormatOpt = None,
    output: OutputOpt = None,
    detail: DetailOpt = Detail.auto,
    dpi: DpiOpt = 100,
    title: TitleOpt = None,
    layouts: LayoutsOpt = None,
) -> None:
    """What tcgen05.shift moves: each lane's 32-byte element, one lane down, in this CTA (and the peer)."""
    from tmemviz import api
    from tmemviz.draw.document import FIGURES, output_format

    doc = api.shift(instruction, taddr=taddr, title=title, layouts=layouts)
    if cta != 0 and lane is None:
        raise TmemvizError("--cta goes with --lane: it picks this CTA (0) or the peer (1)")
    fmt = output_format(output, format.value if format else None, doc)
    if lane is None or fmt in FIGURES:
        show(doc, format, output, detail=detail, dpi=dpi)
        return
    from tmemviz.families.shift import answers

    found = doc.subject
    if fmt == "json":
        body = records.line({**answers.lane_record(found, lane, cta), "notes": list(found.notes())})
    elif fmt == "csv":
        record = answers.lane_record(found, lane, cta)
        header = ("cta", "lane", "goes_to", "held_after")
        body = records.csv_text(header, [tuple("" if record[k] is None else record[k] for k in header)])
    else:
        body = answers.lane_sentence(found, lane, cta) + "\n"
    deliver(body, output, found.notes() if fmt == "txt" else ())


COMMANDS = {"shift": shift}
"""Command name -> function."""
