"""The tile mapper against the independent oracle, and the promises of the tile plan."""

from __future__ import annotations

from operator import attrgetter

import pytest
from tile.oracle import holders, plan

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.ldst.layout import cells, make_instruction
from tmemviz.families.ldst.shapes import KIND as LDST
from tmemviz.families.tile.layout import Tile, element_at, elements, make_tile

SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
KINDS = (("f32", None), ("bf16", "packed"), ("f16", "unpacked"))
CASES = [
    (shape, n, warps, dtype, storage)
    for shape in SHAPES
    for warps in (4, 8)
    for dtype, storage in KINDS
    for n in ((32, 64, 256) if warps == 4 else (32, 64))  # N=256 with one warpgroup: the widest tile
]


def tile_of(
    catalog: Catalog, shape: str, n: int, warps: int, dtype: str, storage: str | None, **kw: object
) -> Tile:
    return make_tile(catalog.get(LDST, shape), n, warps=warps, dtype=dtype, storage=storage, **kw)  # type: ignore[arg-type]


def as_holders(tile: Tile) -> dict[tuple[int, int], tuple[object, ...]]:
    return {
        (e.m, e.n): (e.warp, e.thread, e.instruction, e.reg, e.half, e.lane, e.col) for e in elements(tile)
    }


@pytest.mark.parametrize(("shape", "n", "warps", "dtype", "storage"), CASES)
def test_every_element_is_held_once_as_the_oracle_says(
    catalog: Catalog, shape: str, n: int, warps: int, dtype: str, storage: str | None
) -> None:
    """Every element once, held as the oracle says; each thread holds registers_per_thread registers;
    each warp reads only its quarter of the lanes (9.7.16.8.1), and D's row is the lane (layout D)."""
    tile = tile_of(catalog, shape, n, warps, dtype, storage)
    items = elements(tile)
    assert len(items) == 128 * n
    assert {(e.m, e.n) for e in items} == {(m, j) for m in range(128) for j in range(n)}
    assert tile.num == plan(shape, n, warps, dtype, storage)["num"]
    assert as_holders(tile) == holders(shape, n, warps, dtype, storage)
    bits = 32 if dtype == "f32" else 16
    assert tile.registers_per_thread == 128 * n * bits // 32 // (32 * warps)
    per_thread: dict[tuple[int, int], set[tuple[int, int]]] = {}
    for w, t, i, r in map(attrgetter("warp", "thread", "instruction", "reg"), items):
        per_thread.setdefault((w, t), set()).add((i, r))
    assert {len(v) for v in per_thread.values()} == {tile.registers_per_thread}
    ms, warps_, lanes = zip(*map(attrgetter("m", "warp", "lane"), items), strict=True)
    assert ms == lanes
    assert [lane >> 5 for lane in lanes] == [w & 3 for w in warps_]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("num", [1, 2, 8])
def test_explicit_num_matches_the_oracle(catalog: Catalog, shape: str, num: int) -> None:
    for dtype, storage in KINDS:
        tile = tile_of(catalog, shape, 256, 4, dtype, storage, num=num)
        assert tile.num == num
        assert as_holders(tile) == holders(shape, 256, 4, dtype, storage, num)


@pytest.mark.parametrize(("shape", "n", "warps", "dtype", "storage"), CASES[::3])
def test_each_instruction_is_the_single_instruction_layout_at_its_taddr(
    catalog: Catalog, shape: str, n: int, warps: int, dtype: str, storage: str | None
) -> None:
    tile = tile_of(catalog, shape, n, warps, dtype, storage)
    by_instruction: dict[tuple[int, int], set[tuple[object, ...]]] = {}
    for e in elements(tile):
        by_instruction.setdefault((e.warp, e.instruction), set()).add((e.thread, e.reg, e.lane, e.col))
    for issued in tile.issued:
        fresh = make_instruction(
            catalog.get(LDST, shape),
            tile.num,
            pack=storage == "unpacked",
            split_offset=tile.split_offset,
            taddr=issued.taddr,
            warp=issued.warp,
        )
        expected = {(c.thread, c.reg, c.lane, c.col) for c in cells(fresh)}
        assert by_instruction[(issued.warp, issued.index)] == expected


@pytest.mark.parametrize("shape", SHAPES)
def test_eight_warps_split_as_gluon_does(catalog: Catalog, shape: str) -> None:
    tile = tile_of(catalog, shape, 128, 8, "f32", None)
    for e in elements(tile):
        if shape == "32x32b":
            assert (e.n >= 64) == (e.warp >= 4)  # warps 4-7: the right half of N
        else:
            assert (e.lane % 32 >= 16) == (e.warp >= 4)  # warps 4-7: lanes +16, all of N
    lanes = {(i.warp, i.taddr[0] % 32) for i in tile.issued}
    assert len(lanes) == 8  # one lane group per warp: no second, +16 instruction


def test_four_warps_of_a_16_lane_shape_issue_the_plus_16_instruction(catalog: Catalog) -> None:
    tile = tile_of(catalog, "16x128b", 64, 4, "f32", None, num=8)
    assert [(i.index, i.taddr) for i in tile.issued_by(1)] == [
        (0, (32, 0)),
        (1, (48, 0)),
        (2, (32, 32)),
        (3, (48, 32)),
    ]


