"""Every worked example of the facts file, as hand-written literals (no oracle, no loops over formulas).

Section "tcgen05.ld / tcgen05.st register layouts", "Worked examples", plus the
PTX examples of seed 000 (9.7.16.8.3 / 9.7.16.8.4) and the SHAPE spellings.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tmemviz.errors import TmemvizError
from tmemviz.families.ldst.layout import Cell, Instruction, Owner, cells, where, which
from tmemviz.families.ldst.spelling import resolve

Build = Callable[..., Instruction]


def of_thread(ins: Instruction, thread: int) -> list[tuple[int, int | None, int, int]]:
    """(reg, half, lane, col) of every cell of one thread, in register order."""
    return [(c.reg, c.half, c.lane, c.col) for c in cells(ins) if c.thread == thread]


def test_16x256b_x4_thread_5(build: Build) -> None:
    # Facts: r0 (1,2) r1 (1,3) r2 (9,2) r3 (9,3) r4 (1,10) r5 (1,11) r6 (9,10) r7 (9,11) ... r15 (9,27).
    # r8..r14 filled in by hand: repetition k sits 8k columns further right.
    assert of_thread(build("16x256b", 4), 5) == [
        (0, None, 1, 2),
        (1, None, 1, 3),
        (2, None, 9, 2),
        (3, None, 9, 3),
        (4, None, 1, 10),
        (5, None, 1, 11),
        (6, None, 9, 10),
        (7, None, 9, 11),
        (8, None, 1, 18),
        (9, None, 1, 19),
        (10, None, 9, 18),
        (11, None, 9, 19),
        (12, None, 1, 26),
        (13, None, 1, 27),
        (14, None, 9, 26),
        (15, None, 9, 27),
    ]


def test_16x256b_x4_owner_of_lane_9_col_5(build: Build) -> None:
    # Facts: "owner of lane 9 col 5: thread 6, r3".
    ins = build("16x256b", 4)
    assert which(ins, 9, 5) == (Owner(thread=6, reg=3, half=None),)
    assert where(ins, 6, 3) == (Cell(thread=6, reg=3, half=None, lane=9, col=5),)


def test_16x64b_x1_and_x2(build: Build) -> None:
    # Facts: 16x64b.x1: thread 1 -> (8,0); thread 2 -> (0,1). 16x64b.x2, thread 1: r0 (8,0), r1 (8,2).
    x1 = build("16x64b", 1)
    assert of_thread(x1, 1) == [(0, None, 8, 0)]
    assert of_thread(x1, 2) == [(0, None, 0, 1)]
    assert which(x1, 8, 0) == (Owner(1, 0, None),)
    assert which(x1, 0, 1) == (Owner(2, 0, None),)
    assert of_thread(build("16x64b", 2), 1) == [(0, None, 8, 0), (1, None, 8, 2)]


def test_16x128b_x2_thread_6(build: Build) -> None:
    # Facts: r0 (1,2) r1 (9,2) r2 (1,6) r3 (9,6).
    assert of_thread(build("16x128b", 2), 6) == [
        (0, None, 1, 2),
        (1, None, 9, 2),
        (2, None, 1, 6),
        (3, None, 9, 6),
    ]


def test_16x32bx2_x8_split_16_thread_17(build: Build) -> None:
    # Facts: "16x32bx2.x8 with immHalfSplitoff 16, thread 17: r0..r7 -> lane 1, cols 16..23".
    ins = build("16x32bx2", 8, split_offset=16)
    assert of_thread(ins, 17) == [
        (0, None, 1, 16),
        (1, None, 1, 17),
        (2, None, 1, 18),
        (3, None, 1, 19),
        (4, None, 1, 20),
        (5, None, 1, 21),
        (6, None, 1, 22),
        (7, None, 1, 23),
    ]
    # Thread 1 is in the first access: lane 1, cols 0..7.
    assert [(c.lane, c.col) for c in cells(ins) if c.thread == 1] == [(1, k) for k in range(8)]
    assert which(ins, 1, 23) == (Owner(17, 7, None),)


def test_16x256b_x2_pack_thread_5(build: Build) -> None:
    # Facts: r0 = lane 1 cols 4 (bits 15:0) and 5 (bits 31:16); r1 = cols 6,7;
    # r2,r3 the same columns in lane 9; r4 = lane 1 cols 20,21.
    got = of_thread(build("16x256b", 2, True), 5)
    assert got[:10] == [
        (0, 0, 1, 4),
        (0, 1, 1, 5),
        (1, 0, 1, 6),
        (1, 1, 1, 7),
        (2, 0, 9, 4),
        (2, 1, 9, 5),
        (3, 0, 9, 6),
        (3, 1, 9, 7),
        (4, 0, 1, 20),
        (4, 1, 1, 21),
    ]
    assert len(got) == 16  # 8 registers x 2 halves
    assert which(build("16x256b", 2, True), 1, 5) == (Owner(5, 0, 1),)


def test_32x32b_x2_pack_thread_3(build: Build) -> None:
    # Facts: r0 = lane 3 cols 0,1; r1 = lane 3 cols 2,3.
    assert of_thread(build("32x32b", 2, True), 3) == [
        (0, 0, 3, 0),
        (0, 1, 3, 1),
        (1, 0, 3, 2),
        (1, 1, 3, 3),
    ]


def test_16x256b_x1_pack_spans_16_columns(build: Build) -> None:
    # Facts: "16x256b.x1.pack::16b spans 16 columns".
    assert sorted({c.col for c in cells(build("16x256b", 1, True))}) == list(range(16))


# --- spellings (tmemviz.parse.resolve) -------------------------------------------------------------


def test_cutlass_atom_spelling(catalog) -> None:
    ins = resolve(catalog, "16dp256b4x_16b")
    assert (ins.shape.name, ins.num, ins.pack, ins.op) == ("16x256b", 4, True, "ld")
    assert ins.registers_per_thread == 16


def test_cutlass_store_atom_spelling(catalog) -> None:
    ins = resolve(catalog, "SM100_TMEM_STORE_16dp32b8x")
    assert (ins.shape.name, ins.num, ins.pack, ins.op, ins.split_offset) == ("16x32bx2", 8, False, "st", 8)


def test_ptx_line_with_split_offset(catalog) -> None:
    ins = resolve(catalog, "tcgen05.ld.sync.aligned.16x32bx2.x8.pack::16b.b32 ..., 16")
    assert (ins.shape.name, ins.num, ins.pack, ins.op, ins.split_offset) == ("16x32bx2", 8, True, "ld", 16)
    # Packed .x8 spans 16 columns, so S = 16 puts the halves side by side: thread 17 r0 at cols 16,17.
    assert where(ins, 17, 0) == (Cell(17, 0, 0, 1, 16), Cell(17, 0, 1, 1, 17))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # The Examples of seed 000, 9.7.16.8.3 and 9.7.16.8.4.
        ("tcgen05.ld.sync.aligned.32x32b.x2.b32     {r0, r1}, [taddr1];", ("32x32b", 2, False, "ld", 2)),
        (
            "tcgen05.ld.sync.aligned.16x128b.x4.b32    {r0, r1, r2, r3, r4, r5, r6, r7}, [taddr2];",
            ("16x128b", 4, False, "ld", 8),
        ),
        (
            "tcgen05.st.sync.aligned.16x64b.x4.b32               [taddr0], {r0,  r1,  r2,  r3};",
            ("16x64b", 4, False, "st", 4),
        ),
        (
            "tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32  [taddr1], {r0,  r1};",
            ("16x128b", 1, True, "st", 2),
        ),
    ],
)
def test_seed_examples_resolve(catalog, line: str, expected: tuple[str, int, bool, str, int]) -> None:
    ins = resolve(catalog, line)
    assert (ins.shape.name, ins.num, ins.pack, ins.op, ins.registers_per_thread) == expected


def test_seed_ld_red_example_keeps_split_offset(catalog) -> None:
    line = (
        "tcgen05.ld.red.sync.aligned.16x32bx2.x8.u32.max {r0, r1, r2, r3, r4, r5, r6, r7}, "
        "redVal, [taddr3], 16;"
    )
    ins = resolve(catalog, line)
    assert (ins.shape.name, ins.num, ins.split_offset, ins.registers_per_thread) == ("16x32bx2", 8, 16, 8)


@pytest.mark.parametrize(
    "line",
    [
        # Table 49: 16x256b.x4 takes 16 registers, 32x32b.x2 takes 2.
        "tcgen05.ld.sync.aligned.16x256b.x4.b32 {r0, r1, r2, r3}, [ta];",
        "tcgen05.ld.sync.aligned.32x32b.x2.b32 {r0, r1, r2}, [ta];",
        "tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32 [ta], {r0};",
    ],
)
def test_wrong_vector_size_is_rejected(catalog, line: str) -> None:
    with pytest.raises(TmemvizError):
        resolve(catalog, line)


@pytest.mark.parametrize(
    ("spelling", "num"),
    [("16x256b.x4", "x2"), ("16dp256b4x", "8"), ("tcgen05.ld.sync.aligned.32x32b.x2.b32", "x4")],
)
def test_conflicting_num_is_rejected(catalog, spelling: str, num: str) -> None:
    with pytest.raises(TmemvizError):
        resolve(catalog, spelling, num=num)


def test_agreeing_num_is_accepted(catalog) -> None:
    assert resolve(catalog, "16x256b.x4", num="x4").num == 4


def test_conflicting_split_offset_is_rejected(catalog) -> None:
    with pytest.raises(TmemvizError):
        resolve(catalog, "tcgen05.ld.sync.aligned.16x32bx2.x8.b32 ..., 16", split_offset="8")


def test_pack_on_st_is_rejected(catalog) -> None:
    # .pack::16b belongs to tcgen05.ld, .unpack::16b to tcgen05.st (PTX 9.7.16.8.3/4 syntax).
    with pytest.raises(TmemvizError):
        resolve(catalog, "tcgen05.st.sync.aligned.32x32b.x1.pack::16b.b32 [ta], {r0};")
