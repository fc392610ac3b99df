"""A whole accumulator tile as a :class:`~tmemviz.draw.document.Document`."""

from __future__ import annotations

from functools import cache

from tmemviz.draw.document import Document, Record
from tmemviz.errors import TmemvizError
from tmemviz.families.ldst.shapes import Shape
from tmemviz.families.tile import answers
from tmemviz.families.tile.layout import Element, Tile, element_at, elements
from tmemviz.tmem import THREADS


def tile_document(
    tile: Tile,
    shapes: tuple[Shape, ...],
    *,
    m_row: int | None = None,
    n_col: int | None = None,
    thread: int | None = None,
    warp: int | None = None,
    title: str | None = None,
) -> Document:
    """Which warp, thread, instruction and register hold each element of ``tile``.

    ``m_row``/``n_col`` keep one row and/or column of D in the records and tables; ``shapes``
    (every ld shape) lets the summary compare how each would load the tile; ``thread``/``warp``
    keep those in color in the figure.
    """
    if m_row is not None:
        element_at(tile, m_row, 0)  # a clear error for a row outside D
    if n_col is not None:
        element_at(tile, 0, n_col)
    if thread is not None and not 0 <= thread < THREADS:
        raise TmemvizError(
            f"--thread must be 0..{THREADS - 1} (the thread's lane id in its warp), got {thread}"
        )
    if warp is not None and not 0 <= warp < tile.warps:
        raise TmemvizError(
            f"--warp must be 0..{tile.warps - 1} for a tile loaded by {tile.warps} warps, got {warp}"
        )

    @cache
    def every() -> tuple[Element, ...]:
        return elements(tile)

    @cache
    def picked_items() -> tuple[Element, ...]:
        return tuple(
            e for e in every() if (m_row is None or e.m == m_row) and (n_col is None or e.n == n_col)
        )

    picked = m_row is not None or n_col is not None

    def figure(detail: str):
        from tmemviz.families.tile.schematic import tile_schematic, wants_schematic

        if wants_schematic(tile, detail):
            return tile_schematic(tile, thread=thread, warp=warp, title=title)
        from tmemviz.families.tile.figures import tile_spec

        return tile_spec(tile, every(), thread=thread, warp=warp, title=title)

    def grid(width: int):
        from tmemviz.families.tile import views

        return views.grid_view(tile, picked_items(), width)

    def summary(width: int):
        from tmemviz.families.tile import views
        from tmemviz.families.tile.contiguity import compare

        return views.summary_view(tile, picked_items(), compare(shapes, tile))

    def which(m: int, n: int) -> Record:
        return Record(answers.cell_record(element_at(tile, m, n)))

    return Document(
        kind="tile",
        title=tile.mnemonic,
        header=answers.header(tile),
        lists=lambda: (
            ("instructions", answers.instruction_records(tile)),
            ("cells", [answers.cell_record(e) for e in picked_items()]),
        ),
        csv=lambda: (answers.CSV_HEADER, answers.csv_rows(picked_items())),
        views={"grid": grid, "summary": summary} if picked else {"summary": summary, "grid": grid},
        figure=figure,
        notes=answers.notes(tile),
        subject=tile,
        which_of=which,
    )
