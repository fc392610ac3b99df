"""The Tensor Memory address of a SASS operand ``tmem[URn+imm]``: what the folded immediate adds.

ptxas folds the ``add`` of a PTX address into the operand's immediate, as a 32-bit sum with the base
register (lane in bits 31:16, column in bits 15:0, PTX 9.7.16.2): ``add.s32 %r, %t, -128`` becomes
``tmem[UR4+-0x80]``, ``%t + 65408`` becomes ``tmem[UR4+0xff80]``. Read as lane and column alone, such an
immediate says column 65408; but Tensor Memory has 512 columns, and a sum that lands on one from a base
that is on one can only have moved the column by less than 512 either way: -0x80 takes 128 columns off
(a base column under 128 would borrow from the lane and leave a column of 65408 or more, no column at
all), 0xff80 adds a lane and takes 128 columns off. :func:`relative` says so, exactly, for every
immediate that some valid base turns into a valid address, and refuses the others. Pure: no I/O.
"""

from __future__ import annotations

from tmemviz.errors import TmemvizError

COLUMNS = 512
"""Tensor Memory columns (sm_100/sm_103: 512 columns of 128 lanes, PTX 9.7.16.2)."""


def relative(imm: int) -> tuple[int, int]:
    """(lanes, columns) the immediate adds to any base address that is in Tensor Memory, when the sum
    is in Tensor Memory too; either may be negative.

    >>> relative(0x10008), relative(-0x80), relative(0xFF80), relative(-0x100000), relative(-4)
    ((1, 8), (0, -128), (1, -128), (-16, 0), (0, -4))
    >>> relative(0x8000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tmemviz.errors.TmemvizError: the address immediate 0x8000 moves the column by 32768 (mod 65536): ...
    """
    u = imm & 0xFFFFFFFF
    col = u & 0xFFFF
    if col < COLUMNS:
        moved = col
    elif col > 0x10000 - COLUMNS:
        moved = col - 0x10000  # the sum carries into the lane, or borrows from it
    else:
        raise TmemvizError(
            f"the address immediate {_hex(imm)} moves the column by {col} (mod 65536): no base column in "
            f"0..{COLUMNS - 1} lands on a column in 0..{COLUMNS - 1} (PTX 9.7.16.2)"
        )
    lane = ((u - moved) >> 16) & 0xFFFF
    return (lane - 0x10000 if lane >= 0x8000 else lane), moved


def _hex(imm: int) -> str:
    return f"-0x{-imm:x}" if imm < 0 else f"0x{imm:x}"


def split(lane: int, col: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """(lanes, columns) as a part a PTX address immediate can say (none negative) and the rest.

    >>> split(1, -128), split(0, 8)
    (((1, 0), (0, -128)), ((0, 8), (0, 0)))
    """
    said = (max(lane, 0), max(col, 0))
    return said, (lane - said[0], col - said[1])
