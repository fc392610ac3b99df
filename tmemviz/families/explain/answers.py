"""Explained instructions in words and records: one sentence per instruction, register cells, the JSON.

The words are the other families' (shape, .num, pack, split offset, lanes and columns relative to the
base register); this module only phrases what they computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from operator import itemgetter
from typing import Any


def cell_records(cells: Sequence[Any], registers: Sequence[str] | None, pack: bool) -> list[dict[str, Any]]:
    """One record per (half-)cell: thread, reg, the register's name when the line writes it, lane, col.

    Lanes and columns are relative to the base register of the address (its immediate applied).
    """
    names = registers or ()
    count = len(names)
    if pack:
        return [
            {"thread": c.thread, "reg": c.reg, "half": c.half,
             "register": names[c.reg] if c.reg < count else None, "lane": c.lane, "col": c.col}
            for c in cells
        ]  # fmt: skip
    return [
        {"thread": c.thread, "reg": c.reg, "register": names[c.reg] if c.reg < count else None,
         "lane": c.lane, "col": c.col}
        for c in cells
    ]  # fmt: skip


def cells_template(cells: Sequence[Any], count: int, pack: bool) -> str:
    """The JSON of :func:`cell_records` for ``count`` registers as a :meth:`str.format` template whose
    field ``{i}`` is register i's name in JSON (a string, or ``null``): written once per layout, filled
    per instruction. Exactly ``json.dumps``'s text (its separators, ints as ``repr``).

    >>> from tmemviz.families.ldst.layout import Cell
    >>> cells_template([Cell(0, 0, None, 3, 4), Cell(0, 1, None, 3, 5)], 2, False)
    '[{{"thread": 0, "reg": 0, "register": {0}, "lane": 3, "col": 4}}, \
{{"thread": 0, "reg": 1, "register": {1}, "lane": 3, "col": 5}}]'
    >>> cells_template([Cell(0, 0, None, 3, 4), Cell(0, 1, None, 3, 5)], 1, False)
    '[{{"thread": 0, "reg": 0, "register": {0}, "lane": 3, "col": 4}}, \
{{"thread": 0, "reg": 1, "register": null, "lane": 3, "col": 5}}]'
    """
    from tmemviz.families.ldst.layout import Cell

    # One %-format over every cell's numbers, when they are ints (%d writes an int as repr does, as json
    # does) and every reg names one of the registers ({%d} is the field of the cell's register).
    if cells and set(map(type, cells)) == {Cell}:
        if pack:
            pattern = '{{"thread": %d, "reg": %d, "half": %d, "register": {%d}, "lane": %d, "col": %d}}'
            numbers = tuple(chain.from_iterable(map(itemgetter(0, 1, 2, 1, 3, 4), cells)))
        else:
            pattern = '{{"thread": %d, "reg": %d, "register": {%d}, "lane": %d, "col": %d}}'
            numbers = tuple(chain.from_iterable(map(itemgetter(0, 1, 1, 3, 4), cells)))
        regs = list(map(itemgetter(1), cells))
        if set(map(type, numbers)) == {int} and min(regs) >= 0 and max(regs) < count:
            return "[" + ", ".join([pattern] * len(cells)) % numbers + "]"
    import json

    marks = [f"\x01{i}\x02" for i in range(count)]  # each becomes the field {i}; no other string has them
    text = json.dumps(cell_records(cells, marks, pack)).replace("{", "{{").replace("}", "}}")
    return text.replace('"\\u0001', "{").replace('\\u0002"', "}")


def ldst_summary(ins: Any, base: str | None) -> str:
    """E.g. ``16x64b.x8: threads load lanes 16..31, columns 0..15 relative to %r2 (8 registers/thread)``."""
    verb = {"ld": "load", "st": "store"}[ins.op]
    lo, hi = ins.lane_range()
    cols = " and ".join(f"{a}..{b}" if a != b else str(a) for a, b in ins.column_ranges())
    frame = f" relative to {base}" if base else ""
    regs = ins.registers_per_thread
    text = f"{ins.qualifiers}: the warp's 32 threads {verb} lanes {lo}..{hi}, columns {cols}{frame}"
    text += f" ({regs} register{'s' if regs != 1 else ''}/thread"
    if ins.split_offset is not None:
        text += f", second half at column offset {ins.split_offset}"
    text += ")"
    if ins.red is not None:
        text += f"; each thread's redval = {ins.red.words} of the registers it loads"
    return text


def mma_summary(record: dict[str, Any], found: Any, choices: str | None = None) -> str:
    """E.g. ``kind::f16, cta_group::1: D in TMEM at %r149 (+0), idesc %r6 = 0x08200010: M=128 N=128 ...``."""
    d = record["d"]
    where = f"{d['base']}" + (f" + lane {d['lane']}, column {d['col']}" if d["lane"] or d["col"] else "")
    forms = [f for f, on in (("sparse", record["sparse"]), (".ws", record["ws"])) if on]
    text = f"kind::{record['kind']}, cta_group::{record['cta_group']}"
    if forms:
        text += " (" + ", ".join(forms) + ")"
    text += f": {record.get('computes') or 'D = A x B + D'}, D in Tensor Memory at {where}"
    if record["a_in_tmem"]:
        text += ", A from Tensor Memory"
    for name, operand in (("scale_a", "A"), ("scale_b", "B")):
        sf = record.get(name)
        if sf:
            text += f"; {operand} scale factors at {_sf_where(sf)}"
    if choices is not None:
        count = len(record["idesc"]["candidates"])
        what = f"one of {count} values" if count > 1 else "partly set at run time"
        values = ", ".join(record["idesc"]["candidates"])
        text += f"; idesc {record['idesc_operand']} = {what} ({values}): {choices}"
        if record.get("layout"):
            text += f"; D uses data-path layout {record['layout']} (PTX 9.7.16.10.5)"
        return text
    if found is None:
        return text + f"; idesc {record['idesc_operand']} is not a constant on every path in this function"
    from tmemviz.families.mma.answers import summary

    text += f"; idesc {record['idesc_operand']} = 0x{found.value:08x}: {summary(found)}"
    if record.get("layout"):
        text += f"; D uses data-path layout {record['layout']} (PTX 9.7.16.10.5)"
    return text


def _sf_where(sf: dict[str, Any]) -> str:
    """``%r5 + lane 0, column 464, byte 1`` (a scale-factor address: byte in bits 31:30)."""
    base = sf["base"]
    at = f"{base} + " if base else ""
    text = f"{at}lane {sf['lane']}, column {sf['col']}"
    if sf.get("byte") is not None:
        return text + f", byte {sf['byte']}"
    if sf.get("byte_offset"):
        return text + f", byte {sf['byte_offset']} above {base}'s (its value is not known here)"
    return text + f", byte unknown (bits 31:30 of {base}, not known here)"


def cp_summary(copy: Any) -> str:
    """E.g. ``128x256b: copies 128 rows of 256 bits from shared memory to lanes 0..127, columns 0..7``."""
    from tmemviz.families.cp.layout import written_lanes

    lanes = ", ".join(f"{a}..{b}" for a, b in written_lanes(copy))
    lo, hi = copy.column_span()
    text = (
        f"{copy.qualifiers}, cta_group::{copy.cta_group}: shared memory -> lanes {lanes}, columns {lo}..{hi}"
    )
    if copy.base:
        text += f" relative to {copy.base}"
    if copy.multicast:
        text += f" ({copy.multicast} multicast)"
    if copy.decompress:
        text += f", decompressing {copy.decompress.name} to 8 bits"
    return text


def alloc_summary(op: str, columns: int | None, operand: str | None) -> str:
    amount = f"{columns} columns" if columns is not None else "a register-given number of columns"
    if op == "alloc":
        return (
            f"allocates {amount} of Tensor Memory (all 128 lanes); "
            f"its address goes to shared memory at {operand}"
        )
    return f"frees {amount} of Tensor Memory at {operand}"


_DATAPATHS: dict[tuple[int, int, int, bool, bool], tuple[str | None, str | None]] = {}


def datapath(m: int, n: int, cta_group: int, sparse: bool, ws: bool) -> tuple[str | None, str | None]:
    """:func:`datapath_of`, once per distinct question of a run."""
    key = (m, n, cta_group, sparse, ws)
    if key not in _DATAPATHS:
        _DATAPATHS[key] = datapath_of(*key)
    return _DATAPATHS[key]


def datapath_of(m: int, n: int, cta_group: int, sparse: bool, ws: bool) -> tuple[str | None, str | None]:
    """D's data-path layout letter (PTX 9.7.16.10.5) and, when M/N do not fit the table, why.

    >>> datapath(128, 128, 1, False, False), datapath(64, 64, 1, False, True)
    (('D', None), ('E', None))
    """
    from tmemviz.errors import TmemvizError
    from tmemviz.families.datapath.organization import check_n, choose
    from tmemviz.families.datapath.shapes import shipped_paths

    try:
        path = choose(shipped_paths(), m, cta_group, sparse, ws)
    except TmemvizError as exc:
        return None, str(exc)
    try:
        check_n(path, n, ws)
    except TmemvizError as exc:
        return path.name, str(exc)
    return path.name, None


def file_record(module: Any) -> dict[str, Any]:
    """``{"path", "target", "instructions", "warnings"}`` for one scanned file, then :func:`file_tail`."""
    return {
        "path": module.path,
        "target": module.target,
        "instructions": module.instructions,
        "warnings": [w.record() for w in sorted(module.warnings, key=lambda w: w.line)],
        **file_tail(module),
    }


def file_tail(module: Any) -> dict[str, Any]:
    """A SASS file's ``language`` and, given with its PTX, its ``pairing`` (explain/pairing.py)."""
    if getattr(module, "language", "ptx") != "sass":
        return {}
    pairing = getattr(module, "pairing", None)
    return {"language": "sass", **({"pairing": pairing} if pairing else {})}
