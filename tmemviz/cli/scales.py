"""The ``scales`` command: where each scale factor of a block-scaled MMA sits, and the copies moving it."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

from tmemviz.cli.options import (
    Detail,
    DetailOpt,
    DpiOpt,
    FormatOpt,
    LayoutsOpt,
    MmaCtaGroupOpt,
    OutputOpt,
    TitleOpt,
    deliver,
    show,
)
from tmemviz.cli.params import Option
from tmemviz.draw import records


class View(str, Enum):
    summary = "summary"
    tmem = "tmem"


def scales(
    operand: Annotated[str, Option("--operand", help="A or B: whose scale factors.")] = "A",
    sf_vec: Annotated[
        int, Option("--sf-vec", help="K elements per scale factor: 32 (block32) or 16 (block16).")
    ] = 32,
    m: Annotated[
        Optional[int],
        Option("--m", help="The MMA's M (operand A; the pair's with --cta-group 2).", show_default=False),
    ] = None,
    n: Annotated[Optional[int], Option("--n", help="The MMA's N (operand B).", show_default=False)] = None,
    k: Annotated[
        Optional[int],
        Option("--k", help="K of the tile whose scale factors are loaded together.", show_default=False),
    ] = None,
    cta_group: MmaCtaGroupOpt = 1,
    kind: Annotated[
        Optional[str],
        Option("--kind", help="mxf8f6f4, mxf4 or mxf4nvf4 [default: mxf8f6f4 for 32, mxf4nvf4 for 16]."),
    ] = None,
    row: Annotated[Optional[int], Option("--row", help="Ask about one row (of A, or column of B).")] = None,
    kblock: Annotated[Optional[int], Option("--kblock", help="Ask about one K block (k / sf-vec).")] = None,
    lane: Annotated[
        Optional[int], Option("--lane", help="With --col: which scale factors a TMEM cell holds.")
    ] = None,
    col: Annotated[
        Optional[int], Option("--col", help="TMEM column (relative to the first chunk's).")
    ] = None,
    cta: Annotated[
        int,
        Option(
            "--cta", help="With --cta-group 2: which CTA's TMEM --lane/--col, the grid and the figure show."
        ),
    ] = 0,
    view: Annotated[
        Optional[View], Option("--view", help="summary (copies and MMAs) or tmem (the grid).")
    ] = None,
    format: FormatOpt = None,
    output: OutputOpt = None,
    detail: DetailOpt = Detail.auto,
    dpi: DpiOpt = 100,
    title: TitleOpt = None,
    layouts: LayoutsOpt = None,
) -> None:
    """Where every scale factor of a block-scaled MMA sits: shared memory, tcgen05.cp, TMEM, SF ID."""
    from tmemviz import api
    from tmemviz.draw.document import output_format

    doc = api.scales(
        operand=operand,
        sf_vec=sf_vec,
        m=m,
        n=n,
        k=k,
        cta_group=cta_group,
        kind=kind,
        row=row,
        kblock=kblock,
        cta=cta,
        title=title,
        layouts=layouts,
    )
    fmt = output_format(output, format.value if format else None, doc)
    if lane is not None or col is not None:
        from tmemviz.errors import TmemvizError
        from tmemviz.families.scales import answers

        if lane is None or col is None or fmt not in ("txt", "json"):
            raise TmemvizError("--lane and --col go together and answer as text or json")
        found = answers.cell_records_at(doc.subject, lane, col, cta)
        if fmt == "json":
            deliver(records.line({"cta": cta, "lane": lane, "col": col, "bytes": found}), output)
        else:
            deliver(answers.cell_at_sentence(doc.subject, lane, col, cta) + "\n", output)
        return
    if row is not None and kblock is not None and fmt in ("txt", "json"):
        from tmemviz.families.scales import answers

        if fmt == "json":
            deliver(records.line(answers.cell_record(doc.subject, row, kblock)), output)
        else:
            deliver(answers.cell_sentence(doc.subject, row, kblock) + "\n", output)
        return
    show(doc, format, output, view=view.value if view else None, detail=detail, dpi=dpi)


COMMANDS = {"scales": scales}
"""Command name -> function."""
