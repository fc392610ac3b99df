"""The 64-bit shared-memory descriptor against the PTX bit table (smem-facts) and CUTLASS's example."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tmemviz.errors import TmemvizError
from tmemviz.families.smem.descriptor import decode, encode, encode_layout
from tmemviz.families.smem.examples import ptx_figure
from tmemviz.families.smem.layout import dense_tile

# smem-facts "The 64-bit shared-memory descriptor": bits 61-63.
CODES = {"none": 0, "128B_base32B": 1, "128B": 2, "64B": 4, "32B": 6}
# The bits that carry fields (start 0-13, LBO 16-29, SBO 32-45, base offset 49-51, LBO mode 52,
# swizzle 61-63); the rest are fixed: 14-15, 30-31, 53-60 zero and 46-48 = 0b001.
FIELD_MASK = 0x3FFF | 0x3FFF << 16 | 0x3FFF << 32 | 0b1111 << 49 | 0b111 << 61
VERSION_BITS = 1 << 46

offsets = st.integers(0, 0x3FFF).map(lambda v: v * 16)


def test_cutlass_example() -> None:
    # smem-facts: K-major, 128B, bf16, 128 x 64 at address 0 -> 0x4000404000010000.
    assert encode_layout(dense_tile("K", "128B", "bf16", 128, 64)) == 0x4000404000010000
    assert encode(0, None, 1024, "128B") == 0x4000404000010000
    record = decode(0x4000404000010000).to_record()
    assert record == {
        "hex": "0x4000404000010000",
        "start_address": 0,
        "lbo": 16,
        "sbo": 1024,
        "version": 1,
        "base_offset": 0,
        "lbo_mode": 0,
        "swizzle": "128B",
        "problems": [],
    }


@pytest.mark.parametrize(("number", "lbo_enc", "sbo_enc"), [(188, 16, 8), (190, 16, 8)])
def test_figure_offsets_encode_as_the_facts_say(number: int, lbo_enc: int, sbo_enc: int) -> None:
    value = encode_layout(ptx_figure(number), start_address=0x2000)
    assert (value >> 16) & 0x3FFF == lbo_enc
    assert (value >> 32) & 0x3FFF == sbo_enc
    assert value & 0x3FFF == 0x2000 >> 4
    assert value >> 61 == 0


@given(
    start=offsets,
    lbo=offsets,
    sbo=offsets,
    swizzle=st.sampled_from(sorted(CODES)),
    base_offset=st.integers(0, 7),
    lbo_mode=st.integers(0, 1),
)
def test_encode_decode_round_trip(
    start: int, lbo: int, sbo: int, swizzle: str, base_offset: int, lbo_mode: int
) -> None:
    value = encode(start, lbo, sbo, swizzle, base_offset=base_offset, lbo_mode=lbo_mode)
    expected = (
        start >> 4 | lbo >> 4 << 16 | sbo >> 4 << 32 | VERSION_BITS | base_offset << 49 | lbo_mode << 52
    ) | CODES[swizzle] << 61
    assert value == expected
    d = decode(value)
    assert (d.start_address, d.lbo, d.sbo, d.swizzle) == (start, lbo, sbo, swizzle)
    assert (d.version, d.base_offset, d.lbo_mode, d.problems) == (1, base_offset, lbo_mode, ())


@given(st.integers(0, (1 << 64) - 1))
def test_any_value_decodes_and_reports_every_fixed_bit(value: int) -> None:
    d = decode(value)
    code = value >> 61
    fixed_ok = value & ~FIELD_MASK == VERSION_BITS
    assert (d.problems == ()) == (fixed_ok and code in CODES.values())
    assert (d.swizzle is None) == (code not in CODES.values())
    if d.swizzle is not None:
        again = encode(d.start_address, d.lbo, d.sbo, d.swizzle, d.base_offset, d.lbo_mode)
        assert again == (value & FIELD_MASK) | VERSION_BITS
    assert d.to_record()["hex"] == f"0x{value:016x}"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0x6000000000000000 | VERSION_BITS, "swizzle code 3 (bits 61-63) is not defined"),
        (0xA000000000000000 | VERSION_BITS, "swizzle code 5"),
        (0xE000000000000000 | VERSION_BITS, "swizzle code 7"),
        (1 << 14 | VERSION_BITS, "bits 14-15 are 0b01, but must be 0"),
        (1 << 31 | VERSION_BITS, "bits 30-31 are 0b10, but must be 0"),
        (1 << 53 | VERSION_BITS, "bits 53-60 are 0b00000001, but must be 0"),
        (0, "version (bits 46-48) is 0"),
        (0b111 << 46, "version (bits 46-48) is 7"),
    ],
)
def test_problems_are_reported(value: int, text: str) -> None:
    problems = decode(value).problems
    assert any(text in p for p in problems), problems
    assert decode(value).to_record()["problems"] == list(problems)


@pytest.mark.parametrize(
    ("call", "text"),
    [
        (lambda: encode(8, 16, 16, "none"), "start address 8 is not allowed"),
        (lambda: encode(1 << 18, 16, 16, "none"), "start address 262144 is not allowed"),
        (lambda: encode(0, 17, 16, "none"), "LBO 17 bytes is not allowed"),
        (lambda: encode(0, 16, 1 << 18, "none"), "SBO 262144 bytes does not fit"),
        (lambda: encode(0, 16, 16, "16B"), "unknown swizzle '16B'"),
        (lambda: encode(0, 16, 16, "none", base_offset=8), "base offset 8 is not allowed"),
        (lambda: encode(0, 16, 16, "none", lbo_mode=2), "LBO mode 2 is not allowed"),
        (lambda: decode(-1), "is not a 64-bit unsigned value"),
        (lambda: decode(1 << 64), "is not a 64-bit unsigned value"),
    ],
)
def test_bad_input_is_one_sentence(call: object, text: str) -> None:
    with pytest.raises(TmemvizError) as err:
        call()  # type: ignore[operator]
    assert text in str(err.value)
    assert "\n" not in str(err.value) and ". " not in str(err.value)
