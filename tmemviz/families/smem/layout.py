"""Shared-memory canonical layouts of tcgen05 MMA operands (PTX ISA 9.7.16.3), exactly.

A layout maps an element (row, col) of an operand tile to a byte offset in shared memory. ``row``
is the M (or N) coordinate and ``col`` the K coordinate, in elements, whatever the major. The
mapping is the PTX/CuTe notation ``Swizzle<B,4,3> o (row mode, col mode):(row strides, col
strides)``: strides are in elements, a mode's coordinate is split colexicographically (first
sub-mode fastest), the element offset is turned into bytes and then swizzled.

>>> fig = canonical("MN", "32B", "bf16", 2, 2, 256, 512)  # PTX figure 191
>>> fig.notation()
'Swizzle<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256))'
>>> fig.byte_of(0, 4), fig.element_at(144)  # K row 4 = bytes 128..143 before the swizzle
(144, (0, 4))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from math import prod

from tmemviz.errors import TmemvizError
from tmemviz.families.smem.shapes import MAJORS, Swizzle, find_swizzle

DTYPE_BITS: dict[str, int] = {
    "e4m3": 8,
    "e5m2": 8,
    "s8": 8,
    "u8": 8,
    "f16": 16,
    "bf16": 16,
    "tf32": 32,
    "f32": 32,
    "s32": 32,
}
"""Element widths; tf32 occupies 32 bits in shared memory."""

CHUNK_BYTES = 16
"""The unit the swizzle moves: 16-byte chunks are never split (PTX 9.7.16.3)."""

OFFSET_LIMIT = ((1 << 14) - 1) * CHUNK_BYTES
"""Largest LBO/SBO: the descriptor stores them >> 4 in 14 bits (PTX descriptor table)."""

SMEM_BYTES = 228 * 1024
"""Shared memory of one SM of compute capability 10.x: 228 KB (CUDA Programming Guide)."""

Modes = tuple[tuple[int, ...], tuple[int, ...]]
"""(row mode, col mode): extents or strides of each sub-mode."""


def element_bits(dtype: str) -> int:
    """Bits of one element.

    >>> element_bits("bf16")
    16
    """
    if dtype not in DTYPE_BITS:
        raise TmemvizError(f"unknown dtype {dtype!r}; known dtypes are {', '.join(DTYPE_BITS)}")
    return DTYPE_BITS[dtype]


def elements_per_chunk(dtype: str) -> int:
    """T = 128 / bits: the elements in one 16-byte chunk (PTX 9.7.16.3 notation).

    >>> [elements_per_chunk(d) for d in ("e4m3", "f16", "tf32")]
    [16, 8, 4]
    """
    return 128 // element_bits(dtype)


def swizzle_bytes(offset: int, bits: int, base: int = 4, shift: int = 3) -> int:
    """``Swizzle<bits,base,shift>`` on a byte offset: XOR bits [base, base+bits) with
    bits [base+shift, base+shift+bits). With shift >= bits it is its own inverse.

    >>> swizzle_bytes(0x80, 3)  # row 1 of a 128B atom: chunk 0 moves to chunk 1
    144
    >>> swizzle_bytes(swizzle_bytes(0x2A5, 2), 2)
    677
    """
    mask = ((1 << bits) - 1) << (base + shift)
    return offset ^ ((offset & mask) >> shift)


def check_offset(name: str, value: int) -> int:
    """An LBO/SBO in bytes the descriptor can hold: a multiple of 16 that fits 14 bits once >> 4.

    >>> check_offset("SBO", 1024)
    1024
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value % CHUNK_BYTES:
        raise TmemvizError(f"{name} {value!r} bytes is not allowed; use a non-negative multiple of 16 bytes")
    if value > OFFSET_LIMIT:
        raise TmemvizError(
            f"{name} {value} bytes does not fit the descriptor's 14-bit field; "
            f"the most is {OFFSET_LIMIT} bytes"
        )
    return value


