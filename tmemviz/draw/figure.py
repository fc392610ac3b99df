"""Draw a :class:`FigureSpec` with matplotlib (``Figure`` + Agg, no pyplot state).

This is the only module that imports matplotlib, and only the ``figure`` and
``gallery`` commands import it. Cell labels are drawn by one artist that
skips matplotlib's per-text layout (too slow for thousands of cells): labels
use a monospace font, so their widths are arithmetic. In SVG they stay
``<text>`` and every cell carries a ``<title>`` tooltip; in PNG they are
filled glyph outlines, drawn in one call. A :class:`~tmemviz.draw.spec.Field` is one image
(plus one line collection for its grid), whatever its number of cells.
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib import rc_context
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.path import Path
from matplotlib.textpath import TextPath
from matplotlib.transforms import Affine2D

from tmemviz.draw.figtext import EDGE, caption, dollars, legend, put
from tmemviz.draw.geometry import (
    DIM_TEXT,
    LABEL_PT,
    MARK,
    MARKER_PT,
    TICK_PT,
    TITLE_PT,
    place,
)
from tmemviz.draw.spec import Box, Field, FigureSpec
from tmemviz.draw.text import literal
from tmemviz.errors import TmemvizError

FORMATS = ("png", "svg")
MONO_ADVANCE = 0.6020508
"""DejaVu Sans Mono advance width in em (1233/2048)."""
DIM_RGBA = (0.47, 0.47, 0.47, 1.0)
RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "tmemviz",
    "font.family": "DejaVu Sans",
    "path.simplify": False,
    "text.usetex": False,  # text is literal (tmemviz.draw.text), whatever a matplotlibrc says
}


def _is_svg(renderer) -> bool:  # type: ignore[no-untyped-def]
    """Whether matplotlib is writing SVG (its SVG renderer, behind the mixed-mode one, keeps an XML
    writer); asked without importing the SVG backend, which a PNG never needs."""
    return hasattr(getattr(renderer, "_renderer", renderer), "writer")


class Labels(Artist):
    """Centered monospace labels ``(x, y, text, dim)`` in data units, without per-text layout."""

    def __init__(self, items: list[tuple[float, float, str, bool]], size: float) -> None:
        super().__init__()
        self.set_zorder(3)
        self._items = [(x, y, literal(text), dim) for x, y, text, dim in items]
        self._size = size

    def draw(self, renderer) -> None:  # type: ignore[no-untyped-def]
        if not self._items or self.axes is None:
            return
        points = self.axes.transData.transform(np.array([(x, y) for x, y, _, _ in self._items]))
        px = renderer.points_to_pixels(1.0)
        gc = renderer.new_gc()
        gc.set_linewidth(0)
        if _is_svg(renderer):
            prop = FontProperties(family="DejaVu Sans Mono", size=self._size)
            # Like matplotlib's Text.draw: vector renderers with a flipped y axis (SVG) take y from the top.
            height = renderer.get_canvas_width_height()[1]
            advance = MONO_ADVANCE * self._size * px
            drop = 0.36 * self._size * px  # the baseline sits ~0.36 em below the visual center
            for (x, y), (_, _, text, dim) in zip(points, self._items, strict=True):
                gc.set_foreground(DIM_TEXT if dim else "black")
                baseline = y - drop
                renderer.draw_text(
                    gc,
                    x - advance * len(text) / 2,
                    height - baseline if renderer.flipy() else baseline,
                    text,
                    prop,
                    0,
                )
        else:
            self._stamp(renderer, gc, points, px)
        gc.restore()

    def _stamp(self, renderer, gc, points: np.ndarray, px: float) -> None:  # type: ignore[no-untyped-def]
        """Raster labels: each distinct character's outline drawn once and stamped at every place it
        occurs (Agg's marker cache), each color at a time.

        Places are whole pixels, a label's characters a whole number of pixels apart (as hinted text
        is), so every copy of a glyph is the same pixels; one outline path of every character of
        tens of thousands of labels took seconds and a gigabyte.
        """
        prop = FontProperties(family="DejaVu Sans Mono", size=self._size)
        advance = max(1, round(MONO_ADVANCE * self._size * px))
        drop = 0.36 * self._size * px  # the baseline sits ~0.36 em below the visual center
        places: dict[tuple[bool, str], list[tuple[int, int]]] = {}
        for (x, y), (_, _, text, dim) in zip(points, self._items, strict=True):
            x0, base = round(x - advance * len(text) / 2), round(y - drop)
            for i, ch in enumerate(text):
                if ch != " ":
                    places.setdefault((dim, ch), []).append((x0 + i * advance, base))
        identity = Affine2D()
        for (dim, ch), where in sorted(places.items()):
            color = DIM_RGBA if dim else (0, 0, 0, 1)
            gc.set_foreground(color)
            glyph = TextPath((0, 0), ch, size=self._size * px, prop=prop)
            renderer.draw_markers(gc, glyph, identity, Path(np.array(where, dtype=float)), identity, color)


class Boxes(PolyCollection):
    """The boxes' fills and edges in a raster; an SVG draws each box with its tooltip instead (Cells)."""

    def draw(self, renderer) -> None:  # type: ignore[no-untyped-def]
        if not _is_svg(renderer):
            super().draw(renderer)


