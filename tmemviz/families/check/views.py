"""What a checked kernel looks like in a terminal: per file, one row per finding (or a line saying none)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tmemviz.draw.table import BOLD, DIM, Column, Styled, Table, View

STYLES = {"error": "bold red", "warning": "yellow", "note": DIM}


def findings_view(files: Sequence[dict[str, Any]], hidden: Sequence[Mapping[str, int]] = ()) -> View:
    """One table per file with findings; a line for a file without (saying what the run left out)."""
    out: list[Table | Styled] = []
    for f, left_out in zip(files, hidden or [{}] * len(files), strict=True):
        title = f"{f['path']}: {summary(f['findings'])}{_hidden(left_out)}"
        if not f["findings"]:
            out.append(Styled(title, BOLD))
            continue
        columns = (
            Column("line", justify="right", style=DIM),
            Column("severity", no_wrap=True),
            Column("rule", style=BOLD, no_wrap=True),
            Column("finding"),
        )
        rows = tuple(
            (str(x["line"]), Styled(x["severity"], STYLES[x["severity"]]), x["rule"], Styled(x["message"]))
            for x in f["findings"]
        )
        out.append(Table(columns, rows, title=title, title_justify="left"))
    return tuple(out)


def _hidden(counts: Mapping[str, int]) -> str:
    """What the run left out of a file's findings, as the table's title says it.

    >>> _hidden({"notes": 2, "baseline": 1}), _hidden({})
    (' (not shown: 2 notes, 1 in the baseline)', '')
    """
    parts = []
    if counts.get("notes"):
        parts.append(f"{counts['notes']} note{'s' if counts['notes'] != 1 else ''}")
    if counts.get("baseline"):
        parts.append(f"{counts['baseline']} in the baseline")
    return f" (not shown: {', '.join(parts)})" if parts else ""


def summary(findings: Sequence[dict[str, Any]]) -> str:
    """``2 errors, 1 warning, 1 note`` or ``no findings``.

    >>> summary([{"severity": "error"}, {"severity": "note"}]), summary([])
    ('1 error, 1 note', 'no findings')
    """
    parts = []
    for severity in ("error", "warning", "note"):
        n = sum(1 for f in findings if f["severity"] == severity)
        if n:
            parts.append(f"{n} {severity}{'s' if n != 1 else ''}")
    return ", ".join(parts) or "no findings"
