"""The ``tmemviz cp`` command end to end: table, JSON and CSV, row and cell questions, -o, bad input.

Commands run in-process through :func:`tmemviz.cli.main`; expected cells come from
the independent facts oracle (:mod:`facts_oracle_cp`), never from tmemviz itself.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from cli_run import bad, flat, ok
from cp.oracle import SHAPES, cell_sources, combinations, landings, mnemonic, placements, replicas

from tmemviz.catalog import load_catalog
from tmemviz.cli.options import KINDS
from tmemviz.families.cp.shapes import KIND as CP

COMBOS = combinations()
PLACEMENTS = placements()
CELL_KEYS = ["row", "word", "cta", "lane", "col"]
pytestmark = pytest.mark.usefixtures("plain_terminal")
BASIS_4X256B = load_catalog((), KINDS).get(CP, "4x256b").basis
Combo = tuple[str, str | None, int, str | None]
Placement = tuple[str, str | None]


def cid(combo: tuple[object, ...]) -> str:
    return ".".join(str(x) for x in combo if x is not None)


def args_of(shape: str, multicast: str | None, group: int, fmt: str | None) -> list[str]:
    out = ["cp", shape, "--cta-group", str(group)]
    if multicast is not None:
        out += ["-m", multicast]
    if fmt is not None:
        out += ["--decompress", fmt]
    return out


def cell_tuples(cells: list[dict[str, int]]) -> list[tuple[int, ...]]:
    return [tuple(c[k] for k in CELL_KEYS) for c in cells]


# --------------------------------------------------------------------------- JSON and CSV of everything


@pytest.mark.parametrize("cpc", COMBOS, ids=[cid(c) for c in COMBOS])
def test_json_equals_oracle(capsys: pytest.CaptureFixture[str], cpc: Combo) -> None:
    shape, multicast, group, fmt = cpc
    record = json.loads(ok(capsys, *args_of(shape, multicast, group, fmt), "--format", "json"))
    assert record["instruction"] == mnemonic(shape, multicast, group, fmt)
    assert record["shape"] == shape
    assert record["multicast"] == multicast
    assert record["cta_group"] == group
    assert record["decompress"] == fmt
    assert record["rows"] == SHAPES[shape].rows
    assert record["words_per_row"] == SHAPES[shape].words
    assert record["replicas"] == replicas(multicast, group)
    assert record["coordinates"] == "relative" and record["taddr"] is None
    assert list(record)[-1] == "cells"
    cells = record["cells"]
    keys = CELL_KEYS + (["src_bits"] if fmt is not None else [])
    assert all(list(c) == keys for c in cells)
    got = cell_tuples(cells)
    assert len(got) == len(set(got))
    assert set(got) == landings(shape, multicast, group)
    if fmt is None:
        assert all(c["col"] == c["word"] for c in cells)
    else:
        assert all(len(c["src_bits"]) == 2 and c["src_bits"][0] > c["src_bits"][1] for c in cells)
    notes = record["notes"]
    assert any("CUTLASS" in n for n in notes) == (shape == "4x256b")
    assert any("decompression" in n for n in notes) == (fmt is not None)


def test_json_is_one_cell_per_line(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "cp", "32x128b", "-m", "warpx4", "--format", "json")
    cell_lines = [line for line in out.splitlines() if line.strip().startswith('{"row"')]
    assert len(cell_lines) == 32 * 4 * 4


@pytest.mark.parametrize("cpc", COMBOS, ids=[cid(c) for c in COMBOS])
def test_csv_equals_oracle(capsys: pytest.CaptureFixture[str], cpc: Combo) -> None:
    shape, multicast, group, fmt = cpc
    out = ok(capsys, *args_of(shape, multicast, group, fmt), "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    header = CELL_KEYS + (["src_bit_hi", "src_bit_lo"] if fmt is not None else [])
    assert rows[0] == header
    assert all(len(r) == len(header) for r in rows[1:])
    got = [tuple(int(v) for v in r[:5]) for r in rows[1:]]
    assert len(got) == len(set(got))
    assert set(got) == landings(shape, multicast, group)
    if fmt is None:
        assert out.count("\n") == len(got) + 1


@pytest.mark.parametrize("placement", PLACEMENTS, ids=[cid(p) for p in PLACEMENTS])
def test_json_with_taddr(capsys: pytest.CaptureFixture[str], placement: Placement) -> None:
    shape, multicast = placement
    lane0 = 7 if shape == "4x256b" else 0
    taddr = (lane0, 100)
    args = args_of(shape, multicast, 2, None)
    record = json.loads(ok(capsys, *args, "--taddr", f"{lane0},100", "--format", "json"))
    assert record["coordinates"] == "absolute"
    assert record["taddr"] == {"lane": lane0, "col": 100}
    assert set(cell_tuples(record["cells"])) == landings(shape, multicast, 2, taddr)
    # The same through a 32-bit address: lane in bits 31:16, column in 15:0.
    hexed = json.loads(ok(capsys, *args, "--taddr", f"0x{lane0 << 16 | 100:08x}", "--format", "json"))
    assert hexed == record


# --------------------------------------------------------------------------- --row / --word


@pytest.mark.parametrize("placement", PLACEMENTS, ids=[cid(p) for p in PLACEMENTS])
@pytest.mark.parametrize("group", [1, 2])
def test_row_questions(capsys: pytest.CaptureFixture[str], placement: Placement, group: int) -> None:
    shape, multicast = placement
    fact = SHAPES[shape]
    expected = landings(shape, multicast, group)
    base = args_of(shape, multicast, group, None)
    first, last = 0, fact.rows - 1
    for row in (first, last):
        want = {x for x in expected if x[0] == row}
        record = json.loads(ok(capsys, *base, "--row", str(row), "--format", "json"))
        assert record["instruction"] == mnemonic(shape, multicast, group, None)
        assert record["row"] == row and record["word"] is None
        assert set(cell_tuples(record["cells"])) == want
        assert len(record["cells"]) == len(want)
    want = {x for x in expected if x[0] == last}
    lines = list(csv.reader(io.StringIO(ok(capsys, *base, "--row", str(last), "--format", "csv"))))
    assert lines[0] == CELL_KEYS
    assert [tuple(map(int, r)) for r in lines[1:]] == sorted(want, key=lambda x: (x[1], x[2], x[3]))
    text = ok(capsys, *base, "--row", str(last)).splitlines()
    assert all(line.startswith("note: ") for line in text[1:])
    assert len(text) == 1 + (shape == "4x256b")
    for lane in sorted({x[3] for x in want}):
        assert re.search(rf"\b{lane}\b", text[0])
    assert f"row {last} of " in text[0] and f"columns 0..{fact.words - 1}" in text[0]
    assert ("peer" in text[0]) == (group == 2)
    word = fact.words - 1
    record = json.loads(ok(capsys, *base, "--row", str(last), "--word", str(word), "--format", "json"))
    assert record["word"] == word
    assert set(cell_tuples(record["cells"])) == {x for x in want if x[1] == word}
    text = ok(capsys, *base, "--row", str(last), "--word", str(word)).splitlines()
    assert f"word {word} of row {last}" in text[0] and f"column {word}" in text[0]


def test_row_sentences_of_the_facts(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "cp", "64x128b", "-m", "warpx2::01_23", "--row", "40")
    assert "row 40" in out and "lanes 72 and 104" in out and "columns 0..3" in out
    out = ok(capsys, "cp", "64x128b.warpx2::02_13", "--row", "40")
    assert "lanes 40 and 104" in out
    out = ok(capsys, "cp", "32x128b", "-m", "warpx4", "--row", "5")
    assert "lanes 5, 37, 69 and 101" in out
    out = ok(capsys, "cp", "4x256b", "--row", "2")
    assert "lane 64" in out and "columns 0..7" in out
    out = ok(
        capsys, "cp", "tcgen05.cp.cta_group::2.64x128b.warpx2::01_23 [t], d;", "--row", "40", "--word", "3"
    )
    assert "word 3 of row 40" in out and "lanes 72 and 104" in out and "column 3" in out
    out = ok(capsys, "cp", "SM100_UTCCP_2x64dp128bitlw0213_2cta", "--row", "40", "--format", "json")
    assert json.loads(out)["instruction"] == "tcgen05.cp.cta_group::2.64x128b.warpx2::02_13"
    out = ok(capsys, "cp", "4x256b", "--taddr", "5,10", "--row", "3")
    assert "lane 101" in out and "columns 10..17" in out


def test_row_with_decompression(capsys: pytest.CaptureFixture[str]) -> None:
    record = json.loads(
        ok(capsys, "cp", "128x128b", "--decompress", "b4x16_p64", "--row", "3", "--format", "json")
    )
    assert [list(c) for c in record["cells"]] == [[*CELL_KEYS, "src_bits"]] * 4
    assert {tuple(c[k] for k in CELL_KEYS) for c in record["cells"]} == {(3, w, 0, 3, w) for w in range(4)}
    lines = ok(capsys, "cp", "128x128b", "--decompress", "b4x16_p64", "--row", "3", "--format", "csv")
    assert lines.splitlines()[0] == "row,word,cta,lane,col,src_bit_hi,src_bit_lo"


# --------------------------------------------------------------------------- --lane / --col / --cta


@pytest.mark.parametrize("placement", PLACEMENTS, ids=[cid(p) for p in PLACEMENTS])
def test_cell_questions(capsys: pytest.CaptureFixture[str], placement: Placement) -> None:
    shape, multicast = placement
    sources = cell_sources(shape, multicast, 2)
    base = args_of(shape, multicast, 2, None)
    picks = sorted(sources)[:: max(1, len(sources) // 3)]
    for cta, lane, col in picks:
        row, word = sources[(cta, lane, col)][:2]
        q = ["--lane", str(lane), "--col", str(col), "--cta", str(cta)]
        record = json.loads(ok(capsys, *base, *q, "--format", "json"))
        assert record == {
            "instruction": mnemonic(shape, multicast, 2, None),
            "row": row,
            "word": word,
            "cta": cta,
            "lane": lane,
            "col": col,
            # Where the placement rests on something other than the PTX text (.4x256b), JSON says so too.
            "notes": [BASIS_4X256B] if shape == "4x256b" else [],
        }
        lines = list(csv.reader(io.StringIO(ok(capsys, *base, *q, "--format", "csv"))))
        assert lines == [CELL_KEYS, [str(v) for v in (row, word, cta, lane, col)]]
        text = ok(capsys, *base, *q)
        assert f"lane {lane}, column {col} of cta {cta}" in text
        assert f"receives word {word} of source row {row}" in text


def test_cell_sentences_of_the_facts(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "cp", "64x128b", "-m", "warpx2::01_23", "--lane", "104", "--col", "3")
    assert "lane 104, column 3" in out and "word 3 of source row 40" in out
    out = ok(capsys, "cp", "32x128b.warpx4", "--lane", "101", "--col", "0")
    assert "word 0 of source row 5" in out
    out = ok(capsys, "cp", "4x256b", "--lane", "64", "--col", "7")
    assert "word 7 of source row 2" in out
    # Without --cta the question is about this CTA.
    record = json.loads(
        ok(capsys, "cp", "128x256b", "--cta-group", "2", "--lane", "9", "--col", "2", "-f", "json")
    )
    assert record["cta"] == 0
    out = ok(capsys, "cp", "128x256b", "--taddr", "0,32", "--lane", "70", "--col", "37")
    assert "word 5 of source row 70" in out


def test_cell_with_decompression(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["cp", "32x128b", "-m", "warpx4", "--decompress", "b6x16_p32", "--lane", "37", "--col", "2"]
    record = json.loads(ok(capsys, *args, "--format", "json"))
    assert {k: record[k] for k in CELL_KEYS} == {"row": 5, "word": 2, "cta": 0, "lane": 37, "col": 2}
    assert len(record["src_bits"]) == 2
    assert "source row 5" in ok(capsys, *args)


# --------------------------------------------------------------------------- the table view


def band_grid(text: str) -> dict[int, int]:
    """Read the band grid back: {lane: source row} from its 'i  row a  ·  row b  ...' lines."""
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if "lane 0+i" in line)
    grid: dict[int, int] = {}
    for line in lines[start + 1 :]:
        tokens = line.split()
        if not tokens or set(line.strip()) <= {"─", "━", "-"}:
            continue
        if not tokens[0].isdigit():
            break  # the grid has ended
        i = int(tokens[0])
        cells = re.findall(r"row (\d+)|·", line[line.index(tokens[0]) + len(tokens[0]) :])
        assert len(cells) == 4, line
        for band, row in enumerate(cells):
            if row:
                assert 32 * band + i not in grid
                grid[32 * band + i] = int(row)
    return grid


@pytest.mark.parametrize("placement", PLACEMENTS, ids=[cid(p) for p in PLACEMENTS])
@pytest.mark.parametrize("group", [1, 2])
def test_table_shows_every_lane_and_its_row(
    capsys: pytest.CaptureFixture[str], placement: Placement, group: int
) -> None:
    shape, multicast = placement
    out = ok(capsys, *args_of(shape, multicast, group, None))
    want = {x[3]: x[0] for x in landings(shape, multicast, group) if x[2] == 0}
    assert band_grid(out) == want
    text = flat(out)
    assert mnemonic(shape, multicast, group, None) in text
    assert ("CUTLASS" in text) == (shape == "4x256b")
    if shape == "4x256b":
        assert "note:" in text and "4x256b" in text
    if group == 2:
        assert "peer" in text


def test_table_with_taddr_and_decompression(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "cp", "4x256b", "--taddr", "9,40", "--decompress", "b4x16_p64")
    assert band_grid(out) == {9: 0, 41: 1, 73: 2, 105: 3}
    text = flat(out)
    assert "CUTLASS" in text and "decompression" in text and "taddr" in text


@pytest.mark.parametrize(
    "query", [[], ["--row", "2"], ["--row", "2", "--word", "7"], ["--lane", "64", "--col", "7"]], ids=str
)
def test_4x256b_says_the_lanes_are_cutlass_s_model(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, query: list[str]
) -> None:
    """The facts' open question: every text view of .4x256b says "as modelled by CUTLASS", on one line."""
    for extra in ([], ["-o", str(tmp_path / "out.txt")]):
        out = ok(capsys, "cp", "4x256b", *query, *extra)
        if extra:
            out = (tmp_path / "out.txt").read_text()
        notes = [line.strip() for line in out.splitlines() if line.strip().startswith("note:")]
        assert len(notes) == 1, out
        assert "CUTLASS" in notes[0] and "4x256b" in notes[0] and "32*a" in notes[0]
    if query:
        assert ("lane 64" in out) and ("row 2" in out)


