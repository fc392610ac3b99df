"""One-sentence answers for ``which`` and ``where`` (ld/st) and for ``cp --row`` / ``cp --lane``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tmemviz.mapper import Cell, Instruction, Owner

if TYPE_CHECKING:
    from tmemviz.mapper_cp import Copy, Landing

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


def lane_list(lanes: list[int]) -> str:
    """``lane 72`` / ``lanes 72 and 104`` / ``lanes 8, 40, 72 and 104``."""
    if len(lanes) == 1:
        return f"lane {lanes[0]}"
    return "lanes " + ", ".join(map(str, lanes[:-1])) + f" and {lanes[-1]}"


def cta_phrase(cp: Copy, ctas: set[int]) -> str:
    if cp.cta_group == 1:
        return ""
    return " of this CTA and of the peer CTA (cta 0 and 1)" if ctas == {0, 1} else f" of cta {min(ctas)}"


def row_sentence(cp: Copy, row: int, word: int | None, landings: tuple[Landing, ...]) -> str:
    """E.g. ``row 40 of 64x128b.warpx2::01_23 lands in lanes 72 and 104, columns 0..3 (words 0..3)``."""
    lanes = sorted({x.lane for x in landings})
    cols = sorted({x.col for x in landings})
    ctas = {x.cta for x in landings}
    where = f"{lane_list(lanes)}{cta_phrase(cp, ctas)}"
    if word is not None:
        what = f"word {word} of row {row}"
        spot = f"column {cols[0]}"
    else:
        what = f"row {row}"
        spot = f"columns {cols[0]}..{cols[-1]} (words 0..{len(cols) - 1} in order)"
    return f"{what} of {copy_context(cp)} lands in {where}, {spot}{bits_phrase(cp, word)}"


def source_sentence(cp: Copy, found: Landing) -> str:
    """E.g. ``lane 104, column 3 of ... receives word 3 of source row 40``."""
    cta = f" of cta {found.cta}" if cp.cta_group == 2 else ""
    return (
        f"lane {found.lane}, column {found.col}{cta} of {copy_context(cp)} receives word {found.word} "
        f"of source row {found.row}{bits_phrase(cp, found.word)}"
    )


def bits_phrase(cp: Copy, word: int | None) -> str:
    """With decompression, which packed elements and source bits fill the widened word."""
    if cp.decompress is None or word is None:
        return ""
    from tmemviz.mapper_cp import source_bits

    hi, lo = source_bits(cp, word)
    first = 4 * (word % 4)
    return (
        f" (widened elements {first}..{first + 3} of 16-byte chunk {word // 4}, "
        f"from source row bits {hi}:{lo})"
    )


def copy_context(cp: Copy) -> str:
    """``64x128b.warpx2::01_23``, with the CTA group and taddr when they matter."""
    parts = []
    if cp.cta_group == 2:
        parts.append(".cta_group::2")
    if cp.taddr is not None:
        parts.append(f"taddr lane {cp.taddr[0]}, column {cp.taddr[1]}")
    extra = f" ({'; '.join(parts)})" if parts else ""
    return f"{cp.qualifiers}{extra}"
