"""Shared-memory canonical layouts against the PTX figures, the facts file and an independent oracle."""

from __future__ import annotations

import importlib.util
from itertools import product
from pathlib import Path
from types import ModuleType

import pytest

from tmemviz.errors import TmemvizError
from tmemviz.families.smem.examples import figure_189_corrected, ptx_figure
from tmemviz.families.smem.layout import (
    SmemLayout,
    atom_extent,
    canonical,
    dense_tile,
    elements_per_chunk,
    swizzle_bytes,
)
from tmemviz.families.smem.shapes import find_swizzle


def _load_reference() -> ModuleType:
    # Loaded by path under a name of its own: other test folders have helper modules too.
    path = Path(__file__).with_name("reference.py")
    spec = importlib.util.spec_from_file_location("tmemviz_tests_smem_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ref = _load_reference()

# PTX ISA 9.7.16.3, figures 188-192, as printed (smem-facts "The five spec examples"):
# figure -> (major, swizzle, dtype, m, k, notation, LBO bytes, SBO bytes)
FIGURES = {
    188: ("K", "none", "tf32", 2, 2, "((8,2),(4,4)):((4,32),(1,64))", 256, 128),
    190: ("MN", "none", "bf16", 2, 2, "((8,1,2),(8,2)):((1,8,64),(8,128))", 256, 128),
    191: ("MN", "32B", "bf16", 2, 2, "Swizzle<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256))", 256, 512),
    192: ("MN", "64B", "bf16", 2, 2, "Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512))", 512, 1024),
}
FIG_189 = "Swizzle<1,4,3> o ((8,2),(4,4)):((8,64),(1,4))"

MAJORS = ("K", "MN")
SWIZZLES = ("none", "32B", "64B", "128B")
DTYPES = ("e4m3", "e5m2", "s8", "u8", "f16", "bf16", "tf32", "f32", "s32")
BITS = {"e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s32": 32}


def _dense_cases() -> list[tuple[str, str, str, int, int]]:
    cases = []
    for major, sw, dtype in product(MAJORS, SWIZZLES, DTYPES):
        width = (16 << SWIZZLES.index(sw)) * 8 // BITS[dtype]  # elements in one atom line
        atom = (8, width) if major == "K" else (width, 8)
        for a, b in ((1, 1), (2, 1), (1, 2), (3, 2), (2, 4)):
            cases.append((major, sw, dtype, atom[0] * a, atom[1] * b))
    return cases


DENSE = _dense_cases()


def _as_dict(layout: SmemLayout) -> dict[tuple[int, int], int]:
    return {(r, c): b for r, c, b in layout.cells()}


@pytest.mark.parametrize("number", sorted(FIGURES))
def test_spec_figures_exactly(number: int) -> None:
    major, sw, dtype, m, k, notation, lbo, sbo = FIGURES[number]
    layout = ptx_figure(number)
    assert layout.notation() == notation
    assert (layout.lbo, layout.sbo) == (lbo, sbo)
    assert layout == canonical(major, sw, dtype, m, k, lbo, sbo)
    assert _as_dict(layout) == ref.evaluate(notation, dtype)


def test_figure_189_as_printed_overlaps_as_the_facts_say() -> None:
    cells = ref.evaluate(FIG_189, "tf32")
    assert len(cells) == 256 and len(set(cells.values())) == 136  # smem-facts: 256 elements, 136 offsets
    (r1, c1), (r2, c2), byte = ref.first_collision(cells)
    with pytest.raises(TmemvizError, match="overlap") as err:
        ptx_figure(189)
    message = str(err.value)
    assert f"(row {r1}, col {c1}) and (row {r2}, col {c2}) overlap at byte {byte}" in message
    assert FIG_189 in message and "136" in message
    # The same layout spelled out directly is refused too.
    with pytest.raises(TmemvizError, match="overlap"):
        SmemLayout("K", find_swizzle("32B"), "tf32", ((8, 2), (4, 4)), ((8, 64), (1, 4)), None, 256)


def test_figure_189_corrected_is_one_to_one() -> None:
    layout = figure_189_corrected()
    notation = "Swizzle<1,4,3> o ((8,2),(4,2,2)):((8,64),(1,4,128))"
    assert layout.notation() == notation
    assert (layout.rows, layout.cols, layout.lbo, layout.sbo) == (16, 16, None, 256)
    cells = _as_dict(layout)
    assert cells == ref.evaluate(notation, "tf32")
    assert sorted(cells.values()) == list(range(0, 1024, 4))
    # Its first K-block is the PTX formula with k = 1: K chunks (4,2):(1,4).
    block = canonical("K", "32B", "tf32", 2, 1, None, 256)
    assert block.notation() == "Swizzle<1,4,3> o ((8,2),(4,2)):((8,64),(1,4))"
    assert all(cells[(r, c)] == b for r, c, b in block.cells())


@pytest.mark.parametrize("case", DENSE, ids=["-".join(map(str, c)) for c in DENSE])
def test_dense_tiles_are_dense_one_to_one_and_match_the_oracle(case: tuple[str, str, str, int, int]) -> None:
    major, sw, dtype, rows, cols = case
    layout = dense_tile(major, sw, dtype, rows, cols)
    size = BITS[dtype] // 8
    cells = _as_dict(layout)
    assert (layout.rows, layout.cols) == (rows, cols)
    assert sorted(cells.values()) == list(range(0, rows * cols * size, size))
    assert cells == ref.dense(major, sw, dtype, rows, cols)
    assert cells == ref.evaluate(layout.notation(), dtype)
    assert layout.footprint_bytes == rows * cols * size


@pytest.mark.parametrize("case", DENSE, ids=["-".join(map(str, c)) for c in DENSE])
def test_dense_offsets_follow_the_facts_and_the_ptx_formula(case: tuple[str, str, str, int, int]) -> None:
    major, sw, dtype, rows, cols = case
    layout = dense_tile(major, sw, dtype, rows, cols)
    width, t = 16 << SWIZZLES.index(sw), 128 // BITS[dtype]
    # smem-facts "Dense CUTLASS-order tiles".
    if major == "K":
        expected = (16 * rows if sw == "none" else None, 8 * width)
    elif sw == "none":
        expected = (128, 16 * cols)
    else:
        expected = (cols * width, 8 * width)
    assert (layout.lbo, layout.sbo) == expected
    # The PTX canonical formula with those offsets describes the same bytes (the K range it covers).
    if major == "K":
        k = cols // (2 * t) if sw == "none" else width // 32
        m = rows // 8
    else:
        k, m = cols // 8, rows // (width * 8 // BITS[dtype])
    if k == 0:  # one 16-byte K chunk: less than the formula's pair
        return
    formula = canonical(major, sw, dtype, m, k, layout.lbo, layout.sbo)
    cells = _as_dict(layout)
    assert all(cells[(r, c)] == b for r, c, b in formula.cells())


@pytest.mark.parametrize("case", DENSE[::3], ids=["-".join(map(str, c)) for c in DENSE[::3]])
def test_swizzle_moves_chunks_only_within_their_repeat(case: tuple[str, str, str, int, int]) -> None:
    major, sw, dtype, rows, cols = case
    b = SWIZZLES.index(sw)
    layout = dense_tile(major, sw, dtype, rows, cols)
    chunk_bits = ((1 << b) - 1) << 4
    for r, c, byte in layout.cells():
        plain = layout.unswizzled_byte_of(r, c)
        assert (byte ^ plain) & ~chunk_bits == 0
        assert byte >> (7 + b) == plain >> (7 + b)
        assert layout.chunk_of(r, c) == byte // 16


def test_swizzle_function_matches_bitwise_oracle() -> None:
    for b, offset in product(range(4), range(4096)):
        assert swizzle_bytes(offset, b) == ref.swizzle(offset, b, 4, 3)
        assert swizzle_bytes(swizzle_bytes(offset, b), b) == offset


@pytest.mark.parametrize("number", sorted(FIGURES))
def test_reverse_query_round_trips(number: int) -> None:
    layout = ptx_figure(number)
    size = layout.element_bytes
    owners = {}
    for r, c, byte in layout.cells():
        for j in range(size):
            assert layout.element_at(byte + j) == (r, c)
            owners[byte + j] = (r, c)
    for byte in range(-4, layout.footprint_bytes + 64):
        assert layout.element_at(byte) == owners.get(byte)


def test_sparse_rows_leave_holes() -> None:
    # K-major 128B with k = 1: each 128-byte row holds one 32-byte K-block (PTX allows 2k <= 8 chunks).
    layout = canonical("K", "128B", "bf16", 1, 1, None, 1024)
    assert layout.notation() == "Swizzle<3,4,3> o ((8,1),(8,2)):((64,512),(1,8))"  # SBO 1024 B = 512 bf16
    held = [b for b in range(1024) if layout.element_at(b) is not None]
    assert len(held) == 8 * 16 * 2
    assert layout.element_at(1 + layout.byte_of(3, 9)) == (3, 9)


def test_chunks_and_dtypes() -> None:
    assert [elements_per_chunk(d) for d in DTYPES] == [128 // BITS[d] for d in DTYPES]
    assert atom_extent("MN", "32B", "e4m3") == (32, 8)
    assert atom_extent("K", "none", "tf32") == (8, 4)


BAD = [
    (lambda: canonical("K", "none", "fp64", 1, 1, 256, 128), "unknown dtype 'fp64'"),
    (lambda: canonical("X", "none", "bf16", 1, 1, 256, 128), "unknown major 'X'; allowed majors are K, MN"),
    (lambda: canonical("K", "16B", "bf16", 1, 1, 256, 128), "unknown swizzle '16B'"),
    (lambda: canonical("K", "none", "bf16", 1, 1, 100, 128), "LBO 100 bytes is not allowed"),
    (lambda: canonical("K", "none", "bf16", 1, 1, 256, -16), "SBO -16 bytes is not allowed"),
    (lambda: canonical("K", "none", "bf16", 1, 1, 256, 1 << 18), "does not fit the descriptor's 14-bit"),
    (lambda: canonical("K", "none", "bf16", 1, 1, None, 128), "LBO is required"),
    (lambda: canonical("MN", "none", "bf16", 1, 1, 256, None), "SBO is required"),
    (lambda: canonical("K", "128B", "bf16", 1, 1, 16, 1024), "LBO is unused by K-major 128B"),
    (lambda: canonical("K", "none", "bf16", 0, 1, 256, 128), "m must be a positive whole number"),
    (lambda: canonical("K", "none", "bf16", 2, 2, 16, 128), "overlap"),
    (lambda: dense_tile("K", "128B", "bf16", 12, 64), "rows (M/N) 12 is not a multiple"),
    (lambda: dense_tile("K", "128B", "bf16", 16, 32), "cols (K) 32 is not a multiple"),
    (lambda: dense_tile("MN", "64B", "f32", 16, 12), "use a multiple of 8"),
    (lambda: ptx_figure(187), "PTX figure 187 is not a canonical-layout figure"),
    (lambda: ptx_figure(188).byte_of(16, 0), "row 16 is outside the layout; allowed 0..15"),
]


@pytest.mark.parametrize(("call", "text"), BAD, ids=[t for _, t in BAD])
def test_bad_input_is_one_sentence(call: object, text: str) -> None:
    with pytest.raises(TmemvizError) as err:
        call()  # type: ignore[operator]
    message = str(err.value)
    assert text in message
    assert "\n" not in message and ". " not in message
