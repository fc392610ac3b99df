"""One tcgen05.ld/st as a :class:`~tmemviz.draw.document.Document`: records, tables, figure, lookups."""

from __future__ import annotations

from tmemviz.draw.document import Document, Record
from tmemviz.errors import TmemvizError
from tmemviz.families.ldst import answers, layout
from tmemviz.families.ldst.layout import Instruction


def layout_document(
    ins: Instruction, *, highlight: frozenset[int] = frozenset(), title: str | None = None
) -> Document:
    """Every thread, register, lane and column of ``ins``; ``highlight``/``title`` shape its figure."""
    from functools import cache

    from tmemviz.families.ldst import views

    cells = cache(lambda: layout.cells(ins))  # a one-line answer never needs them all

    def figure(detail: str):
        from tmemviz.families.ldst.figures import layout_spec

        return layout_spec(ins, cells(), highlight=highlight, title=title, detail=detail)

    def which(lane: int, col: int, half: int | str | None = None) -> Record:
        from tmemviz.families.ldst.spelling import parse_half

        picked = parse_half(str(half)) if half is not None else None
        owners = layout.which(ins, lane, col, picked)
        return Record(answers.which_record(ins, lane, col, owners))

    def where(thread: int, reg: int) -> Record:
        return Record(answers.where_record(ins, thread, reg, layout.where(ins, thread, reg)))

    return Document(
        kind="layout",
        title=ins.mnemonic,
        header=answers.layout_header(ins),
        lists=lambda: (("cells", answers.cell_records(ins, cells())),),
        csv=lambda: (answers.CSV_HEADER, answers.csv_rows(cells())),
        views={
            "grid": lambda width: views.grid_view(ins, cells(), width),
            "threads": lambda width: views.threads_view(ins, cells()),
        },
        figure=figure,
        notes=tuple(n for n in (answers.address_note(ins),) if n),
        warnings=tuple(ins.warnings),
        subject=ins,
        which_of=which,
        where_of=where,
    )


def pack_document(op: str) -> Document:
    """PTX Figure 193: how .pack::16b (ld) / .unpack::16b (st) pair 16-bit halves; a figure only."""
    if op not in ("ld", "st"):
        raise TmemvizError(f"op must be ld (.pack::16b) or st (.unpack::16b), got '{op}'")

    def figure(detail: str):
        from tmemviz.families.ldst.figures import pack_spec

        return pack_spec(op)

    name = "pack" if op == "ld" else "unpack"
    header = {"op": op, "qualifier": f"{name}::16b"}
    return Document(kind=name, title=f".{name}::16b", header=header, figure=figure)
