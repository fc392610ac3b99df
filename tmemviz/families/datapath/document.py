"""Data-path layouts as a :class:`~tmemviz.draw.document.Document`: the table, or one layout."""

from __future__ import annotations

from collections.abc import Sequence

from tmemviz.draw.document import Document, Record
from tmemviz.families.datapath import answers
from tmemviz.families.datapath.answers import Organization
from tmemviz.families.datapath.organization import place
from tmemviz.families.datapath.shapes import DataPath


def table_document(paths: Sequence[DataPath], *, title: str | None = None) -> Document:
    """The seven rows of PTX 9.7.16.10.5 (``tmemviz datapath``)."""

    def table(width: int):
        from tmemviz.families.datapath import views

        return views.table_view(paths)

    def figure(detail: str):
        from tmemviz.families.datapath.figures import table_spec

        return table_spec(paths, title=title)

    notes = tuple(f"{p.name}: {note}" for p in paths for note in p.notes if "disagree" in note)
    return Document(
        kind="datapath",
        title="tcgen05.mma data-path layouts A-G",
        header={"layouts": len(paths)},
        lists=lambda: (("layouts", answers.table_records(paths)),),
        main="layouts",
        csv=lambda: (answers.TABLE_CSV, answers.table_csv(paths)),
        views={"table": table},
        figure=figure,
        notes=notes,
        subject=tuple(paths),
    )


def organization_document(org: Organization, *, title: str | None = None) -> Document:
    """One layout (``tmemviz datapath LETTER``): each warp's region and taddr, and every D[m][n]."""
    path = org.path

    def view(width: int):
        from tmemviz.families.datapath import views

        return views.organization_view(org)

    def figure(detail: str):
        from tmemviz.families.datapath.figures import organization_spec

        return organization_spec(org, title=title)

    def where(m: int, n: int) -> Record:
        from tmemviz.families.datapath.answers import check_element

        check_element(path, org.n, m, n)
        p = place(path, org.n, m, n, org.offset)
        return Record(m=m, n=n, cta=p.cta, lane=p.lane, col=p.col, warp=p.lane // 32)

    def cells():
        return [dict(zip(answers.CELL_CSV, row, strict=True)) for row in answers.cell_rows(org)]

    notes = list(path.notes)
    if path.n_source:
        notes.append(f"legal N: {path.n_source}")
    return Document(
        kind="datapath",
        title=f"tcgen05.mma data-path layout {path.name} ({answers.mma_text(path)}, N={org.n})",
        header=answers.header(org),
        lists=lambda: (("warps", answers.region_records(org)), ("cells", cells())),
        csv=lambda: (answers.CELL_CSV, answers.cell_rows(org)),
        views={"warps": view},
        figure=figure,
        notes=tuple(notes),
        subject=org,
        where_of=where,
    )