def test_split_offset_is_half_of_the_warps_columns(catalog: Catalog) -> None:
    tile = tile_of(catalog, "16x32bx2", 256, 4, "f32", None, num=32)
    assert tile.split_offset == 128
    for e in elements(tile):
        assert (e.thread >= 16) == (e.n >= 128)


def test_element_at_agrees_with_elements(catalog: Catalog) -> None:
    for shape, n, warps, dtype, storage in CASES[::5]:
        tile = tile_of(catalog, shape, n, warps, dtype, storage)
        for e in elements(tile)[:: max(1, n // 7)]:
            assert element_at(tile, e.m, e.n) == e


def test_facts_example_and_base_column(catalog: Catalog) -> None:
    # Facts: 16x256b.x4, the owner of lane 9 col 5 is thread 6, r3; warp 0's first instruction.
    tile = tile_of(catalog, "16x256b", 32, 4, "f32", None, num=4)
    e = element_at(tile, 9, 5)
    assert (e.warp, e.thread, e.instruction, e.reg) == (0, 6, 0, 3)
    moved = tile_of(catalog, "16x256b", 32, 4, "f32", None, num=4, taddr=(0, 64))
    assert element_at(moved, 9, 5).col == 69
    assert {e.col for e in elements(moved)} == set(range(64, 96))


def test_packed_16_bit_elements_share_a_column_and_a_register(catalog: Catalog) -> None:
    tile = tile_of(catalog, "32x32b", 128, 4, "bf16", None)
    assert tile.storage == "packed" and not tile.pack and tile.columns == 64
    lo, hi = element_at(tile, 3, 10), element_at(tile, 3, 11)
    assert (lo.col, lo.reg, lo.half) == (5, 5, 0)
    assert (hi.col, hi.reg, hi.half) == (5, 5, 1)
    unpacked = tile_of(catalog, "32x32b", 128, 4, "bf16", "unpacked")
    assert unpacked.pack and ".pack::16b" in unpacked.mnemonic and unpacked.columns == 128


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 100, "shape": "16x256b"}, "N=100 is not a sum of legal MMA N's for layout D"),
        ({"n": 24, "m": 64, "shape": "16x256b", "dtype": "bf16"}, "N=24 is not a multiple of"),
        ({"n": 256, "shape": "16x256b", "num": 64}, "supports .num x1..x32"),
        ({"n": 1024, "shape": "32x32b"}, "Tensor Memory has columns 0..511"),
        ({"n": 63, "shape": "32x32b", "dtype": "bf16"}, "needs an even N"),
        ({"n": 64, "shape": "32x32b", "warps": 6}, "--warps must be 4 or 8"),
        ({"n": 64, "shape": "32x32b", "m": 64}, "use a 16-lane shape"),
        ({"n": 64, "shape": "16x64b", "m": 32}, "no data-path layout for M=32 with .cta_group::1;"),
        ({"n": 96, "shape": "16x64b", "m": 32, "ws": True}, "N=96 is not legal for layout G"),
        ({"n": 64, "shape": "16x64b", "m": 64, "lane_offset": 8}, "lane offset 8 is not legal for layout F"),
        ({"n": 64, "shape": "32x32b", "storage": "packed"}, "--storage applies to 16-bit"),
        ({"n": 64, "shape": "32x32b", "taddr": (32, 0)}, "taddr lane must be 0"),
    ],
)
def test_refusals(catalog: Catalog, kwargs: dict[str, object], message: str) -> None:
    shape = catalog.get(LDST, str(kwargs.pop("shape")))
    n = kwargs.pop("n")
    with pytest.raises(TmemvizError, match=message.replace(".", r"\.").replace("(", r"\(")):
        make_tile(shape, n, **kwargs)  # type: ignore[arg-type]


def test_a_plan_that_loads_an_element_twice_or_never_shows_as_it_is(catalog: Catalog) -> None:
    """elements() places each (m, n) straight into its slot only when the plan holds each once; a plan
    with an instruction twice (or missing, or both) still lists every element it loads, ordered by (m, n)."""
    from dataclasses import replace

    tile = tile_of(catalog, "16x256b", 64, 4, "f32", None)
    twice = replace(tile, issued=(*tile.issued, tile.issued[0]))
    items = elements(twice)
    extra = len(cells(tile.issued[0].ins))
    assert len(items) == 128 * 64 + extra
    assert [(e.m, e.n) for e in items] == sorted((e.m, e.n) for e in items)
    assert len({(e.m, e.n) for e in items}) == 128 * 64
    missing = replace(tile, issued=tile.issued[1:])
    assert len(elements(missing)) == 128 * 64 - extra
    assert [(e.m, e.n) for e in elements(missing)] == sorted((e.m, e.n) for e in elements(missing))
    # As many elements as the grid, but one instruction's twice and another's never.
    swapped = replace(tile, issued=(tile.issued[0], tile.issued[0], *tile.issued[2:]))
    items = elements(swapped)
    assert len(items) == 128 * 64 and len({(e.m, e.n) for e in items}) == 128 * 64 - extra
    assert [(e.m, e.n) for e in items] == sorted((e.m, e.n) for e in items)
