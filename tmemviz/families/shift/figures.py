"""Figure specs for tcgen05.shift, as plain data (no matplotlib).

``shift_spec``: for each CTA the shift touches, the matrix's 32 lanes (top to bottom)
by its 8 columns twice, before and after; each row's element keeps its color, an arrow
takes it to its new lane, and the first row afterwards is marked unspecified. The peer
CTA's pair stands to the right for ``.cta_group::2``.
"""

from __future__ import annotations

import textwrap
from functools import partial

from tmemviz.catalog import Catalog
from tmemviz.draw.spec import Arrow, Box, FigureSpec, GalleryEntry, Note, Panel
from tmemviz.families.shift.layout import Address, Shift, held_after, make_shift
from tmemviz.families.shift.shapes import KIND
from tmemviz.families.shift.views import UNSPECIFIED, caption, row_color

CELL_W_IN = 0.42
GAP = 4.0
"""Room between the before and after grids for the arrows, in column widths."""
CTA_GAP = 3.0
UNKNOWN_FILL = "#ffffff"
ARROW = "#555555"
NOTE_PT = 6.5
NOTE_CHAR_IN = 0.6 * NOTE_PT / 72
"""Width of one character of a note (DejaVu Sans advances at most about 0.6 em)."""
SELECT_ELEMENT = ("group", "cta src")
"""Clicking a cell selects its element: where it was and where it went, in that CTA."""


def shift_spec(shift: Shift, *, title: str | None = None) -> FigureSpec:
    """Before and after, side by side, for this CTA (and the peer for ``.cta_group::2``)."""
    cols = shift.shape.cols
    first, last = shift.lanes
    height = last - first + 1
    pair = 2 * cols + GAP
    boxes: list[Box] = []
    arrows: list[Arrow] = []
    notes: list[Note] = []
    ticks: list[tuple[float, str]] = []
    for cta in shift.ctas:
        x_before = cta * (pair + CTA_GAP)
        x_after = x_before + cols + GAP
        who = "this CTA (cta 0)" if cta == 0 else "peer CTA (cta 1)"
        notes.append(Note(x_before + cols / 2, -1.2, f"before, {who}", 7.5))
        notes.append(Note(x_after + cols / 2, -1.2, f"after, {who}", 7.5))
        for x0, after in ((x_before, False), (x_after, True)):
            for lane in range(first, last + 1):
                boxes.extend(_row(shift, cta, lane, x0, after))
            ticks.extend((x0 + w + 0.5, str(shift.columns[0] + w)) for w in range(cols))
        for lane in range(first, first + shift.shape.rows):
            y = lane - first + 0.5
            step = shift.shape.step
            arrows.append(Arrow(x_before + cols + 0.15, y, x_after - 0.15, y + step, color=ARROW))
        notes.append(Note(x_after + cols + 0.15, 0.5, UNSPECIFIED, 6.0, "left"))
    width = shift.cta_group * pair + (shift.cta_group - 1) * CTA_GAP + 2.0
    # What the PTX text leaves open goes under the grids, one line each: the caption has room for
    # the reading guide only.
    y = height + 0.9
    for note in shift.notes():
        for line in textwrap.wrap(f"Note: {note}", int(width * CELL_W_IN / NOTE_CHAR_IN)):
            notes.append(Note(0, y, line, NOTE_PT, "left"))
            y += 1.0
    panel = Panel(
        title="",
        width=width,
        height=y,
        cell_w_in=CELL_W_IN,
        boxes=tuple(boxes),
        x_ticks=tuple(ticks),
        y_ticks=tuple((i + 0.5, str(first + i)) for i in range(height)),
        arrows=tuple(arrows),
        notes=tuple(notes),
    )
    return FigureSpec(title=title or shift.statement(), caption=caption(shift), panels=(panel,))


def _row(shift: Shift, cta: int, lane: int, x0: float, after: bool) -> list[Box]:
    """One lane's cells: the element it holds (before, or after the shift), labelled with its first lane."""
    first = shift.lanes[0]
    source = held_after(shift, lane, cta) if after else lane
    y = lane - first
    out = []
    for w in range(shift.shape.cols):
        col = shift.columns[0] + w
        where = f"cta {cta}, lane {lane}, column {col}"
        if source is None:
            tip = f"{where} after the shift: {UNSPECIFIED} (the PTX text does not say)"
            data = (("cta", str(cta)), ("lane", str(lane)), ("col", str(col)), ("src", UNSPECIFIED))
            out.append(Box(x0 + w, y, 1, 1, UNKNOWN_FILL, "?" if w == 0 else "", tip, dim=True, data=data))
            continue
        moment = "after the shift" if after else "before the shift"
        tip = f"{where} {moment}: word {w} of lane {source}'s element"
        data = (
            ("cta", str(cta)),
            ("lane", str(lane)),
            ("col", str(col)),
            ("src", str(source)),
            SELECT_ELEMENT,
        )
        label = str(source) if w == 0 else ""
        out.append(Box(x0 + w, y, 1, 1, row_color(shift, source), label, tip, data=data))
    return out


SHIFT_FIGURE = "none: PTX 9.7.16.9.3 text"
"""The PTX ISA describes tcgen05.shift in words only; it has no figure to cite."""


def gallery_entries(catalog: Catalog) -> list[GalleryEntry]:
    """The shift in one CTA, and with ``.cta_group::2`` in both."""
    if catalog.find(KIND, "31x256b") is None:
        return []
    shape = catalog.get(KIND, "31x256b")
    out = []
    for group, note in (
        (1, "lanes 0..30 move down one lane, 8 columns; lane 0 afterwards unspecified"),
        (2, "the peer CTA's Tensor Memory shifts alike"),
    ):
        shift = make_shift(shape, group, Address())
        stem = f"shift.cta_group{group}"
        out.append(GalleryEntry(stem, f"`{shift.mnemonic}`", SHIFT_FIGURE, note, partial(shift_spec, shift)))
    return out
