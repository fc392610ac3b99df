"""Terminal tables as plain data: what each family's views return, rendered by :mod:`tmemviz.draw.terminal`.

A view is a sequence of blocks printed one after another: tables and single
styled lines. Styles are strings in the terminal's style vocabulary (``"bold"``,
``"dim"``, ``"black on #a6cee3"``); :func:`on` builds the colored-cell style.
Plain ``str`` cells are printed as text with markup; :class:`Styled` ones verbatim.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

BOLD = "bold"
DIM = "dim"
ITALIC = "italic"
WARN = "yellow"
ALERT = "bold white on red"


def on(fill: str) -> str:
    """Black text on a fill color: the style of a colored cell.

    >>> on("#a6cee3")
    'black on #a6cee3'
    """
    return f"black on {fill}"


@dataclass(frozen=True)
class Styled:
    """Text printed as is (no markup) in one style."""

    text: str
    style: str = ""


Cell = Union[str, Styled]


@dataclass(frozen=True)
class Column:
    header: str
    justify: str = "left"
    style: str | None = None
    width: int | None = None
    no_wrap: bool = False


@dataclass(frozen=True)
class Table:
    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]
    title: str | None = None
    title_justify: str = "center"
    caption: str | None = None
    caption_justify: str = "center"
    padding: tuple[int, ...] = (0, 1)
    show_edge: bool = True
    pad_edge: bool = True


Block = Union[Table, Styled]
View = tuple[Block, ...]
"""Blocks printed one after another."""
