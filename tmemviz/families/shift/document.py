"""tcgen05.shift as a :class:`~tmemviz.draw.document.Document`."""

from __future__ import annotations

from tmemviz.draw.document import Document, Record
from tmemviz.families.shift import answers
from tmemviz.families.shift.layout import Shift, moves


def shift_document(shift: Shift, *, title: str | None = None) -> Document:
    """Which lane each 32-byte element moves to; ``which(lane=, cta=)`` tells one lane's story."""
    moved = moves(shift)

    def figure(detail: str):
        from tmemviz.families.shift.figures import shift_spec

        return shift_spec(shift, title=title)

    def table(width: int):
        from tmemviz.families.shift.views import shift_view

        return shift_view(shift)

    def which(lane: int, cta: int = 0) -> Record:
        return Record(answers.lane_record(shift, lane, cta))

    return Document(
        kind="shift",
        title=shift.mnemonic,
        header=answers.header(shift),
        lists=lambda: (("moves", [answers.move_record(m) for m in moved]),),
        main="moves",
        csv=lambda: (answers.CSV_HEADER, answers.csv_rows(moved)),
        views={"lanes": table},
        figure=figure,
        notes=shift.notes(),
        subject=shift,
        which_of=which,
    )
