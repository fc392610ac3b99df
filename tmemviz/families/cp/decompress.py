"""tcgen05.cp decompression: 16 packed 4- or 6-bit elements widened to 16 bytes.

PTX 9.7.16.9.1: a 16-byte shared-memory chunk holds 16 elements of 4 bits
followed by 8 bytes of padding (``.b4x16_p64``) or 16 elements of 6 bits
followed by 4 bytes of padding (``.b6x16_p32``); the copy writes them to TMEM
as 16 8-bit containers, container ``i`` holding element ``i`` (bytes
little-endian within each 32-bit column, so column ``i // 4``, byte ``i % 4``).

Source packing (high confidence): element ``i`` is bits ``w*i .. w*i+w-1`` of
the chunk read as one little-endian integer, which for 4 bits is "byte
``i // 2``, low nibble first".

Container bits (medium confidence, :data:`CONTAINER_BASIS`): the PTX figures
that show them (195, 197, 198) are images; NVIDIA's CuTe DSL example
``cp_narrow_a_to_tmem_mma.py`` places a 4-bit value at bits 5:2 and a 6-bit
value at bits 6:1, the other bits zero. Every view that shows container bits
prints that basis.

The number types only name the bits; the widening itself is the same for
every type of a width (figures 197 and 198 differ only in their labels).

>>> fmt = FORMATS["b4x16_p64"]
>>> chunk = pack(fmt, range(16))
>>> chunk.hex()
'1032547698badcfe0000000000000000'
>>> widen(fmt, chunk).hex()
'0004080c1014181c2024282c3034383c'
>>> narrow(fmt, widen(fmt, chunk)) == tuple(range(16))
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from tmemviz.errors import TmemvizError

ELEMENTS = 16
CHUNK_BYTES = 16
CONTAINER_BASIS = (
    "container bits (4-bit value at 5:2, 6-bit at 6:1, rest 0) follow NVIDIA's CuTe DSL example "
    "cp_narrow_a_to_tmem_mma.py; the PTX shows them only in figures 195/197/198"
)
"""The one line printed wherever container bits are shown."""


@dataclass(frozen=True)
class Format:
    """A decompression source format of tcgen05.cp (``.src_fmt``; ``.dst_fmt`` is ``.b8x16``)."""

    name: str
    element_bits: int
    padding_bytes: int
    container_low: int
    """Lowest bit of the element inside its 8-bit container."""
    ptx_figures: tuple[int, ...]

    @property
    def data_bytes(self) -> int:
        return ELEMENTS * self.element_bits // 8

    @property
    def qualifiers(self) -> str:
        """``.b8x16.b4x16_p64``: the two qualifiers that always come as a pair."""
        return f".b8x16.{self.name}"

    @property
    def container_bits(self) -> tuple[int, int]:
        """(high, low) bit of the element in its container, e.g. (5, 2)."""
        return self.container_low + self.element_bits - 1, self.container_low

    def source_bits(self, element: int) -> tuple[int, int]:
        """(high, low) bit of ``element`` within the 128-bit little-endian chunk.

        >>> FORMATS["b6x16_p32"].source_bits(5)
        (35, 30)
        """
        low = element * self.element_bits
        return low + self.element_bits - 1, low


FORMATS = {
    "b4x16_p64": Format("b4x16_p64", 4, 8, 2, (194, 195)),
    "b6x16_p32": Format("b6x16_p32", 6, 4, 1, (196, 197, 198)),
}


@dataclass(frozen=True)
class NumberType:
    """A narrow float type (OCP Microscaling Formats v1.0): sign, exponent, mantissa, no Inf/NaN."""

    name: str
    exponent_bits: int
    mantissa_bits: int
    bias: int
    ptx_figure: int

    @property
    def bits(self) -> int:
        return 1 + self.exponent_bits + self.mantissa_bits

    def labels(self) -> tuple[str, ...]:
        """Bit names from the top bit down, e.g. ``('s', 'e1', 'e0', 'm0')`` for E2M1."""
        exp = tuple(f"e{i}" for i in reversed(range(self.exponent_bits)))
        man = tuple(f"m{i}" for i in reversed(range(self.mantissa_bits)))
        return ("s", *exp, *man)

    def value(self, code: int) -> float:
        """The number a code stands for; exponent 0 is subnormal (OCP MX v1.0, section 5.3).

        >>> [TYPES["e2m1"].value(c) for c in (0b0001, 0b0101, 0b0111, 0b1110)]
        [0.5, 3.0, 6.0, -4.0]
        """
        sign = -1.0 if code >> (self.bits - 1) & 1 else 1.0
        exp = code >> self.mantissa_bits & ((1 << self.exponent_bits) - 1)
        man = code & ((1 << self.mantissa_bits) - 1)
        scale = 1 << self.mantissa_bits
        if exp == 0:
            return sign * 2.0 ** (1 - self.bias) * man / scale
        return sign * 2.0 ** (exp - self.bias) * (1 + man / scale)


TYPES = {
    "e2m1": NumberType("e2m1", 2, 1, 1, 195),
    "e3m2": NumberType("e3m2", 3, 2, 3, 197),
    "e2m3": NumberType("e2m3", 2, 3, 1, 198),
}


def get_format(name: str) -> Format:
    """``b4x16_p64``, ``.b4x16_p64`` or ``b8x16.b4x16_p64`` (and the same for 6 bits)."""
    key = name.strip().lower().lstrip(".")
    key = key.removeprefix("b8x16.")
    if key not in FORMATS:
        raise TmemvizError(
            f"unknown decompression format '{name}'; use b4x16_p64 or b6x16_p32 "
            "(.b8x16.b4x16_p64 / .b8x16.b6x16_p32, PTX 9.7.16.9.1)"
        )
    return FORMATS[key]


def get_type(fmt: Format, name: str | None) -> NumberType | None:
    """The number type for ``fmt``: E2M1 for 4 bits; E3M2 or E2M3 for 6 bits, only when named."""
    if name is None:
        return TYPES["e2m1"] if fmt.element_bits == 4 else None
    key = name.strip().lower()
    if key not in TYPES:
        raise TmemvizError(f"unknown type '{name}'; use e2m1 (4-bit), e3m2 or e2m3 (6-bit)")
    kind = TYPES[key]
    if kind.bits != fmt.element_bits:
        fits = [t for t in TYPES.values() if t.bits == fmt.element_bits]
        raise TmemvizError(
            f"{kind.name} is a {kind.bits}-bit type, but {fmt.name} holds {fmt.element_bits}-bit "
            f"elements; use {' or '.join(t.name for t in fits)}"
        )
    return kind


def tmem_position(element: int) -> tuple[int, int]:
    """(column within the chunk's 4 columns, byte within the 32-bit column) of container ``element``."""
    return divmod(element, 4)


def unpack(fmt: Format, chunk: bytes) -> tuple[int, ...]:
    """The 16 element codes of a source chunk (padding ignored)."""
    value = int.from_bytes(chunk[: fmt.data_bytes], "little")
    mask = (1 << fmt.element_bits) - 1
    return tuple(value >> (i * fmt.element_bits) & mask for i in range(ELEMENTS))


def pack(fmt: Format, codes: Iterable[int]) -> bytes:
    """A 16-byte source chunk holding ``codes`` (16 of them), padding zero."""
    items = list(codes)
    if len(items) != ELEMENTS:
        raise TmemvizError(f"a {fmt.name} chunk holds {ELEMENTS} elements, got {len(items)}")
    limit = 1 << fmt.element_bits
    value = 0
    for i, code in enumerate(items):
        if not 0 <= code < limit:
            raise TmemvizError(
                f"element {i} is {code}, which does not fit in {fmt.element_bits} bits (0..{limit - 1})"
            )
        value |= code << (i * fmt.element_bits)
    return value.to_bytes(fmt.data_bytes, "little") + bytes(fmt.padding_bytes)


def widen(fmt: Format, chunk: bytes) -> bytes:
    """The 16 bytes the copy writes to TMEM for one source chunk (byte 0 first)."""
    return bytes(code << fmt.container_low for code in unpack(fmt, chunk))


def narrow(fmt: Format, containers: bytes) -> tuple[int, ...]:
    """The element codes back out of 16 containers (the inverse of :func:`widen`)."""
    mask = (1 << fmt.element_bits) - 1
    return tuple(byte >> fmt.container_low & mask for byte in containers)


def parse_hex(fmt: Format, text: str) -> bytes:
    """Source bytes, byte 0 first: ``0x`` prefixes, spaces, ``:``, ``_`` and ``,`` are ignored.

    Either the data bytes alone (8 for 4-bit, 12 for 6-bit; padding taken as zero)
    or the whole 16-byte chunk.

    >>> parse_hex(FORMATS["b4x16_p64"], "10 32 54 76 98 ba dc fe").hex()
    '1032547698badcfe0000000000000000'
    """
    groups = [g for g in re.split(r"[\s:_,]+", text.strip()) if g]
    groups = [g[2:] if g.lower().startswith("0x") else g for g in groups]
    # Every group must be whole bytes: "1 0" must not silently become byte 0x10.
    if not groups or not all(re.fullmatch(r"(?:[0-9a-fA-F]{2})+", g) for g in groups):
        raise TmemvizError(f"--hex must be whole bytes in hex such as '10 32 54 76', got '{text.strip()}'")
    data = bytes.fromhex("".join(groups))
    if len(data) == fmt.data_bytes:
        return data + bytes(fmt.padding_bytes)
    if len(data) == CHUNK_BYTES:
        return data
    raise TmemvizError(
        f"--hex has {len(data)} bytes; {fmt.name} needs its {fmt.data_bytes} data bytes "
        f"or the whole {CHUNK_BYTES}-byte chunk"
    )


def parse_codes(fmt: Format, text: str) -> tuple[int, ...]:
    """16 element codes, comma separated, decimal or 0x/0b: ``1,0x5,0b0111,...``.

    >>> parse_codes(FORMATS["b4x16_p64"], "07," * 15 + "0b1111")[-2:]
    (7, 15)
    """
    parts = [p.strip() for p in text.split(",") if p.strip()]
    codes: list[int] = []
    for part in parts:
        try:
            codes.append(int(part, 0) if part[:2].lower() in ("0x", "0b", "0o") else int(part, 10))
        except ValueError:
            raise TmemvizError(
                f"--elements must be whole numbers such as 5, 0x5 or 0b0101; got '{part}'"
            ) from None
    pack(fmt, codes)  # range and count checks, one message each
    return tuple(codes)
