"""The interactive page's legend and the text sizes of panels that set their own (``text_pt``): CSS and
HTML that only figures with a legend or sized text carry, so other pages stay as they were."""

from __future__ import annotations

import html

from tmemviz.draw.spec import FigureSpec
from tmemviz.draw.text import literal


def _text(value: str) -> str:
    return html.escape(literal(value), quote=False)


def _attr(value: str) -> str:
    return html.escape(literal(value), quote=True)


def sized_style(spec: FigureSpec) -> str:
    """Rules for panels that size their own text (``text_pt``) and for the legend; none for others, so
    their pages stay as they were."""
    out = ""
    for pt in sorted({p.text_pt for p in spec.panels if p.text_pt is not None}):
        name = size_class(pt)
        out += (
            f"svg.{name} .label, svg.{name} .tick, svg.{name} .axis, svg.{name} .ptitle "
            f"{{ font-size: {pt:g}px; }}\n"
        )
    if spec.legend:
        out += (
            ".legend { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1.25rem;"
            " margin: 0 0 0.5rem; padding: 0; }\n"
            ".legend li { display: flex; align-items: center; gap: 0.4rem; }\n"
        )
    return out


def size_class(pt: float) -> str:
    """The class of an ``<svg>`` whose text is ``pt`` points, e.g. ``t9`` (``t9_5`` for 9.5)."""
    return "t" + f"{pt:g}".replace(".", "_")


def legend_html(spec: FigureSpec) -> str:
    """The legend as a list: each swatch a small SVG (filled, or a frame) and its meaning as text."""
    if not spec.legend:
        return ""
    items = []
    for swatch in spec.legend:
        color = _attr(swatch.color)
        paint = (
            f'fill="none" stroke="{color}" stroke-width="3"'
            if swatch.frame
            else f'fill="{color}" stroke="#333333"'
        )
        items.append(
            f'<li><svg width="30" height="14" viewBox="0 0 30 14" aria-hidden="true">'
            f'<rect x="1.5" y="1.5" width="27" height="11" {paint}/></svg>{_text(swatch.label)}</li>'
        )
    return '<ul class="legend" aria-label="legend">' + "".join(items) + "</ul>\n"
