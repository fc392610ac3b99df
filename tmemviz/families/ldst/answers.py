"""tcgen05.ld/st answers in words and records: one-sentence ``which``/``where``, JSON and CSV.

Records are plain dicts and tuples; :mod:`tmemviz.draw.records` writes them.
"""

from __future__ import annotations

from typing import Any

from tmemviz.families.ldst.layout import Cell, Instruction, Owner, reductions
from tmemviz.families.ldst.reduction import Reduced
from tmemviz.families.ldst.shapes import NUMS, Shape
from tmemviz.tmem import address as tmem_address
from tmemviz.tmem import span_text

HALF_BITS = {0: "bits 15:0", 1: "bits 31:16"}


def context(ins: Instruction) -> str:
    """``16x256b.x4``, plus the split offset and taddr when they matter."""
    parts = []
    if ins.split_offset is not None:
        parts.append(f"split offset {ins.split_offset}")
    if ins.taddr is not None:
        parts.append(f"taddr lane {ins.taddr[0]}, column {ins.taddr[1]}, warp {ins.warp}")
    if ins.offset != (0, 0):
        parts.append(f"address immediate lane +{ins.offset[0]}, column +{ins.offset[1]}")
    if ins.base is not None and ins.taddr is None:
        parts.append(f"relative to {ins.base}")
    extra = f" ({'; '.join(parts)})" if parts else ""
    return f"{ins.qualifiers}{extra}"


def owner_phrase(owner: Owner) -> str:
    bits = f" {HALF_BITS[owner.half]}" if owner.half is not None else ""
    return f"thread {owner.thread}, register r{owner.reg}{bits}"


def which_sentence(ins: Instruction, lane: int, col: int, owners: tuple[Owner, ...]) -> str:
    """E.g. ``lane 9, column 5 of 16x256b.x4 is held by thread 6, register r3``."""
    verb = "is held by" if ins.op == "ld" else "is written from"
    who = " and by ".join(owner_phrase(o) for o in owners)
    if len(owners) > 1:
        verb = "is read twice: by"
    return f"lane {lane}, column {col} of {context(ins)} {verb} {who}{redval_phrase(ins, owners[0].thread)}"


def redval_phrase(ins: Instruction, thread: int) -> str:
    """For tcgen05.ld.red: ``; thread 3's redval = max of lane 3, columns 0..7``."""
    if ins.red is None:
        return ""
    r = reductions(ins)[thread]
    return f"; thread {thread}'s redval = {ins.red.words} of lane {r.lane}, columns {span_text(r.cols)}"


def where_sentence(ins: Instruction, thread: int, reg: int, cells: tuple[Cell, ...]) -> str:
    """E.g. ``thread 5, register r4 of 16x256b.x4 is loaded from lane 1, column 10``."""
    verb = "is loaded from" if ins.op == "ld" else "is stored to"
    spots = " and ".join(
        f"lane {c.lane}, column {c.col}" + (f" ({HALF_BITS[c.half]})" if c.half is not None else "")
        for c in cells
    )
    return f"thread {thread}, register r{reg} of {context(ins)} {verb} {spots}{redval_phrase(ins, thread)}"


def address_note(ins: Instruction) -> str | None:
    """How the address ``[base + imm]`` of a PTX line frames the coordinates; None when it says nothing.

    The immediate is a TMEM address offset: lane = imm >> 16, column = imm & 0xFFFF (PTX 9.7.16.2).
    Without --taddr, coordinates are relative to the base register; --taddr gives that register's
    value, and the immediate is added to it.
    """
    if ins.base is None and ins.offset == (0, 0):
        return None
    base = ins.base or "taddr"
    lane, col = ins.offset
    value = tmem_address(lane, col)
    imm = f"the address immediate {value} = lane +{lane}, column +{col} (imm >> 16, imm & 0xFFFF)"
    if ins.taddr is None:
        # An immediate of 0 (``[%r2]``, ``[%r2 + 0]``) changes nothing: only the frame is worth saying.
        return f"lanes and columns are relative to the base register {base}" + (
            f"; {imm} is applied" if value else ""
        )
    if not value:
        return f"--taddr is the value of {base} (lane {ins.taddr[0]}, column {ins.taddr[1]})"
    return (
        f"--taddr is the value of {base} (lane {ins.taddr[0]}, column {ins.taddr[1]}); {imm} is added, "
        f"so the access starts at lane {ins.origin[0]}, column {ins.origin[1]}"
    )


