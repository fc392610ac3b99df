"""One surface: JSON says what the table says, help says what the commands do, words agree with numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import bad, ok, run

import tmemviz
from tmemviz.draw.table import Table

# --- JSON carries what the table carries ----------------------------------------------------------------


def test_json_carries_the_notes_the_table_prints(capsys: pytest.CaptureFixture[str]) -> None:
    table = ok(capsys, "datapath", "C")
    doc = json.loads(ok(capsys, "datapath", "C", "-f", "json"))
    disagree = [n for n in doc["notes"] if n.startswith("Sources disagree")]
    assert disagree and f"note: {disagree[0]}" in table
    tile = json.loads(ok(capsys, "tile", "--n", "272", "--shape", "32x32b", "-f", "json"))
    assert any("several MMAs side by side" in n for n in tile["notes"])


def test_ws_is_a_boolean_in_datapath_and_tile_json(capsys: pytest.CaptureFixture[str]) -> None:
    layouts = {r["layout"]: r["ws"] for r in json.loads(ok(capsys, "datapath", "-f", "json"))["layouts"]}
    assert layouts["B"] == [False] and layouts["D"] == [False, True] and layouts["E"] == [True]
    assert json.loads(ok(capsys, "datapath", "D", "-f", "json"))["ws"] == [False, True]
    tile = json.loads(ok(capsys, "tile", "--n", "128", "--shape", "32x32b", "--ws", "-f", "json"))
    assert tile["ws"] is True and tile["ws"] in layouts["D"]


def test_the_ws_note_only_with_ws(capsys: pytest.CaptureFixture[str]) -> None:
    assert "With .ws" not in ok(capsys, "tile", "--n", "64", "--shape", "32x32b", "--view", "summary")
    assert "With .ws" in ok(capsys, "tile", "--n", "64", "--shape", "32x32b", "--ws", "--view", "summary")


# --- help, completion and -o agree with behaviour -------------------------------------------------------


@pytest.mark.parametrize(
    ("shell", "marker"), [("zsh", "#compdef tmemviz"), ("fish", "complete --command tmemviz")]
)
def test_show_completion_prints_the_named_shells_script(
    capsys: pytest.CaptureFixture[str], shell: str, marker: str
) -> None:
    for args in (["--show-completion", shell], [f"--show-completion={shell}"]):
        code, out, _ = run(capsys, *args)
        assert code == 0 and out.startswith(marker), out[:80]
    code, out, _ = run(capsys, "--show-completion", "bash")
    assert code == 0 and "_tmemviz_completion()" in out


def test_shapes_writes_json_and_txt_and_refuses_figures(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ok(capsys, "shapes", "-o", str(tmp_path / "s.json"))
    assert json.loads((tmp_path / "s.json").read_text())[0]["shape"] == "32x32b"
    ok(capsys, "shapes", "-o", str(tmp_path / "s.txt"))
    assert "tcgen05.ld / tcgen05.st shapes" in (tmp_path / "s.txt").read_text()
    assert ".json or .txt" in bad(capsys, "shapes", "-o", str(tmp_path / "s.png"))
    assert "contradicts" in bad(capsys, "shapes", "-f", "json", "-o", str(tmp_path / "s.txt"))


@pytest.mark.usefixtures("plain_terminal")
def test_help_names_the_commands_without_o(capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join(ok(capsys, "--help").split())
    assert "which, where and ptx answer on stdout" in text
    for command in ("which", "where", "ptx"):
        assert "--output" not in ok(capsys, command, "--help")
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "any of the above but `which`, `where`, `ptx`" in readme


@pytest.mark.parametrize(
    "args",
    [
        ("layout", "16x256b", "--num", "x4"),
        ("layout", "16x256b", "--num", "x4", "--view", "threads"),
        ("shapes",),
        ("datapath", "C"),
        ("tile", "--n", "64", "--shape", "16x256b"),
    ],
)
def test_txt_files_have_no_trailing_spaces(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: tuple[str, ...]
) -> None:
    ok(capsys, *args, "-o", str(tmp_path / "out.txt"))
    text = (tmp_path / "out.txt").read_text()
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert [line for line in text.splitlines() if line != line.rstrip()] == []


def test_table_titles_and_captions_fit_80_columns() -> None:
    from tmemviz.draw.terminal import fit

    docs = [
        tmemviz.layout(
            "tcgen05.ld.red.sync.aligned.32x32b.x2.max.abs.NaN.f32 {%f1,%f2}, %f3, [%r4 + 1048584];"
        ),
        tmemviz.layout("16x256b", num=4),
        tmemviz.scales(k=128, m=256, cta_group=2, sf_vec=16, kind="mxf4nvf4"),
        tmemviz.tile(n=32, shape="16x32bx2", cta_group=2, m=256),
        tmemviz.datapath("C"),
        tmemviz.cp("64x128b.warpx2::02_13"),
    ]
    for doc in docs:
        for view in doc.views.values():
            for block in view(160):
                if isinstance(block, Table):
                    for text in (fit(block.title), fit(block.caption)):
                        assert text is None or max(map(len, text.splitlines())) <= 80, text


# --- ptx --emit keeps what the line says ----------------------------------------------------------------


def test_emit_ptx_keeps_the_guard_and_the_registers(capsys: pytest.CaptureFixture[str]) -> None:
    line = "@%p1 tcgen05.st.sync.aligned.16x64b.x2.b32 [%r3], {%r4, %r5};"
    red = "@!%p2 tcgen05.ld.red.sync.aligned.32x32b.x2.max.f32 {%f4, %f5}, %f9, [%r3 + 4];"
    plain = "tcgen05.ld.sync.aligned.16x64b.x1.b32 {%r1}, [%r0];"
    for given, emitted in ((line, line), (red, red), ("16x64b", plain)):
        code, out, _ = run(capsys, "ptx", given, "--emit", "ptx")
        assert code == 0 and out == emitted + "\n"
    code, _, err = run(capsys, "ptx", line, "--emit", "cuda")
    assert code == 0 and "the guard @%p1 is not part of the call" in err and "(%r3, %r4, %r5)" in err
    for given in (
        "@%p1 tcgen05.cp.cta_group::1.128x256b [%r1 + 4], %rd2;",
        "@!%p3 tcgen05.shift.cta_group::1.down [%r5];",
    ):
        code, out, _ = run(capsys, "ptx", given, "--emit", "ptx")
        assert code == 0 and out == given + "\n"
        code, _, err = run(capsys, "ptx", given, "--emit", "cccl")
        assert code == 0 and "is not part of the call" in err


# --- words agree with numbers ---------------------------------------------------------------------------


def test_an_out_of_band_lane_names_the_taddr_and_warp_that_answer(capsys: pytest.CaptureFixture[str]) -> None:
    line = bad(capsys, "which", "16x256b", "--lane", "40", "--col", "5")
    assert "give --taddr 32,0 (warp 1, or any warp w with w % 4 == 1)" in line
    line = bad(capsys, "which", "32x32b", "--taddr", "32,0", "--lane", "100", "--col", "0")
    assert "lane 100 is read with --taddr 96,0 by warp 3" in line
    hinted = bad(capsys, "which", "16x256b", "--taddr", "32,0", "--lane", "40", "--col", "8")
    assert "read with" not in hinted  # lane 40 is covered: only the column is out


def test_a_taddr_outside_the_warps_band_names_the_warps_or_lanes_that_work(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = bad(capsys, "layout", "16x256b", "--warp", "1", "--taddr", "0,0")
    assert line.endswith("; warp 0 (or any warp w with w % 4 == 0) may issue it")
    line = bad(capsys, "layout", "32x32b", "--taddr", "16,0")
    assert line.endswith("; no warp may: it crosses lane 32; start it at lane 0 or 32")
    assert bad(capsys, "layout", "32x32b", "--taddr", "112,0").endswith(
        "runs past lane 127; start it at lane 96"
    )


def test_an_immediate_of_zero_is_not_announced(capsys: pytest.CaptureFixture[str]) -> None:
    for address in ("[%r2]", "[%r2 + 0]"):
        out = ok(capsys, "layout", f"tcgen05.ld.sync.aligned.32x32b.x1.b32 {{%r1}}, {address};")
        assert "note: lanes and columns are relative to the base register %r2\n" in out
        assert "immediate" not in out
    out = ok(capsys, "layout", "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r2 + 8];")
    assert "the address immediate 8 = lane +0, column +8" in out


def test_singular_counts_and_one_element_ranges(capsys: pytest.CaptureFixture[str]) -> None:
    assert "= 1 instruction x 16" in ok(capsys, "tile", "--n", "16", "--shape", "32x32b", "--num", "x16")
    line = bad(capsys, "which", "32x32b", "--lane", "0", "--col", "3")
    assert "covers lanes 0..31, column 0" in line and "0..0" not in line