class Cells(Artist):
    """In SVG, one ``<g id="cellN">`` per box holding its ``<title>`` (a browser shows it on hover) and
    its filled, edged path, written directly: matplotlib's path and style machinery per box, twice (the
    collection, then a hover target), was most of the time of a big SVG."""

    def __init__(self, boxes: list[Box]) -> None:
        super().__init__()
        self.set_zorder(1)  # where the collection draws them in a raster: under frames and labels
        self._boxes = boxes

    def draw(self, renderer) -> None:  # type: ignore[no-untyped-def]
        if not _is_svg(renderer) or self.axes is None or not self._boxes:
            return
        vector = getattr(renderer, "_renderer", renderer)
        corners = np.array([(b.x, b.y, b.x + b.w, b.y + b.h) for b in self._boxes], dtype=float)
        low = self.axes.transData.transform(corners[:, :2])
        high = self.axes.transData.transform(corners[:, 2:])
        flip = renderer.get_canvas_width_height()[1]
        writer = vector.writer
        for i, (box, (x0, y0), (x1, y1)) in enumerate(zip(self._boxes, low, high, strict=True)):
            a, b, c, d = _pt(x0), _pt(flip - y0), _pt(x1), _pt(flip - y1)
            writer.start("g", id=f"cell{i}")
            writer.element("title", literal(box.tooltip))
            writer.element(
                "path",
                d=f"M {a} {b} L {c} {b} L {c} {d} L {a} {d} z",
                style=f"fill: {box.fill}; stroke: {EDGE}; stroke-width: 0.4; stroke-linejoin: miter",
            )
            writer.end("g")


