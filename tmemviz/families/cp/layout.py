"""Pure layout functions for tcgen05.cp: where each source row and word lands in TMEM.

General rules (PTX 9.7.16.9.2), applied to every shape of ``layouts/cp/``:

* word ``w`` (32 bits) of a source row lands in column ``w`` of each lane the
  row's placement names, relative to taddr;
* ``.cta_group::2`` writes the same lanes and columns in the peer CTA's TMEM
  too (``cta`` 1); ``.cta_group::1`` only in this CTA (``cta`` 0);
* decompression (``.b8x16.b4x16_p64`` / ``.b8x16.b6x16_p32``) keeps the row
  size, because each 16-byte source chunk (packed elements plus padding)
  becomes 16 bytes of containers; word ``w`` then counts words of the widened
  row and its elements come from other source bits (:func:`source_bits`).

Nothing here prints or reads files.

>>> from tmemviz.families.cp.shapes import builtin
>>> cp = make_copy(builtin("64x128b"), "warpx2::01_23")
>>> cp.mnemonic
'tcgen05.cp.cta_group::1.64x128b.warpx2::01_23'
>>> sorted({(x.lane, x.col) for x in row_landings(cp, 40) if x.word == 0})
[(72, 0), (104, 0)]
>>> source_of(cp, 104, 3)
Landing(row=40, word=3, cta=0, lane=104, col=3)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from tmemviz.errors import TmemvizError
from tmemviz.families.cp.decompress import CHUNK_BYTES, Format, get_format
from tmemviz.families.cp.shapes import MULTICASTS, CopyShape, Placement
from tmemviz.tmem import TMEM_COLUMNS, TMEM_LANES, check_inside, merge_ranges
from tmemviz.tmem import address as tmem_address

CTA_GROUPS = (1, 2)
DECOMPRESS_SHAPES_NOTE = (
    "the PTX text does not say which cp shapes take decompression; ptxas (CUDA 13) accepts it on all of them"
)


class Landing(NamedTuple):
    """Word ``word`` of source row ``row`` lands in (``cta``, ``lane``, ``col``) of TMEM."""

    row: int
    word: int
    cta: int
    lane: int
    col: int


@dataclass(frozen=True)
class Copy:
    """A fully specified, validated tcgen05.cp."""

    shape: CopyShape
    placement: Placement
    cta_group: int
    decompress: Format | None
    taddr: tuple[int, int] | None
    """Absolute (lane, column) of taddr; None means coordinates are taddr-relative."""
    offset: tuple[int, int] = (0, 0)
    """The address immediate of ``[base + imm]`` as (lane, column): imm >> 16, imm & 0xFFFF (PTX 9.7.16.2)."""
    base: str | None = None
    """The base register when a PTX line names it; coordinates are relative to it without a taddr."""

    @property
    def multicast(self) -> str | None:
        return self.placement.multicast

    @property
    def qualifiers(self) -> str:
        """``64x128b.warpx2::01_23.b8x16.b4x16_p64``: the part that names the layout."""
        text = self.shape.name
        if self.multicast:
            text += f".{self.multicast}"
        if self.decompress:
            text += self.decompress.qualifiers
        return text

    @property
    def mnemonic(self) -> str:
        return f"tcgen05.cp.cta_group::{self.cta_group}.{self.qualifiers}"

    def statement(self, taddr_operand: str = "taddr", desc_operand: str = "sdesc") -> str:
        """A complete PTX statement (what ptxas would assemble)."""
        imm = tmem_address(*self.offset)
        address = f"{taddr_operand} + {imm}" if imm else taddr_operand
        return f"{self.mnemonic} [{address}], {desc_operand};"

    @cached_property  # asked for each byte a map or a lookup places
    def origin(self) -> tuple[int, int]:
        """taddr (or the base register, as 0,0) plus the address immediate."""
        lane, col = self.taddr if self.taddr is not None else (0, 0)
        return lane + self.offset[0], col + self.offset[1]

    @property
    def replicas(self) -> int:
        """Landings of every source word: multicast replicas times CTAs."""
        return self.placement.replicas * self.cta_group

    @property
    def ctas(self) -> range:
        return range(self.cta_group)

    def notes(self) -> tuple[str, ...]:
        """Every line where this copy's picture rests on something other than the PTX text."""
        out: list[str] = []
        if self.shape.basis:
            out.append(self.shape.basis)
        if self.decompress:
            out.append(DECOMPRESS_SHAPES_NOTE)
        if self.base is not None or self.offset != (0, 0):
            lane, col = self.offset
            imm = f"the address immediate {tmem_address(lane, col)} = lane +{lane}, column +{col}"
            where = (
                f"relative to the base register {self.base or 'taddr'}"
                if self.taddr is None
                else f"absolute: --taddr is the value of {self.base or 'taddr'}, and the immediate is added"
            )
            out.append(f"lanes and columns are {where}; {imm} (imm >> 16, imm & 0xFFFF) is applied")
        return tuple(out)

    def lane_span(self) -> tuple[int, int]:
        lo, hi = self.placement.lane_span()
        return self.origin[0] + lo, self.origin[0] + hi

    def column_span(self) -> tuple[int, int]:
        return self.origin[1], self.origin[1] + self.shape.words - 1


