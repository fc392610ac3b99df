"""What a checked kernel looks like in a terminal: per file, one row per finding (or a line saying none)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tmemviz.draw.table import BOLD, DIM, Column, Styled, Table, View

STYLES = {"error": "bold red", "warning": "yellow", "note": DIM}


def findings_view(files: Sequence[dict[str, Any]]) -> View:
    out: list[Table] = []
    for f in files:
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
        out.append(Table(columns, rows, title=f"{f['path']}: {summary(f['findings'])}", title_justify="left"))
    return tuple(out)


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
