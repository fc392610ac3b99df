"""tcgen05.shift moves, checked against the PTX 9.7.16.9.3 rule written out here independently.

The rule: the matrix is the 32 lanes from taddr's lane (a multiple of 32); the 32-byte element
(8 columns from taddr's column) of every row but the last moves down one lane; with
.cta_group::2 the peer CTA does the same. Every taddr lane 0..127 and every column is tried.
"""

from __future__ import annotations

import pytest

from tmemviz.errors import TmemvizError
from tmemviz.families.shift.layout import Address, goes_to, held_after, make_shift, moves
from tmemviz.families.shift.shapes import builtin, parse_shift_shape

SHAPE = builtin()


def oracle(lane: int, col: int, groups: int) -> list[tuple[int, int, int, int, int]]:
    """(cta, from_lane, to_lane, col, cols) straight from the PTX sentence."""
    return [(cta, lane + i, lane + i + 1, col, 8) for cta in range(groups) for i in range(31)]


def test_the_shape_file_holds_the_implicit_shape() -> None:
    assert (SHAPE.name, SHAPE.rows, SHAPE.row_bits, SHAPE.cols) == ("31x256b", 31, 256, 8)
    assert (SHAPE.lanes, SHAPE.step, SHAPE.lane_alignment) == (32, 1, 32)


@pytest.mark.parametrize("group", [1, 2])
@pytest.mark.parametrize("lane", range(128))
def test_every_taddr_lane(lane: int, group: int) -> None:
    if lane % 32:
        with pytest.raises(TmemvizError, match=rf"taddr lane {lane} is not a multiple of 32"):
            make_shift(SHAPE, group, base=(lane, 0))
        return
    shift = make_shift(SHAPE, group, base=(lane, 0))
    assert [tuple(m) for m in moves(shift)] == oracle(lane, 0, group)


@pytest.mark.parametrize("col", range(512))
def test_every_taddr_column(col: int) -> None:
    if col + 8 > 512:
        with pytest.raises(TmemvizError, match=r"must be 0\.\.504"):
            make_shift(SHAPE, 1, base=(96, col))
        return
    assert [tuple(m) for m in moves(make_shift(SHAPE, 1, base=(96, col)))] == oracle(96, col, 1)


@pytest.mark.parametrize("group", [1, 2])
def test_moves_are_a_bijection_of_31_rows_one_lane_down(group: int) -> None:
    shift = make_shift(SHAPE, group, base=(64, 16))
    for cta in range(group):
        mine = [m for m in moves(shift) if m.cta == cta]
        sources = {m.from_lane for m in mine}
        targets = {m.to_lane for m in mine}
        assert len(mine) == len(sources) == len(targets) == 31
        assert sources == set(range(64, 95)) and targets == set(range(65, 96))
        for m in mine:
            assert goes_to(shift, m.from_lane, cta) == m.to_lane
            assert held_after(shift, m.to_lane, cta) == m.from_lane
    assert held_after(shift, 64) is None  # the first row afterwards: unspecified
    assert goes_to(shift, 95) is None  # the last row: not moved


def test_lanes_and_ctas_outside_the_shift_are_refused() -> None:
    shift = make_shift(SHAPE, 1, base=(32, 0))
    with pytest.raises(TmemvizError, match=r"lane 31 is outside the shifted matrix, lanes 32\.\.63"):
        goes_to(shift, 31)
    with pytest.raises(TmemvizError, match=r"only with \.cta_group::2"):
        held_after(shift, 40, cta=1)


def test_without_taddr_lanes_are_relative_and_the_immediate_counts() -> None:
    assert [tuple(m) for m in moves(make_shift(SHAPE, 1))] == oracle(0, 0, 1)
    shift = make_shift(SHAPE, 1, Address("%r2", 0x200008))
    assert shift.relative and shift.taddr == (32, 8)
    assert [tuple(m) for m in moves(shift)] == oracle(32, 8, 1)
    assert any("adds lane 32 (imm >> 16) and column 8" in n for n in shift.notes())
    odd = make_shift(SHAPE, 1, Address("%r2", 16 << 16))
    assert any("%r2's lane + 16 must be a multiple of 32" in n for n in odd.notes())


def test_the_immediate_adds_to_the_register_value() -> None:
    shift = make_shift(SHAPE, 2, Address("%r2", (32 << 16) | 4), base=(64, 4))
    assert shift.taddr == (96, 8)
    assert [tuple(m) for m in moves(shift)] == oracle(96, 8, 2)
    with pytest.raises(TmemvizError, match=r"taddr lane 48 \(%r2 lane 32 \+ 16\) is not a multiple of 32"):
        make_shift(SHAPE, 1, Address("%r2", 16 << 16), base=(32, 0))
    with pytest.raises(TmemvizError, match="outside Tensor Memory"):
        make_shift(SHAPE, 1, Address("%r2", 64 << 16), base=(96, 0))


def test_what_the_text_leaves_open_is_said() -> None:
    notes = make_shift(SHAPE, 1, base=(32, 8)).notes()
    assert any("first row (lane 32)" in n and "unspecified" in n for n in notes)
    assert any("columns" in n and "8..15" in n for n in notes)
    assert not any("peer" in n for n in notes)
    assert any("peer CTA" in n for n in make_shift(SHAPE, 2).notes())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ptx_name": ".32x256b"}, "disagrees with rows 31"),
        ({"step": 2}, "must be the 32 lanes"),
        ({"lanes": 64, "step": 33}, "one warp's lanes"),
        ({"lane_alignment": 16}, "at least the 32 lanes"),
        ({"row_bits": 100, "ptx_name": ".31x100b"}, "multiple of 32"),
        ({"colour": 1}, "unknown field 'colour'"),
    ],
)
def test_bad_shape_files_are_refused_naming_the_field(change: dict[str, object], message: str) -> None:
    doc = {"ptx_name": ".31x256b", "rows": 31, "row_bits": 256, "lanes": 32, "step": 1, "lane_alignment": 32}
    with pytest.raises(TmemvizError, match=message):
        parse_shift_shape({**doc, **change}, "f.yaml")
