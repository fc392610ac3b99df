"""A :class:`FigureSpec` as one self-contained, interactive HTML page (inline SVG, CSS and JS).

The page is another rendering of the same spec the PNG and SVG come from, not a second drawing:
panels are placed by :func:`tmemviz.draw.geometry.place`, so every box sits where matplotlib puts
it (SVG user units are points, 72 per inch, of the matplotlib figure). Each panel is its own
``<svg>`` (its ``viewBox`` a horizontal slice of the figure), so wide panels scroll on their own and
print one per page width; the title and caption are HTML text, so they wrap at any zoom.

Cells: every box with ``Box.data`` is a ``.cell`` element carrying each entry as ``data-NAME``.
Names ending in ``s`` (``rows``, ``lanes``) hold an inclusive range ``a-b``; the page's search
matches a number inside it. Clicking a cell selects its group: the cells that agree on every entry
its ``group`` entry names (space-separated: ``("group", "chunk")``, ``("group", "warp thread")``),
or on ``thread`` when it has no ``group``; a cell lacking them is selected alone. Hovering shows
the box's tooltip in ``#info``. The search takes ``L,C`` (lane or, without lanes, row; and col),
``T6``, ``T6 r3`` (``.lo``/``.hi``) and ``NAME N`` pairs (``byte 432``, ``row 40 word 2``).

A :class:`~tmemviz.draw.spec.Field` (a grid too big for one element per cell) is one ``<image>``
and compact columns (:mod:`tmemviz.draw.htmlfield`): hover, Find, selection and arrow keys work on
its cells as on boxes, computed by the script; a selection spans boxes and fields alike.

No request leaves the page: no external font, script or image, and a Content-Security-Policy with
``default-src 'none'`` that allows only this page's own style and script (by hash), and ``data:``
images when a field needs one, enforces it.
Output is deterministic (no dates, no random ids), so the gallery can be checked byte for byte.
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from tmemviz.draw.geometry import DIM_TEXT, LABEL_PT, MARK, MARKER_PT, TICK_PT, Page, Placed, place
from tmemviz.draw.htmlfield import field_svg, sample_records
from tmemviz.draw.htmlkey import legend_html, size_class, sized_style
from tmemviz.draw.spec import Arrow, Box, Field, FigureSpec
from tmemviz.draw.text import literal

PT_PER_IN = 72.0
PX_PER_IN = 120.0
"""Screen size: 1.25 times the figure's physical size, so 6.5 pt labels are ~11 CSS px at 100% zoom."""
EDGE = "#333333"
SLICE_PAD_IN = 0.08
NAME = re.compile(r"^[a-z][a-z0-9-]*$")
PASSIVE = ("group",)
"""Box.data entries that steer the page rather than name a coordinate; the search hint skips them."""


@dataclass(frozen=True)
class Link:
    """A navigation link above the title, e.g. back to the gallery index."""

    text: str
    href: str
    rel: str = ""


def page(spec: FigureSpec, *, links: tuple[Link, ...] = ()) -> bytes:
    """The whole interactive page of ``spec`` as UTF-8 bytes; ``links`` go above the title."""
    geometry = place(spec)
    svgs = "\n".join(_panel_svg(geometry, i) for i in range(len(geometry.panels)))
    wide = geometry.width_in > 8.0
    style = _asset("page.css") + _matched_style() + ("@page { size: landscape; }\n" if wide else "")
    style += sized_style(spec)
    fields = tuple(f for p in spec.panels for f in p.fields)
    if fields:  # only pages with a field carry its rules: other pages stay as they were
        style += _asset("field.css")
    hint = search_hint(spec.boxes, fields)
    find = (
        '<label for="find">Find</label>\n'
        f'<input id="find" type="search" autocomplete="off" spellcheck="false" placeholder="{_attr(hint)}"'
        ' aria-describedby="how">\n'
        if hint
        else ""  # a figure without coordinates (e.g. pack) has nothing to find
    )
    body = (
        f"{_nav(links)}<header>\n<h1>{_text(spec.title)}</h1>\n{legend_html(spec)}"
        f'<div class="tools" role="search">\n{find}<output id="count" aria-live="polite"></output>\n</div>\n'
        '<p id="info" aria-live="polite">Hover or click a cell</p>\n</header>\n'
        '<main id="figure" tabindex="0" aria-label="figure: arrow keys move the selection, Escape clears it"'
        ' aria-describedby="how">\n'
        f"{svgs}\n</main>\n"
        f'<p class="caption">{_text(spec.caption)}</p>\n'
        f'<p id="how" class="how">{_text(how_text(spec.boxes, fields))}</p>\n'
    )
    return _document(spec.title, style, _asset("page.js"), body, images=bool(fields))


