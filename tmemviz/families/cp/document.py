"""tcgen05.cp and its decompression as :class:`~tmemviz.draw.document.Document`s."""

from __future__ import annotations

from tmemviz.draw.document import Document, Record
from tmemviz.families.cp import answers, layout
from tmemviz.families.cp.decompress import CONTAINER_BASIS, Format, NumberType
from tmemviz.families.cp.layout import Copy


def copy_document(cp: Copy, *, row: int | None = None, title: str | None = None) -> Document:
    """Where every source row and word of ``cp`` lands; ``row`` is marked in the figure."""
    if row is not None:
        layout.row_landings(cp, row)  # a clear error for a row the shape does not have
    everything = layout.landings(cp)

    def figure(detail: str):
        from tmemviz.families.cp.figures import copy_spec

        return copy_spec(cp, row=row, title=title)

    def table(width: int):
        from tmemviz.families.cp.views import copy_view

        return copy_view(cp, everything)

    def which(lane: int, col: int, cta: int = 0) -> Record:
        found = layout.source_of(cp, lane, col, cta)
        return Record(answers.landing_record(cp, found))

    def where(row: int, word: int | None = None) -> Record:
        hits = layout.row_landings(cp, row, word)
        return Record(row=row, word=word, cells=[Record(answers.landing_record(cp, x)) for x in hits])

    return Document(
        kind="cp",
        title=cp.mnemonic,
        header=answers.copy_header(cp),
        lists=lambda: (("cells", [answers.landing_record(cp, x) for x in everything]),),
        csv=lambda: (answers.csv_header(cp), answers.csv_rows(cp, everything)),
        views={"bands": table},
        figure=figure,
        notes=tuple(cp.notes()),
        subject=cp,
        which_of=which,
        where_of=where,
    )


def decompress_document(
    fmt: Format, kind: NumberType | None, chunk: bytes | None, *, title: str | None = None
) -> Document:
    """How tcgen05.cp widens 16 packed 4/6-bit elements (with ``chunk``'s values when given)."""
    record = answers.decompress_record(fmt, kind, chunk)
    items = record.pop("elements")

    def figure(detail: str):
        from tmemviz.families.cp.figures import decompress_spec

        return decompress_spec(fmt, kind, title=title)

    def table(width: int):
        from tmemviz.families.cp.views import decompress_view

        return decompress_view(fmt, kind, chunk)

    def which(index: int) -> Record:
        for item in items:
            if item.get("index") == index:
                return Record(item)
        from tmemviz.errors import TmemvizError

        raise TmemvizError(f"index must be 0..{len(items) - 1} (one of the 16 elements), got {index}")

    return Document(
        kind="decompress",
        title=f"tcgen05.cp .b8x16.{fmt.name}" + (f" ({kind.name})" if kind is not None else ""),
        header=record,
        lists=lambda: (("elements", items),),
        main="elements",
        csv=lambda: (answers.DECOMPRESS_CSV_HEADER, answers.decompress_csv_rows(items)),
        views={"elements": table},
        figure=figure,
        notes=(CONTAINER_BASIS,),
        which_of=which,
    )
