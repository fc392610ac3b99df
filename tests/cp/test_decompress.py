"""tcgen05.cp decompression (``.b8x16.b4x16_p64``, ``.b8x16.b6x16_p32``) against an independent oracle.

The oracle below is written from the facts sheet ("Decompression in tcgen05.cp")
and touches the chunk one bit at a time; it imports nothing from tmemviz:

- a source chunk is 16 bytes; source bit ``p`` is bit ``p % 8`` of byte ``p // 8``;
- element ``i`` of width ``w`` is source bits ``w*i .. w*i+w-1`` (bit ``w*i`` is its bit 0);
  bytes ``2w .. 15`` are padding and are not copied;
- container ``i`` is TMEM byte ``i`` (column ``i // 4``, byte ``i % 4``, little-endian); a 4-bit
  element sits at container bits 5:2 (``00xxxx00``), a 6-bit element at bits 6:1 (``0xxxxxx0``),
  every other container bit is zero.

Number values are literals from the OCP Microscaling Formats spec v1.0 (E2M1, E3M2, E2M3:
no Inf/NaN, exponent 0 is subnormal), not computed by the formula under test.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tmemviz.errors import TmemvizError
from tmemviz.families.cp.decompress import (
    CONTAINER_BASIS,
    FORMATS,
    TYPES,
    Format,
    get_format,
    get_type,
    narrow,
    pack,
    parse_codes,
    parse_hex,
    tmem_position,
    unpack,
    widen,
)
from tmemviz.families.cp.views import container_pattern

# --------------------------------------------------------------------------- the oracle

ELEMENTS = 16
CHUNK = 16
WIDTH = {"b4x16_p64": 4, "b6x16_p32": 6}
"""Element width of each source format (the name says it: b4x16, b6x16)."""
CONTAINER_LOW = {4: 2, 6: 1}
"""Facts: 4-bit value at container bits 5:2, 6-bit value at bits 6:1."""
TYPE_WIDTH = {"e2m1": 4, "e3m2": 6, "e2m3": 6}
FORMAT_OF = {4: "b4x16_p64", 6: "b6x16_p32"}


def data_bytes(width: int) -> int:
    """16 elements of ``width`` bits: 8 bytes (4-bit) or 12 bytes (6-bit)."""
    return {4: 8, 6: 12}[width]


def source_bit(chunk: bytes, p: int) -> int:
    """Bit ``p`` of the chunk read as one little-endian number."""
    return chunk[p // 8] >> (p % 8) & 1


def oracle_chunk(width: int, codes: Sequence[int], padding: bytes | None = None) -> bytes:
    """The 16-byte source chunk holding ``codes``, built bit by bit; padding zero unless given."""
    assert len(codes) == ELEMENTS
    bits = [0] * (8 * CHUNK)
    for i, code in enumerate(codes):
        assert 0 <= code < 2**width
        for j in range(width):
            bits[width * i + j] = code >> j & 1
    n = data_bytes(width)
    data = bytes(sum(bits[8 * b + k] << k for k in range(8)) for b in range(n))
    pad = bytes(CHUNK - n) if padding is None else padding
    assert len(pad) == CHUNK - n
    return data + pad


def oracle_codes(width: int, chunk: bytes) -> list[int]:
    """The 16 element codes of a chunk, one source bit at a time."""
    return [sum(source_bit(chunk, width * i + j) << j for j in range(width)) for i in range(ELEMENTS)]


def oracle_widen(width: int, chunk: bytes) -> bytes:
    """The 16 TMEM bytes: container bit ``low + j`` is element bit ``j``, every other bit zero."""
    low = CONTAINER_LOW[width]
    return bytes(
        sum(source_bit(chunk, width * i + j) << (low + j) for j in range(width)) for i in range(ELEMENTS)
    )


def from_container(width: int, byte: int) -> int:
    """The element code back out of its container; the bits outside the element must be zero."""
    low = CONTAINER_LOW[width]
    code = 0
    for j in range(width):
        code |= (byte >> (low + j) & 1) << j
    for bit in range(8):
        if not low <= bit < low + width:
            assert byte >> bit & 1 == 0, f"container {byte:08b}: bit {bit} is set outside the element"
    return code


def column_byte(out: bytes, col: int, byte: int) -> int:
    """Byte ``byte`` of 32-bit TMEM column ``col`` (columns stored little-endian)."""
    word = int.from_bytes(out[4 * col : 4 * col + 4], "little")
    return word >> (8 * byte) & 0xFF


# --------------------------------------------------------------------------- spec value tables

# OCP MX v1.0, E2M1 (bias 1, no Inf/NaN): codes 0..7 are +, 8..15 the same with the sign bit set.
E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
# E3M2 (bias 3): exponent 0 subnormal (0.0625 steps), max normal 28.
E3M2 = (
    0.0, 0.0625, 0.125, 0.1875,
    0.25, 0.3125, 0.375, 0.4375,
    0.5, 0.625, 0.75, 0.875,
    1.0, 1.25, 1.5, 1.75,
    2.0, 2.5, 3.0, 3.5,
    4.0, 5.0, 6.0, 7.0,
    8.0, 10.0, 12.0, 14.0,
    16.0, 20.0, 24.0, 28.0,
)  # fmt: skip
# E2M3 (bias 1): exponent 0 subnormal (0.125 steps), max normal 7.5.
E2M3 = (
    0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875,
    1.0, 1.125, 1.25, 1.375, 1.5, 1.625, 1.75, 1.875,
    2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75,
    4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5,
)  # fmt: skip
MAGNITUDES = {"e2m1": E2M1, "e3m2": E3M2, "e2m3": E2M3}


def spec_value(type_name: str, code: int) -> float:
    """The literal table entry, with the sign bit (the top bit) applied."""
    width = TYPE_WIDTH[type_name]
    magnitude = MAGNITUDES[type_name][code & (2 ** (width - 1) - 1)]
    return -magnitude if code >> (width - 1) else magnitude


def fmt_for(width: int) -> Format:
    return FORMATS[FORMAT_OF[width]]


# --------------------------------------------------------------------------- the oracle itself


def test_oracle_agrees_with_the_nibble_rule() -> None:
    """4-bit: element i is source byte i // 2, low nibble first (the facts' own words)."""
    rng = random.Random(4)
    for _ in range(50):
        chunk = bytes(rng.randrange(256) for _ in range(CHUNK))
        expected = [chunk[i // 2] & 0xF if i % 2 == 0 else chunk[i // 2] >> 4 for i in range(ELEMENTS)]
        assert oracle_codes(4, chunk) == expected


def test_oracle_agrees_with_four_elements_per_three_bytes() -> None:
    """6-bit: bytes b0 b1 b2 hold e0 = b0[5:0], e1 = b1[3:0]b0[7:6], e2 = b2[1:0]b1[7:4], e3 = b2[7:2]."""
    rng = random.Random(6)
    for _ in range(50):
        chunk = bytes(rng.randrange(256) for _ in range(CHUNK))
        expected = []
        for g in range(4):
            b0, b1, b2 = chunk[3 * g : 3 * g + 3]
            expected += [b0 & 0x3F, b0 >> 6 | (b1 & 0xF) << 2, b1 >> 4 | (b2 & 0x3) << 4, b2 >> 2]
        assert oracle_codes(6, chunk) == expected


# --------------------------------------------------------------------------- formats


def test_format_table() -> None:
    assert set(FORMATS) == {"b4x16_p64", "b6x16_p32"}
    f4, f6 = FORMATS["b4x16_p64"], FORMATS["b6x16_p32"]
    assert (f4.element_bits, f4.padding_bytes, f4.data_bytes) == (4, 8, 8)
    assert (f6.element_bits, f6.padding_bytes, f6.data_bytes) == (6, 4, 12)
    assert f4.data_bytes + f4.padding_bytes == CHUNK == f6.data_bytes + f6.padding_bytes
    assert f4.container_bits == (5, 2)
    assert f6.container_bits == (6, 1)
    assert f4.qualifiers == ".b8x16.b4x16_p64"
    assert f6.qualifiers == ".b8x16.b6x16_p32"


@pytest.mark.parametrize("width", [4, 6])
def test_source_bits(width: int) -> None:
    fmt = fmt_for(width)
    for i in range(ELEMENTS):
        assert fmt.source_bits(i) == (width * i + width - 1, width * i)


def test_source_bits_literals() -> None:
    f4, f6 = FORMATS["b4x16_p64"], FORMATS["b6x16_p32"]
    assert [f4.source_bits(i) for i in (0, 1, 2, 15)] == [(3, 0), (7, 4), (11, 8), (63, 60)]
    assert [f6.source_bits(i) for i in (0, 1, 2, 3, 4, 5, 15)] == [
        (5, 0),
        (11, 6),
        (17, 12),
        (23, 18),
        (29, 24),
        (35, 30),
        (95, 90),
    ]


def test_4bit_elements_sit_in_byte_i_half_low_nibble_first() -> None:
    fmt = FORMATS["b4x16_p64"]
    for i in range(ELEMENTS):
        hi, lo = fmt.source_bits(i)
        assert hi // 8 == lo // 8 == i // 2
        assert (lo % 8, hi % 8) == ((0, 3) if i % 2 == 0 else (4, 7))


def test_6bit_elements_straddle_bytes() -> None:
    """Elements 1 and 2 of every 3-byte group cross a byte boundary; 0 and 3 do not."""
    fmt = FORMATS["b6x16_p32"]
    straddling = [i for i in range(ELEMENTS) if fmt.source_bits(i)[0] // 8 != fmt.source_bits(i)[1] // 8]
    assert straddling == [1, 2, 5, 6, 9, 10, 13, 14]
    assert fmt.source_bits(1) == (11, 6)  # byte 0 bits 7:6, byte 1 bits 3:0
    assert fmt.source_bits(2) == (17, 12)  # byte 1 bits 7:4, byte 2 bits 1:0
    assert fmt.source_bits(15)[0] == 8 * fmt.data_bytes - 1  # the last data bit, right before padding


@pytest.mark.parametrize(
    "name",
    ["b4x16_p64", ".b4x16_p64", "b8x16.b4x16_p64", ".b8x16.b4x16_p64", " B4X16_P64 "],
)
def test_get_format_spellings(name: str) -> None:
    assert get_format(name) is FORMATS["b4x16_p64"]


def test_get_format_6bit() -> None:
    assert get_format(".b8x16.b6x16_p32") is FORMATS["b6x16_p32"]


@pytest.mark.parametrize("name", ["", "b4x16", "b8x16", "b4x16_p32", "b6x16_p64", "b8x16.b8x16", "e2m1"])
def test_get_format_rejects(name: str) -> None:
    with pytest.raises(TmemvizError):
        get_format(name)


# --------------------------------------------------------------------------- types


def test_get_type_defaults() -> None:
    assert get_type(FORMATS["b4x16_p64"], None) is TYPES["e2m1"]
    assert get_type(FORMATS["b6x16_p32"], None) is None


@pytest.mark.parametrize(
    ("fmt", "name", "ok"),
    [
        ("b4x16_p64", "e2m1", True),
        ("b4x16_p64", "E2M1", True),
        ("b4x16_p64", "e3m2", False),
        ("b4x16_p64", "e2m3", False),
        ("b6x16_p32", "e3m2", True),
        ("b6x16_p32", "e2m3", True),
        ("b6x16_p32", "E2M3", True),
        ("b6x16_p32", "e2m1", False),
        ("b4x16_p64", "fp4", False),
        ("b6x16_p32", "e4m3", False),
        ("b6x16_p32", "", False),
    ],
)
def test_get_type_matches_width(fmt: str, name: str, ok: bool) -> None:
    if ok:
        kind = get_type(FORMATS[fmt], name)
        assert kind is TYPES[name.lower()]
        assert kind is not None and kind.bits == FORMATS[fmt].element_bits
    else:
        with pytest.raises(TmemvizError):
            get_type(FORMATS[fmt], name)


def test_type_labels() -> None:
    assert TYPES["e2m1"].labels() == ("s", "e1", "e0", "m0")
    assert TYPES["e3m2"].labels() == ("s", "e2", "e1", "e0", "m1", "m0")
    assert TYPES["e2m3"].labels() == ("s", "e1", "e0", "m2", "m1", "m0")


@pytest.mark.parametrize("name", ["e2m1", "e3m2", "e2m3"])
def test_every_code_value(name: str) -> None:
    kind = TYPES[name]
    width = TYPE_WIDTH[name]
    assert kind.bits == width
    for code in range(2**width):
        got = kind.value(code)
        want = spec_value(name, code)
        assert got == want, f"{name} code {code:0{width}b}: {got} != {want}"
        assert math.copysign(1.0, got) == (-1.0 if code >> (width - 1) else 1.0), f"sign of code {code}"


def test_e2m1_all_sixteen() -> None:
    kind = TYPES["e2m1"]
    assert [kind.value(c) for c in range(16)] == [
        0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
        -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "code", "value"),
    [
        # E3M2: max normal, min normal, max subnormal, min subnormal, with and without the sign.
        ("e3m2", 0b011111, 28.0),
        ("e3m2", 0b111111, -28.0),
        ("e3m2", 0b000100, 0.25),
        ("e3m2", 0b100100, -0.25),
        ("e3m2", 0b000011, 0.1875),
        ("e3m2", 0b000001, 0.0625),
        ("e3m2", 0b100001, -0.0625),
        ("e3m2", 0b001100, 1.0),
        # E2M3: the same landmarks.
        ("e2m3", 0b011111, 7.5),
        ("e2m3", 0b111111, -7.5),
        ("e2m3", 0b001000, 1.0),
        ("e2m3", 0b101000, -1.0),
        ("e2m3", 0b000111, 0.875),
        ("e2m3", 0b000001, 0.125),
        ("e2m3", 0b100001, -0.125),
        # E2M1: max, min normal, the only subnormal.
        ("e2m1", 0b0111, 6.0),
        ("e2m1", 0b1111, -6.0),
        ("e2m1", 0b0010, 1.0),
        ("e2m1", 0b0001, 0.5),
        ("e2m1", 0b1001, -0.5),
    ],
)
def test_value_landmarks(name: str, code: int, value: float) -> None:
    assert TYPES[name].value(code) == value


@pytest.mark.parametrize("name", ["e2m1", "e3m2", "e2m3"])
def test_values_are_finite_and_symmetric(name: str) -> None:
    """No Inf/NaN codes; the sign bit negates; codes with the sign clear increase strictly."""
    kind = TYPES[name]
    half = 2 ** (kind.bits - 1)
    positives = [kind.value(c) for c in range(half)]
    assert all(math.isfinite(v) for v in positives)
    assert positives == sorted(set(positives))
    assert [kind.value(c + half) for c in range(half)] == [-v for v in positives]


# --------------------------------------------------------------------------- containers and TMEM


def test_tmem_position() -> None:
    assert [tmem_position(i) for i in range(ELEMENTS)] == [(i // 4, i % 4) for i in range(ELEMENTS)]
    assert tmem_position(0) == (0, 0)
    assert tmem_position(5) == (1, 1)
    assert tmem_position(15) == (3, 3)


@pytest.mark.parametrize("width", [4, 6])
def test_container_i_is_column_byte_little_endian(width: int) -> None:
    """Read back through 32-bit columns: byte b of column c must hold element 4c + b."""
    fmt = fmt_for(width)
    codes = [(7 * i + 3) % 2**width for i in range(ELEMENTS)]
    out = widen(fmt, oracle_chunk(width, codes))
    for i in range(ELEMENTS):
        col, byte = tmem_position(i)
        assert from_container(width, column_byte(out, col, byte)) == codes[i]


@pytest.mark.parametrize("width", [4, 6])
@pytest.mark.parametrize("element", range(ELEMENTS))
def test_container_bits_for_all_ones(width: int, element: int) -> None:
    """One element all ones, the rest zero: exactly that container is 00111100 / 01111110."""
    codes = [0] * ELEMENTS
    codes[element] = 2**width - 1
    out = widen(fmt_for(width), oracle_chunk(width, codes))
    full = {4: 0b00111100, 6: 0b01111110}[width]
    assert out == bytes(full if i == element else 0 for i in range(ELEMENTS))


@pytest.mark.parametrize("width", [4, 6])
def test_walking_one_bit(width: int) -> None:
    """Every single data bit lands in exactly one container bit: container p // w, bit low + p % w."""
    fmt = fmt_for(width)
    low = CONTAINER_LOW[width]
    for p in range(8 * data_bytes(width)):
        chunk = bytearray(CHUNK)
        chunk[p // 8] = 1 << (p % 8)
        out = widen(fmt, bytes(chunk))
        expected = bytearray(ELEMENTS)
        expected[p // width] = 1 << (low + p % width)
        assert out == bytes(expected), f"source bit {p}"


@pytest.mark.parametrize("width", [4, 6])
def test_padding_bits_are_ignored(width: int) -> None:
    fmt = fmt_for(width)
    for p in range(8 * data_bytes(width), 8 * CHUNK):
        chunk = bytearray(CHUNK)
        chunk[p // 8] = 1 << (p % 8)
        assert widen(fmt, bytes(chunk)) == bytes(ELEMENTS), f"padding bit {p}"
        assert unpack(fmt, bytes(chunk)) == (0,) * ELEMENTS
    assert widen(fmt, bytes(data_bytes(width)) + b"\xff" * (CHUNK - data_bytes(width))) == bytes(ELEMENTS)


def test_container_pattern_text() -> None:
    f4, f6 = FORMATS["b4x16_p64"], FORMATS["b6x16_p32"]
    assert container_pattern(f4, TYPES["e2m1"]) == "0 0 s e1 e0 m0 0 0"
    assert container_pattern(f6, TYPES["e3m2"]) == "0 s e2 e1 e0 m1 m0 0"
    assert container_pattern(f6, TYPES["e2m3"]) == "0 s e1 e0 m2 m1 m0 0"
    assert container_pattern(f6, None) == "0 b5 b4 b3 b2 b1 b0 0"
    assert container_pattern(f4, None) == "0 0 b3 b2 b1 b0 0 0"


def test_basis_names_the_example_and_positions() -> None:
    assert "\n" not in CONTAINER_BASIS
    assert "cp_narrow_a_to_tmem_mma.py" in CONTAINER_BASIS
    assert "5:2" in CONTAINER_BASIS and "6:1" in CONTAINER_BASIS


# --------------------------------------------------------------------------- fixed vectors

FIXED = [
    # (format, source hex (data bytes), output hex)
    ("b4x16_p64", "1032547698badcfe", "0004080c1014181c2024282c3034383c"),
    ("b4x16_p64", "ffffffffffffffff", "3c" * 16),
    ("b4x16_p64", "0f00000000000000", "3c" + "00" * 15),  # low nibble is element 0
    ("b4x16_p64", "f000000000000000", "003c" + "00" * 14),  # high nibble is element 1
    ("b4x16_p64", "0000000000000080", "00" * 15 + "20"),  # top bit of byte 7 is element 15's sign
    ("b6x16_p32", "ffffffffffffffffffffffff", "7e" * 16),
    ("b6x16_p32", "3f0000000000000000000000", "7e" + "00" * 15),
    ("b6x16_p32", "c00f00000000000000000000", "007e" + "00" * 14),  # element 1 straddles bytes 0-1
    ("b6x16_p32", "00f003000000000000000000", "00007e" + "00" * 13),  # element 2 straddles bytes 1-2
    ("b6x16_p32", "0000fc000000000000000000", "0000007e" + "00" * 12),
    # codes 0..14 and 63 (hand-packed: byte 0 = e1 bit 0 at bit 6 = 0x40, ...)
    ("b6x16_p32", "40200c44611c48a22c4ce3fc", "00020406080a0c0e10121416181a1c7e"),
]


@pytest.mark.parametrize(("fmt", "src", "out"), FIXED)
def test_fixed_vectors(fmt: str, src: str, out: str) -> None:
    width = WIDTH[fmt]
    chunk = bytes.fromhex(src) + bytes(CHUNK - data_bytes(width))
    assert oracle_widen(width, chunk).hex() == out  # the vector checks the oracle too
    assert widen(FORMATS[fmt], chunk).hex() == out
    assert widen(FORMATS[fmt], parse_hex(FORMATS[fmt], src)).hex() == out


def test_fixed_codes_to_chunk() -> None:
    assert pack(FORMATS["b4x16_p64"], range(16)).hex() == "1032547698badcfe" + "00" * 8
    codes6 = [*range(15), 63]
    assert pack(FORMATS["b6x16_p32"], codes6).hex() == "40200c44611c48a22c4ce3fc" + "00" * 4
    assert oracle_chunk(6, codes6).hex() == "40200c44611c48a22c4ce3fc" + "00" * 4


# --------------------------------------------------------------------------- properties

CHUNKS = st.binary(min_size=CHUNK, max_size=CHUNK)


def codes_of(width: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, 2**width - 1), min_size=ELEMENTS, max_size=ELEMENTS)


@pytest.mark.parametrize("type_name", ["e2m1", "e3m2", "e2m3"])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_round_trip(type_name: str, data: st.DataObject) -> None:
    """Pack with the oracle, widen with tmemviz, read each container back at the facts' bit positions."""
    width = TYPE_WIDTH[type_name]
    fmt = fmt_for(width)
    kind = get_type(fmt, type_name)
    assert kind is not None
    codes = data.draw(codes_of(width), label="codes")
    padding = data.draw(st.binary(min_size=CHUNK - data_bytes(width), max_size=CHUNK - data_bytes(width)))
    out = widen(fmt, oracle_chunk(width, codes, padding))
    assert len(out) == ELEMENTS
    back = [from_container(width, b) for b in out]
    assert back == codes
    assert [kind.value(c) for c in back] == [spec_value(type_name, c) for c in codes]
    assert list(narrow(fmt, out)) == codes
    assert pack(fmt, codes) == oracle_chunk(width, codes)
    assert list(unpack(fmt, oracle_chunk(width, codes, padding))) == codes


@pytest.mark.parametrize("width", [4, 6])
@settings(max_examples=200, deadline=None)
@given(chunk=CHUNKS)
def test_widen_matches_oracle(width: int, chunk: bytes) -> None:
    """Arbitrary 16-byte chunks, padding included (and ignored)."""
    fmt = fmt_for(width)
    assert widen(fmt, chunk) == oracle_widen(width, chunk)
    assert list(unpack(fmt, chunk)) == oracle_codes(width, chunk)
    zero_pad = chunk[: data_bytes(width)] + bytes(CHUNK - data_bytes(width))
    assert widen(fmt, zero_pad) == widen(fmt, chunk)


@pytest.mark.parametrize("width", [4, 6])
@settings(max_examples=100, deadline=None)
@given(chunk=CHUNKS)
def test_parse_hex_round_trip(width: int, chunk: bytes) -> None:
    fmt = fmt_for(width)
    n = data_bytes(width)
    assert parse_hex(fmt, chunk.hex(" ")) == chunk
    assert parse_hex(fmt, chunk[:n].hex()) == chunk[:n] + bytes(CHUNK - n)


# --------------------------------------------------------------------------- parse_hex

DATA4 = "1032547698badcfe"
CHUNK4 = bytes.fromhex(DATA4) + bytes(8)


@pytest.mark.parametrize(
    "text",
    [
        "10 32 54 76 98 ba dc fe",
        "1032547698badcfe",
        "1032547698BADCFE",
        "0x10 0x32 0x54 0x76 0x98 0xba 0xdc 0xfe",
        "0X10 0X32 0X54 0X76 0X98 0XBA 0XDC 0XFE",
        "10:32:54:76:98:ba:dc:fe",
        "  10 32 54 76  98 ba dc fe  ",
        "10,32,54,76,98,ba,dc,fe",
        "10_32_54_76_98_ba_dc_fe",
    ],
)
def test_parse_hex_data_only(text: str) -> None:
    assert parse_hex(FORMATS["b4x16_p64"], text) == CHUNK4


def test_parse_hex_whole_chunk_keeps_padding() -> None:
    whole = "10 32 54 76 98 ba dc fe 01 02 03 04 05 06 07 08"
    got = parse_hex(FORMATS["b4x16_p64"], whole)
    assert got == bytes.fromhex(whole)
    assert widen(FORMATS["b4x16_p64"], got) == widen(FORMATS["b4x16_p64"], CHUNK4)


def test_parse_hex_6bit() -> None:
    fmt = FORMATS["b6x16_p32"]
    data = bytes(range(1, 13))
    assert parse_hex(fmt, data.hex(":")) == data + bytes(4)
    assert parse_hex(fmt, (data + b"\xaa" * 4).hex()) == data + b"\xaa" * 4


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("b4x16_p64", "10 32 54 76 98 ba dc f"),  # odd nibble count
        ("b4x16_p64", "1032547698badcfe0"),
        ("b4x16_p64", "1"),
        ("b4x16_p64", ""),  # no bytes
        ("b4x16_p64", "0x"),
        ("b4x16_p64", "10 32 54 76 98 ba dc"),  # 7 bytes
        ("b4x16_p64", "10 32 54 76 98 ba dc fe 00"),  # 9 bytes
        ("b4x16_p64", "00" * 12),  # 12 bytes is the 6-bit data size, not the 4-bit one
        ("b4x16_p64", "00" * 17),
        ("b4x16_p64", "00" * 32),
        ("b6x16_p32", "00" * 8),  # 8 bytes is the 4-bit data size
        ("b6x16_p32", "00" * 11),
        ("b6x16_p32", "00" * 13),
        ("b6x16_p32", "00" * 15),
        ("b4x16_p64", "10 32 54 76 98 ba dc fg"),  # non-hex
        ("b4x16_p64", "zz" * 8),
        ("b4x16_p64", "10 32 54 76 98 ba dc fe;"),
        ("b4x16_p64", "-1 32 54 76 98 ba dc fe"),
        ("b6x16_p32", "10.32.54.76.98.ba.dc.fe.00.00.00.00"),
        # Single nibbles must not pair up silently ("1 0" is not byte 0x10).
        ("b4x16_p64", "0 1 2 3 4 5 6 7 8 9 a b c d e f"),
        ("b4x16_p64", "103 254 76 98 ba dc fe"),
    ],
)
def test_parse_hex_rejects(fmt: str, text: str) -> None:
    with pytest.raises(TmemvizError):
        parse_hex(FORMATS[fmt], text)


# --------------------------------------------------------------------------- parse_codes


def test_parse_codes_accepts() -> None:
    f4, f6 = FORMATS["b4x16_p64"], FORMATS["b6x16_p32"]
    assert parse_codes(f4, ",".join(map(str, range(16)))) == tuple(range(16))
    assert parse_codes(f4, " 0x1, 0b0111 ," + ",".join(["15"] * 14)) == (1, 7, *[15] * 14)
    assert parse_codes(f6, ",".join(["63"] * 16)) == (63,) * 16
    assert parse_codes(f6, ",".join(["0x3f", "0b111111", *["0"] * 14])) == (63, 63, *[0] * 14)
    # Leading zeros are plain decimal, as people write codes in tables.
    assert parse_codes(f4, ",".join(["010", "007", *["0"] * 14])) == (10, 7, *[0] * 14)


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("b4x16_p64", ",".join(["0"] * 15)),  # 15 codes
        ("b4x16_p64", ",".join(["0"] * 17)),  # 17 codes
        ("b4x16_p64", ""),
        ("b4x16_p64", ",".join(["16", *["0"] * 15])),  # 16 does not fit in 4 bits
        ("b4x16_p64", ",".join([*["0"] * 15, "0x10"])),
        ("b4x16_p64", ",".join(["63", *["0"] * 15])),  # a 6-bit code on a 4-bit format
        ("b6x16_p32", ",".join(["64", *["0"] * 15])),
        ("b6x16_p32", ",".join(["-1", *["0"] * 15])),
        ("b6x16_p32", ",".join(["0"] * 8)),
        ("b6x16_p32", ",".join(["1.5", *["0"] * 15])),
        ("b6x16_p32", ",".join(["x", *["0"] * 15])),
        ("b6x16_p32", " ".join(["0"] * 16)),  # spaces are not separators
    ],
)
def test_parse_codes_rejects(fmt: str, text: str) -> None:
    with pytest.raises(TmemvizError):
        parse_codes(FORMATS[fmt], text)


@pytest.mark.parametrize("width", [4, 6])
def test_pack_rejects(width: int) -> None:
    fmt = fmt_for(width)
    with pytest.raises(TmemvizError):
        pack(fmt, [0] * 15)
    with pytest.raises(TmemvizError):
        pack(fmt, [2**width] + [0] * 15)
    with pytest.raises(TmemvizError):
        pack(fmt, [-1] + [0] * 15)