def _pt(value: float) -> str:
    """An SVG coordinate: two decimals at most."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def draw(spec: FigureSpec) -> Figure:
    """Build the matplotlib figure of ``spec``; nothing is written.

    The whole figure is one Axes whose data units are inches (y downwards), so
    a layout with thousands of cells costs one collection and two label artists
    rather than one Axes per panel.
    """
    with rc_context(RC):
        return _draw(spec)


def _draw(spec: FigureSpec) -> Figure:
    page = place(spec)
    width_in, height_in = page.width_in, page.height_in
    fig = Figure(figsize=(width_in, height_in), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width_in)
    ax.set_ylim(height_in, 0)
    ax.set_axis_off()
    put(ax, width_in / 2, 0.3, spec.title, ha="center", fontsize=10, weight="bold")
    legend(ax, page)
    boxes: list[Box] = []
    # Labels by size: every figure's cell labels and ticks, in that order, then any a panel sizes itself.
    cells: dict[float, list[tuple[float, float, str, bool]]] = {LABEL_PT: []}
    ticks: dict[float, list[tuple[float, float, str, bool]]] = {TICK_PT: []}
    frames: list[tuple[float, float, float, float, float, str]] = []
    for where in page.panels:
        panel = where.panel
        ox, oy = where.ox, where.oy
        cw, ch = panel.cell_w_in, panel.cell_h_in
        cell_labels = cells.setdefault(where.size(LABEL_PT), [])
        tick_labels = ticks.setdefault(where.size(TICK_PT), [])
        for b in panel.boxes:
            placed = Box(ox + b.x * cw, oy + b.y * ch, b.w * cw, b.h * ch, b.fill, b.label, b.tooltip, b.dim)
            boxes.append(placed)
            cell_labels.append((placed.x + placed.w / 2, placed.y + placed.h / 2, b.label, b.dim))
        for f in panel.fields:
            cell_labels += _draw_field(ax, f, ox + f.x * cw, oy + f.y * ch, f.cell_w * cw, f.cell_h * ch)
        frames += [
            (ox + o.x * cw, oy + o.y * ch, o.w * cw, o.h * ch, o.width, o.color) for o in panel.outlines
        ]
        tick_labels += [(ox + x * cw, where.tick_y, t, False) for x, t in panel.x_ticks]
        tick_labels += [(ox - 0.16 * where.scale, oy + y * ch, t, False) for y, t in panel.y_ticks]
        title_pt = where.size(TITLE_PT)
        if panel.y_ticks:
            put(
                ax,
                0.1,
                oy + panel.height * ch / 2,
                panel.y_label,
                rotation=90,
                ha="center",
                fontsize=title_pt,
            )
        if panel.title:
            put(ax, ox, where.title_y, panel.title, ha="left", fontsize=title_pt)
        bottom = where.bottom
        for x, text in panel.markers:
            ax.plot([ox + x * cw] * 2, [oy - 0.02, bottom + 0.05], color=MARK, linewidth=2.0, zorder=4)
            put(ax, ox + x * cw, where.marker_y, text, color=MARK, fontsize=where.size(MARKER_PT), ha="left")
        for arrow in panel.arrows:
            ax.annotate(
                dollars(arrow.label),
                xy=(ox + arrow.x1 * cw, oy + arrow.y1 * ch),
                xytext=(ox + arrow.x0 * cw, oy + arrow.y0 * ch),
                arrowprops={"arrowstyle": "->", "color": arrow.color, "linewidth": 1.2},
                fontsize=7,
            )
        for note in panel.notes:
            x, y = ox + note.x * cw, oy + note.y * ch
            put(ax, x, y, note.text, fontsize=note.size, ha=note.ha, color=note.color)
    # One (N, 4, 2) array: PolyCollection closes it without a Python call per box.
    corners = np.array([(b.x, b.y, b.w, b.h) for b in boxes], dtype=float).reshape(-1, 4)
    x, y, w, h = corners.T
    polys = np.stack([np.stack(c, axis=-1) for c in ((x, y), (x + w, y), (x + w, y + h), (x, y + h))], axis=1)
    ax.add_collection(Boxes(polys, facecolors=[b.fill for b in boxes], edgecolors=EDGE, linewidths=0.4))
    if frames:  # only figures that ask for outlines get the extra collection
        rects = [[(x, y), (x + w, y), (x + w, y + h), (x, y + h)] for x, y, w, h, _, _ in frames]
        ax.add_collection(
            PolyCollection(
                rects,
                facecolors="none",
                edgecolors=[f[5] for f in frames],
                linewidths=[f[4] for f in frames],
                zorder=2,
            )
        )
    ax.set_xlim(0, width_in)  # images reset the limits
    ax.set_ylim(height_in, 0)
    ax.add_artist(Cells(boxes))
    for size, items in cells.items():
        ax.add_artist(Labels(items, size))
    for size, items in ticks.items():
        ax.add_artist(Labels(items, size))
    caption(fig, ax, spec, page)
    return fig


def _draw_field(
    ax, field: Field, x0: float, y0: float, cw: float, ch: float
) -> list[tuple[float, float, str, bool]]:  # type: ignore[no-untyped-def]
    """One image for all of ``field``'s cells at (x0, y0) inches; returns its sample labels to draw."""
    from tmemviz.draw.raster import rows_rgba

    pixels = np.frombuffer(b"".join(rows_rgba(field)), dtype=np.uint8).reshape(field.rows, field.cols, 4)
    x1, y1 = x0 + field.cols * cw, y0 + field.rows * ch
    ax.imshow(pixels, extent=(x0, x1, y1, y0), origin="upper", interpolation="none", aspect="auto", zorder=1)
    if field.grid:
        lines = [[(x0 + i * cw, y0), (x0 + i * cw, y1)] for i in range(field.cols + 1)]
        lines += [[(x0, y0 + j * ch), (x1, y0 + j * ch)] for j in range(field.rows + 1)]
        ax.add_collection(LineCollection(lines, colors="#333333", linewidths=0.4, zorder=1.5))
    return [
        (x0 + (i % field.cols + 0.5) * cw, y0 + (i // field.cols + 0.5) * ch, text, False)
        for i, text in field.labels
    ]


def render(fig: Figure, fmt: str, dpi: int = 100) -> bytes:
    """The figure as PNG or SVG bytes, deterministic: no dates, fixed SVG ids."""
    if fmt not in FORMATS:
        raise TmemvizError(f"unsupported figure format '{fmt}'; use one of: {', '.join(FORMATS)}")
    if not 10 <= dpi <= 1200:
        raise TmemvizError(f"--dpi must be between 10 and 1200, got {dpi}")
    out = io.BytesIO()
    with rc_context(RC):
        if fmt == "svg":
            fig.savefig(out, format="svg", dpi=dpi, metadata={"Date": None})
        else:
            fig.set_dpi(dpi)
            fig.canvas.draw()
            from tmemviz.draw.quantize import png_palette

            png_palette(fig.canvas.buffer_rgba(), out)  # type: ignore[attr-defined]
    return out.getvalue()
