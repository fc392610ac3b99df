"""``tmemviz explain FILE...``: every tcgen05 instruction of whole PTX modules, explained."""

from __future__ import annotations

from typing import Annotated

from tmemviz.cli.options import FormatOpt, LayoutsOpt, OutputOpt, show
from tmemviz.cli.params import Argument


def explain(
    files: Annotated[
        list[str],
        Argument(metavar="FILE", help="PTX modules (several .entry/.func each); - reads standard input."),
    ],
    format: FormatOpt = None,
    output: OutputOpt = None,
    layouts: LayoutsOpt = None,
) -> None:
    """Explain every tcgen05 instruction of PTX modules: registers to lanes/columns, idesc, warnings."""
    from tmemviz import api

    show(api.explain(files, layouts=layouts), format, output)


COMMANDS = {"explain": explain}
"""Command name -> function, in the order ``--help`` lists them."""
