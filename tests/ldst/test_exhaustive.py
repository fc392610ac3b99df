"""tmemviz's cells() against the independent facts oracle, for every legal combination.

The oracle (ldst/oracle.py) is written from the facts file's formulas; tmemviz
reads the x1 pictures from layouts/*.yaml and applies its own general rules. Any
difference in any (thread, reg, half, lane, col) fails here.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from ldst.oracle import (
    SHAPES,
    TMEM_COLUMNS,
    access_width,
    default_split_offset,
    oracle_cells,
    shifted,
)

from tmemviz.errors import TmemvizError
from tmemviz.families.ldst.layout import Instruction, cells
from tmemviz.families.ldst.shapes import KIND as LDST

Build = Callable[..., Instruction]

# PTX Table 49 (tcgen05.ld) == Table 50 (tcgen05.st), copied from the seed as literal numbers:
# .num -> (.16x32bx2 / .16x64b / .32x32b, .16x128b, .16x256b); None = NA.
TABLE_49: dict[int, tuple[int | None, int | None, int | None]] = {
    1: (1, 2, 4),
    2: (2, 4, 8),
    4: (4, 8, 16),
    8: (8, 16, 32),
    16: (16, 32, 64),
    32: (32, 64, 128),
    64: (64, 128, None),
    128: (128, None, None),
}
TABLE_COLUMN = {"16x32bx2": 0, "16x64b": 0, "32x32b": 0, "16x128b": 1, "16x256b": 2}


def as_tuples(ins: Instruction) -> list[tuple[int, int, int | None, int, int]]:
    return [tuple(c) for c in cells(ins)]  # type: ignore[misc]


def test_catalog_has_exactly_the_five_ptx_shapes(catalog) -> None:
    # Facts table: .32x32b, .16x64b, .16x128b, .16x256b, .16x32bx2.
    assert sorted(catalog.names(LDST)) == sorted(SHAPES)


def test_there_are_74_combinations(all_combos) -> None:
    # 8 + 8 + 7 + 6 + 8 legal .num values (Table 49), each unpacked and packed.
    assert len(all_combos) == 74
    assert len(set(all_combos)) == 74


def test_cells_match_oracle(combo, build: Build) -> None:
    """Relative coordinates, default split offset (facts: S = N, 2N packed)."""
    name, num, pack = combo
    ins = build(name, num, pack)
    assert as_tuples(ins) == oracle_cells(name, num, pack)
    if SHAPES[name].split:
        assert ins.split_offset == default_split_offset(num, pack)
    else:
        assert ins.split_offset is None


def test_st_cells_equal_ld_cells(combo, build: Build) -> None:
    """Facts: "tcgen05.ld / tcgen05.st register layouts (the same for ld and st)"."""
    name, num, pack = combo
    ld = build(name, num, pack, op="ld")
    st = build(name, num, pack, op="st")
    assert as_tuples(st) == as_tuples(ld)
    assert as_tuples(st) == oracle_cells(name, num, pack)
    # .pack::16b belongs to ld, .unpack::16b to st (PTX 9.7.16.8.3 / 9.7.16.8.4 syntax).
    assert st.mnemonic.startswith("tcgen05.st.sync.aligned.")
    assert (".unpack::16b" in st.mnemonic) == pack
    assert ".pack::16b" not in st.mnemonic
    assert (".pack::16b" in ld.mnemonic) == pack
    assert ".unpack::16b" not in ld.mnemonic


# --- .16x32bx2 split offset (facts: "taddr + immHalfSplitoff", S a column offset) -----------------


def split_offsets(num: int, pack: bool) -> list[int]:
    width = access_width("16x32bx2", num, pack)
    if width <= 16:
        # Every offset from fully overlapping (0) to well past side by side (2*span + 3).
        return list(range(2 * width + 4))
    edge = TMEM_COLUMNS - width
    picks = {
        0,
        1,
        width // 2,
        width - 1,
        width,
        width + 1,
        2 * width - 1,
        2 * width,
        edge - 1,
        edge,
        edge + 1,
    }
    return sorted(s for s in picks if s >= 0)


SPLIT_CASES = [
    (num, pack, op) for num in (1, 2, 4, 8, 32, 128) for pack in (False, True) for op in ("ld", "st")
]


@pytest.mark.parametrize(
    ("num", "pack", "op"), SPLIT_CASES, ids=[f"x{n}{'.pack' if p else ''}-{o}" for n, p, o in SPLIT_CASES]
)
def test_split_offset_sweep(build: Build, num: int, pack: bool, op: str) -> None:
    width = access_width("16x32bx2", num, pack)
    for s in split_offsets(num, pack):
        if s + width > TMEM_COLUMNS:
            # The second access would run past column 511 (facts: 512 columns).
            with pytest.raises(TmemvizError):
                build("16x32bx2", num, pack, op=op, split_offset=s)
            continue
        if op == "st" and s < width:
            # Facts: "If S < N the halves overlap ... for st that is a write conflict".
            with pytest.raises(TmemvizError):
                build("16x32bx2", num, pack, op=op, split_offset=s)
            continue
        ins = build("16x32bx2", num, pack, op=op, split_offset=s)
        assert ins.split_offset == s
        assert as_tuples(ins) == oracle_cells("16x32bx2", num, pack, s), f"S={s}"
        # An overlapping ld is legal but must say so.
        assert bool(ins.warnings) == (s < width), f"S={s}"


def test_negative_split_offset_rejected(build: Build) -> None:
    with pytest.raises(TmemvizError):
        build("16x32bx2", 4, split_offset=-1)


@pytest.mark.parametrize("name", ["32x32b", "16x64b", "16x128b", "16x256b"])
def test_split_offset_only_for_16x32bx2(build: Build, name: str) -> None:
    # PTX syntax: only .shape2 = { .16x32bx2 } takes immHalfSplitoff.
    with pytest.raises(TmemvizError):
        build(name, 1, split_offset=4)


# --- absolute coordinates: taddr shifts every cell (facts: coordinates relative to taddr) -------------


def placements(name: str, num: int, pack: bool) -> list[tuple[tuple[int, int], int | None]]:
    """A few (taddr, warp) placements inside the warp band, up to the right edge of TMEM."""
    span = max(c[4] for c in oracle_cells(name, num, pack)) + 1
    top = 16 if SHAPES[name].lanes == 16 else 0
    room = TMEM_COLUMNS - span  # the largest taddr column that still fits
    return [
        ((0, 0), None),
        ((32, min(5, room)), None),
        ((64 + top, room), None),  # the last column used is 511
        ((96, 0), 7),  # warp 7 is warp 3 of its warpgroup: lanes 96..127
        ((32 + top, min(1, room)), 5),
    ]


def test_taddr_shifts_cells(combo, build: Build) -> None:
    name, num, pack = combo
    relative = oracle_cells(name, num, pack)
    for taddr, warp in placements(name, num, pack):
        ins = build(name, num, pack, taddr=taddr, warp=warp)
        assert as_tuples(ins) == shifted(relative, *taddr), f"taddr={taddr}"
        if warp is not None:
            assert ins.warp == warp
    # One column further right than the edge placement no longer fits in 512 columns.
    span = max(c[4] for c in relative) + 1
    with pytest.raises(TmemvizError):
        build(name, num, pack, taddr=(0, TMEM_COLUMNS - span + 1))


def test_warp_alone_places_at_its_band(build: Build) -> None:
    # Facts "Tensor Memory": warp w % 4 owns lanes 32w .. 32w+31; warp 6 -> band 64.
    ins = build("16x256b", 2, warp=6)
    assert as_tuples(ins) == shifted(oracle_cells("16x256b", 2, False), 64, 0)


# --- PTX Table 49/50: vector sizes and the NA entries -------------------------------------------------


@pytest.mark.parametrize("name", sorted(TABLE_COLUMN))
@pytest.mark.parametrize("num", sorted(TABLE_49))
def test_register_count_is_table_49(build: Build, name: str, num: int) -> None:
    expected = TABLE_49[num][TABLE_COLUMN[name]]
    for op in ("ld", "st"):
        for pack in (False, True):
            if expected is None:
                with pytest.raises(TmemvizError):
                    build(name, num, pack, op=op)
                continue
            ins = build(name, num, pack, op=op)
            assert ins.registers_per_thread == expected
            # Every thread uses exactly r0 .. r(expected-1).
            regs: dict[int, set[int]] = {}
            for c in cells(ins):
                regs.setdefault(c.thread, set()).add(c.reg)
            assert regs == {t: set(range(expected)) for t in range(32)}
            statement = ins.statement("ta")
            vector = statement[statement.index("{") + 1 : statement.index("}")]
            assert [v.strip() for v in vector.split(",")] == [f"r{i}" for i in range(expected)]


def test_table_49_literal_agrees_with_facts_r_times_num() -> None:
    # Facts: "registers = R x num"; the oracle's R must reproduce the seed's table.
    for name, column in TABLE_COLUMN.items():
        for num, row in TABLE_49.items():
            fact = SHAPES[name]
            assert row[column] == (fact.regs * num if num <= fact.max_num else None)


@pytest.mark.parametrize("num", [0, 3, 5, 96, 256, -1])
def test_not_a_num_is_rejected(build: Build, num: int) -> None:
    with pytest.raises(TmemvizError):
        build("32x32b", num)
