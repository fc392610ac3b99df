"""Pure layout functions for tcgen05.shift: which 32-byte element moves to which lane.

PTX 9.7.16.9.3: ``tcgen05.shift.cta_group.down [taddr]`` shifts the 32-byte elements
of all rows but the last down by one row, in the matrix at taddr, for a warp; taddr's
lane must be aligned to 32; ``.cta_group::2`` does so in this CTA's and the peer CTA's
Tensor Memory. With the implicit shape ``.31x256b`` (``layouts/shift/``), the matrix is
the 32 lanes from taddr's lane, and row ``i`` (lane ``L+i``, ``i`` = 0..30) moves to lane
``L+i+1``, keeping its 8 columns.

What the text leaves open, tmemviz says wherever it shows a shift (:meth:`Shift.notes`):
what lane ``L`` holds afterwards, and which 8 columns move (read as the 8 at taddr's column).

Nothing here prints or reads files.

>>> from tmemviz.families.shift.shapes import builtin
>>> s = make_shift(builtin(), 1, base=(32, 8))
>>> s.mnemonic, len(moves(s)), moves(s)[0]
('tcgen05.shift.cta_group::1.down', 31, Move(cta=0, from_lane=32, to_lane=33, col=8, cols=8))
>>> held_after(s, 32), held_after(s, 63)
(None, 62)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from tmemviz.errors import TmemvizError
from tmemviz.families.shift.shapes import ShiftShape
from tmemviz.tmem import TMEM_COLUMNS, TMEM_LANES, address, check_inside, lane_col

CTA_GROUPS = (1, 2)

FIRST_ROW_NOTE = (
    "the PTX text does not say what the first row (lane {lane}) holds after the shift; "
    "tmemviz shows it as unspecified"
)
COLUMNS_NOTE = (
    "the PTX text names 32-byte elements but not their columns; tmemviz reads them as the {cols} "
    "columns at taddr's column ({first}..{last}) and the text states no column alignment"
)
PEER_NOTE = (
    ".cta_group::2 shifts the Tensor Memory of this CTA and the peer CTA; the text does not name the "
    "peer's lanes, and tmemviz shows the same lanes and columns there"
)
DOWN_NOTE = (
    "'down' is read as toward higher lanes (row i to row i+1), as PTX's TMEM figures draw lane 0 on top"
)


@dataclass(frozen=True)
class Address:
    """The operand ``[register+imm]`` (``register`` None: ``[imm]``, an absolute address).

    The immediate adds lane ``imm >> 16`` and column ``imm & 0xFFFF`` to the register's
    address: a 32-bit add of TMEM addresses (PTX 9.7.16.2 puts the lane in bits 31:16).
    """

    register: str | None = "taddr"
    immediate: int = 0

    @property
    def absolute(self) -> bool:
        return self.register is None

    @property
    def offset(self) -> tuple[int, int]:
        """(lanes, columns) a non-negative immediate adds to the register's address.

        >>> Address("%r2", 0x200008).offset
        (32, 8)
        """
        return lane_col(self.immediate)

    def plus(self, base: tuple[int, int]) -> tuple[int, int]:
        """The (lane, column) of ``base`` + the immediate, added as 32-bit addresses.

        >>> Address("%r2", -4).plus((32, 8)), Address("%r2", 0xFFF8).plus((32, 8))
        ((32, 4), (33, 0))
        """
        return lane_col(address(*base) + self.immediate)

    @property
    def name(self) -> str:
        """What the operand is called in sentences: the register, or ``the address``."""
        return self.register or "the address"

    def operand(self, register: str | None = None) -> str:
        """``%r0+2097160`` (ptxas's own spelling of ``[reg+imm]``), the register, or ``[imm]``'s value.

        An absolute address given a ``register`` becomes that register (which must hold it):
        ptxas 13.0 crashes on tcgen05.shift with ``[imm]`` in a plain kernel.
        """
        if self.register is None:
            return register or str(self.immediate)
        reg = register or self.register
        return f"{reg}+{self.immediate}" if self.immediate else reg


class Move(NamedTuple):
    """The element of ``cols`` columns from ``col`` moves from ``from_lane`` to ``to_lane`` of CTA ``cta``."""

    cta: int
    from_lane: int
    to_lane: int
    col: int
    cols: int


@dataclass(frozen=True)
class Shift:
    """A fully specified, validated tcgen05.shift."""

    shape: ShiftShape
    cta_group: int
    address: Address
    base: tuple[int, int] | None
    """The register's (lane, column) from ``--taddr``; None means coordinates relative to the register."""

    @property
    def mnemonic(self) -> str:
        """The PTX syntax line's qualifier order (the seed's example order means the same)."""
        return f"tcgen05.shift.cta_group::{self.cta_group}.down"

    def statement(self, register: str | None = None) -> str:
        """A complete PTX statement, e.g. ``tcgen05.shift.cta_group::1.down [%r0];``."""
        return f"{self.mnemonic} [{self.address.operand(register)}];"

    @property
    def taddr(self) -> tuple[int, int]:
        """The (lane, column) the instruction addresses: register plus immediate."""
        return self.address.plus(self.base if self.base is not None else (0, 0))

    @property
    def relative(self) -> bool:
        """Coordinates relative to the register: no ``--taddr`` and a register in the operand."""
        return self.base is None and not self.address.absolute

    @property
    def ctas(self) -> range:
        return range(self.cta_group)

    @property
    def lanes(self) -> tuple[int, int]:
        """The matrix's first and last lane."""
        lane = self.taddr[0]
        return lane, lane + self.shape.lanes - 1

    @property
    def columns(self) -> tuple[int, int]:
        """The first and last column that moves."""
        col = self.taddr[1]
        return col, col + self.shape.cols - 1

    def notes(self) -> tuple[str, ...]:
        """Every line where this picture rests on something other than the PTX text, or adds to it."""
        first, last = self.columns
        out = [
            FIRST_ROW_NOTE.format(lane=self.lanes[0]),
            COLUMNS_NOTE.format(cols=self.shape.cols, first=first, last=last),
            DOWN_NOTE,
        ]
        if self.cta_group == 2:
            out.append(PEER_NOTE)
        imm = self.address.immediate
        if imm and not self.address.absolute:
            dl, dc = self.address.offset
            out.append(
                f"the address immediate {imm} ({imm & 0xFFFFFFFF:#x}) adds lane {dl} (imm >> 16) and "
                f"column {dc} (imm & 0xFFFF) to {self.address.register}, as a 32-bit add"
            )
        if self.address.absolute:
            out.append(
                f"the operand [{imm}] is an absolute TMEM address (lane {imm >> 16}, column {imm & 0xFFFF}); "
                "ptxas 13.0 crashes (segmentation fault) on tcgen05.shift with [imm] in a plain kernel, "
                "so put the address in a register"
            )
        if self.relative:
            out.append(self.relative_note())
        return tuple(out)

    def relative_note(self) -> str:
        reg = self.address.name
        align = self.shape.lane_alignment
        dl = self.address.offset[0]
        text = f"lanes and columns are relative to {reg} (give --taddr LANE,COL for absolute ones)"
        if dl % align:
            text += f"; {reg}'s lane + {dl} must be a multiple of {align}"
        return text


def make_shift(
    shape: ShiftShape,
    cta_group: int = 1,
    address: Address | None = None,
    base: tuple[int, int] | None = None,
) -> Shift:
    """Validate the CTA group and the address against PTX 9.7.16.9.3.

    >>> from tmemviz.families.shift.shapes import builtin
    >>> make_shift(builtin(), base=(40, 0))
    Traceback (most recent call last):
    ...
    tmemviz.errors.TmemvizError: taddr lane 40 is not a multiple of 32: tcgen05.shift needs taddr's lane \
aligned to 32 (PTX 9.7.16.9.3), e.g. lane 32 or 64
    """
    if cta_group not in CTA_GROUPS:
        raise TmemvizError(f"the CTA group must be 1 or 2 (.cta_group::1 / .cta_group::2), got {cta_group}")
    shift = Shift(shape, cta_group, address or Address(), base)
    imm = shift.address.immediate
    if shift.address.absolute:
        if base is not None:
            raise TmemvizError(
                f"the operand [{imm}] is an absolute address with no register, so --taddr (a register's "
                "value) does not apply; leave it out or write [reg+imm]"
            )
        _check_taddr(shift)
    elif base is not None:
        check_inside(*base)
        _check_taddr(shift)
    else:
        dl, dc = shift.address.offset
        if imm < 0 or dl >= TMEM_LANES or dc + shape.cols > TMEM_COLUMNS:
            raise TmemvizError(
                f"the address immediate {imm} is negative or reaches past lane {TMEM_LANES - 1} or column "
                f"{TMEM_COLUMNS - shift.shape.cols} on its own, so it cannot be shown relative to "
                f"{shift.address.register}; give --taddr LANE,COL ({shift.address.register}'s value)"
            )
    return shift


def _check_taddr(shift: Shift) -> None:
    lane, col = shift.taddr
    how = ""
    if shift.address.immediate and shift.base is not None and lane != shift.base[0]:
        how = f" ({shift.address.register} lane {shift.base[0]} + {lane - shift.base[0]})"
    check_inside(lane, col)
    align = shift.shape.lane_alignment
    if lane % align:
        below = lane - lane % align
        options = f"lane {below} or {below + align}" if below + align < TMEM_LANES else f"lane {below}"
        raise TmemvizError(
            f"taddr lane {lane}{how} is not a multiple of {align}: tcgen05.shift needs taddr's lane "
            f"aligned to {align} (PTX 9.7.16.9.3), e.g. {options}"
        )
    if col + shift.shape.cols > TMEM_COLUMNS:
        raise TmemvizError(
            f"the shift moves {shift.shape.cols} columns from taddr's column, so it must be "
            f"0..{TMEM_COLUMNS - shift.shape.cols}, got {col}"
        )


def moves(shift: Shift) -> tuple[Move, ...]:
    """Every element that moves, by CTA then lane: row ``i`` of the matrix goes to row ``i + step``."""
    lane0, col = shift.taddr
    step, cols = shift.shape.step, shift.shape.cols
    return tuple(
        Move(cta, lane0 + i, lane0 + i + step, col, cols)
        for cta in shift.ctas
        for i in range(shift.shape.rows)
    )


def _row(shift: Shift, lane: int, cta: int) -> int:
    """``lane``'s row in the matrix; a lane or CTA the shift does not touch is an error."""
    if cta not in shift.ctas:
        peer = "; cta 1 (the peer) is shifted only with .cta_group::2" if cta == 1 else ""
        raise TmemvizError(f"cta must be 0..{shift.cta_group - 1} for {shift.mnemonic}, got {cta}{peer}")
    first, last = shift.lanes
    if not first <= lane <= last:
        raise TmemvizError(f"lane {lane} is outside the shifted matrix, lanes {first}..{last}")
    return lane - first


def held_after(shift: Shift, lane: int, cta: int = 0) -> int | None:
    """The lane whose element ``lane`` holds after the shift; None for the first rows (unspecified)."""
    row = _row(shift, lane, cta)
    return None if row < shift.shape.step else lane - shift.shape.step


def goes_to(shift: Shift, lane: int, cta: int = 0) -> int | None:
    """The lane ``lane``'s element moves to; None for the last rows (not moved, overwritten)."""
    row = _row(shift, lane, cta)
    return lane + shift.shape.step if row < shift.shape.rows else None