@dataclass(frozen=True)
class IndexRow:
    """One line of an index page: a linked name, then columns of text (`code` spans become code)."""

    name: str
    href: str
    columns: tuple[str, ...]
    also: tuple[Link, ...] = ()
    """Other files of the same figure, linked after the name."""


def index_page(title: str, intro: str, headers: tuple[str, ...], rows: tuple[IndexRow, ...]) -> bytes:
    """A page linking other pages, e.g. the gallery's ``index.html``; no script."""
    lines = []
    for row in rows:
        also = "".join(f' <a class="also" href="{_attr(a.href)}">{_text(a.text)}</a>' for a in row.also)
        cells = "".join(f"<td>{_inline_code(c)}</td>" for c in row.columns)
        lines.append(
            f'<tr><th scope="row"><a href="{_attr(row.href)}">{_text(row.name)}</a>{also}</th>{cells}</tr>'
        )
    head = "".join(f'<th scope="col">{_text(h)}</th>' for h in headers)
    body = (
        f"<header>\n<h1>{_text(title)}</h1>\n</header>\n<main>\n<p>{_inline_code(intro)}</p>\n"
        f'<div class="table"><table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n'
        + "\n".join(lines)
        + "\n</tbody>\n</table></div>\n</main>\n"
    )
    return _document(title, _asset("page.css"), None, body)


def _document(title: str, style: str, script: str | None, body: str, images: bool = False) -> bytes:
    """The HTML around ``body``: UTF-8, both color schemes, and a policy that lets nothing load."""
    tail = f"<script>{script}</script>\n" if script is not None else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_policy(style, script, images)}">\n'
        f"<title>{_text(title)}</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n{body}{tail}</body>\n</html>\n"
    ).encode()


def _nav(links: tuple[Link, ...]) -> str:
    if not links:
        return ""
    items = " ".join(
        f'<a href="{_attr(link.href)}"'
        + (f' rel="{_attr(link.rel)}"' if link.rel else "")
        + f">{_text(link.text)}</a>"
        for link in links
    )
    return f'<nav aria-label="pages">{items}</nav>\n'


def _inline_code(text: str) -> str:
    """Escaped text whose `backtick spans` become ``<code>`` (the Markdown the gallery index uses)."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick stays a backtick
        return _text(text)
    return "".join(f"<code>{_text(p)}</code>" if i % 2 else _text(p) for i, p in enumerate(parts))


def _records(boxes: tuple[Box, ...], fields: tuple[Field, ...]) -> list[dict[str, str]]:
    """The coordinates cells carry: every box's, and two sample cells of each field."""
    return [dict(b.data) for b in boxes if b.data] + [r for f in fields for r in sample_records(f)]


