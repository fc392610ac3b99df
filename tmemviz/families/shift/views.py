"""What tcgen05.shift answers look like: the 32 lanes of the matrix, before and after.

Plain data (:mod:`tmemviz.draw.table` views); nothing here owns a console.
Sentences and records live in :mod:`tmemviz.families.shift.answers`.
"""

from __future__ import annotations

from tmemviz.draw.palette import thread_color
from tmemviz.draw.table import BOLD, DIM, ITALIC, Cell, Column, Styled, Table, View, on
from tmemviz.families.shift.answers import summary
from tmemviz.families.shift.layout import Shift, goes_to, held_after
from tmemviz.families.shift.shapes import ShiftShape

UNSPECIFIED = "unspecified"


def row_color(shift: Shift, lane: int) -> str:
    """The color of the element that starts in ``lane``: its row of the matrix, in the thread palette."""
    return thread_color(lane - shift.lanes[0])


def caption(shift: Shift) -> str:
    """How to read the table or figure: the instruction, columns, CTAs and coordinates."""
    c0, c1 = shift.columns
    text = (
        f"{shift.mnemonic} (implicit shape .{shift.shape.name}): each row's {shift.shape.row_bits // 8}-byte "
        f"element, columns {c0}..{c1}, moves down one lane; the last row's is overwritten"
    )
    if shift.relative:
        text += f"; lanes and columns relative to {shift.address.register}"
    else:
        text += f"; absolute lanes and columns, taddr = lane {shift.taddr[0]}, column {shift.taddr[1]}"
    if shift.cta_group == 2:
        text += "; .cta_group::2: the peer CTA's Tensor Memory shifts the same lanes and columns"
    return text + "; all tcgen05 instructions of a kernel use one .cta_group (PTX 9.7.16.9.3)"


def lanes_view(shift: Shift) -> Table:
    """One line per lane of the matrix: what it holds before, what it holds after, where its element goes."""
    first, last = shift.lanes
    rows: list[tuple[Cell, ...]] = []
    for lane in range(first, last + 1):
        before = Styled(f"lane {lane}'s", on(row_color(shift, lane)))
        source = held_after(shift, lane)
        after: Cell = (
            Styled(f"lane {source}'s", on(row_color(shift, source)))
            if source is not None
            else Styled(UNSPECIFIED, DIM)
        )
        target = goes_to(shift, lane)
        to: Cell = f"lane {target}" if target is not None else Styled("not moved (overwritten)", DIM)
        rows.append((str(lane), before, after, to))
    ctas = " (each CTA alike)" if shift.cta_group == 2 else ""
    c0, c1 = shift.columns
    columns = (
        Column("lane", justify="right", style=BOLD),
        Column("before", no_wrap=True),
        Column("after", no_wrap=True),
        Column("element goes to", no_wrap=True),
    )
    title = f"lanes {first}..{last}, columns {c0}..{c1}{ctas}: whose element each lane holds"
    return Table(columns, tuple(rows), title=title, title_justify="left", show_edge=False)


def shift_view(shift: Shift) -> View:
    """The summary line, the lane table and the caption (the CLI prints :meth:`Shift.notes` after it)."""
    return (Styled(summary(shift), BOLD), lanes_view(shift), Styled(caption(shift), ITALIC))


def shift_shapes_view(shapes: tuple[ShiftShape, ...]) -> View:
    """The tcgen05.shift shapes (one, implicit: never written) for ``tmemviz shapes``."""
    columns = (
        Column("shift shape", no_wrap=True),
        Column("rows moved", justify="right"),
        Column("bits per row", justify="right"),
        Column("lanes", justify="right"),
        Column("taddr lane", no_wrap=True),
    )
    rows = tuple(
        (
            f"{s.name} (implicit)",
            str(s.rows),
            str(s.row_bits),
            str(s.lanes),
            f"multiple of {s.lane_alignment}",
        )
        for s in shapes
    )
    title = "tcgen05.shift.cta_group::N.down (PTX 9.7.16.9.3; tmemviz shift)"
    return (Table(columns, rows, title=title, title_justify="left", show_edge=False),)
