"""The ``tmemviz`` command line: every command, every output format, and every kind of bad input.

Most tests call :func:`tmemviz.cli.main` in-process with ``capsys``; a few run
``python -m tmemviz`` in a subprocess to check the real exit status and what
gets imported. Expected values come from the PTX ISA (Tables 49/50, Figures
183-187) and the worked examples of the facts sheet, not from tmemviz itself,
except where a rendering is compared cell by cell with :func:`tmemviz.mapper.cells`.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import bad, flat, ok, run
from ldst.oracle import SHAPES as FACT_SHAPES

from tmemviz.catalog import load_catalog
from tmemviz.cli.options import KINDS
from tmemviz.families.ldst import layout as mapper
from tmemviz.families.ldst.shapes import KIND as LDST

REPO = Path(__file__).resolve().parents[1]

# PTX Table 49: registers per repetition and the largest legal .num, from the facts oracle.
TABLE49 = {name: (s.regs, s.max_num) for name, s in FACT_SHAPES.items()}
CUTLASS = {
    "32x32b": "32dp32b",
    "16x64b": "16dp64b",
    "16x128b": "16dp128b",
    "16x256b": "16dp256b",
    "16x32bx2": "16dp32b",
}
NUMS = (1, 2, 4, 8, 16, 32, 64, 128)

pytestmark = pytest.mark.usefixtures("plain_terminal")

CellKey = tuple[int, int]


# --------------------------------------------------------------------------- helpers


_GRID_CELL = re.compile(r"T\d+ r\d+(?:\.lo|\.hi)?(?: / T\d+ r\d+(?:\.lo|\.hi)?)*|·|…")


def parse_grid(text: str) -> dict[CellKey, str]:
    """Read the grid view back: {(lane, col): 'T6 r3'} over all column blocks."""
    grid: dict[CellKey, str] = {}
    header: list[str] | None = None
    for line in text.splitlines():
        tokens = line.split()
        if tokens[:1] == ["lane"]:
            header = tokens[1:]
            continue
        if header is None or not tokens or set(line.strip()) <= {"─", "━", "-"}:
            continue
        row = _GRID_CELL.findall(line[line.index(tokens[0]) + len(tokens[0]) :])
        if not tokens[0].isdigit() or not row:
            header = None  # the block (table) has ended
            continue
        lane = int(tokens[0])
        assert len(row) == len(header), f"row of lane {lane} has {len(row)} cells for {len(header)} columns"
        for col, label in zip(header, row, strict=True):
            if col == "…":
                assert label == "…"
                continue
            key = (lane, int(col))
            assert key not in grid, f"lane {lane}, column {col} shown twice"
            grid[key] = label
    return grid


def header_columns(text: str) -> list[int]:
    """Every column index in the grid headers, in order of appearance."""
    cols: list[int] = []
    for line in text.splitlines():
        tokens = line.split()
        if tokens[:1] == ["lane"]:
            cols += [int(t) for t in tokens[1:] if t != "…"]
    return cols


def expected_grid(shape: str, num: int, pack: bool = False, **kw: object) -> dict[CellKey, str]:
    ins = mapper.make_instruction(load_catalog((), KINDS).get(LDST, shape), num, pack=pack, **kw)  # type: ignore[arg-type]
    grid: dict[CellKey, list[str]] = {}
    for c in mapper.cells(ins):
        half = {None: "", 0: ".lo", 1: ".hi"}[c.half]
        grid.setdefault((c.lane, c.col), []).append(f"T{c.thread} r{c.reg}{half}")
    return {k: " / ".join(v) for k, v in grid.items()}


def parse_threads(text: str) -> dict[int, dict[int, list[CellKey]]]:
    """Read the threads view back: {thread: {reg: [(lane, col), ...]}}."""
    out: dict[int, dict[int, list[CellKey]]] = {}
    thread: int | None = None
    for line in text.splitlines():
        m = re.match(r"\s*T(\d+)\s", line)
        if m:
            thread = int(m.group(1))
            out[thread] = {}
        if thread is None:
            continue
        for reg, spots in re.findall(r"\br(\d+):((?:\(\d+,\d+\)\+?)+)", line):
            pairs = [(int(a), int(b)) for a, b in re.findall(r"\((\d+),(\d+)\)", spots)]
            out[thread][int(reg)] = pairs
    return out


def layout_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    return json.loads(ok(capsys, "layout", *args, "--format", "json"))


def subprocess_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TMEMVIZ_LAYOUTS", "FORCE_COLOR")}
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["COLUMNS"] = "200"
    return env


# --------------------------------------------------------------------------- shapes


def _shape_rows(text: str) -> dict[str, list[str]]:
    """The table rows, by PTX name: lines that start with a shape and end with the .num columns."""
    rows: dict[str, list[str]] = {}
    for line in text.splitlines():
        tokens = line.split()
        if tokens and tokens[0].startswith(".") and len(tokens) > 2 + len(NUMS) and tokens[2].isdigit():
            assert tokens[0] not in rows, f"two rows for {tokens[0]}"
            rows[tokens[0]] = tokens
    return rows


def test_shapes_table_lists_every_shape_alias_and_table49_row(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _shape_rows(ok(capsys, "shapes"))
    assert set(rows) == {"." + s for s in TABLE49}
    for shape, (regs, max_num) in TABLE49.items():
        row = rows["." + shape]
        assert CUTLASS[shape] in row
        expected = [str(regs * n) if n <= max_num else "NA" for n in NUMS]
        assert row[-len(NUMS) :] == expected, f"{shape}: {row}"
    assert rows[".16x256b"].count("NA") == 2
    assert rows[".16x128b"].count("NA") == 1


def test_shapes_table_fits_an_80_column_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tmemviz shapes | less` or a standard terminal must not cut the shape names."""
    monkeypatch.setenv("COLUMNS", "80")
    out = ok(capsys, "shapes")
    for shape, alias in CUTLASS.items():
        assert re.search(rf"(?<![\w.])\.{shape}(?!\w)", out), f".{shape} missing or cut:\n{out}"
        assert re.search(rf"(?<!\w){alias}(?!\w)", out), f"{alias} missing or cut:\n{out}"
    assert "…" not in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_shapes_json(capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(ok(capsys, "shapes", "--format", "json"))
    by_name = {entry["shape"]: entry for entry in doc}
    assert set(by_name) == set(TABLE49)
    for shape, (regs, max_num) in TABLE49.items():
        entry = by_name[shape]
        assert entry["ptx_name"] == "." + shape
        assert CUTLASS[shape] in entry["aliases"]
        assert entry["registers"] == {f"x{n}": (regs * n if n <= max_num else None) for n in NUMS}
    assert by_name["16x32bx2"]["split"] is True
    assert by_name["16x256b"]["lanes"] == 16 and by_name["32x32b"]["lanes"] == 32


# --------------------------------------------------------------------------- layout: grid


def test_layout_grid_16x256b_x4(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "layout", "16x256b", "--num", "x4")
    assert "T6 r3" in out
    text = flat(out)
    assert "tcgen05.ld.sync.aligned.16x256b.x4.b32" in text
    assert "16 registers/thread" in text
    grid = parse_grid(out)
    # Facts sheet: the owner of lane 9, column 5 is thread 6, r3; thread 5's r15 sits at (9, 27).
    assert grid[(9, 5)] == "T6 r3"
    assert grid[(9, 27)] == "T5 r15"
    assert grid[(1, 10)] == "T5 r4"
    assert grid == expected_grid("16x256b", 4)


@pytest.mark.parametrize("columns", [40, 80])
@pytest.mark.parametrize(
    ("args", "shape", "num", "pack"),
    [
        (["16x256b", "--num", "x32"], "16x256b", 32, False),
        (["16x128b", "--num", "x16", "--pack"], "16x128b", 16, True),
        (["16x32bx2", "--num", "x16"], "16x32bx2", 16, False),
    ],
)
def test_wide_layout_is_split_into_blocks_never_cut(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    columns: int,
    args: list[str],
    shape: str,
    num: int,
    pack: bool,
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    out = ok(capsys, "layout", *args)
    expected = expected_grid(shape, num, pack)
    n_cols = max(col for _, col in expected) + 1
    assert re.search(r"\(block 1 of \d+\)", flat(out)), "a layout wider than the terminal must be split"
    assert sorted(header_columns(out)) == list(range(n_cols)), "every column index must appear once"
    assert all(len(line) <= columns for line in out.splitlines()), "no line may exceed the terminal"
    assert "…" not in out, "nothing may be ellipsized (and these layouts have no gaps)"
    assert parse_grid(out) == expected


def test_split_layout_marks_the_gap_between_halves(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "layout", "16x32bx2", "--num", "x8", "--split-offset", "16")
    grid = parse_grid(out)
    assert grid == expected_grid("16x32bx2", 8, split_offset=16)
    # Facts sheet: thread 17's r0..r7 sit in lane 1, columns 16..23.
    assert [grid[(1, 16 + k)] for k in range(8)] == [f"T17 r{k}" for k in range(8)]
    assert "…" in out, "skipped columns 8..15 are shown as one gap column"
    assert "immHalfSplitoff 16" in flat(out)


def test_layout_packed_shows_lo_and_hi(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "layout", "32x32b", "--num", "x2", "--pack")
    assert ".lo" in out and ".hi" in out
    grid = parse_grid(out)
    # Facts sheet: 32x32b.x2.pack::16b, thread 3: r0 = lane 3 cols 0,1; r1 = lane 3 cols 2,3.
    assert [grid[(3, c)] for c in range(4)] == ["T3 r0.lo", "T3 r0.hi", "T3 r1.lo", "T3 r1.hi"]
    assert "tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32" in flat(out)


def test_layout_st_unpack_caption(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "layout", "16x64b", "--num", "x2", "--pack", "--op", "st")
    assert "tcgen05.st.sync.aligned.16x64b.x2.unpack::16b.b32" in flat(out)


def test_layout_view_threads(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    out = ok(capsys, "layout", "16x256b", "--num", "x4", "--view", "threads")
    threads = parse_threads(out)
    assert sorted(threads) == list(range(32))
    # Facts sheet: 16x256b.x4, thread 5: r0 (1,2) r1 (1,3) r2 (9,2) r3 (9,3) r4 (1,10) ... r15 (9,27).
    t5 = threads[5]
    assert [t5[r] for r in range(5)] == [[(1, 2)], [(1, 3)], [(9, 2)], [(9, 3)], [(1, 10)]]
    assert t5[15] == [(9, 27)]
    assert all(sorted(regs) == list(range(16)) for regs in threads.values())
    assert "16 registers/thread" in flat(out)


def test_layout_view_threads_packed(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "layout", "16x256b", "--num", "x2", "--pack", "--view", "threads")
    t5 = parse_threads(out)[5]
    # Facts sheet: r0 = lane 1 cols 4 and 5; r1 = cols 6, 7; r2, r3 in lane 9; r4 = lane 1 cols 20, 21.
    assert t5[0] == [(1, 4), (1, 5)]
    assert t5[1] == [(1, 6), (1, 7)]
    assert t5[2] == [(9, 4), (9, 5)]
    assert t5[4] == [(1, 20), (1, 21)]


# --------------------------------------------------------------------------- layout: json / csv / -o


LAYOUT_KEYS = {"instruction", "shape", "num", "pack", "split_offset", "registers_per_thread", "cells"}


def test_layout_json_schema_unpacked(capsys: pytest.CaptureFixture[str]) -> None:
    doc = layout_json(capsys, "16x256b", "--num", "x4")
    assert set(doc) >= LAYOUT_KEYS
    assert doc["instruction"] == "tcgen05.ld.sync.aligned.16x256b.x4.b32"
    assert (doc["shape"], doc["num"], doc["pack"], doc["split_offset"]) == ("16x256b", 4, False, None)
    assert doc["registers_per_thread"] == 16
    cells = doc["cells"]
    assert isinstance(cells, list) and len(cells) == 32 * 16
    assert all(set(c) == {"thread", "reg", "lane", "col"} for c in cells)
    at = {(c["thread"], c["reg"]): (c["lane"], c["col"]) for c in cells}
    assert at[(5, 15)] == (9, 27) and at[(6, 3)] == (9, 5)
    assert len({(c["lane"], c["col"]) for c in cells}) == 16 * 32, "every cell of 16 lanes x 32 columns once"


def test_layout_json_schema_packed(capsys: pytest.CaptureFixture[str]) -> None:
    doc = layout_json(capsys, "16x256b", "--num", "x2", "--pack")
    assert doc["pack"] is True and doc["registers_per_thread"] == 8
    cells = doc["cells"]
    assert isinstance(cells, list) and len(cells) == 32 * 8 * 2
    assert all(set(c) == {"thread", "reg", "half", "lane", "col"} for c in cells)
    assert {c["half"] for c in cells} == {0, 1}
    t5r0 = sorted((c["half"], c["lane"], c["col"]) for c in cells if (c["thread"], c["reg"]) == (5, 0))
    assert t5r0 == [(0, 1, 4), (1, 1, 5)]


def test_layout_json_split(capsys: pytest.CaptureFixture[str]) -> None:
    doc = layout_json(capsys, "16x32bx2", "--num", "x8", "--split-offset", "16")
    assert doc["split_offset"] == 16
    cells = doc["cells"]
    assert isinstance(cells, list)
    t17 = sorted((c["reg"], c["lane"], c["col"]) for c in cells if c["thread"] == 17)
    assert t17 == [(k, 1, 16 + k) for k in range(8)]


def test_layout_json_default_split_offset_is_num(capsys: pytest.CaptureFixture[str]) -> None:
    assert layout_json(capsys, "16x32bx2", "--num", "x8")["split_offset"] == 8
    assert layout_json(capsys, "16x32bx2", "--num", "x8", "--pack")["split_offset"] == 16


def test_layout_csv(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "layout", "16x256b", "--num", "x4", "--format", "csv")
    lines = out.splitlines()
    assert lines[0] == "thread,reg,half,lane,col"
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 32 * 16
    assert all(r["half"] == "" for r in rows)
    assert {"thread": "6", "reg": "3", "half": "", "lane": "9", "col": "5"} in rows


def test_layout_csv_packed(capsys: pytest.CaptureFixture[str]) -> None:
    rows = list(
        csv.DictReader(io.StringIO(ok(capsys, "layout", "32x32b", "--num", "x2", "--pack", "-f", "csv")))
    )
    assert len(rows) == 32 * 2 * 2
    assert {r["half"] for r in rows} == {"0", "1"}
    assert {"thread": "3", "reg": "1", "half": "1", "lane": "3", "col": "3"} in rows


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_layout_output_file(capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str) -> None:
    target = tmp_path / f"layout.{'txt' if fmt == 'table' else fmt}"
    assert ok(capsys, "layout", "16x256b", "--num", "x4", "--format", fmt, "-o", str(target)) == ""
    written = target.read_text()
    assert os.listdir(tmp_path) == [target.name], "no temp files left behind"
    if fmt == "table":
        assert parse_grid(written) == expected_grid("16x256b", 4)
        assert "tcgen05.ld.sync.aligned.16x256b.x4.b32" in flat(written)
    else:
        assert written == ok(capsys, "layout", "16x256b", "--num", "x4", "--format", fmt)


def test_layout_output_file_replaces_existing_and_relative_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("out.json").write_text("old contents")
    ok(capsys, "layout", "32x32b", "-f", "json", "--output", "out.json")
    assert json.loads(Path("out.json").read_text())["shape"] == "32x32b"
    assert os.listdir(tmp_path) == ["out.json"]


# --------------------------------------------------------------------------- which / where


def test_which_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "which", "16x256b", "--num", "x4", "--lane", "9", "--col", "5")
    assert out == "lane 9, column 5 of 16x256b.x4 is held by thread 6, register r3\n"


def test_which_json_without_and_with_taddr(capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(ok(capsys, "which", "16x256b", "--num", "x4", "--lane", "9", "--col", "5", "-f", "json"))
    assert doc == {"lane": 9, "col": 5, "thread": 6, "reg": 3, "half": None}
    args = ["which", "16x256b", "--num", "x4", "--lane", "41", "--col", "5", "--taddr", "32,0", "-f", "json"]
    doc = json.loads(ok(capsys, *args))
    assert doc == {"lane": 41, "col": 5, "thread": 6, "reg": 3, "half": None, "warp": 1}


def test_which_packed_half(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["which", "16x256b", "--num", "x2", "--pack", "--lane", "1", "--col", "5"]
    assert json.loads(ok(capsys, *args, "-f", "json")) == {
        "lane": 1,
        "col": 5,
        "thread": 5,
        "reg": 0,
        "half": 1,
    }
    assert ok(capsys, *args).strip().endswith("thread 5, register r0 bits 31:16")


def test_which_overlapping_halves_has_two_owners(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["which", "16x32bx2", "--num", "x4", "--split-offset", "2", "--lane", "0", "--col", "3"]
    code, out, err = run(capsys, *args, "-f", "json")
    assert code == 0 and "overlap" in err
    doc = json.loads(out)
    assert {(o["thread"], o["reg"]) for o in doc["owners"]} == {(0, 3), (16, 1)}


def test_where_sentence_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "where", "16x256b", "--num", "x4", "--thread", "5", "--reg", "4")
    assert out == "thread 5, register r4 of 16x256b.x4 is loaded from lane 1, column 10\n"
    doc = json.loads(ok(capsys, "where", "16x256b", "--num", "x4", "-t", "5", "-r", "15", "-f", "json"))
    assert doc == {"thread": 5, "reg": 15, "cells": [{"lane": 9, "col": 27}]}


def test_where_packed_and_st(capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(
        ok(capsys, "where", "32x32b", "--num", "x2", "--pack", "-t", "3", "-r", "1", "-f", "json")
    )
    assert doc["cells"] == [{"half": 0, "lane": 3, "col": 2}, {"half": 1, "lane": 3, "col": 3}]
    out = ok(capsys, "where", "16x64b", "--op", "st", "--thread", "2", "--reg", "0")
    assert out == "thread 2, register r0 of 16x64b.x1 is stored to lane 0, column 1\n"


def test_where_with_taddr_is_absolute(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["where", "16x128b", "--num", "x2", "-t", "6", "-r", "3", "--taddr", "0x00400008", "--warp", "2"]
    doc = json.loads(ok(capsys, *args, "-f", "json"))
    # Facts sheet: 16x128b.x2 thread 6 r3 at (9, 6); taddr lane 64, column 8 shifts it.
    assert doc == {"thread": 6, "reg": 3, "cells": [{"lane": 73, "col": 14}], "warp": 2}


# --------------------------------------------------------------------------- SHAPE spellings and options


@pytest.mark.parametrize(
    "spelling", ["16x256b", ".16x256b", "16X256B", "16dp256b", "16x256b.x4", ".16x256b.x4.b32"]
)
def test_shape_spellings_name_the_same_layout(capsys: pytest.CaptureFixture[str], spelling: str) -> None:
    out = ok(capsys, "which", spelling, "--num", "x4", "--lane", "9", "--col", "5")
    assert out.endswith("is held by thread 6, register r3\n")
    assert "16x256b.x4" in out


@pytest.mark.parametrize(
    ("spelling", "expected"),
    [
        ("16dp256b4x_16b", ("tcgen05.ld.sync.aligned.16x256b.x4.pack::16b.b32", 4, True, None)),
        ("SM100_TMEM_LOAD_16dp256b4x", ("tcgen05.ld.sync.aligned.16x256b.x4.b32", 4, False, None)),
        (
            "SM100_TMEM_STORE_16dp32b2x_16b",
            ("tcgen05.st.sync.aligned.16x32bx2.x2.unpack::16b.b32", 2, True, 4),
        ),
        (
            "tcgen05.ld.sync.aligned.16x32bx2.x8.pack::16b.b32 ..., 16",
            ("tcgen05.ld.sync.aligned.16x32bx2.x8.pack::16b.b32", 8, True, 16),
        ),
        (
            "tcgen05.st.sync.aligned.16x64b.x2.b32 [taddr], {r0, r1};",
            ("tcgen05.st.sync.aligned.16x64b.x2.b32", 2, False, None),
        ),
    ],
)
def test_cutlass_and_ptx_spellings(
    capsys: pytest.CaptureFixture[str], spelling: str, expected: tuple[str, int, bool, int | None]
) -> None:
    doc = layout_json(capsys, spelling)
    assert (doc["instruction"], doc["num"], doc["pack"], doc["split_offset"]) == expected


@pytest.mark.parametrize("num", ["4", "x4", ".x4", "X4"])
def test_num_spellings(capsys: pytest.CaptureFixture[str], num: str) -> None:
    doc = layout_json(capsys, "16x256b", "--num", num)
    assert doc["num"] == 4 and doc["registers_per_thread"] == 16


def test_option_repeating_the_spelling_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    doc = layout_json(capsys, "16dp256b4x_16b", "--num", "x4", "--pack")
    assert doc["num"] == 4 and doc["pack"] is True


@pytest.mark.parametrize(
    "taddr_args",
    [
        ["--taddr", "32,0"],
        ["--taddr", "0x00200000"],
        ["--taddr", "0x00200000", "--warp", "1"],
        ["--warp", "5"],
    ],
)
def test_taddr_spellings(capsys: pytest.CaptureFixture[str], taddr_args: list[str]) -> None:
    doc = layout_json(capsys, "16x256b", "--num", "x4", *taddr_args)
    assert doc["taddr"] == {"lane": 32, "col": 0}
    assert doc["warp"] in (1, 5)
    cells = doc["cells"]
    assert isinstance(cells, list)
    assert {c["lane"] for c in cells} == set(range(32, 48))
    assert {"thread": 6, "reg": 3, "lane": 41, "col": 5} in cells


def test_taddr_second_half_of_band(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "which", "16x64b", "--taddr", "48,0", "--warp", "1", "--lane", "56", "--col", "0")
    # Facts sheet: 16x64b.x1 thread 1 -> (8, 0).
    assert "held by thread 1, register r0" in out
    assert "taddr lane 48, column 0, warp 1" in out


def test_overlapping_split_offset_ld_warns(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "layout", "16x32bx2", "--num", "x4", "--split-offset", "2", "-f", "json")
    assert code == 0
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1, f"one warning line expected: {err!r}"
    assert "warning" in err and "overlap" in err and "2..3" in err
    assert json.loads(out)["split_offset"] == 2


def test_overlapping_split_offset_st_fails(capsys: pytest.CaptureFixture[str]) -> None:
    line = bad(capsys, "layout", "16x32bx2", "--num", "x4", "--split-offset", "2", "--op", "st")
    assert "overlap" in line and "at least 4" in line


# --------------------------------------------------------------------------- bad input

KNOWN = "32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2"

BAD_INPUT = [
    pytest.param(
        ["layout", "16x256b", "--num", "x64"], ["16x256b supports .num x1..x32 (PTX Table 49)"], id="num-na"
    ),
    pytest.param(
        ["layout", "16x128b", "--num", "128", "--op", "st"], ["x1..x64", "Table 50"], id="num-na-st"
    ),
    pytest.param(["layout", "16x256b", "--num", "x3"], [".x3", "x128"], id="num-not-power"),
    pytest.param(["layout", "16x256b", "--num", "foo"], ["--num", "foo"], id="num-garbage"),
    pytest.param(["layout", "16x999b"], ["unknown shape '16x999b'", KNOWN], id="unknown-shape"),
    pytest.param(["which", "16x999b", "--lane", "0", "--col", "0"], [KNOWN], id="unknown-shape-which"),
    pytest.param(
        ["which", "16x256b", "--num", "x4", "--lane", "16", "--col", "5"],
        ["lane 16", "lanes 0..15, columns 0..31"],
        id="lane-outside",
    ),
    pytest.param(
        ["which", "16x256b", "--num", "x4", "--lane", "0", "--col", "32"],
        ["column 32", "lanes 0..15, columns 0..31"],
        id="col-outside",
    ),
    pytest.param(["which", "16x256b", "--lane", "0", "--col", "-1"], ["columns 0..7"], id="col-negative"),
    pytest.param(
        ["which", "16x256b", "--taddr", "32,0", "--lane", "9", "--col", "5"],
        ["lanes 32..47, columns 0..7"],
        id="lane-outside-absolute",
    ),
    pytest.param(
        ["which", "16x32bx2", "--num", "x4", "--split-offset", "8", "--lane", "0", "--col", "5"],
        ["columns 0..3 and 8..11"],
        id="col-in-split-gap",
    ),
    pytest.param(["which", "16x256b", "--lane", "abc", "--col", "5"], ["--lane"], id="lane-not-a-number"),
    pytest.param(["where", "16x256b", "--thread", "x", "--reg", "0"], ["--thread"], id="thread-not-a-number"),
    pytest.param(["layout", "16x256b", "--format", "xml"], ["--format", "xml"], id="unknown-format"),
    pytest.param(["which", "16x256b", "--lane", "0", "--col", "0", "-f", "csv"], ["csv"], id="which-csv"),
    pytest.param(["layout", "16x256b", "--view", "cube"], ["--view"], id="unknown-view"),
    pytest.param(
        ["layout", "16x256b", "--taddr", "64,0", "--warp", "0"], ["lanes 0..31"], id="taddr-other-band"
    ),
    pytest.param(
        ["layout", "16x256b", "--taddr", "0x00400000", "--warp", "1"], ["lanes 32..63"], id="taddr-hex-band"
    ),
    pytest.param(["layout", "16x256b", "--taddr", "24,0"], ["lanes 24..39"], id="16-lanes-cross-band"),
    pytest.param(["layout", "32x32b", "--taddr", "1,0"], ["lanes 1..32"], id="32-lanes-cross-band"),
    pytest.param(["layout", "16x256b", "--taddr", "200,0"], ["outside Tensor Memory"], id="taddr-lane-200"),
    pytest.param(["layout", "16x256b", "--taddr", "0x1ffffffff"], ["32-bit"], id="taddr-too-big"),
    pytest.param(["layout", "16x256b", "--taddr", "a,b"], ["taddr lane"], id="taddr-garbage"),
    pytest.param(["layout", "16x256b", "--num", "x32", "--taddr", "0,300"], ["511"], id="past-column-511"),
    pytest.param(["layout", "16x256b", "--warp", "40"], ["warp", "0..31"], id="warp-40"),
    pytest.param(
        ["where", "16x256b", "--num", "x4", "--thread", "0", "--reg", "16"], ["r0..r15"], id="reg-16"
    ),
    pytest.param(["where", "16x256b", "--thread", "0", "--reg", "-1"], ["r0..r3"], id="reg-negative"),
    pytest.param(["where", "16x256b", "--thread", "32", "--reg", "0"], ["0..31", "32"], id="thread-32"),
    pytest.param(["where", "16x256b", "--thread", "-1", "--reg", "0"], ["0..31"], id="thread-negative"),
    pytest.param(
        ["layout", "16x256b", "--split-offset", "4"], ["split offset", "16x256b"], id="split-non-split"
    ),
    pytest.param(["layout", "16x32bx2", "--split-offset", "-1"], ["0 or more"], id="split-negative"),
    pytest.param(
        ["which", "16x256b", "--lane", "0", "--col", "0", "--half", "x"], ["--half"], id="half-garbage"
    ),
    pytest.param(
        ["which", "16x256b", "--pack", "--lane", "0", "--col", "0", "--half", "hi"],
        ["bits 15:0"],
        id="half-hi-packed",
    ),
    pytest.param(["layout", "16dp256b4x", "--num", "x8"], ["x4", "x8"], id="spelling-contradicts-num"),
    pytest.param(
        ["layout", "tcgen05.st.sync.aligned.16x256b.x1.b32", "--op", "ld"],
        ["--op"],
        id="spelling-contradicts-op",
    ),
    pytest.param(["layout", "tcgen05.st.16x256b.pack::16b"], ["pack::16b"], id="pack-on-st"),
    pytest.param(
        ["layout", "tcgen05.ld.16x256b.x1 {r0, r1}, [t];"], ["2 registers", "needs 4"], id="vector-size"
    ),
    pytest.param(["layout", "tcgen05.mma.cta_group::1.kind::f16"], ["tcgen05.mma"], id="not-ld-st"),
    pytest.param(["layout", "tcgen05.ld.red.16x256b.x2.min.f32"], ["red"], id="red-wrong-shape"),
    pytest.param(["layout", "16x256b.bogus"], [".bogus"], id="unknown-qualifier"),
    pytest.param(["layout", ""], ["empty"], id="empty-shape"),
    pytest.param(["layout", "."], [], id="shape-just-a-dot"),
    pytest.param(["layout", "..."], [], id="shape-dots"),
    pytest.param(["layout", "16x256b.x4.x8"], [], id="two-num-qualifiers"),
    pytest.param(["layout"], ["SHAPE"], id="missing-shape"),
    pytest.param(["which", "16x256b", "--lane", "0"], ["--col"], id="missing-col"),
    pytest.param(["frobnicate"], ["frobnicate"], id="unknown-command"),
    pytest.param(["layout", "16x256b", "--bogus"], ["--bogus"], id="unknown-option"),
]


@pytest.mark.parametrize(("args", "fragments"), BAD_INPUT)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], fragments: list[str]
) -> None:
    line = bad(capsys, *args)
    for fragment in fragments:
        assert fragment in line, f"{fragment!r} not in {line!r}"


def test_bad_layouts_dir(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir"
    line = bad(capsys, "shapes", "--layouts", str(missing))
    assert str(missing) in line
    a_file = tmp_path / "file.yaml"
    a_file.write_text("ptx_name: x\n")
    assert str(a_file) in bad(capsys, "layout", "16x256b", "--layouts", str(a_file))


def test_bad_layouts_env(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMEMVIZ_LAYOUTS", str(tmp_path / "gone"))
    assert "gone" in bad(capsys, "which", "16x256b", "--lane", "0", "--col", "0")


def test_error_with_output_file_writes_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    bad(capsys, "layout", "16x256b", "--num", "x64", "-o", str(target))
    assert os.listdir(tmp_path) == []


# --------------------------------------------------------------------------- -o failures


def test_output_into_missing_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "missing" / "out.json"
    line = bad(capsys, "layout", "16x256b", "-f", "json", "-o", str(target))
    assert "cannot write" in line and str(target) in line
    assert os.listdir(tmp_path) == []


def test_output_onto_a_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "adir"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    line = bad(capsys, "layout", "16x256b", "-o", str(target))
    assert "directory" in line
    assert target.is_dir() and os.listdir(target) == ["keep.txt"]
    assert os.listdir(tmp_path) == ["adir"], "no temp files left behind"


def test_failed_rename_keeps_existing_target(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.csv"
    target.write_text("precious\n")

    def refuse(src: object, dst: object) -> None:
        raise PermissionError(13, "Permission denied")

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", refuse)
        line = bad(capsys, "layout", "16x256b", "-f", "csv", "-o", str(target))
    assert "cannot write" in line and "Permission denied" in line
    assert target.read_text() == "precious\n"
    assert os.listdir(tmp_path) == ["out.csv"], "the temp file must be removed"


def test_disk_full_midway_keeps_existing_target(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.json"
    target.write_text("precious\n")
    real_fdopen = os.fdopen

    class Full(io.RawIOBase):
        def __init__(self, fd: int) -> None:
            self.handle = real_fdopen(fd, "wb")

        def write(self, data: object) -> int:
            self.handle.write(b"{half")
            self.handle.flush()
            raise OSError(28, "No space left on device")

        def close(self) -> None:
            self.handle.close()
            super().close()

    with monkeypatch.context() as patch:
        patch.setattr(os, "fdopen", lambda fd, *a, **k: Full(fd))
        line = bad(capsys, "layout", "16x256b", "-f", "json", "-o", str(target))
    assert "No space left" in line
    assert target.read_text() == "precious\n"
    assert os.listdir(tmp_path) == ["out.json"], "the half-written temp file must be removed"


def test_output_under_a_regular_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    line = bad(capsys, "layout", "16x256b", "-o", str(tmp_path / "plain" / "out.txt"))
    assert "cannot write" in line
    assert os.listdir(tmp_path) == ["plain"]


def test_output_name_too_long_is_a_clean_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    name_max = os.pathconf(tmp_path, "PC_NAME_MAX")
    line = bad(capsys, "layout", "16x256b", "-f", "csv", "-o", str(tmp_path / ("n" * (name_max + 10))))
    assert "cannot write" in line
    assert os.listdir(tmp_path) == []


def test_output_long_but_legal_name_is_written(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A name the file system accepts (as `> name` would) must not fail because of the temp file's name."""
    name = "n" * (os.pathconf(tmp_path, "PC_NAME_MAX") - 5)
    (tmp_path / name).write_text("shell redirection can create this name\n")
    code, _, err = run(capsys, "layout", "16x256b", "-f", "csv", "-o", str(tmp_path / name))
    assert code == 0, err
    assert (tmp_path / name).read_text().startswith("thread,reg,half,lane,col\n")
    assert os.listdir(tmp_path) == [name]


def test_overlapping_grid_shows_both_owners(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run(capsys, "layout", "16x32bx2", "--num", "x4", "--split-offset", "2", "--pack")
    assert code == 0 and "overlap" in err
    grid = parse_grid(out)
    assert grid == expected_grid("16x32bx2", 4, True, split_offset=2)
    assert grid[(0, 4)] == "T0 r2.lo / T16 r1.lo"
    assert "…" not in out


# --------------------------------------------------------------------------- subprocesses


def test_python_m_tmemviz(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "tmemviz", "which", "16x256b", "--num", "x4", "--lane", "9", "--col", "5"]
    done = subprocess.run(cmd, capture_output=True, text=True, env=subprocess_env(), cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "lane 9, column 5 of 16x256b.x4 is held by thread 6, register r3\n"
    assert done.stderr == ""


@pytest.mark.parametrize(
    "args",
    [
        ["layout", "16x256b", "--num", "x64"],
        ["which", "16x256b", "--lane", "abc", "--col", "1"],
        ["layout", "."],
    ],
)
def test_python_m_tmemviz_bad_input(tmp_path: Path, args: list[str]) -> None:
    cmd = [sys.executable, "-m", "tmemviz", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, env=subprocess_env(), cwd=tmp_path, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("tmemviz: ")
    assert done.stdout == ""


def test_closed_pipe_is_not_an_error(tmp_path: Path) -> None:
    """`tmemviz layout ... | head -1`: exit 0 and nothing on stderr."""
    cmd = [sys.executable, "-m", "tmemviz", "layout", "16x256b", "--num", "x32", "--pack", "-f", "json"]
    with subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=subprocess_env(), cwd=tmp_path
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline() == b"{\n"  # far more than a pipe buffer follows
        proc.stdout.close()
        err = proc.stderr.read().decode()
        code = proc.wait(timeout=60)
    assert code == 0, err
    assert err == ""


def test_cli_never_imports_matplotlib(tmp_path: Path) -> None:
    script = """
import contextlib, io, sys
import tmemviz.cli
from tmemviz.cli.options import KINDS
from tmemviz.families.ldst.shapes import KIND as LDST
assert "matplotlib" not in sys.modules, "importing tmemviz.cli pulled in matplotlib"
runs = [
    ["shapes"], ["shapes", "-f", "json"],
    ["layout", "16x256b", "--num", "x4"], ["layout", "16x256b", "-f", "json"],
    ["layout", "16x256b", "-f", "csv"], ["layout", "32x32b", "--view", "threads"],
    ["which", "16x256b", "--num", "x4", "--lane", "9", "--col", "5"],
    ["where", "16x256b", "--num", "x4", "--thread", "5", "--reg", "4"],
    ["cp", "64x128b", "-m", "warpx2::01_23"], ["cp", "32x128b.warpx4", "-f", "json"],
    ["cp", "128x256b", "--row", "3"], ["decompress", "b6x16_p32", "--hex", "00" * 12],
]
for argv in runs:
    with contextlib.redirect_stdout(io.StringIO()):
        code = tmemviz.cli.main(argv)
    assert code == 0, (argv, code)
    assert "matplotlib" not in sys.modules, ("matplotlib imported by", argv)
print("clean")
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "clean"
