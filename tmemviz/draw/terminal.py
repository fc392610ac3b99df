"""Rich renderables from table views (:mod:`tmemviz.draw.table`): the only Rich code besides the CLI.

Every table uses the same frame (a rule under the header, no outer box), so
layouts, shape lists and decompression tables read alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from tmemviz.draw.table import Block, Cell, Styled, Table


def renderable(view: Sequence[Block]) -> RenderableType:
    """The blocks of ``view`` as one renderable, printed in order."""
    parts = [_block(b) for b in view]
    return parts[0] if len(parts) == 1 else Group(*parts)


def _block(block: Block) -> RenderableType:
    if isinstance(block, Styled):
        return Text(block.text, style=block.style)
    return _table(block)


def _table(spec: Table) -> RichTable:
    table = RichTable(
        title=fit(spec.title),
        title_justify=spec.title_justify,  # type: ignore[arg-type]
        caption=fit(spec.caption),
        caption_justify=spec.caption_justify,  # type: ignore[arg-type]
        box=box.SIMPLE_HEAD,
        padding=spec.padding,
        show_edge=spec.show_edge,
        pad_edge=spec.pad_edge,
    )
    for c in spec.columns:
        table.add_column(c.header, justify=c.justify, style=c.style, width=c.width, no_wrap=c.no_wrap)  # type: ignore[arg-type]
    for row in spec.rows:
        table.add_row(*(_cell(c) for c in row))
    return table


TITLE_WIDTH = 80
"""The widest title or caption line: a title reads on an 80-column terminal however wide its table."""


def fit(text: str | None, width: int = TITLE_WIDTH) -> str | None:
    """``text`` in lines of at most ``width`` characters, broken after ``; `` where it can be, else
    between words; its own line breaks kept.

    >>> print(fit("tcgen05.ld.sync.aligned.16x256b.x4.b32, 16 registers/thread; lanes relative to taddr", 60))
    tcgen05.ld.sync.aligned.16x256b.x4.b32, 16 registers/thread;
    lanes relative to taddr
    """
    if text is None or all(len(line) <= width for line in text.splitlines()):
        return text
    import textwrap

    out: list[str] = []
    for line in text.splitlines():
        current = ""
        for part in line.split("; "):
            piece = part if not current else f"{current}; {part}"
            if len(piece) <= width:
                current = piece
                continue
            if current:
                out.append(current + ";")
            wrapped = textwrap.wrap(part, width) or [""]
            out += wrapped[:-1]
            current = wrapped[-1]
        out.append(current)
    return "\n".join(out)


def _cell(cell: Cell) -> RenderableType:
    return Text(cell.text, style=cell.style) if isinstance(cell, Styled) else cell


def plain(text: str) -> str:
    r"""Exported text without the spaces Rich pads each line with: a ``.txt`` file has no trailing
    whitespace (editors and ``git diff`` flag it), and no trailing blank lines.

    >>> plain("  a  \n b \n\n")
    '  a\n b\n'
    """
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "".join(f"{line}\n" for line in lines)
