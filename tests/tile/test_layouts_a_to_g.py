"""Tiles of every data-path layout (A-G): coverage, the lane rule, the single-instruction mapper,
CUTLASS's tmem_frg atoms and Triton Gluon's TMEM register layouts as recorded facts."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from itertools import product
from operator import attrgetter
from pathlib import Path

import pytest

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.ldst.layout import cells, make_instruction
from tmemviz.families.ldst.shapes import KIND as LDST
from tmemviz.families.tile.layout import Tile, element_at, elements, make_tile

# (letter, M, cta_group, ws, sparse, lane offsets): the PTX 9.7.16.10.5 table, typed in from the facts file.
LAYOUTS = [
    ("A", 256, 2, False, False, (0,)),
    ("B", 128, 2, False, False, (0,)),
    ("C", 128, 2, False, True, (0, 16)),
    ("D", 128, 1, False, False, (0,)),
    ("E", 64, 1, True, False, (0,)),
    ("F", 64, 1, False, False, (0, 16)),
    ("G", 32, 1, True, False, (0,)),
]
HALF = {"C", "F"}
SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
KINDS = (("f32", None), ("bf16", "packed"), ("f16", "unpacked"))
CASES = [
    (letter, m, cg, ws, sp, off, shape, warps, dtype, storage, n)
    for letter, m, cg, ws, sp, offs in LAYOUTS
    for off in offs
    for shape in SHAPES
    if not (letter in HALF and shape == "32x32b")
    for warps in (4, 8)
    for dtype, storage in KINDS
    if warps == 4 or dtype == "f32"  # two warpgroups split columns alike whatever the element type
    # The widest N (256) with 4 warps and the narrowest and widest shapes; every other case at N=64
    # (f32) or 128 (16-bit): the properties do not depend on how many columns repeat them.
    for n in (
        ((64, 256) if warps == 4 and shape in ("32x32b", "16x256b") else (64,)) if dtype == "f32" else (128,)
    )
]


def tile_of(catalog: Catalog, case: tuple) -> Tile:  # type: ignore[type-arg]
    _, m, cg, ws, sp, off, shape, warps, dtype, storage, n = case
    return make_tile(
        catalog.get(LDST, shape),
        n,
        m=m,
        cta_group=cg,
        ws=ws,
        sparse=sp,
        lane_offset=off,
        warps=warps,
        dtype=dtype,
        storage=storage,
    )


# CUTLASS include/cute/atom/mma_traits_sm100_frag.hpp (UMMA::tmem_frg_1sm / tmem_frg_2sm / tmem_frg_ws),
# per CTA, in "virtual TMEM addressing": address = lane + 128 * column. N is substituted per case.
CUTLASS_ATOMS = {
    "A": "(128,N):(1,128)",
    "B": "(64,(N/2,2)):(1,(128,64))",
    "D": "(128,N):(1,128)",
    "E": "(64,(N/2,2)):(1,(128,64))",
    "F": "((16,4),N):((1,32),128)",
    "G": "(32,(N/4,4)):(1,(128,32))",
}


def cute_eval(text: str, n: int, coord: tuple[int, int]) -> int:
    """A tiny reading of a rank-2 CuTe layout string: colexicographic coordinates, dot with strides."""
    shapes, strides = _cute_modes(text, n)
    total = 0
    for mode_shape, mode_stride, x in zip(shapes, strides, coord, strict=True):  # type: ignore[call-overload]
        if isinstance(mode_shape, int):
            total += x * mode_stride
            continue
        for s, d in zip(mode_shape, mode_stride, strict=True):
            total += (x % s) * d
            x //= s
    return total


@cache
def _cute_modes(text: str, n: int) -> tuple[list, list]:  # type: ignore[type-arg]
    """The layout string's shapes and strides with N substituted, read once per (layout, N), not per
    element (the reading is the same for every coordinate)."""
    text = text.replace("N/2", str(n // 2)).replace("N/4", str(n // 4)).replace("N", str(n))
    shape_text, stride_text = text.split(":")

    def parse(s: str) -> list:  # type: ignore[type-arg]
        return json.loads(re.sub(r"\(", "[", re.sub(r"\)", "]", s)))

    return parse(shape_text), parse(stride_text)


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_every_element_once_lane_rule_and_the_single_instruction_mapper(
    catalog: Catalog, case: tuple
) -> None:  # type: ignore[type-arg]
    letter, m, cg, *_ = case
    n = case[-1]
    try:
        tile = tile_of(catalog, case)
    except TmemvizError as err:
        # Only a .num that cannot tile the band's columns may refuse (e.g. G's 16 columns with 16x256b f16).
        assert "not a multiple of the instruction width" in str(err), err
        return
    assert tile.layout == letter and tile.cta_group == cg
    items = elements(tile)
    # Ordered by (m, n), every element exactly once: the grid in row-major order.
    assert list(map(attrgetter("m", "n"), items)) == list(product(range(m), range(n)))
    rows = m // cg
    # Each element's CTA is its row's; its lane is in its warp's quarter (9.7.16.8.1): whole columns compared.
    ctas, ms, warps, lanes = zip(*map(attrgetter("cta", "m", "warp", "lane"), items), strict=True)
    assert list(ctas) == [r // rows for r in ms]
    assert [lane >> 5 for lane in lanes] == [w & 3 for w in warps]
    # Who holds each element is what the single-instruction mapper gives each issued instruction alone.
    held = set(map(attrgetter("cta", "warp", "instruction", "thread", "reg", "lane", "col"), items))
    expect = set()
    for issued in tile.issued:
        lo, hi = issued.ins.lane_range()
        assert 32 * (issued.warp % 4) <= lo <= hi < 32 * (issued.warp % 4) + 32
        ins = issued.ins
        key = (issued.cta, issued.warp, issued.index)
        alone = _alone(ins.shape, ins.num, ins.pack, ins.split_offset, issued.taddr, issued.warp)
        expect.update(key + cell for cell in alone)
    assert held == expect


_ALONE: dict[tuple, frozenset[tuple[int, int, int, int]]] = {}  # type: ignore[type-arg]


@pytest.fixture(scope="module", autouse=True)
def _forget_alone() -> Iterator[None]:
    """The cells cached for this module's cases (hundreds of thousands) are let go after it: the rest of
    the session's full garbage collections would walk them all."""
    yield
    _ALONE.clear()


