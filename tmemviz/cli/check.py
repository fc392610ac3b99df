"""``tmemviz check FILE...``: Tensor Memory bugs of whole PTX modules, as a table, JSON, CSV or SARIF;
exit 1 when any error or warning is found, 0 when none, 2 when an input cannot be read."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

from tmemviz.cli.options import Format, LayoutsOpt, OutputOpt, show
from tmemviz.cli.params import Argument, Option

CheckFormat = Enum("CheckFormat", {**{f.name: f.value for f in Format}, "sarif": "sarif"}, type=str)
"""What ``check`` writes: the shared formats, and SARIF for code scanning."""


CheckFormatOpt = Annotated[
    Optional[CheckFormat],
    Option(
        "--format",
        "-f",
        help="table, json, csv, sarif (SARIF 2.1.0), or png, svg, html (the TMEM map) [default: from -o's "
        "suffix, else table].",
        show_default=False,
        case_sensitive=False,
    ),
]


def check(
    files: Annotated[
        list[str],
        Argument(metavar="FILE", help="PTX modules (several .entry/.func each); - reads standard input."),
    ],
    format: CheckFormatOpt = None,
    output: OutputOpt = None,
    layouts: LayoutsOpt = None,
) -> int:
    """Lint PTX for Tensor Memory bugs: allocation size, accesses outside it, leaks, .cta_group, .target."""
    from tmemviz import api
    from tmemviz.families.check.document import status

    doc = api.check(files, layouts=layouts)
    show(doc, format, output)  # sarif is one of the check document's own forms
    return status(doc.subject)


COMMANDS = {"check": check}
"""Command name -> function, in the order ``--help`` lists them."""
