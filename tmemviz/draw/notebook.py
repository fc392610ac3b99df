"""What a notebook shows of a result: one MIME bundle with HTML, a small PNG and one line of text.

- ``text/html``: the tables a result asks for (``Document.notebook``: explain's instructions, check's
  findings), each collapsible (``<details>``), then the interactive figure: the same offline page as
  ``-o FILE.html``, in a sandboxed frame. The page travels gzip-compressed (a layout's page is ~150 KB,
  ~20 KB compressed) and a few lines of script unpack it into the frame, so a saved notebook stays
  small; where scripts do not run (an untrusted notebook) a line says how to see it.
- ``image/png``: the schematic drawn at a low resolution, for viewers that show no HTML (GitHub's
  notebook view, nbviewer without scripts, a PDF export).
- ``text/plain``: the result's one-line ``repr``.

Family-agnostic: the tables are the result's own terminal views, drawn as HTML tables.
"""

from __future__ import annotations

import base64
import gzip
import html
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tmemviz.draw.table import Block, Cell

Document = Any
"""A :class:`tmemviz.draw.document.Document` (which imports this module: named here, not imported)."""

PNG_DPI = 72
"""The PNG's resolution: the schematic stays a few tens of KB (the full figure is ``save("x.png")``)."""
MAX_ROWS = 200
"""Rows shown per table; a longer table says how many it leaves out (``to_text()`` has them all)."""
FRAME_MAX_PX = 900
STYLE = (
    "<style>.tmemviz-nb table{border-collapse:collapse;font-size:90%}"
    ".tmemviz-nb th,.tmemviz-nb td{text-align:left;vertical-align:top;padding:1px 8px;"
    "white-space:pre-wrap;border-bottom:1px solid rgba(128,128,128,.25)}"
    ".tmemviz-nb summary{cursor:pointer;font-weight:600}.tmemviz-nb .note{opacity:.75}</style>"
)
UNPACK = (
    "(function(){{var f=document.getElementById('{id}');if(!f||!window.DecompressionStream)return;"
    "var b=Uint8Array.from(atob('{data}'),function(c){{return c.charCodeAt(0)}});"
    "new Response(new Blob([b]).stream().pipeThrough(new DecompressionStream('gzip'))).text()"
    ".then(function(t){{f.srcdoc=t;f.style.display='';var s=document.getElementById('{id}-off');"
    "if(s)s.remove()}})}})();"
)


def bundle(doc: Document, include: Any = None, exclude: Any = None) -> dict[str, Any]:
    """The MIME bundle of ``doc`` (only the types ``include`` allows and ``exclude`` does not)."""

    def wanted(mime: str) -> bool:
        return (not include or mime in include) and not (exclude and mime in exclude)

    out: dict[str, Any] = {}
    if wanted("text/plain"):
        out["text/plain"] = repr(doc)
    if wanted("text/html"):
        out["text/html"] = notebook_html(doc)
    if wanted("image/png") and doc.figure is not None:
        picture = png(doc)
        if picture is not None:
            out["image/png"] = picture
    return out


def png(doc: Document) -> bytes | None:
    """The schematic as PNG bytes (IPython base64-encodes them), or None where there is none to draw."""
    from tmemviz.draw import figure
    from tmemviz.errors import TmemvizError

    try:
        return figure.render(figure.draw(doc.figure("schematic")), "png", PNG_DPI)
    except TmemvizError:  # a result whose figure cannot be drawn shows its HTML and text only
        return None


def notebook_html(doc: Document, detail: str = "auto") -> str:
    """The HTML a notebook shows: ``doc.notebook``'s tables (collapsible), then the figure's page in a
    sandboxed frame; a result without a figure shows its table as text."""
    from tmemviz.errors import TmemvizError

    parts = [STYLE, '<div class="tmemviz-nb">']
    for name in doc.notebook:
        parts.append(tables_html(doc.views[name](160)))
    for note in doc.notes if doc.notebook else ():
        parts.append(f'<p class="note">note: {html.escape(note)}</p>')
    if doc.figure is None:
        if not doc.notebook:
            parts.append(f"<pre>{html.escape(doc.to_text(width=100))}</pre>")
    else:
        try:
            shown = frame(doc, detail)
        except TmemvizError as exc:  # explain of SASS alone: the tables, and why there is no map
            shown = f'<p class="note">no figure: {html.escape(str(exc))}</p>'
        parts.append(f"<details open><summary>figure</summary>{shown}</details>" if doc.notebook else shown)
    parts.append("</div>")
    return "".join(parts)


def frame(doc: Document, detail: str = "auto") -> str:
    """The interactive page in an ``<iframe srcdoc>`` filled by a short script from the gzip-compressed
    page, so its own Content-Security-Policy and script apply inside the frame only: nothing loads
    from the network and nothing touches the notebook."""
    from tmemviz.draw.geometry import place
    from tmemviz.draw.html import PX_PER_IN
    from tmemviz.draw.html import page as html_page

    spec = doc.figure(detail)
    height = int(place(spec).height_in * PX_PER_IN) + 220  # the page's header, caption and help text
    packed = base64.b64encode(gzip.compress(html_page(spec), mtime=0)).decode()
    key = "tmemviz-" + uuid.uuid4().hex[:12]
    off = (
        f'<p id="{key}-off" class="note">The interactive figure needs the notebook\'s scripts to run '
        "(trust the notebook, or run the cell); <code>.save(&quot;figure.html&quot;)</code> writes it as a "
        "page.</p>"
    )
    return (
        f'{off}<iframe id="{key}" title="{html.escape(spec.title)}" sandbox="allow-scripts" '
        f'style="width:100%;height:{min(height, FRAME_MAX_PX)}px;border:0;display:none"></iframe>'
        f"<script>{UNPACK.format(id=key, data=packed)}</script>"
    )


def unpacked(shown: str) -> bytes:
    """The page a notebook HTML carries, unpacked as the browser does (for tests and tools)."""
    start = shown.index("atob('") + len("atob('")
    return gzip.decompress(base64.b64decode(shown[start : shown.index("'", start)]))


def tables_html(view: Sequence[Block]) -> str:
    """A terminal view as HTML: each table collapsible under its title, each styled line a paragraph."""
    from tmemviz.draw.table import Styled

    out = []
    for block in view:
        if isinstance(block, Styled):
            out.append(f"<p>{html.escape(block.text)}</p>")
            continue
        head = "".join(f"<th>{html.escape(c.header)}</th>" for c in block.columns)
        rows = [
            "<tr>" + "".join(f"<td>{html.escape(_plain(cell))}</td>" for cell in row) + "</tr>"
            for row in block.rows[:MAX_ROWS]
        ]
        left = len(block.rows) - MAX_ROWS
        if left > 0:
            rows.append(
                f'<tr><td colspan="{len(block.columns)}" class="note">... {left} more rows: '
                "<code>to_text()</code> has them all</td></tr>"
            )
        title = html.escape(block.title or f"{len(block.rows)} rows")
        caption = f'<p class="note">{html.escape(block.caption)}</p>' if block.caption else ""
        out.append(
            f"<details open><summary>{title}</summary><table><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>{caption}</details>"
        )
    return "".join(out)


def _plain(cell: Cell) -> str:
    """A cell's text: a plain ``str`` cell is Rich markup (``[bold]x[/]``), shown without it."""
    from tmemviz.draw.table import Styled

    if isinstance(cell, Styled):
        return cell.text
    from rich.text import Text

    return Text.from_markup(cell).plain