@pytest.mark.parametrize("query", [[], ["--row", "1"], ["--lane", "1", "--col", "0"]], ids=str)
def test_decompression_says_the_shape_rule_is_unknown(
    capsys: pytest.CaptureFixture[str], query: list[str]
) -> None:
    out = ok(capsys, "cp", "128x128b", "--decompress", "b6x16_p32", *query)
    notes = [line.strip() for line in out.splitlines() if line.strip().startswith("note:")]
    assert len(notes) == 1 and "decompression" in notes[0] and "not say" in notes[0]
    plain = ok(capsys, "cp", "128x128b", *query)
    assert "note:" not in plain


# --------------------------------------------------------------------------- -o


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_output_file(capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str) -> None:
    args = ["cp", "64x128b", "-m", "warpx2::02_13", "--cta-group", "2", "--format", fmt]
    target = tmp_path / f"out.{'txt' if fmt == 'table' else fmt}"
    target.write_text("old contents that must be replaced entirely\n" * 1000)
    assert ok(capsys, *args, "-o", str(target)) == ""
    body = target.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]  # no temp file left behind
    if fmt == "json":
        assert body == ok(capsys, *args)
        assert set(cell_tuples(json.loads(body)["cells"])) == landings("64x128b", "warpx2::02_13", 2)
    elif fmt == "csv":
        assert body == ok(capsys, *args)
    else:
        assert "old contents" not in body
        assert band_grid(body) == {x[3]: x[0] for x in landings("64x128b", "warpx2::02_13", 1)}


