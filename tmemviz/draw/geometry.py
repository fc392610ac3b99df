"""Where a :class:`FigureSpec`'s panels sit on the page, in inches (y downwards).

Both renderers place panels with this arithmetic: matplotlib (:mod:`tmemviz.draw.figure`) and the
interactive page (:mod:`tmemviz.draw.html`), so a cell has the same coordinates in the PNG, the SVG
and the HTML. No plotting library is needed to compute it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tmemviz.draw.spec import FigureSpec, Panel, Swatch

LABEL_PT = 6.5
TICK_PT = 6.0
TITLE_IN = 0.6
HEADER_IN = 0.42
FOOTER_IN = 0.3
CAPTION_IN = 0.45
PANEL_GAP_IN = 0.25
LEFT_IN = 0.55
RIGHT_IN = 0.3
TITLE_PT = 7.0
"""A panel's title, and the name of its rows."""
MARKER_PT = 6.5
SWATCH_IN = 0.3
"""A legend swatch's width; its height is the legend's text height."""
EM_IN = 0.62 / 72
"""At most the mean advance of DejaVu Sans text, per point of size: what a legend entry's text is given
(the legend is laid out without a font; the figure tests measure what is drawn)."""
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
    def scale(self) -> float:
        """The panel's text size over the default panel title's: 1 unless the panel sets ``text_pt``."""
        return 1.0 if self.panel.text_pt is None else self.panel.text_pt / TITLE_PT

    def size(self, default: float) -> float:
        """The size of a text whose default size is ``default`` points (``text_pt`` when the panel sets
        it)."""
        return default if self.panel.text_pt is None else self.panel.text_pt

    @property
    def title_y(self) -> float:
        return self.oy - 0.27 * self.scale

    @property
    def tick_y(self) -> float:
        """Where the x ticks' centres sit."""
        return self.oy - (0.09 if self.panel.text_pt is None else 0.09 * self.panel.text_pt / TICK_PT)

    @property
    def marker_y(self) -> float:
        """Where a marker's text sits, under the grid."""
        return self.bottom + 0.15 * self.scale

    @property
    def bottom(self) -> float:
        """Where the grid ends (the footer with its markers follows)."""
        return self.oy + self.panel.height * self.panel.cell_h_in

    def at(self, x: float, y: float) -> tuple[float, float]:
        """Panel units -> page inches."""
        return self.ox + x * self.panel.cell_w_in, self.oy + y * self.panel.cell_h_in


@dataclass(frozen=True)
class Key:
    """One legend entry on the page: its swatch's top-left corner, in inches."""

    swatch: Swatch
    x: float
    y: float


@dataclass(frozen=True)
class Page:
    width_in: float
    height_in: float
    panels: tuple[Placed, ...]
    legend: tuple[Key, ...] = ()
    legend_pt: float = LABEL_PT
    """The legend's text size."""


def legend_keys(spec: FigureSpec, width_in: float) -> tuple[tuple[Key, ...], float]:
    """Each legend entry's place under the title, in rows filled left to right, and the rows' height.

    >>> from tmemviz.draw.spec import FigureSpec, Swatch
    >>> keys, height = legend_keys(FigureSpec("t", "", (), (Swatch("#fff", "read"),) * 2, 9.0), 10.0)
    >>> [(round(k.x, 2), round(k.y, 2)) for k in keys], round(height, 2)
    ([(0.55, 0.6), (1.49, 0.6)], 0.34)
    """
    if not spec.legend:
        return (), 0.0
    pt = spec.text_pt or LABEL_PT
    row = pt * 1.9 / 72
    keys, x, y = [], LEFT_IN, TITLE_IN
    for swatch in spec.legend:
        width = SWATCH_IN + 0.08 + len(swatch.label) * pt * EM_IN + 0.25
        if x > LEFT_IN and x + width > width_in - RIGHT_IN:
            x, y = LEFT_IN, y + row
        keys.append(Key(swatch, x, y))
        x += width
    return tuple(keys), y + row - TITLE_IN + 0.1


def place(spec: FigureSpec) -> Page:
    """The page size and every panel's place: title on top, panels stacked, caption at the bottom."""
    width_in = max(
        4.0, max(LEFT_IN + p.width * p.cell_w_in + p.margin_right_in + RIGHT_IN for p in spec.panels)
    )
    scales = [1.0 if p.text_pt is None else p.text_pt / TITLE_PT for p in spec.panels]
    headers = [
        HEADER_IN * k if (p.title or p.x_ticks) else 0.1 for p, k in zip(spec.panels, scales, strict=True)
    ]
    footers = [FOOTER_IN * k if p.markers else 0.1 for p, k in zip(spec.panels, scales, strict=True)]
    keys, legend_in = legend_keys(spec, width_in)
    body = sum(h + p.height * p.cell_h_in + f for p, h, f in zip(spec.panels, headers, footers, strict=True))
    height_in = TITLE_IN + legend_in + body + PANEL_GAP_IN * (len(spec.panels) - 1) + CAPTION_IN
    placed = []
    top = TITLE_IN + legend_in
    for panel, header, footer in zip(spec.panels, headers, footers, strict=True):
        one = Placed(panel, LEFT_IN, top + header, header, footer)
        placed.append(one)
        top = one.bottom + footer + PANEL_GAP_IN
    return Page(width_in, height_in, tuple(placed), keys, spec.text_pt or LABEL_PT)
