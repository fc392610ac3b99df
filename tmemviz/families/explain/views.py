"""What an explained kernel looks like in a terminal: one row per tcgen05 instruction, then the warnings.

Plain data (:mod:`tmemviz.draw.table`); the register-to-cell maps are in the JSON, and a short
excerpt (the first registers) in the table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tmemviz.draw.table import BOLD, DIM, Column, Styled, Table, View

REGISTERS_SHOWN = 4
"""Registers of an ld/st whose cells the table spells out (thread 0's); the JSON has them all."""


def explain_view(files: Sequence[dict[str, Any]]) -> View:
    """Per file: a table of its tcgen05 instructions, then one of its warnings."""
    out: list[Table] = []
    for f in files:
        columns = (
            Column("line", justify="right", style=DIM),
            Column("op", style=BOLD, no_wrap=True),
            Column("what it does"),
        )
        # PTX text is printed as is: `[%r2]` or `[/r8]` must not be read as terminal markup.
        # A SASS file given with its PTX: the PTX line each instruction implements (pairing.py).
        owner = {w: p["ptx_line"] for p in f.get("pairing", {}).get("pairs", ()) for w in p["sass"]}
        rows = tuple(
            (str(r["line"]), short_op(r["op"]), Styled(describe(r, owner.get(r.get("address") or r["line"]))))
            for r in f["instructions"]
        )
        target = f["target"] or "no .target"
        title = f"{f['path']} ({target}): {len(rows)} tcgen05 instruction{'s' if len(rows) != 1 else ''}"
        out.append(Table(columns, rows, title=title, title_justify="left"))
        if f["warnings"]:
            rows = tuple((str(w["line"]), Styled(w["message"])) for w in f["warnings"])
            columns = (Column("line", justify="right", style=DIM), Column("warning", style="yellow"))
            out.append(Table(columns, rows, title=f"{f['path']}: warnings", title_justify="left"))
    return tuple(out)


def short_op(op: str) -> str:
    """The op as the table's narrow column shows it: ``relinquish``, ``fence::before``.

    >>> short_op("relinquish_alloc_permit"), short_op("fence::after_thread_sync")
    ('relinquish', 'fence::after')
    """
    return op.replace("_alloc_permit", "").replace("_thread_sync", "")


_VECTOR = re.compile(r"\{([^{}]*)\}")


def compact(ptx: str, keep: int = 4) -> str:
    """A long register vector shortened for the table: its first registers, ``...`` and the last.

    >>> compact("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%r9];")
    'tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r1, %r2, %r3, ..., %r8}, [%r9];'
    """

    def shorten(m: re.Match[str]) -> str:
        items = [x.strip() for x in m.group(1).split(",")]
        if len(items) <= keep + 1:
            return m.group(0)
        return "{" + ", ".join([*items[: keep - 1], "...", items[-1]]) + "}"

    return _VECTOR.sub(shorten, ptx)


def describe(record: dict[str, Any], ptx_line: int | None = None) -> str:
    """The instruction's text, then what it does; for ld/st, thread 0's first registers and their cells."""
    # A SASS record shows its code address and the instruction as printed.
    sass = record.get("sass")
    text = compact(f"{record.get('address', '')} {sass}".strip() if sass else record["ptx"]) + "\n"
    if "error" in record:
        return text + f"not explained: {record['error']}"
    text += record.get("summary", "")
    if ptx_line is not None:
        text += f"\nimplements PTX line {ptx_line}"
    cells = record.get("cells")
    if cells:
        who = cells[0]["thread"]  # thread 0, or 16 for the second instruction of a split SASS pair
        first = [c for c in cells if c["thread"] == who][: REGISTERS_SHOWN * (2 if record.get("pack") else 1)]
        spots = ", ".join(
            f"{c['register'] or 'r' + str(c['reg'])}{'.hi' if c.get('half') == 1 else ''}"
            f" -> lane {c['lane']} col {c['col']}"
            for c in first
        )
        total = record.get("thread0_cells", sum(1 for c in cells if c["thread"] == who))
        text += f"\nthread {who}: {spots}{' ...' if len(first) < total else ''}"
    return text
