"""`tmemviz scales` end to end, in-process: the issue's "done when" commands, questions, bad input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from cli_run import bad, flat, ok

import tmemviz

DONE_WHEN = ("scales", "--operand", "A", "--sf-vec", "32", "--m", "128", "--k", "128")


def test_done_when_json(capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(ok(capsys, *DONE_WHEN, "--format", "json"))
    assert [doc[k] for k in ("operand", "sf_vec", "rows", "kblocks")] == ["A", 32, 128, 4]
    assert len(doc["cells"]) == 128 * 4
    cell = next(c for c in doc["cells"] if c["row"] == 37 and c["kblock"] == 2)
    # Row 37 = 32 * 1 + 5: chunk row 5 (16 bytes each), word 1, byte 2 (the block).
    assert cell["smem"] == 16 * 5 + 4 * 1 + 2
    assert cell["tmem"] == [{"lane": 5 + 32 * p, "col": 1, "byte": 2} for p in range(4)]
    assert doc["copies"] == [
        {
            "ptx": "tcgen05.cp.cta_group::1.32x128b.warpx4 [taddr], sdesc;",
            "smem": 0,
            "col": 0,
            "rows": [0, 127],
            "kblocks": [0, 3],
        }
    ]
    assert [(m["mma"], m["col"], m["sf_id"]) for m in doc["mma"]] == [(j, 0, j) for j in range(4)]


def test_done_when_variants(capsys: pytest.CaptureFixture[str]) -> None:
    b = json.loads(
        ok(capsys, "scales", "--operand", "B", "--sf-vec", "32", "--n", "256", "--k", "128", "-f", "json")
    )
    assert b["rows"] == 256 and len(b["copies"]) == 2 and [c["col"] for c in b["copies"]] == [0, 4]
    assert next(c for c in b["cells"] if c["row"] == 200 and c["kblock"] == 0)["tmem"][0] == {
        "lane": 8,
        "col": 6,
        "byte": 0,
    }
    nv = json.loads(
        ok(capsys, "scales", "--operand", "A", "--sf-vec", "16", "--m", "128", "--k", "128", "-f", "json")
    )
    assert nv["kind"] == "mxf4nvf4" and nv["scale_vec"] == "4X" and nv["kblocks"] == 8
    assert [(m["col"], m["sf_id"], m["bytes"]) for m in nv["mma"]] == [(0, 0, [0, 3]), (4, 0, [0, 3])]
    two = json.loads(
        ok(
            capsys,
            "scales",
            "--operand",
            "A",
            "--sf-vec",
            "32",
            "--m",
            "256",
            "--k",
            "128",
            "--cta-group",
            "2",
            "-f",
            "json",
        )
    )
    assert two["rows"] == 128 and len(two["cells"]) == 256 * 4
    assert two["copies"][0]["ptx"].startswith("tcgen05.cp.cta_group::2.32x128b.warpx4")
    late = next(c for c in two["cells"] if c["row"] == 130 and c["kblock"] == 1)
    assert late["cta"] == 1 and late["smem"] == 16 * 2 + 1
    assert {t["cta"] for t in late["tmem"]} == {1}


def test_question_and_tables(capsys: pytest.CaptureFixture[str], plain_terminal: None) -> None:
    out = ok(capsys, *DONE_WHEN, "--row", "37", "--kblock", "2")
    assert out.startswith(
        "SFA[37][2] (K 64..95): shared-memory byte 86, copy 0; TMEM lanes 5, 37, 69, 101, column 1,"
    )
    assert out.rstrip().endswith("read by MMA 2 with SFA ID 2")
    summary = flat(ok(capsys, *DONE_WHEN))
    assert "tcgen05.cp.cta_group::1.32x128b.warpx4 [taddr], sdesc;" in summary
    assert ".kind::mxf8f6f4.block_scale.scale_vec::1X" in summary
    grid = flat(ok(capsys, *DONE_WHEN, "--view", "tmem"))
    assert "37 5:0-3 37:0-3 69:0-3 101:0-3" not in grid and "5 5:0-3 37:0-3 69:0-3 101:0-3" in grid
    rows = list(csv.reader(io.StringIO(ok(capsys, *DONE_WHEN, "-f", "csv"))))
    assert rows[0] == ["row", "kblock", "smem", "copy", "cta", "lane", "col", "byte"]
    assert len(rows) == 1 + 128 * 4 * 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--sf-vec", "16", "--kind", "mxf8f6f4", "--m", "128", "--k", "128"],
            "takes block32 (.scale_vec::1X) only",
        ),
        (["--sf-vec", "16", "--kind", "mxf4", "--m", "128", "--k", "128"], "needs .kind::mxf4nvf4"),
        (["--sf-vec", "32", "--m", "128", "--k", "96"], "K must be a positive multiple of 128"),
        (["--sf-vec", "16", "--m", "128", "--k", "32"], "K must be a positive multiple of 64"),
        (["--m", "256", "--k", "128"], "M = 256 is beyond what one .cta_group::1 block-scaled MMA takes"),
        (["--m", "512", "--k", "128", "--cta-group", "2"], "beyond what one .cta_group::2"),
        (["--operand", "B", "--n", "512", "--k", "128"], "N = 512 is beyond what a block-scaled MMA takes"),
        (["--operand", "B", "--n", "40", "--k", "128"], "N must be a multiple of 16"),
        (["--m", "64", "--k", "128"], "M = 64 is not modelled"),
        (["--n", "128", "--k", "128"], "scale factors of A need --m"),
        (["--operand", "C", "--m", "128", "--k", "128"], "--operand must be A or B"),
        (["--sf-vec", "8", "--m", "128", "--k", "128"], "--sf-vec must be 16 or 32"),
        (["--kind", "f16", "--m", "128", "--k", "128"], "unknown kind 'f16'"),
        (["--m", "128"], "need --k"),
        (["--m", "128", "--k", "32768"], "would take 1024 TMEM columns"),
        (["--m", "128", "--k", "128", "--row", "128", "--kblock", "0"], "row 128 does not exist"),
        (["--m", "128", "--k", "128", "--row", "0", "--kblock", "4"], "kblock 4 does not exist"),
        (["--m", "128", "--k", "128", "--cta", "1"], "--cta must be 0 with --cta-group 1"),
        (["--m", "256", "--k", "128", "--cta-group", "2", "--cta", "2"], "--cta must be 0 or 1"),
    ],
)
def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert message in bad(capsys, "scales", *args)


@pytest.mark.parametrize("suffix", ["png", "svg", "html", "json", "csv", "txt"])
def test_save_writes_exactly_what_dash_o_writes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str
) -> None:
    argv = ("scales", "--operand", "B", "--sf-vec", "16", "--n", "64", "--k", "128")
    ok(capsys, *argv, "-o", str(tmp_path / f"cli.{suffix}"))
    doc = tmemviz.scales(operand="B", sf_vec=16, n=64, k=128)
    saved = doc.save(tmp_path / f"api.{suffix}")
    assert saved.read_bytes() == (tmp_path / f"cli.{suffix}").read_bytes()


def test_api_which_and_where() -> None:
    doc = tmemviz.scales(operand="B", sf_vec=32, n=192, k=256)
    assert doc.which(lane=40, col=1, byte=3) == doc.where(row=40, kblock=3)
    assert doc.which(lane=40, col=5, byte=3) == doc.where(row=168, kblock=3)
    assert doc.which(lane=100, col=6, byte=0).padding  # rows 192..255 pad the second chunk
    assert "192 rows padded to 256" in " ".join(doc.notes)


def test_tmem_cell_question_round_trips(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("scales", "--operand", "A", "--sf-vec", "32", "--m", "256", "--k", "256", "--cta-group", "2")
    out = ok(capsys, *argv, "--lane", "70", "--col", "5", "--cta", "1")
    # Lane 70 = partition 2, chunk row 6; column 5 = second K chunk (kblocks 4..7), word 1 (rows 32..63);
    # CTA 1 holds rows 128..255, so row 128 + 32 + 6.
    assert out.strip() == (
        "TMEM CTA 1 lane 70, column 5: byte 0: SFA[166][4] (MMA 4); byte 1: SFA[166][5] (MMA 5); "
        "byte 2: SFA[166][6] (MMA 6); byte 3: SFA[166][7] (MMA 7)"
    )
    record = json.loads(ok(capsys, *argv, "--lane", "70", "--col", "5", "--cta", "1", "-f", "json"))
    for item in record["bytes"]:
        cell = json.loads(
            ok(capsys, *argv, "--row", str(item["row"]), "--kblock", str(item["kblock"]), "-f", "json")
        )
        assert {"lane": 70, "col": 5, "byte": item["byte"], "cta": 1} in cell["tmem"]
    assert "go together" in bad(capsys, *argv, "--lane", "3")
    assert "holds no scale factor" in bad(capsys, *argv, "--lane", "3", "--col", "8")
