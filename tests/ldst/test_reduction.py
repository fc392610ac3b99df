"""tcgen05.ld.red explained: which lane and columns each thread's redval reduces (PTX 9.7.16.8.3).

The facts: ld.red loads the same registers as tcgen05.ld and reduces, per thread,
the values it loads into redval. The oracle (tests/ldst/oracle.py) says which
cells a thread's registers come from, so the expected columns are computed
without tmemviz. What PTX refuses, tmemviz refuses, and ptxas agrees.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import bad, ok
from compile_run import assemble
from ldst.oracle import oracle_cells

from tmemviz.catalog import Catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.ldst.figures import layout_spec
from tmemviz.families.ldst.layout import cells, make_instruction, reductions
from tmemviz.families.ldst.reduction import Reduction
from tmemviz.families.ldst.shapes import KIND as LDST

MAX = Reduction("max", "f32")


@pytest.mark.parametrize("shape", ["32x32b", "16x32bx2"])
@pytest.mark.parametrize("num", [2, 4, 32, 128])
def test_each_redval_covers_exactly_its_threads_columns(catalog: Catalog, shape: str, num: int) -> None:
    offsets = [None] if shape == "32x32b" else [None, 0, 3, 2 * num + 7]
    for split in offsets:
        extra = {"split_offset": split} if split is not None else {}
        ins = make_instruction(catalog.get(LDST, shape), num, red=MAX, **extra)
        found = reductions(ins)
        assert [r.thread for r in found] == list(range(32))
        expected: dict[int, set[tuple[int, int]]] = {}
        for t, _, _, lane, col in oracle_cells(shape, num, False, split):
            expected.setdefault(t, set()).add((lane, col))
        for r in found:
            assert {(r.lane, c) for c in r.cols} == expected[r.thread]
            assert list(r.cols) == sorted(r.cols) and len(r.cols) == num


def test_reductions_keep_the_registers_of_plain_ld(catalog: Catalog) -> None:
    shape = catalog.get(LDST, "16x32bx2")
    plain = make_instruction(shape, 8, split_offset=16)
    red = make_instruction(shape, 8, split_offset=16, red=Reduction("min", "u32"))
    assert cells(plain) == cells(red)
    assert red.mnemonic == "tcgen05.ld.red.sync.aligned.16x32bx2.x8.min.u32"
    assert red.statement("t") == (
        "tcgen05.ld.red.sync.aligned.16x32bx2.x8.min.u32 {r0, r1, r2, r3, r4, r5, r6, r7}, redval, [t], 16;"
    )


def test_plain_instructions_have_no_redval(catalog: Catalog) -> None:
    with pytest.raises(TmemvizError, match="no redval"):
        reductions(make_instruction(catalog.get(LDST, "32x32b"), 4))


# --- what PTX refuses ---------------------------------------------------------------------------


def hand_red(shape: str, num: int, quals: str, split: bool) -> str:
    """A tcgen05.ld.red statement written from the PTX syntax line, without tmemviz."""
    vector = "{" + ", ".join(f"%r{i}" for i in range(1, num + 1)) + "}"
    imm = f", {2 * num}" if split else ""
    return f"tcgen05.ld.red.sync.aligned.{shape}.x{num}{quals} {vector}, %r{num + 1}, [%r0]{imm};"


CASES = [
    # (shape, num, op, type, abs, nan, pack) and whether PTX allows it
    ("32x32b", 2, "max", "f32", True, True, False, True),
    ("16x32bx2", 4, "min", "s32", False, False, False, True),
    ("32x32b", 1, "max", "f32", False, False, False, False),
    ("16x64b", 2, "max", "u32", False, False, False, False),
    ("16x256b", 2, "min", "f32", False, False, False, False),
    ("32x32b", 2, "max", "u32", True, False, False, False),
    ("32x32b", 2, "min", "s32", False, True, False, False),
    ("32x32b", 2, "max", "f32", False, False, True, False),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c[:7])))
def test_tmemviz_refuses_what_ptxas_refuses(
    ptxas: str, tmp_path: Path, catalog: Catalog, case: tuple[object, ...]
) -> None:
    shape, num, op, kind, abs_, nan, pack, legal = case
    quals = (".pack::16b" if pack else "") + f".{op}" + (".abs" if abs_ else "") + (".NaN" if nan else "")
    quals += f".{kind}"
    statement = hand_red(str(shape), int(num), quals, shape == "16x32bx2")  # type: ignore[call-overload]
    assert (assemble(ptxas, tmp_path, [statement], "sm_103a") == "") is legal, statement
    red = Reduction(str(op), str(kind), bool(abs_), bool(nan))
    if legal:
        make_instruction(catalog.get(LDST, str(shape)), int(num), red=red)  # type: ignore[call-overload]
    else:
        with pytest.raises(TmemvizError):
            make_instruction(catalog.get(LDST, str(shape)), int(num), pack=bool(pack), red=red)  # type: ignore[call-overload]


# --- layout / which / where / figure ------------------------------------------------------------


@pytest.mark.usefixtures("plain_terminal")
def test_layout_json_lists_every_redval(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("layout", "16x32bx2", "--num", "x4", "--split-offset", "8", "--red", "max", "--type", "f32")
    record = json.loads(ok(capsys, *args, "-f", "json"))
    assert record["instruction"] == "tcgen05.ld.red.sync.aligned.16x32bx2.x4.max.f32"
    assert record["red"] == {"op": "max", "type": "f32", "abs": False, "nan": False}
    assert len(record["redval"]) == 32
    assert record["redval"][17] == {"thread": 17, "lane": 1, "cols": [8, 9, 10, 11]}
    assert record["redval"][3] == {"thread": 3, "lane": 3, "cols": [0, 1, 2, 3]}
    table = ok(capsys, *args)
    assert "redval (max)" in table and "T1 = max(0..3)   T17 = max(8..11)" in table


@pytest.mark.usefixtures("plain_terminal")
def test_which_and_where_name_the_redval(capsys: pytest.CaptureFixture[str]) -> None:
    line = "tcgen05.ld.red.sync.aligned.32x32b.x8.min.abs.NaN.f32"
    text = ok(capsys, "which", line, "--lane", "5", "--col", "3")
    assert text == (
        "lane 5, column 3 of 32x32b.x8.min.abs.NaN.f32 is held by thread 5, register r3; "
        "thread 5's redval = min of |x| (NaN if any is NaN) of lane 5, columns 0..7\n"
    )
    record = json.loads(ok(capsys, "where", line, "-t", "9", "-r", "0", "-f", "json"))
    assert record["redval"] == [{"thread": 9, "lane": 9, "cols": list(range(8))}]
    record = json.loads(ok(capsys, "which", line, "--lane", "5", "--col", "3", "-f", "json"))
    assert record["redval"] == [{"thread": 5, "lane": 5, "cols": list(range(8))}]


@pytest.mark.usefixtures("plain_terminal")
def test_layout_refuses_bad_reductions(capsys: pytest.CaptureFixture[str]) -> None:
    assert ".32x32b or .16x32bx2" in bad(
        capsys, "layout", "16x128b", "-n", "2", "--red", "max", "--type", "f32"
    )
    assert "not .b32" in bad(capsys, "layout", "tcgen05.ld.red.sync.aligned.32x32b.x2.max.b32")
    assert "tcgen05.st has none" in bad(
        capsys,
        "where",
        "32x32b",
        "-n",
        "2",
        "--op",
        "st",
        "--red",
        "max",
        "--type",
        "u32",
        "-t",
        "0",
        "-r",
        "0",
    )


def test_figure_marks_each_threads_reduced_segment(catalog: Catalog) -> None:
    ins = make_instruction(catalog.get(LDST, "16x32bx2"), 8, split_offset=16, red=MAX)
    spec = layout_spec(ins, cells(ins))
    notes = [n.text for p in spec.panels for n in p.notes]
    text = " ".join(notes)
    for t in range(32):
        cols = "0..7" if t < 16 else "16..23"
        assert f"T{t} redval = max({cols})" in text
    assert len(notes) == 16  # one line per lane, both threads of the lane on it
    assert all(p.margin_right_in > 0 for p in spec.panels if p.notes)
    plain = make_instruction(catalog.get(LDST, "16x32bx2"), 8, split_offset=16)
    assert not any(p.notes for p in layout_spec(plain, cells(plain)).panels)


@pytest.mark.usefixtures("plain_terminal")
def test_figure_command_draws_a_reduction(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "red.svg"
    ok(capsys, "figure", "32x32b", "--num", "x4", "--red", "min", "--type", "s32", "-o", str(out))
    svg = out.read_text()
    assert "tcgen05.ld.red.sync.aligned.32x32b.x4.min.s32" in svg and "T31 redval = min(0..3)" in svg
    assert "--type describes a tcgen05.ld.red reduction" in bad(
        capsys, "figure", "32x32b", "--type", "f32", "-o", "x.png"
    )
    assert ".abs applies to .f32" in bad(
        capsys, "figure", "32x32b", "-n", "2", "--red", "max", "--type", "u32", "--abs", "-o", str(out)
    )
