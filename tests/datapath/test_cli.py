"""`tmemviz datapath` end to end, in-process: the table, one layout, where D[m][n] lives, files, bad input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from cli_run import bad, flat, ok


def test_table(capsys: pytest.CaptureFixture[str], plain_terminal: None) -> None:
    out = flat(ok(capsys, "datapath"))
    for row in ("A 256 2 any n/a 4x1 128 0", "C 128 2 sparse n/a 4x1 64 0/16", "G 32 1 any yes 1x4 128 0"):
        assert row in out
    assert "Sources disagree" in out and '"2x3"' in out
    doc = json.loads(ok(capsys, "datapath", "-f", "json"))
    assert [r["layout"] for r in doc["layouts"]] == list("ABCDEFG")
    assert doc["layouts"][5]["lane_offsets"] == [0, 16] and doc["layouts"][1]["cutlass"].startswith("(64,")


def test_one_layout(capsys: pytest.CaptureFixture[str], plain_terminal: None) -> None:
    out = flat(ok(capsys, "datapath", "E", "--n", "128"))
    assert "layout E: M=64, .cta_group::1, .ws (2x3), N=128" in out
    assert "0 2 64..95 0..31 64..127 0..63 taddr+0x00400000" in out
    doc = json.loads(ok(capsys, "datapath", "b", "--n", "64", "-f", "json"))
    assert doc["layout"] == "B" and doc["cta_group"] == 2 and len(doc["warps"]) == 8
    assert len(doc["cells"]) == 128 * 64
    cell = next(c for c in doc["cells"] if (c["m"], c["n"]) == (70, 40))
    assert cell == {"m": 70, "n": 40, "cta": 1, "lane": 70, "col": 8, "warp": 2}
    rows = list(csv.reader(io.StringIO(ok(capsys, "datapath", "G", "--n", "64", "-f", "csv"))))
    assert rows[0] == ["m", "n", "cta", "lane", "col", "warp"] and len(rows) == 1 + 32 * 64


def test_where_d_lives(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "datapath", "F", "--lane-offset", "16", "--m-row", "40", "--n-col", "3")
    assert "is in TMEM lane 88, column 3" in out and "taddr + 0x00480003" in out
    record = json.loads(ok(capsys, "datapath", "A", "--m-row", "200", "--n-col", "9", "-f", "json"))
    assert record == {"m": 200, "n": 9, "cta": 1, "lane": 72, "col": 9, "warp": 2}


def test_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for name in ("c.png", "c.svg", "c.html", "c.json", "c.csv", "c.txt"):
        ok(capsys, "datapath", "C", "--lane-offset", "16", "-o", str(tmp_path / name))
        assert (tmp_path / name).stat().st_size > 0
    assert "layout C" in (tmp_path / "c.txt").read_text()
    ok(capsys, "datapath", "-o", str(tmp_path / "all.svg"))
    assert (tmp_path / "all.svg").read_text().count("warp 3: taddr") == 7


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("datapath", "H"), "unknown data-path layout 'H'; known layouts: A, B, C, D, E, F, G"),
        (("datapath", "G", "--n", "96"), "N=96 is not legal for layout G"),
        (("datapath", "D", "--lane-offset", "16"), "lane offset 16 is not legal for layout D"),
        (("datapath", "--n", "64"), "--n and --lane-offset apply to one layout"),
        (("datapath", "B", "--m-row", "3"), "--m-row and --n-col go together"),
        (("datapath", "B", "--m-row", "300", "--n-col", "0"), "D[300][0] is outside layout B"),
    ],
)
def test_bad_input_is_one_line(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    assert message in bad(capsys, *args)


def test_api_document_saves_what_the_cli_writes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import tmemviz

    doc = tmemviz.datapath("B", n=64)
    assert doc.where(m=70, n=40) == {"m": 70, "n": 40, "cta": 1, "lane": 70, "col": 8, "warp": 2}
    for suffix in ("json", "csv", "txt", "svg"):
        ok(capsys, "datapath", "B", "--n", "64", "-o", str(tmp_path / f"cli.{suffix}"))
        doc.save(tmp_path / f"api.{suffix}")
        assert (tmp_path / f"cli.{suffix}").read_bytes() == (tmp_path / f"api.{suffix}").read_bytes()
    assert tmemviz.datapath().cells[2]["layout"] == "C"
