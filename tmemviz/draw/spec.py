"""Figure specs: what to draw, as plain data, testable without matplotlib.

A spec is a list of panels; each panel is a grid of boxes (in panel units:
x = column slot, y = row, top to bottom) with labels, fill colors and hover
tooltips, plus axis labels, markers, arrows and free notes. The drawing code
(:mod:`tmemviz.draw.figure`) only turns this into matplotlib artists.

Large grids stay legible by splitting their columns into numbered panels
stacked top to bottom, each at most :data:`PANEL_WIDTH_IN` inches wide with a
fixed cell size and font, so labels never shrink below a readable size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

CHAR_IN = 0.6 * 6.5 / 72
"""Width of one label character: DejaVu Sans Mono advances 0.6 em, at 6.5 pt."""
CELL_H_IN = 0.24
PANEL_WIDTH_IN = 20.0


@dataclass(frozen=True)
class Box:
    """One rectangle: a TMEM (half-)cell or a part of a diagram."""

    x: float
    y: float
    w: float
    h: float
    fill: str
    label: str
    tooltip: str
    dim: bool = False
    data: tuple[tuple[str, str], ...] = ()
    """The cell's coordinates by name, e.g. (("lane", "9"), ("col", "5"), ("thread", "6"), ("reg", "3")):
    what an interactive page attaches to the cell (``data-lane`` ...) so it can be hovered and searched."""


@dataclass(frozen=True)
class Arrow:
    x0: float
    y0: float
    x1: float
    y1: float
    label: str = ""
    color: str = "#333333"


@dataclass(frozen=True)
class Note:
    """Free text at (x, y) in panel units."""

    x: float
    y: float
    text: str
    size: float = 8.0
    ha: str = "center"
    color: str = "black"


@dataclass(frozen=True)
class Outline:
    """A frame drawn over boxes (no fill, no tooltip), e.g. around a group of cells, in panel units."""

    x: float
    y: float
    w: float
    h: float
    width: float = 1.2
    """Line width in points."""
    color: str = "#000000"


@dataclass(frozen=True)
class Panel:
    title: str
    width: float
    """Panel width in cell units (the number of column slots)."""
    height: float
    """Panel height in cell units (the number of rows)."""
    cell_w_in: float
    boxes: tuple[Box, ...]
    x_ticks: tuple[tuple[float, str], ...] = ()
    y_ticks: tuple[tuple[float, str], ...] = ()
    markers: tuple[tuple[float, str], ...] = ()
    """Vertical lines at x with a label, e.g. where the second access starts."""
    arrows: tuple[Arrow, ...] = ()
    notes: tuple[Note, ...] = ()
    outlines: tuple[Outline, ...] = ()
    """Frames over groups of boxes; none by default."""
    cell_h_in: float = CELL_H_IN
    y_label: str = "lane"
    """What the rows are, written beside the y ticks."""
    margin_right_in: float = 0.0
    """Extra room right of the grid, for notes written there."""


@dataclass(frozen=True)
class FigureSpec:
    title: str
    caption: str
    panels: tuple[Panel, ...]

    @property
    def boxes(self) -> tuple[Box, ...]:
        return tuple(b for p in self.panels for b in p.boxes)


def chunk_columns(columns: list[int], cell_w_in: float, group: int = 1) -> list[list[int]]:
    """Split columns into panels of at most :data:`PANEL_WIDTH_IN`, whole ``group``s together.

    >>> [len(c) for c in chunk_columns(list(range(100)), 0.5, 8)]
    [40, 40, 20]
    """
    per_panel = max(1, int(PANEL_WIDTH_IN // cell_w_in))
    if per_panel > group:
        per_panel -= per_panel % group
    return [columns[i : i + per_panel] for i in range(0, len(columns), per_panel)]


@dataclass(frozen=True)
class GalleryEntry:
    """One figure of the documentation gallery, contributed by a family."""

    name: str
    """File stem, e.g. ``16x256b.x4.pack``."""
    instruction: str
    """What the index shows in its instruction column (Markdown)."""
    ptx_figure: str
    description: str
    build: Callable[[], FigureSpec]
    """Builds the spec when the gallery is drawn (listing entries stays cheap)."""
