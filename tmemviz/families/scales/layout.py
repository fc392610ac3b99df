"""Pure layout of block-scaled MMA scale factors: shared memory -> tcgen05.cp -> TMEM -> the MMA.

PTX 9.7.16.10.7 (figures 231-239): ``tcgen05.mma ... .block_scale`` reads one scale factor
per row of A (column of B) per block of ``sf_vec`` K elements from TMEM, each in a byte of a
32-bit column, duplicated into all four 32-lane partitions. Kernels stage them in shared
memory in CUTLASS's canonical atom (``Sm1xxBlockScaledBasicChunk``, K-major): 128 rows x 4
blocks in one 512-byte chunk, row ``32c + r`` at byte ``16r + 4c``, block ``k`` at ``+k``.
Chunks tile the operand as CuTe DSL's ``make_smem_layout_sfa/sfb`` tile it (the 4-block K
chunks of a 128-row tile are adjacent; rows padded up to a multiple of 128).

Each chunk is one ``tcgen05.cp.32x128b.warpx4``: its 16-byte source row ``r`` (word ``c``)
lands in lanes ``r, r+32, r+64, r+96``, column ``c`` — which lane and column is decided by
:mod:`tmemviz.families.cp.layout` itself, never restated here. Chunks are placed in TMEM 4 columns
apart, row tiles first, then K chunks (``make_tmem_layout_sfa/sfb``), so an MMA's scale
factors for all its rows start at one column, and its SF ID picks the byte (1X), half-word
(2X) or word (4X) within it.

>>> s = make_scales("A", "mxf8f6f4", 32, 1, 128, 256, builtin_32x128b())
>>> smem_byte(s, 37, 5), [(x.lane, x.col, x.byte) for x in landings(s, 37, 5)][:2]
(597, [(5, 5, 1), (37, 5, 1)])
>>> source_of(s, 69, 5, 1)
(37, 5)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

from tmemviz.errors import TmemvizError
from tmemviz.families.cp import layout as cp_layout
from tmemviz.families.cp.layout import Copy
from tmemviz.families.cp.shapes import CopyShape

CHUNK_ROWS = 128
"""Rows of one canonical chunk (CUTLASS ``Blk_MN``)."""
CHUNK_BLOCKS = 4
"""Scale factors per row in one chunk (CUTLASS ``Blk_SF``): one 32-bit TMEM column."""
CHUNK_BYTES = 512
ROW_BYTES = 16
"""One source row of ``.32x128b``: four rows' words (32 rows apart) of one chunk."""
SUBPARTITION = 32
COPY_SHAPE = "32x128b"
COPY_MULTICAST = "warpx4"

MMA_K = {"mxf8f6f4": 32, "mxf4": 64, "mxf4nvf4": 64}
"""K of one dense MMA per kind (PTX 9.7.16.10.1): 32 8-bit or 64 4-bit elements."""
SF_VECS = {"mxf8f6f4": (32,), "mxf4": (32,), "mxf4nvf4": (32, 16)}
"""Block sizes each kind takes (PTX 9.7.16.10.7): block32 everywhere, block16 only for mxf4nvf4."""


class Spot(NamedTuple):
    """One byte of TMEM holding a scale factor."""

    cta: int
    lane: int
    col: int
    byte: int


class Transfer(NamedTuple):
    """One ``tcgen05.cp.32x128b.warpx4``: the chunk of row tile ``tile`` and K chunk ``kchunk``."""

    index: int
    tile: int
    kchunk: int
    smem: int
    """Byte offset of the 512-byte source chunk from the start of the scale factors in shared memory."""
    col: int
    """TMEM column of taddr (lane 0)."""
    copy: Copy


class Read(NamedTuple):
    """MMA ``index`` along K: its K elements, blocks, the column of its scale factors and its SF ID."""

    index: int
    k_first: int
    k_last: int
    kblocks: tuple[int, ...]
    col: int
    sf_id: int


