"""Machine-readable views: JSON and CSV of a layout, JSON of the shape table."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from tmemviz.catalog import NUMS, Catalog
from tmemviz.mapper import Cell, Instruction


def layout_record(ins: Instruction, cells: tuple[Cell, ...]) -> dict[str, Any]:
    """The JSON document of a layout; ``half`` appears on cells only when packed."""
    if ins.pack:
        rows = [
            {"thread": c.thread, "reg": c.reg, "half": c.half, "lane": c.lane, "col": c.col} for c in cells
        ]
    else:
        rows = [{"thread": c.thread, "reg": c.reg, "lane": c.lane, "col": c.col} for c in cells]
    return {
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
        "cells": rows,
    }


def layout_json(ins: Instruction, cells: tuple[Cell, ...]) -> str:
    """The layout record as JSON, one cell per line so it stays greppable and diffable."""
    record = layout_record(ins, cells)
    rows = record.pop("cells")
    head = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in record.items()]
    body = ",\n".join(f"  {json.dumps(r)}" for r in rows)
    return "{\n" + "\n".join(head) + '\n "cells": [\n' + body + "\n ]\n}\n"


def layout_csv(cells: tuple[Cell, ...]) -> str:
    """``thread,reg,half,lane,col``; ``half`` is empty for unpacked (whole 32-bit) cells."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("thread", "reg", "half", "lane", "col"))
    writer.writerows((c.thread, c.reg, "" if c.half is None else c.half, c.lane, c.col) for c in cells)
    return out.getvalue()


def shapes_record(catalog: Catalog) -> list[dict[str, Any]]:
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
        for s in catalog.shapes
    ]
