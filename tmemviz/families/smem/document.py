"""Shared-memory layouts and descriptors as :class:`~tmemviz.draw.document.Document`s."""

from __future__ import annotations

from tmemviz.draw.document import Document, Record
from tmemviz.families.smem import answers
from tmemviz.families.smem.descriptor import Descriptor
from tmemviz.families.smem.layout import SmemLayout


def layout_document(
    layout: SmemLayout, *, dense: bool, cells: str = "byte", title: str | None = None
) -> Document:
    """Every element's byte offset; ``cells`` (byte or chunk) labels the grid and the figure."""

    def figure(detail: str):
        from tmemviz.families.smem.figures import layout_spec

        return layout_spec(layout, label=cells, title=title, detail=detail)

    def table(width: int):
        from tmemviz.families.smem.views import layout_view

        return layout_view(layout, width, cells)

    def which(byte: int) -> Record:
        return Record(answers.offset_record(layout, byte))

    def where(row: int, col: int) -> Record:
        return Record(row=row, col=col, byte=layout.byte_of(row, col))

    return Document(
        kind="smem",
        title=answers.title(layout),
        header=answers.layout_header(layout),
        lists=lambda: (("cells", answers.cell_records(layout)),),
        csv=lambda: (answers.CSV_HEADER, ((r, c, b) for r, c, b in layout.cells())),
        views={"grid": table},
        figure=figure,
        notes=tuple(answers.notes(layout, dense)),
        subject=layout,
        which_of=which,
        where_of=where,
    )


def descriptor_document(found: Descriptor, notes: tuple[str, ...] = ()) -> Document:
    """A shared-memory descriptor's fields; JSON, the table and the bit-field figure."""

    def table(width: int):
        from tmemviz.families.smem.views import descriptor_view

        return descriptor_view(found)

    def figure(detail: str):
        from tmemviz.families.smem.bitfields import descriptor_spec

        return descriptor_spec(found)

    record = found.to_record()
    return Document(
        kind="desc",
        title=str(record.get("hex", "descriptor")),
        header=record,
        views={"fields": table},
        figure=figure,
        notes=notes,
        warnings=tuple(found.problems),
        subject=found,
    )