# Records: what --format json / csv print.


def layout_header(ins: Instruction) -> dict[str, Any]:
    """The JSON fields of a layout before its cells (and, for tcgen05.ld.red, every thread's redval)."""
    record: dict[str, Any] = {
        "instruction": ins.mnemonic,
        "op": ins.op,
        "shape": ins.shape.name,
        "num": ins.num,
        "pack": ins.pack,
        "split_offset": ins.split_offset,
        "registers_per_thread": ins.registers_per_thread,
        "coordinates": "relative" if ins.taddr is None else "absolute",
        "taddr": None if ins.taddr is None else {"lane": ins.taddr[0], "col": ins.taddr[1]},
        "warp": ins.warp,
    }
    if ins.base is not None or ins.offset != (0, 0):
        record["base"] = ins.base
        record["offset"] = {"lane": ins.offset[0], "col": ins.offset[1]}
    if ins.red is not None:
        record["red"] = {"op": ins.red.op, "type": ins.red.type, "abs": ins.red.abs, "nan": ins.red.nan}
        record["redval"] = [redval_record(r) for r in reductions(ins)]
    return record


def redval_record(r: Reduced) -> dict[str, Any]:
    return {"thread": r.thread, "lane": r.lane, "cols": list(r.cols)}


def cell_records(ins: Instruction, cells: tuple[Cell, ...]) -> list[dict[str, Any]]:
    """One dict per cell; ``half`` appears only when packed."""
    if ins.pack:
        return [
            {"thread": c.thread, "reg": c.reg, "half": c.half, "lane": c.lane, "col": c.col} for c in cells
        ]
    return [{"thread": c.thread, "reg": c.reg, "lane": c.lane, "col": c.col} for c in cells]


CSV_HEADER = ("thread", "reg", "half", "lane", "col")


def csv_rows(cells: tuple[Cell, ...]) -> list[tuple[Any, ...]]:
    """``thread,reg,half,lane,col``; ``half`` is empty for unpacked (whole 32-bit) cells."""
    return [(c.thread, c.reg, "" if c.half is None else c.half, c.lane, c.col) for c in cells]


def which_record(ins: Instruction, lane: int, col: int, owners: tuple[Owner, ...]) -> dict[str, Any]:
    """The answer to ``which`` with its question (lane, col) first, as where_record echoes thread, reg."""
    first = owners[0]
    record: dict[str, Any] = {"lane": lane, "col": col, "thread": first.thread, "reg": first.reg}
    record["half"] = first.half
    if ins.taddr is not None:
        record["warp"] = ins.warp
    if len(owners) > 1:
        record["owners"] = [o._asdict() for o in owners]
    if ins.red is not None:
        record["redval"] = [redval_record(reductions(ins)[o.thread]) for o in owners]
    return record


def where_record(ins: Instruction, thread: int, reg: int, found: tuple[Cell, ...]) -> dict[str, Any]:
    spots = [
        {"lane": c.lane, "col": c.col} if c.half is None else {"half": c.half, "lane": c.lane, "col": c.col}
        for c in found
    ]
    record: dict[str, Any] = {"thread": thread, "reg": reg, "cells": spots}
    if ins.taddr is not None:
        record["warp"] = ins.warp
    if ins.red is not None:
        record["redval"] = [redval_record(reductions(ins)[thread])]
    return record


def shapes_records(shapes: tuple[Shape, ...]) -> list[dict[str, Any]]:
    """One entry per shape: its names, geometry and the Table 49 row (None where NA)."""
    return [
        {
            "shape": s.name,
            "ptx_name": s.ptx_name,
            "aliases": list(s.aliases),
            "lanes": s.lanes,
            "bits_per_rep": s.bits_per_rep,
            "columns_per_rep": s.columns_per_rep,
            "registers_per_rep": s.registers_per_rep,
            "split": s.split,
            "ptx_figure": s.ptx_figure,
            "registers": {f"x{n}": (s.registers_per_rep * n if n <= s.max_num else None) for n in NUMS},
        }
        for s in shapes
    ]