def _positive(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TmemvizError(f"{name} must be a positive whole number, not {value!r}")
    return value


def _resolve(swizzle: str | Swizzle) -> Swizzle:
    return swizzle if isinstance(swizzle, Swizzle) else find_swizzle(swizzle)


def _check_major(major: str, swizzle: Swizzle) -> None:
    if major not in MAJORS:
        raise TmemvizError(f"unknown major {major!r}; allowed majors are {', '.join(MAJORS)}")
    if major not in swizzle.majors:
        raise TmemvizError(
            f"swizzle {swizzle.name} does not serve {major}-major layouts; "
            f"it serves {', '.join(swizzle.majors)}"
        )


def _mode_text(values: tuple[int, ...]) -> str:
    return str(values[0]) if len(values) == 1 else "(" + ",".join(map(str, values)) + ")"


def _mode_offsets(extents: tuple[int, ...], strides: tuple[int, ...]) -> list[int]:
    """Element offset of every coordinate of one mode, split colexicographically (CuTe)."""
    offsets = [0]
    for extent, stride in zip(extents, strides, strict=True):
        offsets = [o + i * stride for i in range(extent) for o in offsets]
    return offsets


@dataclass(frozen=True)
class SmemLayout:
    """A shared-memory operand layout, checked to give every element its own bytes.

    ``shape``/``stride`` are (row mode, col mode) in elements; ``lbo``/``sbo`` are the descriptor
    offsets in bytes (None = unused by this layout, e.g. LBO of swizzled K-major layouts).
    Offsets are from a base aligned to the swizzle repeat (1024 bytes always suffices).
    """

    major: str
    swizzle: Swizzle
    dtype: str
    shape: Modes
    stride: Modes
    lbo: int | None = None
    sbo: int | None = None

    def __post_init__(self) -> None:
        _check_major(self.major, self.swizzle)
        element_bits(self.dtype)
        # Lists are accepted and frozen into tuples, so layouts compare and hash by value.
        try:
            object.__setattr__(self, "shape", tuple(tuple(mode) for mode in self.shape))
            object.__setattr__(self, "stride", tuple(tuple(mode) for mode in self.stride))
        except TypeError as err:
            raise TmemvizError("shape and stride must each be two tuples of whole numbers") from err
        if len(self.shape) != 2 or len(self.stride) != 2:
            raise TmemvizError("a layout needs exactly two modes, rows (M/N) and cols (K)")
        for extents, strides in zip(self.shape, self.stride, strict=True):
            if not extents or len(extents) != len(strides):
                raise TmemvizError(
                    f"shape {self.shape} and stride {self.stride} do not have the same profile"
                )
            for extent in extents:
                _positive("every extent", extent)
            if any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in strides):
                raise TmemvizError(f"strides must be non-negative whole numbers, not {strides}")
        for name, value in (("LBO", self.lbo), ("SBO", self.sbo)):
            if value is not None:
                check_offset(name, value)
        if (size := prod(self.shape[0]) * prod(self.shape[1]) * element_bits(self.dtype) // 8) > SMEM_BYTES:
            raise TmemvizError(
                f"this layout is {size} bytes; one SM's shared memory holds {SMEM_BYTES} (228 KB)"
            )
        self._owners  # noqa: B018 -- builds the byte map now, so a layout that overlaps never exists

    # -- sizes -------------------------------------------------------------------------------
    @property
    def bits(self) -> int:
        return DTYPE_BITS[self.dtype]

    @property
    def element_bytes(self) -> int:
        return self.bits // 8

    @property
    def rows(self) -> int:
        """M/N extent in elements."""
        return prod(self.shape[0])

    @property
    def cols(self) -> int:
        """K extent in elements."""
        return prod(self.shape[1])

    def notation(self) -> str:
        """The PTX/CuTe spelling; no ``Swizzle<0,4,3> o`` prefix for unswizzled layouts (as PTX prints
        figures 188 and 190).

        >>> canonical("K", "none", "tf32", 2, 2, 256, 128).notation()
        '((8,2),(4,4)):((4,32),(1,64))'
        """
        prefix = f"{self.swizzle.notation()} o " if self.swizzle.bits else ""
        shape = f"({_mode_text(self.shape[0])},{_mode_text(self.shape[1])})"
        stride = f"({_mode_text(self.stride[0])},{_mode_text(self.stride[1])})"
        return f"{prefix}{shape}:{stride}"

    # -- the map ------------------------------------------------------------------------------
    @cached_property
    def _row_offsets(self) -> list[int]:
        return [o * self.bits // 8 for o in _mode_offsets(self.shape[0], self.stride[0])]

    @cached_property
    def _col_offsets(self) -> list[int]:
        return [o * self.bits // 8 for o in _mode_offsets(self.shape[1], self.stride[1])]

    @cached_property
    def _owners(self) -> dict[int, tuple[int, int]]:
        """Unswizzled byte offset -> (row, col). The swizzle is a bijection on addresses, so the
        layout is one-to-one exactly when its unswizzled offsets are distinct."""
        owners: dict[int, tuple[int, int]] = {}
        first: tuple[tuple[int, int], tuple[int, int], int] | None = None
        for r, row_off in enumerate(self._row_offsets):
            for c, col_off in enumerate(self._col_offsets):
                offset = row_off + col_off
                if offset in owners and first is None:
                    first = (owners[offset], (r, c), offset)
                owners.setdefault(offset, (r, c))
        if first is not None:
            (r1, c1), (r2, c2), offset = first
            raise TmemvizError(
                f"{self.notation()} ({self.major}-major, {self.dtype}) is not one-to-one: elements "
                f"(row {r1}, col {c1}) and (row {r2}, col {c2}) overlap at byte "
                f"{swizzle_bytes(offset, self.swizzle.bits, self.swizzle.base, self.swizzle.shift)} "
                f"({self.rows * self.cols} elements land on {len(owners)} distinct byte offsets); "
                "every element must have its own bytes"
            )
        return owners

    def _swizzle(self, offset: int) -> int:
        return swizzle_bytes(offset, self.swizzle.bits, self.swizzle.base, self.swizzle.shift)

    def unswizzled_byte_of(self, row: int, col: int) -> int:
        """The byte offset before the swizzle (the plain CuTe layout)."""
        self._check_coordinate(row, col)
        return self._row_offsets[row] + self._col_offsets[col]

    def byte_of(self, row: int, col: int) -> int:
        """The first byte of element (row, col), swizzled.

        >>> canonical("MN", "64B", "bf16", 2, 2, 512, 1024).byte_of(0, 2)  # K row 2: chunk 0 -> chunk 1
        144
        """
        return self._swizzle(self.unswizzled_byte_of(row, col))

    def chunk_of(self, row: int, col: int) -> int:
        """The 16-byte chunk that holds element (row, col): what the views colour by."""
        return self.byte_of(row, col) // CHUNK_BYTES

    def element_at(self, byte: int) -> tuple[int, int] | None:
        """Which (row, col) holds byte ``byte`` of the tile, or None if no element does.

        >>> fig = canonical("K", "none", "tf32", 2, 2, 256, 128)  # PTX figure 188
        >>> fig.element_at(257), fig.element_at(4096)
        ((0, 4), None)
        """
        if isinstance(byte, bool) or not isinstance(byte, int) or byte < 0:
            return None
        # The swizzle leaves bits [0, 4) alone, so the element boundaries survive it.
        plain = self._swizzle(byte)
        return self._owners.get(plain - plain % self.element_bytes)

    def cells(self) -> tuple[tuple[int, int, int], ...]:
        """Every (row, col, byte), row by row."""
        return tuple(
            (r, c, self._swizzle(ro + co))
            for r, ro in enumerate(self._row_offsets)
            for c, co in enumerate(self._col_offsets)
        )

    @property
    def footprint_bytes(self) -> int:
        """Bytes from the base to the end of the last element (a dense tile: rows x cols x size)."""
        return max(self._swizzle(o) for o in self._owners) + self.element_bytes

    def _check_coordinate(self, row: int, col: int) -> None:
        for name, value, extent in (("row", row, self.rows), ("col", col, self.cols)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < extent:
                raise TmemvizError(f"{name} {value!r} is outside the layout; allowed 0..{extent - 1}")


def _elements(value: int, bits: int) -> int:
    return value * 8 // bits


def canonical(
    major: str,
    swizzle: str | Swizzle,
    dtype: str,
    m: int,
    k: int,
    lbo_bytes: int | None,
    sbo_bytes: int | None,
) -> SmemLayout:
    """The PTX 9.7.16.3 canonical layout with explicit offsets (smem-facts "The canonical layouts").

    ``m`` repeats 8-row (K-major) or swizzle-width (MN-major) M/N blocks; ``k`` repeats 8-row K
    groups (MN-major) or pairs of 16-byte K chunks (K-major). For swizzled K-major layouts the
    chunks of a row are contiguous ((T,2k):(1,T)), so 2k chunks must fit one atom row: more
    overlap the next row (PTX figure 189 as printed). Fewer is allowed (the row is then sparse).

    >>> canonical("MN", "none", "bf16", 2, 2, 256, 128).notation()
    '((8,1,2),(8,2)):((1,8,64),(8,128))'
    """
    sw = _resolve(swizzle)
    _check_major(major, sw)
    bits = element_bits(dtype)
    _positive("m", m)
    _positive("k", k)
    t, c = 128 // bits, sw.chunks_per_row
    if sbo_bytes is None:
        raise TmemvizError("SBO is required for every canonical layout; give it in bytes")
    sbo = _elements(check_offset("SBO", sbo_bytes), bits)
    if major == "K" and sw.bits:
        # PTX: swizzled K-major layouts have no LBO term; CUTLASS encodes the unused field as 1.
        if lbo_bytes is not None:
            raise TmemvizError(f"LBO is unused by K-major {sw.name} layouts; leave it out")
        return SmemLayout(major, sw, dtype, ((8, m), (t, 2 * k)), ((c * t, sbo), (1, t)), None, sbo_bytes)
    if lbo_bytes is None:
        raise TmemvizError(f"LBO is required for {major}-major {sw.name} layouts; give it in bytes")
    lbo = _elements(check_offset("LBO", lbo_bytes), bits)
    if major == "K":
        shape, stride = ((8, m), (t, 2 * k)), ((t, sbo), (1, lbo))
    elif not sw.bits:
        # MN-major none swaps the roles: SBO strides M/N blocks, LBO strides K groups (PTX table).
        shape, stride = ((t, 1, m), (8, k)), ((1, t, sbo), (t, lbo))
    else:
        shape, stride = ((t, c, m), (8, k)), ((1, t, lbo), (c * t, sbo))
    return SmemLayout(major, sw, dtype, shape, stride, lbo_bytes, sbo_bytes)


def atom_extent(major: str, swizzle: str | Swizzle, dtype: str) -> tuple[int, int]:
    """(rows, cols) in elements of one swizzle atom: 8 rows of W bytes (smem-facts).

    >>> atom_extent("K", "128B", "bf16"), atom_extent("MN", "128B", "bf16")
    ((8, 64), (64, 8))
    """
    sw = _resolve(swizzle)
    _check_major(major, sw)
    width = sw.atom_bytes * 8 // element_bits(dtype)
    return (8, width) if major == "K" else (width, 8)


def dense_tile(major: str, swizzle: str | Swizzle, dtype: str, rows: int, cols: int) -> SmemLayout:
    """A dense rows x cols tile tiled from the swizzle atom the CUTLASS SM100 way: K-major atoms
    stack along M/N first, MN-major atoms along K first (``tile_to_mma_shape`` with
    ``Step<_2,_1,_3>`` for MN-major). LBO/SBO describe the tile's first MMA K-block
    (smem-facts "Dense CUTLASS-order tiles").

    >>> tile = dense_tile("K", "128B", "bf16", 128, 64)
    >>> tile.notation(), tile.lbo, tile.sbo
    ('Swizzle<3,4,3> o ((8,16),(8,8)):((64,512),(1,8))', None, 1024)
    """
    sw = _resolve(swizzle)
    atom_rows, atom_cols = atom_extent(major, sw, dtype)
    _positive("rows", rows)
    _positive("cols", cols)
    for name, value, step in (("rows (M/N)", rows, atom_rows), ("cols (K)", cols, atom_cols)):
        if value % step:
            raise TmemvizError(
                f"{name} {value} is not a multiple of the {major}-major {sw.name} {dtype} atom "
                f"({atom_rows} x {atom_cols} elements); use a multiple of {step}"
            )
    bits = element_bits(dtype)
    t, c, width = 128 // bits, sw.chunks_per_row, sw.atom_bytes
    lbo: int | None
    if major == "K":
        sbo = 8 * width  # atoms stacked along M/N: the next 8 rows start one atom later
        row = ((8, rows // 8), (c * t, _elements(sbo, bits)))
        if not sw.bits:
            lbo = 16 * rows  # the next K chunk starts after the whole M/N column of atoms
            col = ((t, cols // t), (1, _elements(lbo, bits)))
        else:
            lbo = None
            # Atoms further along K follow the whole M/N stack; not a descriptor field (the MMA
            # moves the start address), and left out when the tile is one atom wide.
            repeat = cols // atom_cols
            col = ((t, c, repeat), (1, t, rows * c * t)) if repeat > 1 else ((t, c), (1, t))
    elif not sw.bits:
        lbo, sbo = 128, 16 * cols  # K groups are adjacent atoms; M/N blocks follow all of K
        row = ((t, 1, rows // t), (1, t, _elements(sbo, bits)))
        col = ((8, cols // 8), (t, _elements(lbo, bits)))
    else:
        lbo, sbo = cols * width, 8 * width  # K groups are adjacent atoms; M/N blocks follow all of K
        row = ((t, c, rows // atom_rows), (1, t, _elements(lbo, bits)))
        col = ((8, cols // 8), (c * t, _elements(sbo, bits)))
    shape = (row[0], col[0])
    stride = (row[1], col[1])
    return SmemLayout(major, sw, dtype, shape, stride, lbo, sbo)