@dataclass(frozen=True)
class Scales:
    """The scale factors of one operand of one block-scaled MMA tile (one CTA's view)."""

    operand: str
    """``A`` or ``B``."""
    kind: str
    sf_vec: int
    cta_group: int
    extent: int
    """The MMA's M (operand A, the pair's for cta_group::2) or N (operand B)."""
    k: int
    shape: CopyShape
    """``.32x128b`` as tmemviz's cp family knows it."""
    col0: int = 0
    """TMEM column of the first chunk."""

    @functools.cached_property
    def made_transfers(self) -> dict[int, Transfer]:
        """The copies :func:`transfer_of` has built for this tile, by index (no part of its value)."""
        return {}

    @functools.cached_property
    def rows(self) -> int:
        """Rows whose scale factors one CTA holds: A's M/cta_group, all N of B (as CUTLASS holds it)."""
        return self.extent // self.cta_group if self.operand == "A" else self.extent

    @functools.cached_property
    def padded(self) -> int:
        """Rows rounded up to whole 128-row chunks, as CUTLASS pads them."""
        return -(-self.rows // CHUNK_ROWS) * CHUNK_ROWS

    @functools.cached_property
    def tiles(self) -> int:
        return self.padded // CHUNK_ROWS

    @functools.cached_property
    def kblocks(self) -> int:
        return self.k // self.sf_vec

    @functools.cached_property
    def kchunks(self) -> int:
        return self.kblocks // CHUNK_BLOCKS

    @functools.cached_property
    def mma_k(self) -> int:
        return MMA_K[self.kind]

    @functools.cached_property
    def per_mma(self) -> int:
        """Scale factors per row one MMA uses: 1, 2 or 4 (``.scale_vec::1X/2X/4X``)."""
        return self.mma_k // self.sf_vec

    @functools.cached_property
    def scale_vec(self) -> str:
        return f"{self.per_mma}X"

    @functools.cached_property
    def mmas(self) -> int:
        return self.k // self.mma_k

    @functools.cached_property
    def columns(self) -> int:
        """TMEM columns the scale factors take (every chunk 4 columns)."""
        return CHUNK_BLOCKS * self.tiles * self.kchunks

    @functools.cached_property
    def owners(self) -> tuple[int, ...]:
        """CTAs whose TMEM receives each chunk."""
        return tuple(range(self.cta_group))

    def cta_rows(self, cta: int) -> range:
        """Rows of the operand whose scale factors CTA ``cta`` holds."""
        if self.operand == "A":
            return range(cta * self.rows, (cta + 1) * self.rows)
        return range(self.rows)


def make_scales(
    operand: str, kind: str, sf_vec: int, cta_group: int, extent: int, k: int, shape: CopyShape, col0: int = 0
) -> Scales:
    """A :class:`Scales`; the spelling module has already checked every value against the PTX text."""
    return Scales(operand, kind, sf_vec, cta_group, extent, k, shape, col0)


def builtin_32x128b() -> CopyShape:
    """The shipped ``.32x128b`` cp shape (doctests; the spelling module takes it from the catalog)."""
    from tmemviz.families.cp.shapes import builtin

    return builtin(COPY_SHAPE)


def owner(s: Scales, row: int) -> tuple[int, int]:
    """(cta, row within that CTA's scale factors) of operand row ``row``.

    >>> s = make_scales("A", "mxf8f6f4", 32, 2, 256, 128, builtin_32x128b())
    >>> owner(s, 130)
    (1, 2)
    """
    total = s.extent if s.operand == "A" else s.rows
    if not 0 <= row < total:
        what = "M" if s.operand == "A" else "N"
        raise TmemvizError(f"row {row} does not exist: {what} = {total} has rows 0..{total - 1}")
    if s.operand == "A":
        return divmod(row, s.rows)
    return 0, row


def check_kblock(s: Scales, kblock: int) -> None:
    if not 0 <= kblock < s.kblocks:
        raise TmemvizError(
            f"kblock {kblock} does not exist: K = {s.k} has {s.kblocks} blocks of {s.sf_vec}, "
            f"0..{s.kblocks - 1}"
        )


def chunk_index(s: Scales, tile: int, kchunk: int) -> int:
    """Which 512-byte chunk of shared memory: K chunks of a row tile adjacent (CuTe DSL's order)."""
    return kchunk + s.kchunks * tile


def chunk_column(s: Scales, tile: int, kchunk: int) -> int:
    """TMEM column of a chunk: row tiles adjacent, then K chunks (CuTe DSL ``make_tmem_layout_sf*``)."""
    return s.col0 + CHUNK_BLOCKS * (tile + s.tiles * kchunk)


def smem_byte(s: Scales, row: int, kblock: int) -> int:
    """Byte offset of SF[row][kblock] in (its CTA's) shared memory.

    >>> s = make_scales("B", "mxf4nvf4", 16, 1, 256, 128, builtin_32x128b())
    >>> smem_byte(s, 0, 0), smem_byte(s, 32, 0), smem_byte(s, 1, 3), smem_byte(s, 128, 0)
    (0, 4, 19, 1024)
    """
    check_kblock(s, kblock)
    r = owner(s, row)[1]
    tile, within = divmod(r, CHUNK_ROWS)
    chunk = chunk_index(s, tile, kblock // CHUNK_BLOCKS)
    quarter, sub = divmod(within, SUBPARTITION)
    return CHUNK_BYTES * chunk + ROW_BYTES * sub + CHUNK_BLOCKS * quarter + kblock % CHUNK_BLOCKS


def transfers(s: Scales) -> tuple[Transfer, ...]:
    """Every copy, in TMEM column order (the order the MMAs use them)."""
    out: list[Transfer] = []
    for kchunk in range(s.kchunks):
        for tile in range(s.tiles):
            col = chunk_column(s, tile, kchunk)
            cp = cp_layout.make_copy(s.shape, COPY_MULTICAST, s.cta_group, taddr=(0, col))
            smem = CHUNK_BYTES * chunk_index(s, tile, kchunk)
            out.append(Transfer(len(out), tile, kchunk, smem, col, cp))
    return tuple(out)


def transfer_of(s: Scales, tile: int, kchunk: int) -> Transfer:
    """The copy of one chunk (built alone, without the others), kept on ``s``: a map or a sweep asks
    for the same few copies once per byte, and a cache keyed by the copy's shape hashes the whole shape
    file each time."""
    index = tile + s.tiles * kchunk
    made = s.made_transfers.get(index)
    if made is None:
        col = chunk_column(s, tile, kchunk)
        cp = _copy(s.shape, s.cta_group, col)
        made = Transfer(index, tile, kchunk, CHUNK_BYTES * chunk_index(s, tile, kchunk), col, cp)
        s.made_transfers[index] = made
    return made


@functools.lru_cache(maxsize=4096)
def _copy(shape: CopyShape, cta_group: int, col: int) -> Copy:
    """One chunk's tcgen05.cp (a Copy is immutable: a map asks for the same few many times)."""
    return cp_layout.make_copy(shape, COPY_MULTICAST, cta_group, taddr=(0, col))


def source_row(s: Scales, row: int, kblock: int) -> tuple[Transfer, int, int]:
    """(copy, source row of that copy, 32-bit word of that row) that carry SF[row][kblock]."""
    check_kblock(s, kblock)
    r = owner(s, row)[1]
    tile, within = divmod(r, CHUNK_ROWS)
    quarter, sub = divmod(within, SUBPARTITION)
    return transfer_of(s, tile, kblock // CHUNK_BLOCKS), sub, quarter


def landings(s: Scales, row: int, kblock: int) -> tuple[Spot, ...]:
    """Every TMEM byte SF[row][kblock] occupies: the cp mapper's landings of its word, in the byte
    its block takes (CTA 1 too under cta_group::2, when that CTA holds the row)."""
    cta, _ = owner(s, row)
    tr, sub, word = source_row(s, row, kblock)
    byte = kblock % CHUNK_BLOCKS
    hits = cp_layout.row_landings(tr.copy, sub, word)
    return tuple(Spot(x.cta, x.lane, x.col, byte) for x in hits if s.operand == "B" or x.cta == cta)


def source_of(s: Scales, lane: int, col: int, byte: int, cta: int = 0) -> tuple[int, int] | None:
    """(row, kblock) whose scale factor TMEM (cta, lane, col, byte) holds; None for padding rows."""
    if not 0 <= byte < CHUNK_BLOCKS:
        raise TmemvizError(f"byte must be 0..3 (a byte of a 32-bit column), got {byte}")
    if cta not in s.owners:
        raise TmemvizError(f"cta must be 0..{s.cta_group - 1} for cta_group::{s.cta_group}, got {cta}")
    rel = col - s.col0
    if not 0 <= rel < s.columns:
        raise TmemvizError(
            f"column {col} holds no scale factor; they take columns {s.col0}..{s.col0 + s.columns - 1}"
        )
    slot = rel // CHUNK_BLOCKS
    kchunk, tile = divmod(slot, s.tiles)
    found = cp_layout.source_of(transfer_of(s, tile, kchunk).copy, lane, col, cta)
    within = CHUNK_ROWS * tile + SUBPARTITION * found.word + found.row
    if within >= s.rows:
        return None
    row = within + (cta * s.rows if s.operand == "A" else 0)
    return row, CHUNK_BLOCKS * kchunk + byte


def reads(s: Scales) -> tuple[Read, ...]:
    """For each MMA along K: its K range, its blocks, the column its scale factors start at, its SF ID.

    >>> [(r.col, r.sf_id) for r in reads(make_scales("A", "mxf4", 32, 1, 128, 256, builtin_32x128b()))]
    [(0, 0), (0, 2), (4, 0), (4, 2)]
    """
    out = []
    for j in range(s.mmas):
        first = j * s.per_mma
        blocks = tuple(range(first, first + s.per_mma))
        col = chunk_column(s, 0, first // CHUNK_BLOCKS)
        out.append(Read(j, j * s.mma_k, (j + 1) * s.mma_k - 1, blocks, col, first % CHUNK_BLOCKS))
    return tuple(out)


def mma_columns(s: Scales) -> int:
    """Columns one MMA's scale factors span: a column per 32 rows of the CTA."""
    return -(-s.rows // SUBPARTITION)
