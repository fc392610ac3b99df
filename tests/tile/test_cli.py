"""`tmemviz tile` end to end, in-process: the questions an epilogue author asks, and bad input."""

from __future__ import annotations

import csv
import io
import json

import pytest
from cli_run import bad, flat, ok
from tile.oracle import holders

DONE_WHEN = ("tile", "--m", "128", "--n", "256", "--shape", "16x256b", "--warps", "4")


def test_done_when_summary(capsys: pytest.CaptureFixture[str], plain_terminal: None) -> None:
    out = flat(ok(capsys, *DONE_WHEN))
    assert "row m in TMEM lane m, element n in column n" in out
    assert "2 x tcgen05.ld.sync.aligned.16x256b.x32.b32 (taddr lanes +0, +16 of its band)" in out
    assert "registers per thread: 256 = 2 instructions x 128" in out
    assert "runs of 2 consecutive n in a row (8 bytes)" in out
    assert "32x32b 256, 16x64b 1, 16x128b 1, 16x256b 2, 16x32bx2 128" in out
    assert "3 i1 112..127 0..255 112..127 0..255 taddr+0x00700000" in out
    assert "tcgen05.ld.sync.aligned.16x256b.x32.b32 {r0, ..., r127}, [taddr+OFFSET];" in out


def test_done_when_question(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, *DONE_WHEN, "--m-row", "37", "--n-col", "5")
    assert out.startswith(
        "D[37][5] of the 128 x 256 f32 tile (layout D, 16x256b.x32, 4 warps) is held by warp 1, "
    )
    assert "thread 22, instruction i0, register r1; TMEM lane 37, column 5;" in out
    assert out.rstrip().endswith("[taddr+0x00200000];")
    record = json.loads(ok(capsys, *DONE_WHEN, "--m-row", "37", "--n-col", "5", "-f", "json"))
    assert record == {
        "cta": 0,
        "warp": 1,
        "thread": 22,
        "instruction": 0,
        "reg": 1,
        "half": None,
        "m": 37,
        "n": 5,
        "lane": 37,
        "col": 5,
    }


def test_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(
        ok(capsys, "tile", "--n", "64", "--shape", "16x128b", "--num", "x4", "--dtype", "bf16", "-f", "json")
    )
    assert (doc["m"], doc["n"], doc["shape"], doc["num"], doc["warps"], doc["dtype"]) == (
        128,
        64,
        "16x128b",
        4,
        4,
        "bf16",
    )
    assert doc["storage"] == "packed" and doc["registers_per_thread"] == 32
    assert len(doc["instructions"]) == 4 * 4
    first = doc["instructions"][1]
    assert set(first) == {"cta", "index", "warp", "ptx", "lane", "col", "registers"}
    assert first == {
        "cta": 0,
        "index": 1,
        "warp": 0,
        "ptx": "tcgen05.ld.sync.aligned.16x128b.x4.b32 {r0, r1, r2, r3, r4, r5, r6, r7}, [taddr+0x00100000];",
        "lane": 16,
        "col": 0,
        "registers": 8,
    }
    oracle = holders("16x128b", 64, 4, "bf16", "packed", 4)
    assert len(doc["cells"]) == 128 * 64
    for c in doc["cells"]:
        assert list(c) == ["cta", "warp", "thread", "instruction", "reg", "half", "m", "n", "lane", "col"]
        assert oracle[(c["m"], c["n"])] == (
            c["warp"],
            c["thread"],
            c["instruction"],
            c["reg"],
            c["half"],
            c["lane"],
            c["col"],
        )
    f32 = json.loads(ok(capsys, "tile", "--n", "32", "--shape", "32x32b", "-f", "json"))
    assert {c["half"] for c in f32["cells"]} == {None}
    assert f32["storage"] is None