def _alone(shape, num, pack, split_offset, taddr, warp) -> frozenset[tuple[int, int, int, int]]:  # type: ignore[no-untyped-def]
    """The cells the single-instruction mapper gives (many cases issue the same instruction)."""
    key = (shape, num, pack, split_offset, taddr, warp)
    if key not in _ALONE:
        alone = make_instruction(shape, num, pack=pack, split_offset=split_offset, taddr=taddr, warp=warp)
        _ALONE[key] = frozenset((c.thread, c.reg, c.lane, c.col) for c in cells(alone))
    return _ALONE[key]


@pytest.mark.parametrize("letter", sorted(CUTLASS_ATOMS))
@pytest.mark.parametrize("n", [64, 256])
def test_placement_matches_cutlass_tmem_frg_atoms(catalog: Catalog, letter: str, n: int) -> None:
    row = next(r for r in LAYOUTS if r[0] == letter)
    _, m, cg, ws, sp, _ = row
    tile = make_tile(catalog.get(LDST, "16x64b"), n, m=m, cta_group=cg, ws=ws, sparse=sp)
    rows = m // cg
    for e in elements(tile):
        address = cute_eval(CUTLASS_ATOMS[letter], n, (e.m % rows, e.n))
        assert (e.lane, e.col) == (address % 128, address // 128), (letter, e)


def test_layout_c_is_the_ptx_table_half_data_path(catalog: Catalog) -> None:
    """PTX: C is "4x1, half the data path" like F, per CTA; not the 1x4 atom a public port labels C."""
    c = make_tile(catalog.get(LDST, "16x64b"), 64, m=128, cta_group=2, sparse=True, lane_offset=16)
    e = element_at(c, 64 + 17, 5)  # CTA 1, its row 17 -> band 1, lane 32 + 1 + 16
    assert (e.cta, e.lane, e.col) == (1, 49, 5)


GLUON = json.loads((Path(__file__).parent / "fixtures" / "gluon_tmem_reg_layouts.json").read_text())
"""Recorded from Triton Gluon (see the file's produced_by): its TMEM register layout per case."""


def gluon_holders(case: dict) -> dict[tuple[int, int, int], set[tuple[int, int]]]:  # type: ignore[type-arg]
    """(cta, warp, thread) -> the (m, n) it holds, by XOR of the linear layout's bases."""

    def span(bases: list[list[int]]) -> list[tuple[int, int]]:
        out = []
        for i in range(2 ** len(bases)):
            m = n = 0
            for bit, (bm, bn) in enumerate(bases):
                if i >> bit & 1:
                    m ^= bm
                    n ^= bn
            out.append((m, n))
        return out

    holders: dict[tuple[int, int, int], set[tuple[int, int]]] = {}
    regs = span(case["reg"])
    for cta, (cm, cn) in enumerate(span(case["block"])):
        for warp, (wm, wn) in enumerate(span(case["warp"])):
            for thread, (lm, ln) in enumerate(span(case["lane"])):
                holders[(cta, warp, thread)] = {(cm ^ wm ^ lm ^ rm, cn ^ wn ^ ln ^ rn) for rm, rn in regs}
    return holders


@pytest.mark.parametrize(
    "case",
    [c for c in GLUON["cases"] if "error" not in c],
    ids=lambda c: f"{c['layout']}-{c['n']}-{c['warps']}-{c['variant']}",
)
def test_each_thread_holds_what_gluon_says(catalog: Catalog, case: dict) -> None:  # type: ignore[type-arg]
    letter = case["layout"]
    row = next(r for r in LAYOUTS if r[0] == letter)
    _, m, cg, *_ = row
    # Gluon's "32x32b" on half the data path (M=64) is the .16x32bx2 split at N/2 (the facts file).
    shape = "16x32bx2" if letter in HALF and case["variant"] == "32x32b" else case["variant"]
    tile = make_tile(catalog.get(LDST, shape), case["n"], m=m, cta_group=cg, warps=case["warps"])
    ours: dict[tuple[int, int, int], set[tuple[int, int]]] = {}
    for e in elements(tile):
        ours.setdefault((e.cta, e.warp, e.thread), set()).add((e.m, e.n))
    assert ours == gluon_holders(case)


CUTE_DSL = [
    line.split(maxsplit=4)
    for line in (Path(__file__).parent / "fixtures" / "cute_dsl_accumulators.txt").read_text().splitlines()
    if line and not line.startswith("#")
]
"""Recorded from NVIDIA CuTe DSL (see the file's header): each accumulator's TMEM fragment."""


def cute_dsl_place(layout: str, m: int, n: int) -> tuple[int, int]:
    """(lane, column) of (m, n) under the printed rank-2 mode ``((M, N), 1, 1):(strides, 0, 0)``."""
    shape, stride = _cute_dsl_modes(layout)
    address = 0
    for mode_shape, mode_stride, x in zip(shape, stride, (m, n), strict=True):
        for s, d in zip(
            *((mode_shape, mode_stride) if isinstance(mode_shape, list) else ([mode_shape], [mode_stride])),
            strict=True,
        ):
            address += (x % s) * d
            x //= s
    return address >> 16, address & 0xFFFF


@cache
def _cute_dsl_modes(layout: str) -> tuple[list, list]:  # type: ignore[type-arg]
    """The first mode's shape and stride of a printed layout, read once per layout (not per element)."""
    shape_text, stride_text = layout.split(":")
    shape = json.loads(shape_text.replace("(", "[").replace(")", "]"))[0]
    stride = json.loads(stride_text.replace("(", "[").replace(")", "]"))[0]
    return shape, stride


@pytest.mark.parametrize("row", [r for r in CUTE_DSL if r[0] != "C"], ids=lambda r: r[0])
def test_placement_matches_cute_dsl_fragments(catalog: Catalog, row: list[str]) -> None:
    _, m, cg, sparse, layout = row
    m_total, cta_group = int(m), int(cg)
    tile = make_tile(catalog.get(LDST, "16x64b"), 64, m=m_total, cta_group=cta_group, sparse=sparse == "True")
    rows = m_total // cta_group
    for e in elements(tile):
        assert (e.lane, e.col) == cute_dsl_place(layout, e.m % rows, e.n), (row[0], e)


def test_layout_c_is_where_sources_disagree(catalog: Catalog) -> None:
    """CUTLASS (C++ tmem_frg_2sm of SM100_MMA_F16BF16_2x1SM_SS_SPARSE, and CuTe DSL) places the sparse
    2-CTA M=128 accumulator exactly like the dense one (B, 2x2); the PTX table as the facts file gives it
    says 4x1, half the data path. tmemviz follows the PTX table and its note says so."""
    by_letter = {r[0]: r[4] for r in CUTE_DSL}
    assert by_letter["C"] == by_letter["B"]  # what CUTLASS does
    c = make_tile(catalog.get(LDST, "16x64b"), 64, m=128, cta_group=2, sparse=True)
    assert any(cute_dsl_place(by_letter["C"], e.m % 64, e.n) != (e.lane, e.col) for e in elements(c))
    assert any("CUTLASS" in note and "like layout B" in note for note in c.path.notes)
