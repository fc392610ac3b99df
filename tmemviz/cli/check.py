"""``tmemviz check FILE|DIR...``: Tensor Memory bugs of whole PTX modules, as a table, JSON, CSV or SARIF;
exit 1 when a finding at ``--fail-on`` or above is left (an error or a warning by default), 0 when none,
2 when an input or an option cannot be read. ``[tool.tmemviz.check]`` in the nearest pyproject.toml
gives a project's defaults; options given here replace them."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

from tmemviz.cli.options import Format, LayoutsOpt, OutputOpt, show
from tmemviz.cli.params import Argument, Option

OWN = ("sarif",)
"""The check document's own forms, besides the shared formats: SARIF for code scanning."""
CheckFormat = Enum("CheckFormat", {**{f.name: f.value for f in Format}, **{f: f for f in OWN}}, type=str)
"""What ``check`` writes: the shared formats, and its own."""


class FailOn(str, Enum):
    error = "error"
    warning = "warning"
    note = "note"


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
RULES_HELP = "Rule ids, comma-separated or repeated (see docs/check.md)"


def check(
    files: Annotated[
        list[str],
        Argument(
            metavar="FILE|DIR",
            help="PTX modules (several .entry/.func each), directories (their *.ptx files, hidden "
            "directories skipped); - reads standard input.",
        ),
    ],
    format: CheckFormatOpt = None,
    output: OutputOpt = None,
    layouts: LayoutsOpt = None,
    select: Annotated[
        Optional[list[str]],
        Option("--select", metavar="RULE[,RULE]", help=f"Apply only these rules. {RULES_HELP}."),
    ] = None,
    ignore: Annotated[
        Optional[list[str]],
        Option("--ignore", metavar="RULE[,RULE]", help=f"Do not apply these rules. {RULES_HELP}."),
    ] = None,
    fail_on: Annotated[
        Optional[FailOn],
        Option(
            "--fail-on",
            help="Exit 1 when a finding at this level or above is left [default: warning].",
            show_default=False,
        ),
    ] = None,
    notes: Annotated[
        bool,
        Option(
            "--notes", help="Show notes too (table, JSON, CSV, SARIF); they fail only with --fail-on note."
        ),
    ] = False,
    no_notes: Annotated[
        bool, Option("--no-notes", help="Leave notes out (the default), whatever the configuration says.")
    ] = False,
    baseline: Annotated[
        Optional[str],
        Option(
            "--baseline",
            metavar="FILE",
            help="A file of findings recorded before: those are not shown and do not fail.",
        ),
    ] = None,
    write_baseline: Annotated[
        Optional[str],
        Option(
            "--write-baseline",
            metavar="FILE",
            help="Record every finding shown in this file, then use it as the baseline.",
        ),
    ] = None,
    exclude: Annotated[
        Optional[list[str]],
        Option(
            "--exclude",
            metavar="GLOB",
            help="Glob of files and directories a directory walk leaves out (repeatable).",
        ),
    ] = None,
    sass: Annotated[
        Optional[str],
        Option(
            "--sass",
            metavar="FILE",
            help="The cubin ptxas made of the one PTX FILE (or its nvdisasm -hex / cuobjdump -sass "
            "listing): each wait-ld warning is confirmed in it, or made a note where the SASS orders it.",
        ),
    ] = None,
    root: Annotated[
        Optional[Path],
        Option(
            "--root",
            metavar="DIR",
            help="SARIF file URIs are relative to this directory [default: the working directory].",
            show_default=False,
        ),
    ] = None,
) -> int:
    """Lint PTX for Tensor Memory bugs: allocation size, accesses outside it, leaks, .cta_group, .target.

    [tool.tmemviz.check] in the nearest pyproject.toml sets select, ignore, fail-on, notes, baseline and
    exclude; an option given here replaces its setting (docs/check.md).
    """
    from tmemviz.draw.document import FIGURES, format_named
    from tmemviz.families.check.run import Request, run

    # The format, settled before anything is read: only a figure draws the kernels' TMEM map.
    drawn = format_named(output, format.value if format is not None else None, OWN) in FIGURES
    request = Request(
        select=select or None,
        ignore=ignore or None,
        fail_on=fail_on.value if fail_on is not None else None,
        notes=True if notes else False if no_notes else None,
        both_notes=notes and no_notes,
        baseline=baseline,
        write_baseline=write_baseline,
        exclude=exclude or None,
        root=str(root) if root is not None else None,
        sass=sass,
        maps=drawn,
    )
    from tmemviz.api import catalog

    doc, status = run(files, request, catalog(layouts), lambda d: _check_format(d, format, output))
    show(doc, format, output)  # sarif is one of the check document's own forms
    return status


def _check_format(doc: object, format: Optional[Enum], output: Optional[str]) -> None:
    """Refuse a format or suffix the result cannot be written in before a baseline file is written."""
    from tmemviz.draw.document import output_format

    output_format(output, format.value if format is not None else None, doc)  # type: ignore[arg-type]


COMMANDS = {"check": check}
"""Command name -> function, in the order ``--help`` lists them."""