def test_csv_and_filters(capsys: pytest.CaptureFixture[str]) -> None:
    rows = list(csv.reader(io.StringIO(ok(capsys, *DONE_WHEN, "--m-row", "3", "-f", "csv"))))
    assert rows[0] == ["cta", "warp", "thread", "instruction", "reg", "half", "m", "n", "lane", "col"]
    assert len(rows) == 1 + 256 and {r[6] for r in rows[1:]} == {"3"} and {r[5] for r in rows[1:]} == {""}
    column = json.loads(ok(capsys, *DONE_WHEN, "--n-col", "9", "-f", "json"))
    assert len(column["cells"]) == 128 and {c["n"] for c in column["cells"]} == {9}


def test_grid_view(capsys: pytest.CaptureFixture[str], plain_terminal: None) -> None:
    out = ok(capsys, "tile", "--n", "16", "--shape", "32x32b", "--warps", "8", "--view", "grid")
    assert "w0 T5 i0 r3" in out and "w4 T5 i0 r3" in out  # warps 4-7 hold the right half of N
    lines = [line for line in out.splitlines() if line.strip().startswith("37 ")]
    assert "w1 T5 i0 r0" in lines[0] and "w5 T5 i0 r0" in lines[0]
    packed = ok(capsys, "tile", "--n", "16", "--shape", "32x32b", "--dtype", "bf16", "--m-row", "2")
    assert "w0 T2 i0 r0.lo" in packed and "w0 T2 i0 r0.hi" in packed and "w0 T2 i0 r3.hi" in packed


def test_summaries_say_the_split(capsys: pytest.CaptureFixture[str], plain_terminal: None) -> None:
    out = flat(ok(capsys, "tile", "--n", "128", "--shape", "32x32b", "--warps", "8"))
    assert "warps 0-3 load n 0..63, warps 4-7 n 64..127" in out
    out = flat(ok(capsys, "tile", "--n", "128", "--shape", "16x64b", "--warps", "8"))
    assert "warps 4-7 lanes +16..+31, over all of N" in out
    out = flat(ok(capsys, "tile", "--n", "128", "--shape", "16x32bx2"))
    assert "immHalfSplitoff 64: threads 0-15 load the left half of N" in out
    out = flat(ok(capsys, "tile", "--n", "128", "--shape", "32x32b", "--dtype", "bf16"))
    assert "a plain .b32 load" in out and "column n/2" in out
    out = flat(
        ok(capsys, "tile", "--n", "128", "--shape", "32x32b", "--dtype", "f16", "--storage", "unpacked")
    )
    assert ".pack::16b.b32" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--n", "100", "--shape", "16x256b"), "N=100 is not a sum of legal MMA N's for layout D"),
        (("--m", "64", "--n", "24", "--shape", "16x256b", "--dtype", "bf16"), "N=24 is not a multiple"),
        (("--n", "1024", "--shape", "32x32b"), "but Tensor Memory has columns 0..511"),
        (("--n", "63", "--shape", "32x32b", "--dtype", "bf16"), "a 16-bit tile needs an even N"),
        (("--n", "64", "--shape", "32x32b", "--warps", "2"), "--warps must be 4 or 8"),
        (("--n", "64", "--shape", "32x32b", "--m", "64"), "(half the data path), so .32x32b would also read"),
        (
            ("--n", "64", "--shape", "32x32b", "--m", "256"),
            "no data-path layout for M=256 with .cta_group::1",
        ),
        (("--n", "64", "--shape", "16x256b.x4"), "--shape takes a bare shape"),
        (("--n", "64", "--shape", "16x265b"), "unknown shape '16x265b'"),
        (("--n", "64", "--shape", "32x32b", "--dtype", "e4m3"), "unknown dtype 'e4m3'"),
        (("--n", "64", "--shape", "32x32b", "--m-row", "128", "--n-col", "0"), "D[128][0] is outside"),
        (
            (
                "--shape",
                "32x32b",
            ),
            "a tile needs --n and --shape",
        ),
    ],
)
def test_bad_input_is_one_line(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    assert message in bad(capsys, "tile", *args)
