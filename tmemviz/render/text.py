"""One-sentence answers for ``which`` and ``where``."""

from __future__ import annotations

from tmemviz.mapper import Cell, Instruction, Owner

HALF_BITS = {0: "bits 15:0", 1: "bits 31:16"}


def context(ins: Instruction) -> str:
    """``16x256b.x4``, plus the split offset and taddr when they matter."""
    parts = []
    if ins.split_offset is not None:
        parts.append(f"split offset {ins.split_offset}")
    if ins.taddr is not None:
        parts.append(f"taddr lane {ins.taddr[0]}, column {ins.taddr[1]}, warp {ins.warp}")
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
    return f"lane {lane}, column {col} of {context(ins)} {verb} {who}"


def where_sentence(ins: Instruction, thread: int, reg: int, cells: tuple[Cell, ...]) -> str:
    """E.g. ``thread 5, register r4 of 16x256b.x4 is loaded from lane 1, column 10``."""
    verb = "is loaded from" if ins.op == "ld" else "is stored to"
    spots = " and ".join(
        f"lane {c.lane}, column {c.col}" + (f" ({HALF_BITS[c.half]})" if c.half is not None else "")
        for c in cells
    )
    return f"thread {thread}, register r{reg} of {context(ins)} {verb} {spots}"
