"""The ``datapath`` command: the tcgen05.mma data-path layouts A-G, and where one puts D[m][n]."""

from __future__ import annotations

from typing import Annotated, Optional

from tmemviz.cli import complete
from tmemviz.cli.options import (
    Detail,
    DetailOpt,
    DpiOpt,
    FormatOpt,
    LaneOffsetOpt,
    LayoutsOpt,
    MRowOpt,
    NColOpt,
    OutputOpt,
    TitleOpt,
    deliver,
    show,
)
from tmemviz.cli.params import Argument, Option

LetterArg = Annotated[
    Optional[str],
    Argument(
        help="A layout letter A-G [default: the table of all seven].",
        show_default=False,
        autocompletion=complete.datapath_names,
    ),
]
DataPathNOpt = Annotated[
    Optional[int],
    Option("--n", help="N of the MMA [default: 256, or the largest legal N].", show_default=False),
]


def datapath(
    letter: LetterArg = None,
    n: DataPathNOpt = None,
    lane_offset: LaneOffsetOpt = None,
    m_row: MRowOpt = None,
    n_col: NColOpt = None,
    format: FormatOpt = None,
    output: OutputOpt = None,
    detail: DetailOpt = Detail.auto,
    dpi: DpiOpt = 100,
    title: TitleOpt = None,
    layouts: LayoutsOpt = None,
) -> None:
    """The tcgen05.mma data-path layouts A-G (PTX 9.7.16.10.5): where D lives, and each warp's taddr."""
    from tmemviz import api
    from tmemviz.errors import TmemvizError

    doc = api.datapath(letter, n=n, lane_offset=lane_offset, title=title, layouts=layouts)
    if (m_row is None) != (n_col is None) or (m_row is not None and letter is None):
        raise TmemvizError(
            "--m-row and --n-col go together, with a layout letter: "
            "'tmemviz datapath B --m-row 70 --n-col 200'"
        )
    if m_row is not None and n_col is not None:
        from tmemviz.draw import records
        from tmemviz.draw.document import output_format
        from tmemviz.families.datapath.answers import where_sentence

        sentence = where_sentence(doc.subject, m_row, n_col)
        fmt = output_format(output, format.value if format else None, doc)
        if fmt == "json":
            deliver(records.line(dict(doc.where(m=m_row, n=n_col))), output)
            return
        if fmt == "txt":
            deliver(sentence + "\n", output)
            return
    show(doc, format, output, detail=detail, dpi=dpi)


COMMANDS = {"datapath": datapath}
"""Command name -> function."""