@pytest.mark.parametrize(
    "query", [["--row", "40"], ["--row", "40", "--word", "1"], ["--lane", "104", "--col", "3"]], ids=str
)
@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_output_file_for_questions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, query: list[str], fmt: str
) -> None:
    args = ["cp", "64x128b", "-m", "warpx2::01_23", *query, "--format", fmt]
    target = tmp_path / "answer"
    assert ok(capsys, *args, "-o", str(target)) == ""
    assert target.read_text() == ok(capsys, *args)


@pytest.mark.parametrize(
    "args",
    [
        ["cp", "64x128b"],
        ["cp", "64x128b", "-m", "warpx2::01_23", "--row", "64"],
        ["cp", "64x128b", "-m", "warpx2::01_23", "--lane", "104", "--col", "4"],
        ["cp", "128x256b", "--cta", "1", "--lane", "0", "--col", "0"],
        ["cp", "nosuch"],
    ],
    ids=["shape", "row", "col", "cta", "unknown"],
)
def test_nothing_written_on_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str]
) -> None:
    target = tmp_path / "out.json"
    bad(capsys, *args, "--format", "json", "-o", str(target))
    assert list(tmp_path.iterdir()) == []
    target.write_text("keep")
    bad(capsys, *args, "-o", str(target))
    assert target.read_text() == "keep"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_output_into_missing_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    line = bad(capsys, "cp", "128x256b", "--format", "json", "-o", str(tmp_path / "no" / "such" / "x.json"))
    assert "cannot write" in line
    line = bad(capsys, "cp", "128x256b", "--format", "csv", "-o", str(tmp_path))
    assert "directory" in line


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (["cp", "nosuch"], r"unknown tcgen05.cp shape 'nosuch'"),
        (["cp", "16x256b"], r"tmemviz layout 16x256b"),
        (["cp", ""], r"empty"),
        (["cp", "64x128b"], r"\.64x128b requires \.warpx2::02_13 or \.warpx2::01_23"),
        (["cp", "32x128b", "-m", "warpx2::01_23"], r"\.32x128b requires \.warpx4"),
        (["cp", "128x256b", "-m", "warpx4"], r"takes no \.multicast"),
        (["cp", "128x256b", "-m", "warpx3"], r"unknown multicast 'warpx3'"),
        (["cp", "128x256b", "--cta-group", "3"], r"1 or 2"),
        (["cp", "128x256b", "--cta-group", "two"], r"1 or 2"),
        (["cp", "128x256b", "--decompress", "b4x8"], r"unknown decompression format"),
        (["cp", "tcgen05.cp.cta_group::1.128x128b.b8x16 [t], d;"], r"come as a pair"),
        (["cp", "64x128b.warpx2::02_13", "-m", "warpx2::01_23"], r"--multicast"),
        (["cp", "SM100_UTCCP_128dp256bit_1cta", "--cta-group", "2"], r"--cta-group"),
        (["cp", "128x128b.b8x16.b4x16_p64", "--decompress", "b6x16_p32"], r"--decompress"),
        (["cp", "128x256b", "--row", "1", "--lane", "1", "--col", "0"], r"either --row"),
        (["cp", "128x256b", "--row", "1", "--col", "0"], r"either --row"),
        (["cp", "128x256b", "--word", "1"], r"--word needs --row"),
        (["cp", "128x256b", "--word", "1", "--lane", "1", "--col", "0"], r"--word needs --row"),
        (["cp", "128x256b", "--lane", "1"], r"--lane and --col go together"),
        (["cp", "128x256b", "--col", "1"], r"--lane and --col go together"),
        (["cp", "128x256b", "--cta", "1"], r"--cta goes with --lane"),
        (["cp", "128x256b", "--cta", "1", "--row", "3"], r"--cta goes with --lane|either --row"),
        (["cp", "128x256b", "--cta", "1", "--lane", "0", "--col", "0"], r"cta_group::2"),
        (
            ["cp", "128x256b", "--cta-group", "2", "--cta", "2", "--lane", "0", "--col", "0"],
            r"cta must be 0\.\.1",
        ),
        (["cp", "4x256b", "--lane", "1", "--col", "0"], r"lane 1 is not written.*0\.\.0, 32\.\.32"),
        (["cp", "64x128b", "-m", "warpx2::01_23", "--lane", "128", "--col", "0"], r"lane 128 is not written"),
        (["cp", "128x128b", "--lane", "0", "--col", "4"], r"column 4 is outside.*columns 0\.\.3"),
        (["cp", "128x256b", "--taddr", "0,8", "--lane", "0", "--col", "7"], r"column 7 is outside.*8\.\.15"),
        (["cp", "128x256b", "--lane", "0", "--col", "-1"], r"column -1 is outside"),
        (["cp", "128x256b", "--row", "128"], r"row 128 does not exist.*0\.\.127"),
        (["cp", "4x256b", "--row", "4"], r"row 4 does not exist.*0\.\.3"),
        (["cp", "128x128b", "--row", "0", "--word", "4"], r"word 4 does not exist.*0\.\.3"),
        (["cp", "128x256b", "--taddr", "1,0"], r"taddr lane must be 0\.\.0, got 1"),
        (["cp", "4x256b", "--taddr", "32,0"], r"taddr lane must be 0\.\.31, got 32"),
        (["cp", "4x256b", "--taddr", "0,505"], r"taddr column must be 0\.\.504, got 505"),
        (["cp", "4x256b", "--taddr", "0,512"], r"outside Tensor Memory"),
        (["cp", "4x256b", "--taddr", "nonsense"], r"--taddr"),
        (["cp", "128x256b", "--format", "xml"], r"--format"),
        (["cp", "128x256b", "--row", "x"], r"--row"),
        (["cp", "128x256b", "--bogus"], r"--bogus"),
        (["cp"], r"SHAPE|Missing argument"),
    ],
)
def test_bad_input(capsys: pytest.CaptureFixture[str], args: list[str], pattern: str) -> None:
    line = bad(capsys, *args)
    assert re.search(pattern, line), line


def test_bad_input_with_every_format(capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in ("table", "json", "csv"):
        bad(capsys, "cp", "4x256b", "--lane", "2", "--col", "0", "--format", fmt)
        bad(capsys, "cp", "4x256b", "--row", "9", "--format", fmt)


def test_the_library_layouts_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    line = bad(capsys, "cp", "128x256b", "--layouts", str(tmp_path / "missing"))
    assert "does not exist" in line


# --------------------------------------------------------------------------- known bugs


def test_empty_cta_group_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    bad(capsys, "cp", "128x256b", "--cta-group", "")
