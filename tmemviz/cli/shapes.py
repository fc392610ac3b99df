"""The ``shapes`` command: every family's shapes in one list."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated

from tmemviz.cli.options import LayoutsOpt, catalog, deliver
from tmemviz.cli.params import Option
from tmemviz.draw import records
from tmemviz.draw.table import Styled
from tmemviz.families.cp.shapes import KIND as CP
from tmemviz.families.ldst.shapes import KIND as LDST


class ShapesFormat(str, Enum):
    table = "table"
    json = "json"


def shapes(
    format: Annotated[ShapesFormat, Option("--format", "-f", help="table or json.")] = ShapesFormat.table,
    layouts: LayoutsOpt = None,
) -> None:
    """List every shape: ld/st with registers per .num (Table 49), cp with its multicasts, shift, swizzles."""
    from tmemviz.families.ldst.answers import shapes_records

    found = catalog(layouts)
    if format is ShapesFormat.json:
        sys.stdout.write(records.pretty(shapes_records(found.shapes(LDST))))
    else:
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
            tuple(block for i, view in enumerate(views) for block in ((Styled(""),) if i else ()) + view),
            None,
        )


COMMANDS = {"shapes": shapes}
