"""Structural properties of every layout, checked exhaustively or with hypothesis.

Bijection, coverage of the span, packing doubling the span, which/where as exact
inverses, and the placement rules of PTX 9.7.16.8.1 (facts, "Tensor Memory").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ldst.oracle import (
    SHAPES,
    THREADS,
    TMEM_COLUMNS,
    TMEM_LANES,
    access_width,
    combinations,
    default_split_offset,
    oracle_cells,
    placement_ok,
    shifted,
)

from tmemviz.errors import TmemvizError
from tmemviz.families.ldst.layout import Cell, Instruction, Owner, cells, where, which

Build = Callable[..., Instruction]


def expected_columns(name: str, num: int, pack: bool, split_offset: int | None) -> set[int]:
    """Facts: one access spans N x W columns (x2 packed); .16x32bx2 adds a second one at S."""
    width = access_width(name, num, pack)
    cols = set(range(width))
    if SHAPES[name].split:
        s = default_split_offset(num, pack) if split_offset is None else split_offset
        cols |= set(range(s, s + width))
    return cols


# --- bijection and coverage ----------------------------------------------------------------------------


def test_every_register_half_appears_once(combo, build: Build) -> None:
    name, num, pack = combo
    got = cells(build(name, num, pack))
    keys = Counter((c.thread, c.reg, c.half) for c in got)
    regs = SHAPES[name].regs * num  # facts: registers = R x num
    halves = (0, 1) if pack else (None,)
    expected = {(t, r, h) for t in range(THREADS) for r in range(regs) for h in halves}
    assert set(keys) == expected
    assert max(keys.values()) == 1


def test_no_cell_is_moved_twice(combo, build: Build) -> None:
    name, num, pack = combo
    got = cells(build(name, num, pack))
    places = Counter((c.lane, c.col) for c in got)
    assert max(places.values()) == 1


def test_cells_cover_exactly_lanes_by_span(combo, build: Build) -> None:
    name, num, pack = combo
    ins = build(name, num, pack)
    lanes = SHAPES[name].lanes
    cols = expected_columns(name, num, pack, None)
    assert {(c.lane, c.col) for c in cells(ins)} == {(lane, col) for lane in range(lanes) for col in cols}
    # The description tmemviz prints agrees with the cells.
    assert ins.lane_range() == (0, lanes - 1)
    described = {col for lo, hi in ins.column_ranges() for col in range(lo, hi + 1)}
    assert described == cols


def test_packed_span_is_twice_unpacked(build: Build) -> None:
    for name, num, pack in combinations():
        if pack:
            continue
        plain = {c.col for c in cells(build(name, num, False))}
        packed = {c.col for c in cells(build(name, num, True))}
        assert len(packed) == 2 * len(plain), (name, num)
        assert build(name, num, True).access_width == 2 * build(name, num, False).access_width
        # Facts: "16x256b.x1.pack::16b spans 16 columns".
    assert {c.col for c in cells(build("16x256b", 1, True))} == set(range(16))


@pytest.mark.parametrize("num", [1, 2, 8, 64])
@pytest.mark.parametrize("pack", [False, True])
def test_overlapping_ld_halves_share_cells(build: Build, num: int, pack: bool) -> None:
    # Facts: "If S < N the halves overlap (same cells read twice)". S = width/2: half the columns twice.
    width = access_width("16x32bx2", num, pack)
    s = width // 2
    ins = build("16x32bx2", num, pack, split_offset=s)
    places = Counter((c.lane, c.col) for c in cells(ins))
    twice = {p for p, n in places.items() if n == 2}
    assert max(places.values()) <= 2
    assert twice == {(lane, col) for lane in range(16) for col in range(s, width)}
    assert set(places) == {
        (lane, col) for lane in range(16) for col in expected_columns("16x32bx2", num, pack, s)
    }


# --- which / where are exact inverses -----------------------------------------------------------------


def check_round_trips(ins: Instruction) -> None:
    all_cells = cells(ins)
    by_register: dict[tuple[int, int], list[Cell]] = {}
    for c in all_cells:
        by_register.setdefault((c.thread, c.reg), []).append(c)
    # which(where(t, r)) contains (t, r, half) for every register of every thread.
    for (thread, reg), expected in by_register.items():
        placed = where(ins, thread, reg)
        assert list(placed) == expected
        for c in placed:
            assert Owner(thread, reg, c.half) in which(ins, c.lane, c.col)
    # where(which(x)) == x for every cell; exactly the owners cells() lists there.
    owners_at: dict[tuple[int, int], set[Owner]] = {}
    for c in all_cells:
        owners_at.setdefault((c.lane, c.col), set()).add(Owner(c.thread, c.reg, c.half))
    for (lane, col), expected_owners in owners_at.items():
        owners = which(ins, lane, col)
        assert len(owners) == len(set(owners))
        assert set(owners) == expected_owners
        for o in owners:
            back = [c for c in where(ins, o.thread, o.reg) if c.half == o.half]
            assert [(c.lane, c.col) for c in back] == [(lane, col)]


def test_which_where_round_trip(combo, build: Build) -> None:
    name, num, pack = combo
    check_round_trips(build(name, num, pack))


@pytest.mark.parametrize(("num", "pack"), [(4, False), (4, True), (16, False)])
def test_round_trip_with_split_offset_and_taddr(build: Build, num: int, pack: bool) -> None:
    width = access_width("16x32bx2", num, pack)
    for s in (0, 1, width - 1, width, width + 3):
        check_round_trips(build("16x32bx2", num, pack, split_offset=s, taddr=(48, 7)))


def test_which_narrows_unpacked_by_half(build: Build) -> None:
    # An unpacked register covers the whole 32-bit column; --half picks bits 15:0 or 31:16 of it.
    ins = build("16x256b", 4)
    assert which(ins, 9, 5, half=0) == (Owner(6, 3, 0),)
    assert which(ins, 9, 5, half=1) == (Owner(6, 3, 1),)


def test_packed_hi_half_of_tmem_column_is_not_accessed(build: Build) -> None:
    # Facts: pack takes "the low 16 bits of each 32-bit column".
    with pytest.raises(TmemvizError):
        which(build("32x32b", 2, True), 3, 0, half=1)


def test_which_outside_span_is_rejected(combo, build: Build) -> None:
    name, num, pack = combo
    ins = build(name, num, pack)
    cols = expected_columns(name, num, pack, None)
    lanes = SHAPES[name].lanes
    for lane, col in ((lanes, 0), (-1, 0), (0, max(cols) + 1), (0, -1)):
        with pytest.raises(TmemvizError):
            which(ins, lane, col)


def test_where_rejects_missing_registers(combo, build: Build) -> None:
    name, num, pack = combo
    ins = build(name, num, pack)
    regs = SHAPES[name].regs * num
    for thread, reg in ((0, regs), (0, -1), (THREADS, 0), (-1, 0)):
        with pytest.raises(TmemvizError):
            where(ins, thread, reg)


# --- placement rules (facts "Tensor Memory", seed 000 "Access restrictions") ---------------------------

COMBOS = combinations()


@settings(max_examples=400, deadline=None)
@given(
    combo=st.sampled_from(COMBOS),
    op=st.sampled_from(["ld", "st"]),
    lane=st.integers(0, TMEM_LANES - 1),
    col=st.integers(0, TMEM_COLUMNS - 1),
    warp=st.integers(0, 31),
)
def test_placement_rules(build: Build, combo, op: str, lane: int, col: int, warp: int) -> None:
    name, num, pack = combo
    relative = oracle_cells(name, num, pack)
    fits = col + max(c[4] for c in relative) < TMEM_COLUMNS
    if placement_ok(name, lane, warp) and fits:
        ins = build(name, num, pack, op=op, taddr=(lane, col), warp=warp)
        assert [tuple(c) for c in cells(ins)] == shifted(relative, lane, col)
        assert ins.warp == warp
    else:
        with pytest.raises(TmemvizError):
            build(name, num, pack, op=op, taddr=(lane, col), warp=warp)


@settings(max_examples=300, deadline=None)
@given(
    combo=st.sampled_from(COMBOS),
    band=st.integers(0, 3),
    offset=st.integers(0, 31),
    warp=st.integers(0, 31),
)
def test_band_boundaries(build: Build, combo, band: int, offset: int, warp: int) -> None:
    """Lanes near the band edges: a 16-lane shape may start at band+0..band+16, .32x32b only at band+0."""
    name, num, pack = combo
    lane = 32 * band + offset
    inside = warp % 4 == band and offset + SHAPES[name].lanes <= 32
    if inside:
        ins = build(name, num, pack, taddr=(lane, 0), warp=warp)
        assert ins.lane_range() == (lane, lane + SHAPES[name].lanes - 1)
    else:
        with pytest.raises(TmemvizError):
            build(name, num, pack, taddr=(lane, 0), warp=warp)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_taddr_without_warp_uses_the_band_of_its_lane(build: Build, name: str) -> None:
    # Without --warp the taddr lane's own band is assumed; crossing into the next band still fails.
    lanes = SHAPES[name].lanes
    for band in range(4):
        first, last_start = 32 * band, 32 * band + 32 - lanes
        assert build(name, 1, taddr=(first, 0)).warp == band
        assert build(name, 1, taddr=(last_start, 0)).warp == band
        if lanes == 16:
            with pytest.raises(TmemvizError):
                build(name, 1, taddr=(last_start + 1, 0))
    for bad in ((TMEM_LANES, 0), (0, TMEM_COLUMNS), (-1, 0)):
        with pytest.raises(TmemvizError):
            build(name, 1, taddr=bad)
