"""What an instruction descriptor looks like in a terminal: one row per field (plain table data)."""

from __future__ import annotations

from tmemviz.draw.table import BOLD, DIM, Column, Table, View
from tmemviz.families.mma.answers import field_records, word
from tmemviz.families.mma.idesc import Idesc, layout


def idesc_view(found: Idesc) -> View:
    """Bits, field, code and meaning, in bit order (PTX 9.7.16.4.2's table for the kind)."""
    labels = {f.name: f.label for f in layout(found.kind)[0]}
    rows = tuple(
        (r["bits"], labels[r["field"]], str(r["code"]), word(r["meaning"])) for r in field_records(found)
    )
    columns = (
        Column("bits", justify="right", style=DIM),
        Column("field", style=BOLD),
        Column("code", justify="right"),
        Column("meaning"),
    )
    title = f"idesc 0x{found.value:08x} = {found.value}, .kind::{found.kind}"
    return (Table(columns, rows, title=title, title_justify="left"),)
