"""The ``shapes`` command: every family's shapes in one list."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated, Optional

from tmemviz.cli.options import LayoutsOpt, catalog, deliver
from tmemviz.cli.params import Option
from tmemviz.draw import records
from tmemviz.draw.table import Styled
from tmemviz.errors import TmemvizError
from tmemviz.families.cp.shapes import KIND as CP
from tmemviz.families.ldst.shapes import KIND as LDST


class ShapesFormat(str, Enum):
    table = "table"
    json = "json"


def shapes(
    format: Annotated[
        Optional[ShapesFormat], Option("--format", "-f", help="table or json [default: from -o's suffix].")
    ] = None,
    output: Annotated[
        Optional[str],
        Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Write to FILE (atomically): .json the records, .txt the tables.",
        ),
    ] = None,
    layouts: LayoutsOpt = None,
) -> None:
    """List every shape: ld/st with registers per .num (Table 49), cp with its multicasts, shift, swizzles."""
    from tmemviz.families.ldst.answers import shapes_records

    fmt = _format(format, output)
    found = catalog(layouts)
    target = None if output in (None, "-") else output
    if fmt is ShapesFormat.json:
        text = records.pretty(shapes_records(found.shapes(LDST)))
        if target is None:
            sys.stdout.write(text)
        else:
            from tmemviz.writing import write_atomic

            write_atomic(target, text.encode())
        return
    from tmemviz.families.cp.views import copy_shapes_view
    from tmemviz.families.ldst.views import shapes_view
    from tmemviz.families.shift.shapes import KIND as SHIFT
    from tmemviz.families.shift.views import shift_shapes_view
    from tmemviz.families.smem.shapes import KIND as SMEM
    from tmemviz.families.smem.views import swizzles_view

    views = (
        shapes_view(found.shapes(LDST)),
        copy_shapes_view(found.shapes(CP)),
        shift_shapes_view(found.shapes(SHIFT)),
        swizzles_view(found.shapes(SMEM)),
    )
    deliver(
        tuple(block for i, view in enumerate(views) for block in ((Styled(""),) if i else ()) + view), target
    )


SUFFIXES = {".json": ShapesFormat.json, ".txt": ShapesFormat.table}


def _format(given: Optional[ShapesFormat], output: Optional[str]) -> ShapesFormat:
    """What -o's suffix and --format say together (the same rules as every other command's -o)."""
    if output is None or output == "-":
        return given or ShapesFormat.table
    from pathlib import PurePath

    suffix = PurePath(output).suffix.lower()
    if not suffix:
        return given or ShapesFormat.table
    if suffix not in SUFFIXES:
        raise TmemvizError(f"the shape list is written as .json or .txt, not '{suffix}'")
    if given is not None and given is not SUFFIXES[suffix]:
        raise TmemvizError(f"--format {given.value} contradicts the output file's suffix {suffix}")
    return SUFFIXES[suffix]


COMMANDS = {"shapes": shapes}
