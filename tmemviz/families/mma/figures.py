"""The instruction descriptor as a bit-field figure (PTX ISA 9.7.16.4.2), and its gallery entry.

Plain data for :func:`tmemviz.draw.bitfield.bitfield_spec`: the fields of ``.kind``'s table
(:func:`tmemviz.families.mma.idesc.layout`, the one place they are written) over their bits, each
with its code and meaning; reserved bits are grey, and a field the table does not allow is framed.
"""

from __future__ import annotations

from functools import partial

from tmemviz.catalog import Catalog
from tmemviz.draw.bitfield import BitField, bitfield_spec
from tmemviz.draw.spec import FigureSpec, GalleryEntry
from tmemviz.families.mma.answers import summary, word
from tmemviz.families.mma.idesc import Idesc, decode, layout


def idesc_fields(found: Idesc) -> tuple[BitField, ...]:
    """Every bit of the 32-bit descriptor, by field: named fields with code and meaning, reserved ones."""
    named, reserved = layout(found.kind)
    out = []
    for f in named:
        meaning = word(found.fields[f.name])
        code = found.codes[f.name]
        undefined = meaning.startswith("undefined") or any(p.startswith(f.label) for p in found.problems)
        out.append(
            BitField(
                f.first, f.width, f.name, meaning, f"{f.label} = {meaning} (code {code})", wrong=undefined
            )
        )
    for f in reserved:
        bits = f.get(found.value)
        out.append(
            BitField(
                f.first,
                f.width,
                "reserved",
                str(bits),
                f"reserved, must be 0, reads {bits}",
                reserved=True,
                wrong=bits != 0,
            )
        )
    return tuple(out)


def idesc_spec(found: Idesc) -> FigureSpec:
    """The descriptor's 32 bits, each field named over its bits with its meaning."""
    caption = (
        f"tcgen05.mma instruction descriptor for .kind::{found.kind} (PTX ISA 9.7.16.4.2): {summary(found)}; "
        "grey bits are reserved (0)"
    )
    if found.problems:
        caption += ". Red frames: " + "; ".join(found.problems)
    title = f"instruction descriptor 0x{found.value:08x} (.kind::{found.kind})"
    return bitfield_spec(found.value, 32, idesc_fields(found), title=title, caption=caption)


GALLERY = (
    0x08200010,
    "f16",
    "Triton 3.9's kind::f16 M=128 N=128 descriptor (136314896): D F32, A and B F16, K-major",
)


def gallery_entries(catalog: Catalog) -> list[GalleryEntry]:
    """One descriptor as the PTX ISA's table draws it."""
    value, kind, note = GALLERY
    return [
        GalleryEntry(
            f"idesc.{kind}.0x{value:08x}",
            f"`tcgen05.mma.cta_group::1.kind::{kind}` instruction descriptor `0x{value:08x}`",
            "after the instruction-descriptor table (9.7.16.4.2)",
            note,
            partial(idesc_spec, decode(value, kind)),
        )
    ]
