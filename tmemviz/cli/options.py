"""What every command shares: option types, the catalog of shape files, printing or writing a result."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from tmemviz.catalog import Catalog, ShapeKind, load_catalog
from tmemviz.cp.shapes import KIND as CP
from tmemviz.draw.table import View
from tmemviz.ldst.shapes import KIND as LDST

KINDS: tuple[ShapeKind[Any], ...] = (LDST, CP)
"""The families whose shape names a SHAPE argument may hold (for "use 'tmemviz cp'" hints)."""


class TableFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


class AnswerFormat(str, Enum):
    text = "text"
    json = "json"


TaddrOpt = Annotated[
    Optional[str],
    typer.Option("--taddr", help="taddr as LANE,COL or a 0x address; coordinates become absolute."),
]
LayoutsOpt = Annotated[
    Optional[list[Path]],
    typer.Option("--layouts", metavar="DIR", help="Extra shape files (*.yaml); also $TMEMVIZ_LAYOUTS."),
]
OutputOpt = Annotated[
    Optional[Path], typer.Option("--output", "-o", help="Write to this file (atomically) instead of stdout.")
]


def catalog(layouts: Optional[list[Path]]) -> Catalog:
    """The shipped shape files plus ``$TMEMVIZ_LAYOUTS`` and ``--layouts``, each family read on first use."""
    dirs: list[str | Path] = [d for d in os.environ.get("TMEMVIZ_LAYOUTS", "").split(os.pathsep) if d]
    dirs += layouts or []
    return load_catalog(dirs, KINDS, lazy=True)


def deliver(body: str | View, output: Optional[Path], notes: Sequence[str] = ()) -> None:
    """Print to the terminal, or write the text (atomically) to ``output``.

    Each note ("where this rests on something other than the PTX text") is one
    line, never wrapped, so it can be grepped for.
    """
    lines = [f"note: {n}" for n in notes]
    if not isinstance(body, str):
        from rich.console import Console
        from rich.text import Text

        from tmemviz.draw.terminal import renderable

        console = (
            Console()
            if output is None
            else Console(record=True, width=terminal_width(output), file=io.StringIO())
        )
        console.print(renderable(body))
        for line in lines:
            console.print(Text(line, style="yellow"), soft_wrap=True)
        if output is None:
            return
        body = console.export_text()
    else:
        body += "".join(f"{line}\n" for line in lines)
    if output is None:
        sys.stdout.write(body)
    else:
        from tmemviz.files import write_atomic

        write_atomic(output, body.encode())


def terminal_width(output: Optional[Path]) -> int:
    """The width a table must fit: the terminal's, or 160 columns when written to a file."""
    if output is not None:
        return 160
    from rich.console import Console

    return Console().width
