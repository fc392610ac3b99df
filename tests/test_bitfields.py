"""Descriptor figures: `desc HEX -o` and `idesc VALUE --kind K -o` draw their bit fields (P18).

Each figure is checked against the decoder and, independently, against the encoder: a field drawn
over bits a..b must be where changing that field's encoded value changes bits, and nowhere else.
"""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_run import ok

from tmemviz.draw.bitfield import BitField, bitfield_spec
from tmemviz.draw.geometry import MARK
from tmemviz.draw.spec import FigureSpec
from tmemviz.families.mma import idesc as mma_idesc
from tmemviz.families.mma.answers import word
from tmemviz.families.mma.figures import idesc_spec
from tmemviz.families.smem.bitfields import descriptor_spec
from tmemviz.families.smem.descriptor import decode, encode

SVG = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DESCRIPTORS = (0x4000404000010000, 0x400800100040, 0x6000000000000007, 0, (1 << 64) - 1)


def fields_of(spec: FigureSpec) -> dict[str, set[int]]:
    """Field name -> the bits its boxes say it covers (the bit row), checked against the name row."""
    bits: dict[str, set[int]] = {}
    spans: dict[str, set[int]] = {}
    for box in spec.boxes:
        data = dict(box.data)
        if "bit" in data:
            bits.setdefault(f"{data['field']}@{data['bit']}", set()).add(int(data["bit"]))
        else:
            a, b = map(int, data["bits"].split("-"))
            spans.setdefault(data["field"] + f"@{a}", set()).update(range(a, b + 1))
    by_field: dict[str, set[int]] = {}
    for key, span in spans.items():
        by_field.setdefault(key.split("@")[0], set()).update(span)
    from_bits: dict[str, set[int]] = {}
    for key, one in bits.items():
        from_bits.setdefault(key.split("@")[0], set()).update(one)
    assert by_field == from_bits
    return by_field


def check_bits(spec: FigureSpec, value: int, size: int) -> None:
    """The bit row shows every bit of ``value`` once, most significant first in each 32-bit panel."""
    shown = {}
    for panel in spec.panels:
        row = sorted((b for b in panel.boxes if b.y == 1), key=lambda b: b.x)
        top = int(panel.x_ticks[0][1])
        assert [int(dict(b.data)["bit"]) for b in row] == list(range(top, top - 32, -1))
        for b in row:
            shown[int(dict(b.data)["bit"])] = int(b.label)
    assert shown == {i: (value >> i) & 1 for i in range(size)}


def framed(spec: FigureSpec) -> set[str]:
    """Fields framed in red (what the table does not allow)."""
    out = set()
    for panel in spec.panels:
        for o in panel.outlines:
            assert o.color == MARK
            (name,) = {dict(b.data)["field"] for b in panel.boxes if b.y == 0 and b.x == o.x}
            out.add(name)
    return out


@pytest.mark.parametrize("value", DESCRIPTORS, ids=hex)
def test_descriptor_figure_is_the_decoded_descriptor(value: int) -> None:
    desc = decode(value)
    spec = descriptor_spec(desc)
    check_bits(spec, value, 64)
    fields = fields_of(spec)
    values = {dict(b.data)["field"]: b.label for b in spec.boxes if b.y == 2}
    assert values["address"] == f"{desc.start_address} B" and values["SBO"] == f"{desc.sbo} B"
    assert values["LBO"] == f"{desc.lbo} B" and values["base offset"] == str(desc.base_offset)
    assert values["swizzle"] == (desc.swizzle or f"undefined ({desc.swizzle_code})")
    assert set(fields["0"]) == {14, 15, 30, 31, *range(53, 61)}
    assert bool(framed(spec)) == bool(desc.problems)
    assert ("swizzle" in framed(spec)) == (desc.swizzle is None)
    assert ("version" in framed(spec)) == (desc.version != 1)
    assert all(p in spec.caption for p in desc.problems)