def search_hint(boxes: tuple[Box, ...], fields: tuple[Field, ...] = ()) -> str:
    """What the search box suggests, from the coordinates the cells carry ("" when none do)."""
    cells = _records(boxes, fields)
    names: list[str] = []
    for cell in cells:
        names += [n for n in cell if n not in names]
    hints = []
    if "col" in names and ("lane" in names or "lanes" in names):
        hints.append("lane,col")
    elif "col" in names and "row" in names:
        hints.append("row,col")
    if "thread" in names:
        middle = next(c for c in cells[len(cells) // 2 :] + cells if "thread" in c)
        hints += [f"T{middle['thread']}", f"T{middle['thread']} r{middle.get('reg', '0')}"]
    skip = {"lane", "lanes", "row", "col", "thread", "reg", "half", *PASSIVE}
    for name in [n for n in names if n not in skip][:2]:
        value = re.split(r"[-:]", next(c[name] for c in cells if name in c))[0]
        hints.append(f"{name.removesuffix('s')} {value}")
    return " · ".join(hints)


def how_text(boxes: tuple[Box, ...], fields: tuple[Field, ...] = ()) -> str:
    """The page's one-line manual, naming what a click selects and what Find takes in this figure."""
    cells = _records(boxes, fields)
    if not cells:
        return "Hover a box: what it stands for appears above."
    groups: list[str] = []
    for cell in cells:
        name = cell.get("group", "thread" if "thread" in cell else "").replace(" ", " and ")
        if name and name not in groups:
            groups.append(name)
    shared = f"the cells that share its {' or '.join(groups)} are" if groups else "it is"
    return (
        f"Hover a cell: its coordinates appear above. Click a cell: {shared} selected; arrow keys move "
        f"the selection, Escape clears it. Find takes {search_hint(boxes, fields).replace(' · ', ', ')} "
        "(press Enter) and marks every match."
    )


@cache
def _asset(name: str) -> str:
    """The page's static CSS or JS, shipped as package data beside this module."""
    return resources.files("tmemviz.draw").joinpath("page", name).read_text(encoding="utf-8")


def _matched_style() -> str:
    """The label sizes and colors of the PNG/SVG (SVG user units are points), from the same constants."""
    return (
        f"svg .label {{ font-size: {LABEL_PT:g}px; }}\nsvg .tick {{ font-size: {TICK_PT:g}px; }}\n"
        f"svg .label.dim {{ fill: {DIM_TEXT}; }}\nsvg .box {{ stroke: {EDGE}; stroke-width: 0.4; }}\n"
    )


def _policy(style: str, script: str | None, images: bool = False) -> str:
    """Nothing may load; only this exact style and script may run (and, for fields, ``data:`` images,
    which are part of the page itself)."""

    def digest(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    scripts = digest(script) if script is not None else "'none'"
    img = "; img-src data:" if images else ""
    return f"default-src 'none'; style-src {digest(style)}; script-src {scripts}{img}"


def _text(value: str) -> str:
    return html.escape(literal(value), quote=False)


def _attr(value: str) -> str:
    return html.escape(literal(value), quote=True)


def _n(value: float) -> str:
    """A coordinate in points, two decimals at most: small files, stable output."""
    text = f"{value * PT_PER_IN:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _data_attrs(box: Box) -> str:
    names = [name for name, _ in box.data]
    if len(set(names)) != len(names):
        raise ValueError(f"box '{box.tooltip}' names a coordinate twice: {names}")
    out = []
    for name, value in box.data:
        if not NAME.match(name):
            raise ValueError(f"box data name {name!r} cannot be an HTML data attribute")
        out.append(f' data-{name}="{_attr(value)}"')
    group = dict(box.data).get("group")
    if group is not None and not set(group.split()) <= set(names):
        raise ValueError(f"box '{box.tooltip}' groups by {group!r}, which it does not carry")
    return "".join(out)


def _slice(geometry: Page, index: int) -> tuple[float, float]:
    """The band of the figure (in inches, top to bottom) that panel ``index``'s ``<svg>`` shows."""
    placed = geometry.panels[index]
    panel = placed.panel
    tops = [placed.oy + b.y * panel.cell_h_in for b in panel.boxes]
    tops += [placed.oy + f.y * panel.cell_h_in for f in panel.fields]
    tops += [placed.oy + n.y * panel.cell_h_in - n.size / PT_PER_IN for n in panel.notes]
    tops += [placed.oy + min(a.y0, a.y1) * panel.cell_h_in for a in panel.arrows]
    if panel.title:
        tops.append(placed.title_y - 0.1 * placed.scale)
    if panel.x_ticks:
        tops.append(placed.tick_y - 0.08 * placed.scale)
    bottoms = [placed.bottom + placed.footer]
    bottoms += [placed.oy + (b.y + b.h) * panel.cell_h_in for b in panel.boxes]
    bottoms += [placed.oy + (f.y + f.rows * f.cell_h) * panel.cell_h_in for f in panel.fields]
    bottoms += [placed.oy + n.y * panel.cell_h_in + n.size / PT_PER_IN for n in panel.notes]
    previous = 0.0 if index == 0 else _slice(geometry, index - 1)[1]
    return max(previous, min(tops, default=placed.oy) - SLICE_PAD_IN), max(bottoms) + SLICE_PAD_IN


def _panel_svg(geometry: Page, index: int) -> str:
    placed = geometry.panels[index]
    panel = placed.panel
    top, bottom = _slice(geometry, index)
    width = geometry.width_in
    parts: list[str] = []
    cw, ch = panel.cell_w_in, panel.cell_h_in
    labels: list[str] = []
    for f in panel.fields:
        svg, field_labels = field_svg(placed, f)
        parts.append(svg)
        labels += field_labels
    for b in panel.boxes:
        x, y = placed.at(b.x, b.y)
        cls = "box cell" if b.data else "box"
        title = f"<title>{_text(b.tooltip)}</title>" if b.tooltip else ""
        parts.append(
            f'<rect class="{cls}" x="{_n(x)}" y="{_n(y)}" width="{_n(b.w * cw)}" height="{_n(b.h * ch)}"'
            f' fill="{_attr(b.fill)}"{_data_attrs(b)}>{title}</rect>'
        )
        if b.label:
            cx, cy = x + b.w * cw / 2, y + b.h * ch / 2
            dim = " dim" if b.dim else ""
            labels.append(f'<text class="label{dim}" x="{_n(cx)}" y="{_n(cy)}">{_text(b.label)}</text>')
    for o in panel.outlines:
        x, y = placed.at(o.x, o.y)
        parts.append(
            f'<rect class="outline" x="{_n(x)}" y="{_n(y)}" width="{_n(o.w * cw)}" height="{_n(o.h * ch)}"'
            f' stroke="{_attr(o.color)}" stroke-width="{o.width:g}"/>'
        )
    parts += labels
    for x, text in panel.x_ticks:
        px, py = placed.at(x, 0)
        parts.append(f'<text class="tick" x="{_n(px)}" y="{_n(placed.tick_y)}">{_text(text)}</text>')
    for y, text in panel.y_ticks:
        px, py = placed.at(0, y)
        parts.append(
            f'<text class="tick" x="{_n(px - 0.16 * placed.scale)}" y="{_n(py)}">{_text(text)}</text>'
        )
    if panel.y_ticks:
        mx, my = 0.1, placed.oy + panel.height * ch / 2
        parts.append(
            f'<text class="axis" x="{_n(mx)}" y="{_n(my)}" transform="rotate(-90 {_n(mx)} {_n(my)})">'
            f"{_text(panel.y_label)}</text>"
        )
    if panel.title:
        parts.append(
            f'<text class="ptitle" x="{_n(placed.ox)}" y="{_n(placed.title_y)}">{_text(panel.title)}</text>'
        )
    for arrow in panel.arrows:
        parts.append(_arrow(placed, arrow))
    for note in panel.notes:
        nx, ny = placed.at(note.x, note.y)
        anchor = {"left": "start", "right": "end"}.get(note.ha, "middle")
        color = "" if note.color in ("black", "#000000") else f' fill="{_attr(note.color)}"'
        parts.append(
            f'<text class="note" x="{_n(nx)}" y="{_n(ny)}" font-size="{note.size:g}" text-anchor="{anchor}"'
            f"{color}>{_text(note.text)}</text>"
        )
    for x, text in panel.markers:
        px, _ = placed.at(x, 0)
        parts.append(
            f'<line class="marker" x1="{_n(px)}" y1="{_n(placed.oy - 0.02)}" x2="{_n(px)}"'
            f' y2="{_n(placed.bottom + 0.05)}" stroke="{MARK}"/>'
        )
        parts.append(
            f'<text class="note" x="{_n(px)}" y="{_n(placed.marker_y)}"'
            f' font-size="{placed.size(MARKER_PT):g}"'
            f' text-anchor="start" fill="{MARK}">{_text(text)}</text>'
        )
    label = panel.title or f"panel {index + 1}"
    sized = "" if panel.text_pt is None else f' class="{size_class(panel.text_pt)}"'
    return (
        f'<div class="panel"><svg xmlns="http://www.w3.org/2000/svg"{sized} role="group"'
        f' aria-label="{_attr(label)}"'
        f' width="{width * PX_PER_IN:.0f}" height="{(bottom - top) * PX_PER_IN:.0f}"'
        f' viewBox="0 {_n(top)} {_n(width)} {_n(bottom - top)}">\n' + "\n".join(parts) + "\n</svg></div>"
    )


def _arrow(placed: Placed, arrow: Arrow) -> str:
    """A line with an open head, as matplotlib's ``->`` arrow of a 7 pt annotation (shrunk 2 pt each end)."""
    x0, y0 = placed.at(arrow.x0, arrow.y0)
    x1, y1 = placed.at(arrow.x1, arrow.y1)
    length = math.hypot(x1 - x0, y1 - y0)
    parts = []
    if length > 4 * 2 / PT_PER_IN:
        ux, uy = (x1 - x0) / length, (y1 - y0) / length
        shrink = 2 / PT_PER_IN
        ax, ay, bx, by = x0 + ux * shrink, y0 + uy * shrink, x1 - ux * shrink, y1 - uy * shrink
        back, half = 0.4 * 7 / PT_PER_IN, 0.2 * 7 / PT_PER_IN
        hx, hy = bx - ux * back, by - uy * back
        left = f"{_n(hx - uy * half)} {_n(hy + ux * half)}"
        right = f"{_n(hx + uy * half)} {_n(hy - ux * half)}"
        d = f"M{_n(ax)} {_n(ay)}L{_n(bx)} {_n(by)}M{left}L{_n(bx)} {_n(by)}L{right}"
        parts.append(f'<path class="arrow" d="{d}" stroke="{_attr(arrow.color)}"/>')
    if arrow.label:
        text = _text(arrow.label)
        parts.append(f'<text class="note" x="{_n(x0)}" y="{_n(y0)}" font-size="7">{text}</text>')
    return "".join(parts)
