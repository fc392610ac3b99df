"""A matplotlib figure's text beyond its cells: literal text, the caption wrapped to the page, the legend.

Part of :mod:`tmemviz.draw.figure` (imported only by it, so only with matplotlib).
"""

from __future__ import annotations

from functools import cache

from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties, findfont
from matplotlib.ft2font import FT2Font, LoadFlags

from tmemviz.draw.geometry import CAPTION_IN, SWATCH_IN, Page
from tmemviz.draw.spec import FigureSpec
from tmemviz.draw.text import literal

CAPTION_PT = 7.0
EDGE = "#333333"


@cache
def _advance(ch: str, size: float) -> float:
    """The advance width of ``ch`` in DejaVu Sans at ``size`` points, in points (from the font file)."""
    font = _sans()
    font.set_size(size, 72)
    return font.load_char(ord(ch), flags=LoadFlags.NO_HINTING).linearHoriAdvance / 65536


@cache
def _sans() -> FT2Font:
    return FT2Font(findfont(FontProperties(family="DejaVu Sans")))


def wrap(text: str, width_pt: float, size: float) -> list[str]:
    """``text`` broken at spaces into lines at most ``width_pt`` wide in DejaVu Sans at ``size`` points.

    What matplotlib's ``wrap=True`` does, measured with the font's advance widths once per character
    rather than laying out every candidate line (seconds for a long caption); a word longer than a
    line stays whole.

    >>> wrap("one two three", 40, 7)
    ['one two', 'three']
    """
    lines: list[str] = []
    line, used = "", 0.0
    space = _advance(" ", size)
    for word in text.split(" "):
        width = sum(_advance(ch, size) for ch in word)
        if line and used + space + width > width_pt:
            lines.append(line)
            line, used = word, width
        else:
            line, used = (f"{line} {word}", used + space + width) if line else (word, width)
    return [*lines, line]


def put(ax, x: float, y: float, text: str, **style: object) -> None:  # type: ignore[no-untyped-def]
    """Literal text: never mathtext or TeX, never a character that would make the SVG invalid."""
    ax.text(x, y, dollars(text), va="center", **style)


def dollars(text: str) -> str:
    r"""``text`` for a matplotlib ``Text``: every ``$`` escaped, so none starts mathtext.

    ``\$`` is matplotlib's literal dollar, drawn as ``$``. (``parse_math=False`` would say the same,
    but a wrapped text measures its words as mathtext regardless, matplotlib 3.11.)

    >>> dollars("cost $5 and $6")
    'cost \\$5 and \\$6'
    """
    return literal(text).replace("$", r"\$")


def legend(ax, page: Page) -> None:  # type: ignore[no-untyped-def]
    """Each legend entry: a swatch (filled, or a frame) and its meaning to its right."""
    if not page.legend:
        return
    pt = page.legend_pt
    h = pt * 1.1 / 72
    fills = [k for k in page.legend if not k.swatch.frame]
    frames = [k for k in page.legend if k.swatch.frame]
    rects = [[(k.x, k.y), (k.x + SWATCH_IN, k.y), (k.x + SWATCH_IN, k.y + h), (k.x, k.y + h)] for k in fills]
    ax.add_collection(
        PolyCollection(rects, facecolors=[k.swatch.color for k in fills], edgecolors=EDGE, linewidths=0.5)
    )
    if frames:
        rects = [
            [(k.x, k.y), (k.x + SWATCH_IN, k.y), (k.x + SWATCH_IN, k.y + h), (k.x, k.y + h)] for k in frames
        ]
        ax.add_collection(
            PolyCollection(
                rects,
                facecolors="none",
                edgecolors=[k.swatch.color for k in frames],
                linewidths=2.0,
                zorder=2,
            )
        )
    for k in page.legend:
        put(ax, k.x + SWATCH_IN + 0.08, k.y + h / 2, k.swatch.label, ha="left", fontsize=pt)


def caption(fig: Figure, ax, spec: FigureSpec, page: Page) -> None:  # type: ignore[no-untyped-def]
    """The caption under the panels, wrapped to the page's width (checked once drawn: hinted glyphs at a
    small size may run wider than the font's advances say); the page grows when it needs more lines.
    Each line is made literal on its own: :func:`literal` would make the line breaks spaces."""
    pt = spec.text_pt or CAPTION_PT
    room = (page.width_in - 0.2) * 72
    text = literal(spec.caption)
    lines = wrap(text, room, pt)
    shown = None
    for _ in range(3):
        need = max(CAPTION_IN, len(lines) * pt * 1.25 / 72 + 0.15)
        height_in = page.height_in - CAPTION_IN + need
        if height_in != fig.get_figheight():
            fig.set_size_inches(page.width_in, height_in)
            ax.set_ylim(height_in, 0)
        shown = ax.text(
            0.1, height_in - need / 2, "\n".join(map(dollars, lines)), va="center", ha="left", fontsize=pt
        )
        right = shown.get_window_extent(fig.canvas.get_renderer()).x1 / fig.dpi  # type: ignore[attr-defined]
        if right <= page.width_in - 0.05:
            return
        room *= (page.width_in - 0.2) / (right - 0.1) * 0.98
        lines = wrap(text, room, pt)
        if len(lines) > 1:  # one word wider than the page stays (and the figure test says so)
            shown.remove()