def test_descriptor_fields_sit_where_the_encoder_writes_them() -> None:
    """Independently of the decoder: each field's bits are those its encode() argument changes."""
    fields = fields_of(descriptor_spec(decode(0)))
    base = {"start_address": 0, "lbo": 16, "sbo": 16, "swizzle": "none", "base_offset": 0, "lbo_mode": 0}
    changes = {
        "address": {"start_address": 0x3FFF << 4},
        "LBO": {"lbo": 0x3FFF << 4},
        "SBO": {"sbo": 0x3FFF << 4},
        "base offset": {"base_offset": 7},
        "LBO mode": {"lbo_mode": 1},
        "swizzle": {"swizzle": "32B"},
    }
    zero = encode(**base)  # type: ignore[arg-type]
    for name, change in changes.items():
        flipped = zero ^ encode(**{**base, **change})  # type: ignore[arg-type]
        assert {i for i in range(64) if flipped >> i & 1} <= fields[name], name
    assert zero >> 46 & 7 == 1 and fields["version"] == {46, 47, 48}
    lbo_zero = encode(**{**base, "lbo": 0})  # type: ignore[arg-type]
    assert {i for i in range(64) if (zero ^ lbo_zero) >> i & 1} <= fields["LBO"]


CASES = [
    (kind, v)
    for kind in mma_idesc.KINDS
    for v in (0x08200010, 0, 0xFFFFFFFF, *random.Random(7).sample(range(1 << 32), 6))
]


@pytest.mark.parametrize(("kind", "value"), CASES, ids=[f"{k}-{v:#x}" for k, v in CASES])
def test_idesc_figure_is_the_decoded_descriptor(kind: str, value: int) -> None:
    found = mma_idesc.decode(value, kind)
    spec = idesc_spec(found)
    check_bits(spec, value, 32)
    fields = fields_of(spec)
    named, reserved = mma_idesc.layout(kind)
    for f in named:
        assert fields[f.name] == set(range(f.first, f.first + f.width)), f.name
    assert fields.get("reserved", set()) == {b for f in reserved for b in range(f.first, f.first + f.width)}
    values = {
        dict(b.data)["field"]: b.label for b in spec.boxes if b.y == 2 and dict(b.data)["field"] != "reserved"
    }
    assert values == {f.name: word(found.fields[f.name]) for f in named}
    undefined = {f.name for f in named if str(found.fields[f.name]).startswith("undefined")}
    assert undefined <= framed(spec)
    if any(f.get(value) for f in reserved):
        assert "reserved" in framed(spec)
    if not found.problems:
        assert not framed(spec)
    assert all(p in spec.caption for p in found.problems)


def test_idesc_fields_sit_where_the_encoder_writes_them() -> None:
    """M and N of the f16 table: encode() with another M or N changes bits of that field only."""
    fields = fields_of(idesc_spec(mma_idesc.decode(0, "f16")))
    args = {"d_type": "F32", "a_type": "F16", "b_type": "F16", "m": 128, "n": 128}
    zero = mma_idesc.encode("f16", **args)
    for name, change in (("m", {"m": 64}), ("n", {"n": 256}), ("d_type", {"d_type": "F16"})):
        flipped = zero ^ mma_idesc.encode("f16", **{**args, **change})
        assert flipped and {i for i in range(32) if flipped >> i & 1} <= fields[name], name


def test_bitfield_spec_refuses_gaps_and_overlaps() -> None:
    with pytest.raises(ValueError, match="exactly once"):
        bitfield_spec(0, 32, [BitField(0, 31, "a", "0", "a")], title="t", caption="c")
    with pytest.raises(ValueError, match="exactly once"):
        bitfield_spec(
            0, 32, [BitField(0, 32, "a", "0", "a"), BitField(3, 1, "b", "0", "b")], title="t", caption="c"
        )


@pytest.mark.parametrize("fmt", ["png", "svg", "html"])
def test_desc_and_idesc_write_figures(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """P18: help promised png/svg/html for desc and idesc; both now draw their bit fields."""
    for args, title in (
        (("desc", "0x4000404000010000"), "descriptor 0x4000404000010000"),
        (("idesc", "0x08200010", "--kind", "f16"), "instruction descriptor 0x08200010 (.kind::f16)"),
    ):
        out = tmp_path / f"{args[0]}.{fmt}"
        ok(capsys, *args, "-o", str(out))
        data = out.read_bytes()
        if fmt == "png":
            assert data.startswith(PNG_SIGNATURE)
        elif fmt == "svg":
            texts = ["".join(e.itertext()) for e in ET.fromstring(data).iter(f"{SVG}text")]
            assert title in texts
        else:
            assert f"<h1>{title}</h1>" in data.decode() and 'data-group="field"' in data.decode()
