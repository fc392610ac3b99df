"""``tmemviz check FILE...``: Tensor Memory bugs of whole PTX modules, as a table, JSON, CSV or SARIF;
exit 1 when any error or warning is found, 0 when none, 2 when an input cannot be read."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

from tmemviz.cli.options import Format, LayoutsOpt, OutputOpt, show
from tmemviz.cli.params import Argument, Option
from tmemviz.errors import TmemvizError


class CheckFormat(str, Enum):
    """What ``check`` writes: the shared formats, and SARIF for code scanning."""

    table = "table"
    text = "text"
    txt = "txt"
    json = "json"
    csv = "csv"
    sarif = "sarif"
    png = "png"
    svg = "svg"
    html = "html"


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

    sarif = output is not None and Path(output).suffix.lower() == ".sarif"
    if format is CheckFormat.sarif or sarif:
        if format not in (None, CheckFormat.sarif):
            raise TmemvizError(
                f"--format {format.value} contradicts the output file '{Path(str(output)).name}' "
                "(its suffix says sarif); give one or make them agree"
            )
        doc = api.check(files, layouts=layouts)
        _write_sarif(doc.subject, output)
        return status(doc.subject)
    doc = api.check(files, layouts=layouts)
    show(doc, Format(format.value) if format is not None else None, output)
    return status(doc.subject)


def _write_sarif(checked: object, output: Optional[str]) -> None:
    from tmemviz.cli.app import version
    from tmemviz.families.check.sarif import sarif_text

    text = sarif_text(checked, version())  # type: ignore[arg-type]
    if output is None or output == "-":
        sys.stdout.write(text)
        return
    from tmemviz.files import write_atomic

    write_atomic(Path(output), text.encode())


COMMANDS = {"check": check}
"""Command name -> function, in the order ``--help`` lists them."""
