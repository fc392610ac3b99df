"""A :class:`~tmemviz.draw.spec.Field` on the interactive page: one image and its compact columns.

The page never holds one node per cell of a field: the cells' colors are one PNG (a ``data:``
image, so nothing loads) and their coordinates are base64 typed arrays in the field's
``data-field`` attribute, from which the page's script computes a hovered cell's tooltip, the
search and the selection (drawn as two paths: a veil with holes and the frames of marked cells).
"""

from __future__ import annotations

import base64
import html
import json
from array import array

from tmemviz.draw.geometry import Placed
from tmemviz.draw.raster import png
from tmemviz.draw.spec import Field
from tmemviz.draw.text import literal

PT_PER_IN = 72.0
TYPES = (("u8", "B", 0, 255), ("i8", "b", -128, 127), ("u16", "H", 0, 65535), ("i16", "h", -32768, 32767))


def _pt(inches: float) -> str:
    text = f"{inches * PT_PER_IN:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def packed(values: tuple[int, ...]) -> tuple[str, str]:
    """The smallest typed array holding ``values``: its type name and its little-endian bytes in base64.

    >>> packed((0, 1, 255)), packed((-1, 3))
    (('u8', 'AAH/'), ('i8', '/wM='))
    """
    lo, hi = min(values, default=0), max(values, default=0)
    name, code = next(((n, c) for n, c, a, b in TYPES if a <= lo and hi <= b), ("i32", "i"))
    data = array(code, values)
    if data.itemsize > 1 and array("H", [1]).tobytes()[0] != 1:  # typed arrays read little-endian
        data.byteswap()
    return name, base64.b64encode(data.tobytes()).decode()


def field_data(field: Field, x: float, y: float, w: float, h: float) -> dict[str, object]:
    """What the page's script knows of ``field``: its place (points), size and columns."""
    columns = [packed(v) for v in field.values]
    return {
        "x": x,
        "y": y,
        "w": w,
        "h": h,
        "cols": field.cols,
        "rows": field.rows,
        "names": list(field.names),
        "types": [t for t, _ in columns],
        "values": [b for _, b in columns],
        "colors": list(packed(field.colors)) if -1 in field.colors or field.tips else [],
        "tooltip": literal(field.tooltip),
        "tips": {str(c): literal(t) for c, t in field.tips},
        "texts": {name: {str(v): literal(t) for v, t in pairs} for name, pairs in field.texts},
        "special": {str(i): literal(t) for i, t in field.special},
        "group": list(field.selects_by),
    }


def field_svg(placed: Placed, field: Field) -> tuple[str, list[str]]:
    """The field's SVG (image, grid, marks) and the ``<text>`` of its sample labels."""
    panel = placed.panel
    x0, y0 = placed.at(field.x, field.y)
    cw, ch = field.cell_w * panel.cell_w_in, field.cell_h * panel.cell_h_in
    w, h = field.cols * cw, field.rows * ch
    pos = f'x="{_pt(x0)}" y="{_pt(y0)}" width="{_pt(w)}" height="{_pt(h)}"'
    image = base64.b64encode(png(field)).decode()
    meta = {k: float(_pt(v)) for k, v in (("x", x0), ("y", y0), ("w", w), ("h", h))}
    data = json.dumps(field_data(field, **meta), separators=(",", ":"), sort_keys=True)  # type: ignore[arg-type]
    parts = [
        f'<g class="field" role="img" aria-label="{field.cols} x {field.rows} cells: hover one, or use Find,'
        f' for its coordinates" data-field="{html.escape(data, quote=True)}">',
        f'<image class="field-img" {pos} preserveAspectRatio="none" href="data:image/png;base64,{image}"/>',
    ]
    if field.grid:  # one path of rows + cols lines, not one element per cell
        d = "".join(f"M{_pt(x0 + i * cw)} {_pt(y0)}V{_pt(y0 + h)}" for i in range(1, field.cols))
        d += "".join(f"M{_pt(x0)} {_pt(y0 + j * ch)}H{_pt(x0 + w)}" for j in range(1, field.rows))
        parts.append(f'<path class="field-grid" d="{d}"/>')
    parts.append(f'<rect class="field-edge" {pos}/>')
    parts.append('<path class="veil" d=""/><path class="mark hit" d=""/><path class="mark selected" d=""/>')
    parts.append('<rect class="mark cursor" x="0" y="0" width="0" height="0"/>')
    parts.append("</g>")
    labels = [
        f'<text class="label" x="{_pt(x0 + (i % field.cols + 0.5) * cw)}"'
        f' y="{_pt(y0 + (i // field.cols + 0.5) * ch)}">{html.escape(literal(text), quote=False)}</text>'
        for i, text in field.labels
    ]
    return "".join(parts), labels


def sample_records(field: Field) -> list[dict[str, str]]:
    """Two present cells' coordinates as the boxes' ``data`` would be (for the search hint and help)."""
    present = [i for i, c in enumerate(field.colors) if c >= 0]
    if not present:
        return []
    picks = sorted({present[0], present[len(present) // 2]})
    out = []
    for i in picks:
        record = {k: str(v) for k, v in field.record(i).items() if v >= 0}
        if field.selects_by:
            record["group"] = " ".join(field.selects_by)
        out.append(record)
    return out
