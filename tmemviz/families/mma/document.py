"""An instruction descriptor as a :class:`~tmemviz.draw.document.Document`: fields, table, bit fields."""

from __future__ import annotations

from tmemviz.draw.document import Document
from tmemviz.families.mma import answers
from tmemviz.families.mma.idesc import Idesc

SOURCES_NOTE = (
    "fields as the PTX ISA's instruction-descriptor tables give them (9.7.16.4.2); the idesc is a runtime "
    "operand, so ptxas does not check it"
)


def idesc_document(found: Idesc, notes: tuple[str, ...] = ()) -> Document:
    """Every field of ``found``; its problems are warnings."""

    def table(width: int):
        from tmemviz.families.mma.views import idesc_view

        return idesc_view(found)

    def figure(detail: str):
        from tmemviz.families.mma.figures import idesc_spec

        return idesc_spec(found)

    return Document(
        kind="idesc",
        title=answers.summary(found),
        header=answers.idesc_record(found),
        lists=lambda: (("fields", answers.field_records(found)),),
        main="fields",
        csv=lambda: (answers.CSV_HEADER, answers.csv_rows(found)),
        views={"fields": table},
        figure=figure,
        notes=(*notes, SOURCES_NOTE),
        warnings=tuple(found.problems),
        subject=found,
    )
