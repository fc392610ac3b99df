"""An independent oracle for tcgen05.ld / tcgen05.st register layouts.

Written directly from the verified facts file (section "tcgen05.ld / tcgen05.st
register layouts"): the per-shape x1 formulas, the ``.num`` repetition rule, the
``.pack::16b`` / ``.unpack::16b`` rule and the ``.16x32bx2`` split-offset rule.
It deliberately uses nothing from tmemviz (no shape files, no mapper), so the
two implementations can only agree if both follow the facts.

Coordinates are relative to taddr: ``lane`` = TMEM lane offset, ``col`` =
32-bit column offset. A cell is ``(thread, reg, half, lane, col)`` with ``half``
None for an unpacked instruction, else 0 (register bits 15:0) or 1 (bits 31:16).

>>> oracle_cells("16x256b", 4, False)[5 * 16 + 15]
(5, 15, None, 9, 27)
"""

from __future__ import annotations

from typing import NamedTuple

OracleCell = tuple[int, int, int | None, int, int]

THREADS = 32
"""Threads of a warp; t = lane id of the thread in its warp (facts: 0..31)."""

NUMS = (1, 2, 4, 8, 16, 32, 64, 128)
"""The .num qualifiers .x1 .. .x128 (PTX 9.7.16.8.3 syntax)."""

TMEM_LANES = 128
TMEM_COLUMNS = 512
"""Facts, "Tensor Memory": per CTA 128 lanes x 512 columns of 32 bits."""

WARP_LANES = 32
"""Facts, "Tensor Memory": warp w = warp_id % 4 may touch lanes 32w .. 32w+31 (seed 000)."""


class FactShape(NamedTuple):
    """One row of the facts table: lanes, W (columns per repetition), R (registers per repetition)."""

    lanes: int
    width: int
    regs: int
    max_num: int
    split: bool


# Facts table "per shape: W, R" plus "`.16x128b` stops at x64, `.16x256b` at x32, the others at x128".
SHAPES: dict[str, FactShape] = {
    "32x32b": FactShape(lanes=32, width=1, regs=1, max_num=128, split=False),
    "16x64b": FactShape(lanes=16, width=2, regs=1, max_num=128, split=False),
    "16x128b": FactShape(lanes=16, width=4, regs=2, max_num=64, split=False),
    "16x256b": FactShape(lanes=16, width=8, regs=4, max_num=32, split=False),
    "16x32bx2": FactShape(lanes=16, width=1, regs=1, max_num=128, split=True),
}


def combinations() -> list[tuple[str, int, bool]]:
    """Every legal (shape, num, pack): 5 shapes x legal .num x {unpacked, packed} = 74."""
    return [
        (name, num, pack)
        for name, fact in SHAPES.items()
        for num in NUMS
        if num <= fact.max_num
        for pack in (False, True)
    ]


def x1_mapping(shape_name: str, t: int) -> list[tuple[int, int, int, int]]:
    """The x1 mapping for thread ``t`` as (reg, access, lane, col); facts table, last column."""
    if shape_name == "32x32b":
        # r0 -> (lane t, col 0)
        return [(0, 0, t, 0)]
    if shape_name == "16x64b":
        # r0 -> (lane (t>>2) + 8*(t&1), col (t>>1)&1)
        return [(0, 0, (t >> 2) + 8 * (t & 1), (t >> 1) & 1)]
    if shape_name == "16x128b":
        # r0 -> (t>>2, t&3); r1 -> ((t>>2)+8, t&3)
        return [(0, 0, t >> 2, t & 3), (1, 0, (t >> 2) + 8, t & 3)]
    if shape_name == "16x256b":
        # r0 -> (t>>2, 2(t&3)); r1 -> (t>>2, 2(t&3)+1); r2 -> ((t>>2)+8, 2(t&3)); r3 -> ((t>>2)+8, 2(t&3)+1)
        return [
            (0, 0, t >> 2, 2 * (t & 3)),
            (1, 0, t >> 2, 2 * (t & 3) + 1),
            (2, 0, (t >> 2) + 8, 2 * (t & 3)),
            (3, 0, (t >> 2) + 8, 2 * (t & 3) + 1),
        ]
    if shape_name == "16x32bx2":
        # t<16: r0 -> (lane t, col 0); t>=16: r0 -> (lane t-16, col S) -- the second access.
        return [(0, 0, t, 0)] if t < 16 else [(0, 1, t - 16, 0)]
    raise KeyError(shape_name)


def default_split_offset(num: int, pack: bool) -> int:
    """CuTe's S: the halves side by side, N columns apart (2N packed) -- facts, .16x32bx2 and pack bullets."""
    return 2 * num if pack else num


def access_width(shape_name: str, num: int, pack: bool) -> int:
    """Columns one access spans: N x W, doubled by packing (facts, .pack::16b bullet)."""
    return num * SHAPES[shape_name].width * (2 if pack else 1)


def oracle_cells(shape_name: str, num: int, pack: bool, split_offset: int | None = None) -> list[OracleCell]:
    """Every (thread, reg, half, lane, col) the instruction moves, sorted.

    * ``.num = xN`` (facts): repetition k uses registers k*R .. k*R+R-1, mapped
      like x1 but k*W columns further right.
    * ``.16x32bx2`` (facts): threads 16-31 use the second access at
      ``taddr + immHalfSplitoff``; S defaults to N (2N packed).
    * ``.pack::16b`` (facts): every column c becomes the pair 2c (bits 15:0,
      half 0) and 2c+1 (bits 31:16, half 1); the split offset is added after.
    """
    fact = SHAPES[shape_name]
    if num not in NUMS or num > fact.max_num:
        raise ValueError(f"{shape_name} has no .x{num}")
    if fact.split:
        s = default_split_offset(num, pack) if split_offset is None else split_offset
    elif split_offset is not None:
        raise ValueError(f"{shape_name} takes no split offset")
    else:
        s = 0
    out: list[OracleCell] = []
    for t in range(THREADS):
        for r, access, lane, c in x1_mapping(shape_name, t):
            base = s if access == 1 else 0
            for k in range(num):
                reg = k * fact.regs + r
                col = k * fact.width + c
                if pack:
                    out.append((t, reg, 0, lane, base + 2 * col))
                    out.append((t, reg, 1, lane, base + 2 * col + 1))
                else:
                    out.append((t, reg, None, lane, base + col))
    out.sort(key=lambda cell: (cell[0], cell[1], -1 if cell[2] is None else cell[2]))
    return out


def shifted(cells: list[OracleCell], lane0: int, col0: int) -> list[OracleCell]:
    """The same cells at absolute coordinates: relative ones plus taddr (lane0, col0)."""
    return [(t, r, h, lane + lane0, col + col0) for t, r, h, lane, col in cells]


def placement_ok(shape_name: str, lane: int, warp: int) -> bool:
    """Facts "Access restrictions": the access's lanes lie inside warp (warp % 4)'s 32-lane band."""
    band = WARP_LANES * (warp % 4)
    return band <= lane and lane + SHAPES[shape_name].lanes - 1 <= band + WARP_LANES - 1