def make_copy(
    shape: CopyShape,
    multicast: str | None = None,
    cta_group: int = 1,
    decompress: str | None = None,
    taddr: tuple[int, int] | None = None,
    offset: tuple[int, int] = (0, 0),
    base: str | None = None,
) -> Copy:
    """Validate the qualifiers and operand against PTX 9.7.16.9.2 and the shape file.

    >>> from tmemviz.families.cp.shapes import builtin
    >>> make_copy(builtin("64x128b"))
    Traceback (most recent call last):
    ...
    tmemviz.errors.TmemvizError: .64x128b requires .warpx2::02_13 or .warpx2::01_23 (PTX 9.7.16.9.2)
    """
    key = _multicast_key(multicast)
    if key is not None and key not in MULTICASTS:
        known = ", ".join(m for m in MULTICASTS if m != "none")
        raise TmemvizError(f"unknown multicast '{multicast}'; tcgen05.cp has {known} (PTX 9.7.16.9.2)")
    placement = shape.placement(key)
    if placement is None:
        raise TmemvizError(_multicast_error(shape, multicast))
    if cta_group not in CTA_GROUPS:
        raise TmemvizError(f"the CTA group must be 1 or 2 (.cta_group::1 / .cta_group::2), got {cta_group}")
    fmt = get_format(decompress) if decompress is not None else None
    if fmt is not None and shape.row_bits % (8 * CHUNK_BYTES):
        raise TmemvizError(
            f"decompression works on {CHUNK_BYTES}-byte chunks, but rows of {shape.ptx_name} are "
            f"{shape.row_bits} bits"
        )
    cp = Copy(shape, placement, cta_group, fmt, taddr, offset, base)
    if taddr is not None or offset != (0, 0):
        _check_placement(cp, cp.origin)
    return cp


def _multicast_key(multicast: str | None) -> str | None:
    if multicast is None:
        return None
    key = multicast.strip().lower().lstrip(".")
    return None if key in ("", "none") else key


def _multicast_error(shape: CopyShape, multicast: str | None) -> str:
    """Why ``multicast`` does not fit ``shape``: what the shape requires or takes instead."""
    given = _multicast_key(multicast)
    takes = " or ".join(f".{m}" for m in shape.multicasts if m is not None)
    if None not in shape.multicasts:
        wrong = "" if given is None else f", not .{given}"
        return f"{shape.ptx_name} requires {takes}{wrong} (PTX 9.7.16.9.2)"
    if not takes:
        return f"{shape.ptx_name} takes no .multicast qualifier, got .{given} (PTX 9.7.16.9.2)"
    return f"{shape.ptx_name} takes no .multicast or {takes}, not .{given} (PTX 9.7.16.9.2)"


def _check_placement(cp: Copy, taddr: tuple[int, int]) -> None:
    lane, col = taddr
    check_inside(lane, col)
    # The PTX text states no alignment for tcgen05.cp's taddr; only that every landing fits.
    lo, hi = cp.placement.lane_span()
    if lane + hi >= TMEM_LANES:
        raise TmemvizError(
            f"{cp.qualifiers} writes lanes {lo}..{hi} relative to taddr, so the taddr lane must be "
            f"0..{TMEM_LANES - 1 - hi}, got {lane}"
        )
    if col + cp.shape.words > TMEM_COLUMNS:
        raise TmemvizError(
            f"{cp.qualifiers} writes {cp.shape.words} columns, so the taddr column must be "
            f"0..{TMEM_COLUMNS - cp.shape.words}, got {col}"
        )


