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
from matplotlib.backends.backend_svg import RendererSVG
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.path import Path
from matplotlib.textpath import TextPath
from matplotlib.transforms import Affine2D

from tmemviz.draw.geometry import CAPTION_IN, DIM_TEXT, LABEL_PT, MARK, TICK_PT, place
from tmemviz.draw.spec import Box, Field, FigureSpec
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
}


class Labels(Artist):
    """Centered monospace labels ``(x, y, text, dim)`` in data units, without per-text layout."""

    def __init__(self, items: list[tuple[float, float, str, bool]], size: float) -> None:
        super().__init__()
        self.set_zorder(3)
        self._items = items
        self._size = size

    def draw(self, renderer) -> None:  # type: ignore[no-untyped-def]
        if not self._items or self.axes is None:
            return
        points = self.axes.transData.transform(np.array([(x, y) for x, y, _, _ in self._items]))
        px = renderer.points_to_pixels(1.0)
        advance = MONO_ADVANCE * self._size * px
        drop = 0.36 * self._size * px  # the baseline sits ~0.36 em below the visual center
        gc = renderer.new_gc()
        gc.set_linewidth(0)
        if isinstance(getattr(renderer, "_renderer", renderer), RendererSVG):
            prop = FontProperties(family="DejaVu Sans Mono", size=self._size)
            # Like matplotlib's Text.draw: vector renderers with a flipped y axis (SVG) take y from the top.
            height = renderer.get_canvas_width_height()[1]
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
            for dim in (False, True):
                path = self._glyph_path(points, advance, drop, px, dim)
                if path is not None:
                    renderer.draw_path(gc, path, Affine2D(), DIM_RGBA if dim else (0, 0, 0, 1))
        gc.restore()

    def _glyph_path(
        self, points: np.ndarray, advance: float, drop: float, px: float, dim: bool
    ) -> Path | None:
        prop = FontProperties(family="DejaVu Sans Mono", size=self._size)
        glyphs: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        verts: list[np.ndarray] = []
        codes: list[np.ndarray] = []
        for (x, y), (_, _, text, is_dim) in zip(points, self._items, strict=True):
            if is_dim != dim:
                continue
            x0 = x - advance * len(text) / 2
            for i, ch in enumerate(text):
                if ch == " ":
                    continue
                glyph = glyphs.get(ch)
                if glyph is None:
                    tp = TextPath((0, 0), ch, size=self._size * px, prop=prop)
                    glyph = glyphs[ch] = (tp.vertices.copy(), tp.codes.copy())
                verts.append(glyph[0] + (x0 + i * advance, y - drop))
                codes.append(glyph[1])
        if not verts:
            return None
        return Path(np.concatenate(verts), np.concatenate(codes))


class Tooltips(Artist):
    """In SVG, one ``<g>`` per cell holding a ``<title>``: a browser shows it on hover."""

    def __init__(self, boxes: list[Box]) -> None:
        super().__init__()
        self.set_zorder(2.5)
        self._boxes = boxes

    def draw(self, renderer) -> None:  # type: ignore[no-untyped-def]
        vector = getattr(renderer, "_renderer", renderer)
        if not isinstance(vector, RendererSVG) or self.axes is None:
            return
        gc = renderer.new_gc()
        gc.set_linewidth(0)
        transform = self.axes.transData
        for i, box in enumerate(self._boxes):
            renderer.open_group("cell", gid=f"cell{i}")
            vector.writer.element("title", box.tooltip)
            x0, y0, x1, y1 = box.x, box.y, box.x + box.w, box.y + box.h
            rect = Path([(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)], closed=True)
            renderer.draw_path(gc, rect, transform, (1, 1, 1, 0))
            renderer.close_group("cell")
        gc.restore()


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
    ax.text(width_in / 2, 0.3, spec.title, ha="center", va="center", fontsize=10, weight="bold")
    boxes: list[Box] = []
    cell_labels: list[tuple[float, float, str, bool]] = []
    tick_labels: list[tuple[float, float, str, bool]] = []
    frames: list[tuple[float, float, float, float, float, str]] = []
    for where in page.panels:
        panel = where.panel
        ox, oy = where.ox, where.oy
        cw, ch = panel.cell_w_in, panel.cell_h_in
        for b in panel.boxes:
            placed = Box(ox + b.x * cw, oy + b.y * ch, b.w * cw, b.h * ch, b.fill, b.label, b.tooltip, b.dim)
            boxes.append(placed)
            cell_labels.append((placed.x + placed.w / 2, placed.y + placed.h / 2, b.label, b.dim))
        for f in panel.fields:
            cell_labels += _draw_field(ax, f, ox + f.x * cw, oy + f.y * ch, f.cell_w * cw, f.cell_h * ch)
        frames += [
            (ox + o.x * cw, oy + o.y * ch, o.w * cw, o.h * ch, o.width, o.color) for o in panel.outlines
        ]
        tick_labels += [(ox + x * cw, oy - 0.09, t, False) for x, t in panel.x_ticks]
        tick_labels += [(ox - 0.16, oy + y * ch, t, False) for y, t in panel.y_ticks]
        if panel.y_ticks:
            ax.text(
                0.1,
                oy + panel.height * ch / 2,
                panel.y_label,
                rotation=90,
                ha="center",
                va="center",
                fontsize=7,
            )
        if panel.title:
            ax.text(ox, oy - 0.27, panel.title, ha="left", va="center", fontsize=7)
        bottom = where.bottom
        for x, text in panel.markers:
            ax.plot([ox + x * cw] * 2, [oy - 0.02, bottom + 0.05], color=MARK, linewidth=2.0, zorder=4)
            ax.text(ox + x * cw, bottom + 0.15, text, color=MARK, fontsize=6.5, ha="left", va="center")
        for arrow in panel.arrows:
            ax.annotate(
                arrow.label,
                xy=(ox + arrow.x1 * cw, oy + arrow.y1 * ch),
                xytext=(ox + arrow.x0 * cw, oy + arrow.y0 * ch),
                arrowprops={"arrowstyle": "->", "color": arrow.color, "linewidth": 1.2},
                fontsize=7,
            )
        for note in panel.notes:
            ax.text(
                ox + note.x * cw,
                oy + note.y * ch,
                note.text,
                fontsize=note.size,
                ha=note.ha,
                va="center",
                color=note.color,
            )
    polys = [[(b.x, b.y), (b.x + b.w, b.y), (b.x + b.w, b.y + b.h), (b.x, b.y + b.h)] for b in boxes]
    ax.add_collection(
        PolyCollection(polys, facecolors=[b.fill for b in boxes], edgecolors="#333333", linewidths=0.4)
    )
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
    ax.add_artist(Tooltips(boxes))
    ax.add_artist(Labels(cell_labels, LABEL_PT))
    ax.add_artist(Labels(tick_labels, TICK_PT))
    ax.text(0.1, height_in - CAPTION_IN / 2, spec.caption, ha="left", va="center", fontsize=7, wrap=True)
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
            # zlib level 3: a third faster than the default on tall layouts, ~5% larger.
            fig.savefig(
                out, format="png", dpi=dpi, metadata={"Software": None}, pil_kwargs={"compress_level": 3}
            )
    return out.getvalue()
