"""The shared-memory descriptor as a bit-field figure (PTX ISA 9.7.16.3, shared-memory descriptor table).

Plain data for :func:`tmemviz.draw.bitfield.bitfield_spec`: each field of the table over its bits,
with what :func:`tmemviz.families.smem.descriptor.decode` reads there; the bits the table leaves out
or fixes are grey, and a field the table does not allow is framed.
"""

from __future__ import annotations

from tmemviz.draw.bitfield import BitField, bitfield_spec
from tmemviz.draw.spec import FigureSpec
from tmemviz.families.smem.descriptor import VERSION, Descriptor

LBO_MODES = {0: "relative", 1: "absolute"}


def _bytes(first: int, name: str, label: str, value: int) -> BitField:
    return BitField(first, 14, name, f"{value} B", f"{label} = {value} bytes (encoded {value >> 4})")


def descriptor_fields(desc: Descriptor) -> tuple[BitField, ...]:
    """Every bit of the 64-bit descriptor, by field, with its decoded value."""
    v = desc.value

    def fixed(first: int, width: int) -> BitField:
        bits = (v >> first) & ((1 << width) - 1)
        return BitField(
            first, width, "0", str(bits), f"fixed 0, reads {bits}", reserved=True, wrong=bits != 0
        )

    swizzle = desc.swizzle if desc.swizzle is not None else f"undefined ({desc.swizzle_code})"
    return (
        _bytes(0, "address", "start address", desc.start_address),
        fixed(14, 2),
        _bytes(16, "LBO", "leading dimension byte offset (LBO)", desc.lbo),
        fixed(30, 2),
        _bytes(32, "SBO", "stride dimension byte offset (SBO)", desc.sbo),
        BitField(
            46,
            3,
            "version",
            str(desc.version),
            f"version = {desc.version} (tcgen05 requires {VERSION})",
            reserved=True,
            wrong=desc.version != VERSION,
        ),
        BitField(49, 3, "base offset", str(desc.base_offset), f"matrix base offset = {desc.base_offset}"),
        BitField(
            52,
            1,
            "LBO mode",
            LBO_MODES[desc.lbo_mode],
            f"LBO mode = {desc.lbo_mode} ({LBO_MODES[desc.lbo_mode]})",
        ),
        fixed(53, 8),
        BitField(
            61,
            3,
            "swizzle",
            swizzle,
            f"swizzle code {desc.swizzle_code} = {swizzle}",
            wrong=desc.swizzle is None,
        ),
    )


def descriptor_spec(desc: Descriptor) -> FigureSpec:
    """The descriptor's 64 bits in two rows of 32, each field named over its bits with its value."""
    caption = (
        "tcgen05 shared-memory matrix descriptor (PTX ISA 9.7.16.3): byte offsets are stored >> 4; grey bits "
        "are fixed by the table (bits 14-15 and 30-31, which the table does not list, are 0 as in CUTLASS)"
    )
    if desc.problems:
        caption += ". Red frames: " + "; ".join(desc.problems)
    return bitfield_spec(
        desc.value, 64, descriptor_fields(desc), title=f"descriptor 0x{desc.value:016x}", caption=caption
    )