def landings(cp: Copy) -> tuple[Landing, ...]:
    """Every (cta, lane, column) every source word lands in, ordered by row, word, cta, lane.

    >>> from tmemviz.families.cp.shapes import builtin
    >>> cp = make_copy(builtin("32x128b"), "warpx4", cta_group=2)
    >>> len(landings(cp)) == 32 * 4 * 4 * 2
    True
    """
    out: list[Landing] = []
    for row in range(cp.shape.rows):
        out.extend(row_landings(cp, row))
    return tuple(out)


def row_landings(cp: Copy, row: int, word: int | None = None) -> tuple[Landing, ...]:
    """Where source row ``row`` (or just its word ``word``) lands, ordered by word, cta, lane."""
    if not 0 <= row < cp.shape.rows:
        raise TmemvizError(
            f"row {row} does not exist: {cp.shape.ptx_name} copies rows 0..{cp.shape.rows - 1}"
        )
    words = range(cp.shape.words)
    if word is not None:
        if word not in words:
            raise TmemvizError(
                f"word {word} does not exist: rows of {cp.shape.ptx_name} have 32-bit words "
                f"0..{cp.shape.words - 1}"
            )
        words = range(word, word + 1)
    lane0, col0 = cp.origin
    block = cp.placement.blocks[cp.placement.block_of(row)]
    lanes = sorted(lane0 + lane for lane in block.lanes_of(row))
    return tuple(Landing(row, w, cta, lane, col0 + w) for w in words for cta in cp.ctas for lane in lanes)


def source_of(cp: Copy, lane: int, col: int, cta: int = 0) -> Landing:
    """Which source row and word TMEM (cta, lane, col) receives.

    >>> from tmemviz.families.cp.shapes import builtin
    >>> cp = make_copy(builtin("128x256b"), taddr=(0, 32))
    >>> source_of(cp, 70, 37)
    Landing(row=70, word=5, cta=0, lane=70, col=37)
    """
    if cta not in cp.ctas:
        peer = "; cta 1 (the peer) is written only with .cta_group::2" if cta == 1 else ""
        raise TmemvizError(f"cta must be 0..{cp.cta_group - 1} for {cp.mnemonic}, got {cta}{peer}")
    lane0, col0 = cp.origin
    rel_lane, word = lane - lane0, col - col0
    lo, hi = cp.column_span()
    if not 0 <= word < cp.shape.words:
        raise TmemvizError(f"column {col} is outside {cp.qualifiers}, which writes columns {lo}..{hi}")
    for block in cp.placement.blocks:
        for start in block.starts:
            if start <= rel_lane <= start + block.last - block.first:
                return Landing(block.first + rel_lane - start, word, cta, lane, col)
    written = ", ".join(f"{a}..{b}" for a, b in written_lanes(cp))
    raise TmemvizError(f"lane {lane} is not written by {cp.qualifiers}, which writes lanes {written}")


def written_lanes(cp: Copy) -> tuple[tuple[int, int], ...]:
    """The lanes the copy writes (in one CTA), as sorted, merged inclusive ranges."""
    lane0 = cp.origin[0]
    return merge_ranges((lane0 + lo, lane0 + hi) for lo, hi in cp.placement.lane_runs())


def source_bits(cp: Copy, word: int) -> tuple[int, int]:
    """(high, low) bits of the source row that fill widened word ``word`` (or the word itself).

    Without decompression word ``w`` is source bits ``32w+31 .. 32w``. With it, the
    four containers of word ``w`` hold elements ``4*(w%4) .. 4*(w%4)+3`` of chunk ``w//4``.

    >>> from tmemviz.families.cp.shapes import builtin
    >>> cp = make_copy(builtin("128x256b"), decompress="b6x16_p32")
    >>> source_bits(cp, 5)
    (175, 152)
    """
    fmt = cp.decompress
    if fmt is None:
        return 32 * word + 31, 32 * word
    chunk, part = divmod(word, 4)
    first = 8 * CHUNK_BYTES * chunk + fmt.source_bits(4 * part)[1]
    return first + 4 * fmt.element_bits - 1, first


def row_block(cp: Copy, row: int) -> int:
    """The index of the shape file's block holding ``row`` (tables and figures color by it)."""
    return cp.placement.block_of(row)
