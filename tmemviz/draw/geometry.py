"""Where a :class:`FigureSpec`'s panels sit on the page, in inches (y downwards).

Both renderers place panels with this arithmetic: matplotlib (:mod:`tmemviz.draw.figure`) and the
interactive page (:mod:`tmemviz.draw.html`), so a cell has the same coordinates in the PNG, the SVG
and the HTML. No plotting library is needed to compute it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tmemviz.draw.spec import FigureSpec, Panel

LABEL_PT = 6.5
TICK_PT = 6.0
TITLE_IN = 0.6
HEADER_IN = 0.42
FOOTER_IN = 0.3
CAPTION_IN = 0.45
PANEL_GAP_IN = 0.25
LEFT_IN = 0.55
RIGHT_IN = 0.3
MARK = "#d62728"
"""Color of the split-offset markers."""
DIM_TEXT = "#777777"


@dataclass(frozen=True)
class Placed:
    """One panel on the page: its grid's top-left corner and the room above and below it."""

    panel: Panel
    ox: float
    oy: float
    header: float
    footer: float

    @property
    def bottom(self) -> float:
        """Where the grid ends (the footer with its markers follows)."""
        return self.oy + self.panel.height * self.panel.cell_h_in

    def at(self, x: float, y: float) -> tuple[float, float]:
        """Panel units -> page inches."""
        return self.ox + x * self.panel.cell_w_in, self.oy + y * self.panel.cell_h_in


@dataclass(frozen=True)
class Page:
    width_in: float
    height_in: float
    panels: tuple[Placed, ...]


def place(spec: FigureSpec) -> Page:
    """The page size and every panel's place: title on top, panels stacked, caption at the bottom."""
    width_in = max(
        4.0, max(LEFT_IN + p.width * p.cell_w_in + p.margin_right_in + RIGHT_IN for p in spec.panels)
    )
    headers = [HEADER_IN if (p.title or p.x_ticks) else 0.1 for p in spec.panels]
    footers = [FOOTER_IN if p.markers else 0.1 for p in spec.panels]
    body = sum(h + p.height * p.cell_h_in + f for p, h, f in zip(spec.panels, headers, footers, strict=True))
    height_in = TITLE_IN + body + PANEL_GAP_IN * (len(spec.panels) - 1) + CAPTION_IN
    placed = []
    top = TITLE_IN
    for panel, header, footer in zip(spec.panels, headers, footers, strict=True):
        one = Placed(panel, LEFT_IN, top + header, header, footer)
        placed.append(one)
        top = one.bottom + footer + PANEL_GAP_IN
    return Page(width_in, height_in, tuple(placed))
