"""The control bits of a Volta-and-later SASS instruction: which scoreboard it sets, which it waits on.

nvdisasm prints no scoreboards; ``nvdisasm -hex`` and ``cuobjdump -sass`` print each 128-bit instruction
as two 64-bit words, and the control field sits in the high word's top 23 bits (bits 41-63): stall 4
bits, yield 1, write barrier 3, read barrier 3, wait mask 6, reuse 4. The layout is third-party (Jia et
al., "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking", 2018), validated on Blackwell
on pairs whose dependency is certain (an ``LDTM`` setting write barrier 1, the first instruction
consuming its registers waiting on {1}). A barrier number 7 means none. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from tmemviz.sass.line import SassLine

NONE = 7
"""The barrier field's value for "no scoreboard"."""
_BOARD = re.compile(r"^SB(\d)$")
_COUNT = re.compile(r"^(?:0x[0-9a-fA-F]+|\d+)$")


class Control(NamedTuple):
    stall: int
    write: int
    """The scoreboard this instruction's result sets (:data:`NONE`: none)."""
    read: int
    """The scoreboard released when its source registers have been read (:data:`NONE`: none)."""
    wait: int
    """The scoreboards it waits on before it issues, a bit per scoreboard 0-5."""


def control(high: int) -> Control:
    """The control field of an instruction's high 64-bit word.

    >>> control(0x000EA200082C0000)  # LDTM.x32 R4, tmem[UR4]: sets scoreboard 2, waits on none
    Control(stall=1, write=2, read=7, wait=0)
    >>> control(0x001FC8000F8010FF).wait  # waits on scoreboard 0
    1
    """
    bits = high >> 41
    return Control(bits & 0xF, (bits >> 5) & 7, (bits >> 8) & 7, (bits >> 11) & 0x3F)


def drained(sass: SassLine) -> int | None:
    """The scoreboard a ``DEPBAR.LE SBn, 0x0`` waits to empty (None for any other instruction, and for
    a count above 0, which waits for only some of the scoreboard's work, or a list of more scoreboards,
    not read, so not counted).

    >>> from tmemviz.sass.line import parse_sass
    >>> [drained(parse_sass(t)) for t in ("/*0c0*/ DEPBAR.LE SB0, 0x0 ; /* 0x0 */", "DEPBAR.LE SB1, 0x2 ;",
    ...                                  "DEPBAR.LE SB0, 0x0, {4,3} ;", "NOP ;")]
    [0, None, None, None]
    """
    if sass.opcode != "DEPBAR" or sass.modifiers != ("LE",) or len(sass.operands) != 2:
        return None
    board, count = sass.operands
    m = _BOARD.match(board)
    return int(m.group(1)) if m and _COUNT.match(count) and int(count, 0) == 0 else None
