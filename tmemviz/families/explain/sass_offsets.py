"""A SASS record moved by what its address adds and a PTX address cannot say.

ptxas folds a PTX ``add`` into the operand's immediate (``tmem[UR4+-0x80]``, ``tmem[UR4+0xff80]``):
:func:`tmemviz.sass.address.relative` reads it as lanes and columns that may be negative. The statement
the SASS implements is explained with the part a PTX immediate can hold (none negative), then its cells,
offset, rows and summary are moved by the rest: the same answer, relative to the same base register.
"""

from __future__ import annotations

import re
from typing import Any

_LANES = re.compile(r"\b(lanes|to) (-?\d+(?:\.\.-?\d+)?(?:, -?\d+(?:\.\.-?\d+)?)*)")
_COLUMNS = re.compile(r"\b(columns) (-?\d+(?:\.\.-?\d+)?(?: and -?\d+(?:\.\.-?\d+)?)*)")
_NUMBER = re.compile(r"-?\d+")


def moved_text(text: str, lanes: int, cols: int) -> str:
    """The lanes and columns a summary names, moved.

    >>> moved_text("32x32b.x2: the warp's 32 threads load lanes 0..31, columns 0..1 relative to UR4", 0, -128)
    "32x32b.x2: the warp's 32 threads load lanes 0..31, columns -128..-127 relative to UR4"
    >>> moved_text("lanes 0..30 move down one lane to 1..31, columns 64..71 (32 bytes each)", -32, 0)
    'lanes -32..-2 move down one lane to -31..-1, columns 64..71 (32 bytes each)'
    """

    def by(amount: int):  # type: ignore[no-untyped-def]
        def one(m: re.Match[str]) -> str:
            return f"{m.group(1)} " + _NUMBER.sub(lambda n: str(int(n.group()) + amount), m.group(2))

        return one

    if lanes:
        text = _LANES.sub(by(lanes), text)
    if cols:
        text = _COLUMNS.sub(by(cols), text)
    return text


def move_cells(record: dict[str, Any], lanes: int, cols: int) -> None:
    """An ld/st record's cells (dicts), offset and summary moved by (lanes, cols), in place."""
    if not lanes and not cols:
        return
    record["cells"] = [{**c, "lane": c["lane"] + lanes, "col": c["col"] + cols} for c in record["cells"]]
    offset = record.get("offset")
    if offset is not None:
        record["offset"] = {"lane": offset["lane"] + lanes, "col": offset["col"] + cols}
    if "summary" in record:
        record["summary"] = moved_text(record["summary"], lanes, cols)


def move_copy(record: dict[str, Any], lanes: int, cols: int) -> None:
    """A cp record's offset and summary, or a shift record's rows and summary, moved (in place)."""
    if not lanes and not cols:
        return
    if record.get("offset") is not None:
        record["offset"] = {"lane": record["offset"]["lane"] + lanes, "col": record["offset"]["col"] + cols}
    rows = record.get("rows")
    if rows is not None:
        record["rows"] = {
            "from_lanes": [x + lanes for x in rows["from_lanes"]],
            "to_lanes": [x + lanes for x in rows["to_lanes"]],
            "cols": [x + cols for x in rows["cols"]],
        }
    if "summary" in record:
        record["summary"] = moved_text(record["summary"], lanes, cols)
