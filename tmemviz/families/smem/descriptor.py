"""The 64-bit tcgen05 shared-memory descriptor (PTX ISA 9.7.16.3, shared-memory descriptor table).

| bits  | field                                                        |
|-------|--------------------------------------------------------------|
| 0-13  | start address >> 4                                           |
| 16-29 | LBO >> 4                                                     |
| 32-45 | SBO >> 4                                                     |
| 46-48 | fixed 0b001 (version)                                        |
| 49-51 | matrix base offset                                           |
| 52    | LBO mode: 0 relative byte offset, 1 absolute address         |
| 53-60 | fixed 0                                                      |
| 61-63 | swizzle: 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B        |

Bits 14-15 and 30-31 are not listed by the table; like CUTLASS's bit-field we treat them as fixed 0.

>>> hex(encode(0, None, 1024, "128B"))  # K-major 128B bf16 128x64 at address 0 (smem-facts)
'0x4000404000010000'
>>> decode(0x4000404000010000).to_record()["swizzle"]
'128B'
"""

from __future__ import annotations

from dataclasses import dataclass

from tmemviz.errors import TmemvizError
from tmemviz.families.smem.layout import SmemLayout, check_offset
from tmemviz.families.smem.shapes import Swizzle, builtin_swizzles

VERSION = 1
"""Bits 46-48 must read 0b001 for tcgen05 (PTX descriptor table; CUTLASS sets ``version_ = 1``)."""

UNUSED_LBO = 16
"""What a layout with no LBO (swizzled K-major) puts in the field: 16 bytes, i.e. encoded 1, as
CUTLASS's make_umma_desc does (smem-facts "LBO and SBO")."""

BASE32B = ("128B_base32B", 1)
"""Named by the descriptor table but not shipped as a layout (see layouts/smem/128B.yaml)."""

ADDRESS_LIMIT = ((1 << 14) - 1) << 4
"""Largest start address: 14 bits of address >> 4."""

# (first bit, width, name) of the bits the PTX table fixes to zero.
_FIXED_ZERO: tuple[tuple[int, int, str], ...] = ((14, 2, "14-15"), (30, 2, "30-31"), (53, 8, "53-60"))


def _field(value: int, first: int, width: int) -> int:
    return (value >> first) & ((1 << width) - 1)


def swizzle_codes() -> dict[str, int]:
    """Swizzle name -> descriptor code (bits 61-63), from the shipped swizzle files.

    >>> swizzle_codes()["32B"]
    6
    """
    codes = {sw.name: sw.descriptor_code for sw in builtin_swizzles()}
    codes[BASE32B[0]] = BASE32B[1]
    return codes


@dataclass(frozen=True)
class Descriptor:
    """A decoded descriptor; byte fields are already multiplied back by 16.

    ``swizzle`` is None for a code the table does not define (3, 5, 7); ``problems`` lists that and
    every fixed bit that is not as the table requires, one line each.
    """

    value: int
    start_address: int
    lbo: int
    sbo: int
    version: int
    base_offset: int
    lbo_mode: int
    swizzle: str | None
    swizzle_code: int
    problems: tuple[str, ...]

    def to_record(self) -> dict[str, object]:
        """The JSON answer.

        >>> decode(0x4000404000010000).to_record()["hex"]
        '0x4000404000010000'
        """
        return {
            "hex": f"0x{self.value:016x}",
            "start_address": self.start_address,
            "lbo": self.lbo,
            "sbo": self.sbo,
            "version": self.version,
            "base_offset": self.base_offset,
            "lbo_mode": self.lbo_mode,
            "swizzle": self.swizzle,
            "problems": list(self.problems),
        }


def _swizzle_name(swizzle: str | Swizzle) -> str:
    return swizzle.name if isinstance(swizzle, Swizzle) else swizzle


def encode(
    start_address: int,
    lbo: int | None,
    sbo: int,
    swizzle: str | Swizzle,
    base_offset: int = 0,
    lbo_mode: int = 0,
) -> int:
    """The descriptor for byte offsets ``lbo``/``sbo`` (None = unused LBO, encoded 1).

    >>> hex(encode(0x400, 256, 128, "none"))  # PTX figure 188 at address 0x400
    '0x400800100040'
    """
    codes = swizzle_codes()
    name = _swizzle_name(swizzle)
    if name not in codes:
        raise TmemvizError(f"unknown swizzle {name!r}; the descriptor knows {', '.join(codes)}")
    if isinstance(start_address, bool) or not isinstance(start_address, int):
        raise TmemvizError(f"start address {start_address!r} is not a whole number of bytes")
    if start_address % 16 or not 0 <= start_address <= ADDRESS_LIMIT:
        raise TmemvizError(
            f"start address {start_address} is not allowed; use a multiple of 16 from 0 to {ADDRESS_LIMIT}"
        )
    lbo_bytes = check_offset("LBO", UNUSED_LBO if lbo is None else lbo)
    sbo_bytes = check_offset("SBO", sbo)
    for label, value, high in (("base offset", base_offset, 7), ("LBO mode", lbo_mode, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
            raise TmemvizError(f"{label} {value!r} is not allowed; use 0..{high}")
    return (
        (start_address >> 4)
        | (lbo_bytes >> 4) << 16
        | (sbo_bytes >> 4) << 32
        | VERSION << 46
        | base_offset << 49
        | lbo_mode << 52
        | codes[name] << 61
    )


def encode_layout(layout: SmemLayout, start_address: int = 0) -> int:
    """The descriptor CUTLASS would build for ``layout`` at ``start_address``.

    >>> from tmemviz.families.smem.layout import dense_tile
    >>> hex(encode_layout(dense_tile("K", "128B", "bf16", 128, 64)))
    '0x4000404000010000'
    """
    if layout.sbo is None:
        raise TmemvizError("this layout has no SBO, so it has no descriptor")
    return encode(start_address, layout.lbo, layout.sbo, layout.swizzle)


def decode(value: int) -> Descriptor:
    """Split a descriptor into its fields, reporting (not ignoring) bits the table does not allow.

    >>> decode(0x4000404000010000).sbo
    1024
    >>> decode(0x6000000000000000).problems[0]
    'version (bits 46-48) is 0, but tcgen05 descriptors must have 1'
    """
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 64:
        raise TmemvizError(f"descriptor {value!r} is not a 64-bit unsigned value")
    names = {code: name for name, code in swizzle_codes().items()}
    code = _field(value, 61, 3)
    version = _field(value, 46, 3)
    problems: list[str] = []
    if version != VERSION:
        problems.append(f"version (bits 46-48) is {version}, but tcgen05 descriptors must have {VERSION}")
    for first, width, label in _FIXED_ZERO:
        bits = _field(value, first, width)
        if bits:
            problems.append(f"bits {label} are 0b{bits:0{width}b}, but must be 0")
    if code not in names:
        known = ", ".join(f"{c} {n}" for c, n in sorted(names.items()))
        problems.append(f"swizzle code {code} (bits 61-63) is not defined; defined codes: {known}")
    return Descriptor(
        value=value,
        start_address=_field(value, 0, 14) << 4,
        lbo=_field(value, 16, 14) << 4,
        sbo=_field(value, 32, 14) << 4,
        version=version,
        base_offset=_field(value, 49, 3),
        lbo_mode=_field(value, 52, 1),
        swizzle=names.get(code),
        swizzle_code=code,
        problems=tuple(problems),
    )
