"""Figure specs: what to draw, as plain data, testable without matplotlib.

A spec is a list of panels; each panel is a grid of boxes (in panel units:
x = column slot, y = row, top to bottom) with labels, fill colors and hover
tooltips, plus axis labels, markers, arrows and free notes. The drawing code
(:mod:`tmemviz.draw.figure`) only turns this into matplotlib artists.

Large grids stay legible by splitting their columns into numbered panels
stacked top to bottom, each at most :data:`PANEL_WIDTH_IN` inches wide with a
fixed cell size and font, so labels never shrink below a readable size.

A grid too big to label every cell (thousands of cells) is a :class:`Field`: one
rectangle of cells whose per-cell values are compact integer columns and whose
colors are palette indices. Renderers draw it as one image (never one element
per cell) and the interactive page computes a hovered cell's tooltip, the search
and the selection from the columns. :func:`detail_mode` is the policy that picks
between the labelled grid and such a schematic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tmemviz.errors import TmemvizError

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
class Field:
    """A dense grid of ``cols`` x ``rows`` cells, top-left at (x, y) in panel units, drawn as one image.

    Cell ``i = row * cols + col`` (row-major) has fill ``palette[colors[i]]`` (``-1``: no cell there,
    drawn blank, never hovered or found) and the values ``values[k][i]`` of the coordinates
    ``names[k]`` (``-1``: the cell has no such coordinate, e.g. no ``half``). Its tooltip is
    ``tooltip.format(**values)``, where a name listed in ``texts`` shows its value's text instead of
    the number (e.g. ``half`` -1/0/1 -> ``""``/``".lo"``/``".hi"``);
    ``special`` gives whole tooltips for exceptional cells (e.g. two owners). ``group`` names the
    coordinates a click selects by (the cells that agree on all of them; default ``thread`` when the
    field has one, else the cell alone; a cell lacking one of them, ``-1``, is selected alone).
    ``labels`` are the few cells written on, ``(index, text)``.

    >>> f = Field(0, 0, 2, 1, ("lane", "col"), ((0, 0), (0, 1)), (0, 1), ("#fff", "#000"), "{lane},{col}")
    >>> f.tooltip_of(1), f.size
    ('0,1', 2)
    """

    x: float
    y: float
    cols: int
    rows: int
    names: tuple[str, ...]
    values: tuple[tuple[int, ...], ...]
    colors: tuple[int, ...]
    palette: tuple[str, ...]
    tooltip: str
    texts: tuple[tuple[str, tuple[tuple[int, str], ...]], ...] = ()
    """Names whose values the tooltip shows as text, e.g. ``(("half", ((-1, ""), (0, ".lo"), (1, ".hi"))),)``;
    a value missing from the pairs shows as its number."""
    special: tuple[tuple[int, str], ...] = ()
    tips: tuple[tuple[int, str], ...] = ()
    """Tooltip templates by color index, for cells of another kind than the rest, e.g. padding:
    ``((8, "lane {lane}, col {col}: padding"),)``; the other colors take ``tooltip``."""
    group: tuple[str, ...] = ()
    labels: tuple[tuple[int, str], ...] = ()
    cell_w: float = 1.0
    """Cell width in panel units (a panel column slot)."""
    cell_h: float = 1.0
    grid: bool = False
    """Draw a thin line between cells (only where cells are big enough to see it)."""

    def __post_init__(self) -> None:
        n = self.cols * self.rows
        if len(self.colors) != n or any(len(v) != n for v in self.values):
            raise ValueError(f"a {self.cols}x{self.rows} field needs {n} colors and values per name")
        if len(self.values) != len(self.names) or len(set(self.names)) != len(self.names):
            raise ValueError(f"field names {self.names} must be distinct, one per value column")
        if not set(self.group) <= set(self.names):
            raise ValueError(f"field group {self.group} names coordinates it does not carry")

    @property
    def size(self) -> int:
        return self.cols * self.rows

    @property
    def selects_by(self) -> tuple[str, ...]:
        """What a click selects by: ``group``, else ``thread`` when carried, else nothing (the cell alone)."""
        return self.group or (("thread",) if "thread" in self.names else ())

    def record(self, index: int) -> dict[str, int]:
        """The coordinates of cell ``index`` by name."""
        return {name: column[index] for name, column in zip(self.names, self.values, strict=True)}

    def tooltip_of(self, index: int) -> str:
        """What hovering cell ``index`` says (the page's script computes the same from the columns)."""
        special = dict(self.special)
        if index in special:
            return special[index]
        texts = {name: dict(pairs) for name, pairs in self.texts}
        shown = {k: texts.get(k, {}).get(v, v) for k, v in self.record(index).items()}
        return dict(self.tips).get(self.colors[index], self.tooltip).format(**shown)


def field_of(
    records: Iterable[Mapping[str, int]],
    names: tuple[str, ...],
    *,
    row: str,
    col: str,
    color: Callable[[Mapping[str, int]], int],
    palette: tuple[str, ...],
    tooltip: str,
    **options: Any,
) -> Field:
    """A :class:`Field` from per-cell records: each placed at (``record[row]``, ``record[col]``) relative
    to the smallest of each, carrying ``names`` (a missing name is ``-1``); cells no record reaches are
    blank. ``options`` are the other :class:`Field` fields (``x``, ``y``, ``texts``, ``group`` ...).

    >>> f = field_of([{"m": 0, "n": 1, "t": 5}], ("m", "n", "t"), row="m", col="n", color=lambda r: 0,
    ...              palette=("#ffffff",), tooltip="T{t}")
    >>> (f.cols, f.rows, f.colors, f.tooltip_of(0))
    (1, 1, (0,), 'T5')
    """
    items = list(records)
    if not items:
        raise ValueError("a field needs at least one cell")
    r0, c0 = min(r[row] for r in items), min(r[col] for r in items)
    rows = max(r[row] for r in items) - r0 + 1
    cols = max(r[col] for r in items) - c0 + 1
    values = [[-1] * (rows * cols) for _ in names]
    colors = [-1] * (rows * cols)
    for record in items:
        i = (record[row] - r0) * cols + (record[col] - c0)
        if colors[i] != -1:
            raise ValueError(f"two records at {row} {record[row]}, {col} {record[col]}")
        colors[i] = color(record)
        for k, name in enumerate(names):
            value = record.get(name)
            values[k][i] = -1 if value is None else value
    place = {"x": 0.0, "y": 0.0, **options}
    x, y = place.pop("x"), place.pop("y")
    return Field(x, y, cols, rows, names, tuple(map(tuple, values)), tuple(colors), palette, tooltip, **place)


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
    fields: tuple[Field, ...] = ()
    """Dense grids drawn as images under the boxes; none by default."""
    text_pt: float | None = None
    """One size for all of the panel's text (title, ticks, axis name, box labels, markers), in points;
    None: the renderers' small defaults, sized for figures with a label in every cell."""


@dataclass(frozen=True)
class Swatch:
    """One entry of a figure's legend: a colour and what it means (``frame``: drawn as a frame, for
    what the figure outlines rather than fills)."""

    color: str
    label: str
    frame: bool = False


@dataclass(frozen=True)
class FigureSpec:
    title: str
    caption: str
    panels: tuple[Panel, ...]
    legend: tuple[Swatch, ...] = ()
    """Drawn under the title, as swatches with their meaning; none by default."""
    text_pt: float | None = None
    """The caption's and the legend's size in points; None: the renderers' default."""

    @property
    def boxes(self) -> tuple[Box, ...]:
        return tuple(b for p in self.panels for b in p.boxes)


DETAILS = ("auto", "all", "schematic")
LABEL_LIMIT = 2048
"""``auto`` draws a schematic above this many labelled cells: beyond it a labelled figure runs to
megabytes and tens of thousands of text nodes that no page shows legibly."""


def detail_mode(detail: str, cells: int) -> str:
    """``"all"`` (every cell labelled) or ``"schematic"`` for ``detail`` and a grid of ``cells`` cells.

    >>> detail_mode("auto", 2048), detail_mode("auto", 2049), detail_mode("all", 10**6)
    ('all', 'schematic', 'all')
    """
    if detail not in DETAILS:
        raise TmemvizError(f"--detail must be auto, all or schematic, got '{detail}'")
    if detail == "auto":
        return "all" if cells <= LABEL_LIMIT else "schematic"
    return detail


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
