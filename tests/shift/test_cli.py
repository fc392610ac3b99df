"""``tmemviz shift``: the issue's example, both qualifier orders, every output, bad input in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import bad, ok

import tmemviz

SYNTAX = "tcgen05.shift.cta_group::1.down [taddr];"
EXAMPLE = "tcgen05.shift.down.cta_group::1 [taddr0];"


def test_done_when(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "shift", SYNTAX, "--taddr", "32,8", "--format", "json")
    doc = json.loads(out)
    assert doc["instruction"] == "tcgen05.shift.cta_group::1.down" and doc["cta_group"] == 1
    assert doc["taddr"] == {"lane": 32, "col": 8}
    assert len(doc["moves"]) == 31
    for i, move in enumerate(doc["moves"]):
        assert move == {
            "cta": 0,
            "from": {"lane": 32 + i, "col": 8, "cols": 8},
            "to": {"lane": 33 + i, "col": 8, "cols": 8},
        }
    # The seed's own example order says the same; only the register's name differs (taddr0).
    same = ok(capsys, "shift", EXAMPLE, "--taddr", "32,8", "--format", "json")
    assert same == out.replace('"register": "taddr"', '"register": "taddr0"')


@pytest.mark.parametrize(
    "line",
    [
        "tcgen05.shift.down.cta_group::2 [taddr1];",
        "TCGEN05.SHIFT.CTA_GROUP::2.DOWN [taddr1]",
        "@%p1 tcgen05.shift.cta_group::2.down [%r2]; // guarded",
        "\ttcgen05.shift.cta_group::2.down \t[%r1];",
    ],
)
def test_spellings_of_cta_group_2_shift_both_ctas(capsys: pytest.CaptureFixture[str], line: str) -> None:
    doc = json.loads(ok(capsys, "shift", line, "--format", "json"))
    assert doc["cta_group"] == 2 and doc["coordinates"] == "relative"
    pairs = [(m["cta"], m["from"]["lane"], m["to"]["lane"]) for m in doc["moves"]]
    assert pairs == [(cta, i, i + 1) for cta in (0, 1) for i in range(31)]


def test_compiler_printed_lines_from_the_fixture(capsys: pytest.CaptureFixture[str]) -> None:
    lines = [x for x in (Path(__file__).parent / "cute_dsl_shift.ptx").read_text().splitlines() if "\t" in x]
    assert len(lines) == 2
    for group, line in zip((1, 2), lines, strict=True):
        doc = json.loads(ok(capsys, "shift", line, "--format", "json"))
        assert doc["instruction"] == f"tcgen05.shift.cta_group::{group}.down"
        assert doc["address"]["register"] == "%r1"


@pytest.mark.parametrize(
    ("operand", "taddr", "lanes", "col"),
    [
        ("[%r2+16]", "32,0", (32, 63), 16),
        ("[ %r2 + 1048576 ]", "16,0", (32, 63), 0),
        ("[%r2+0x200008]", "0,0", (32, 63), 8),
        ("[%r2+0x200008]", None, (32, 63), 8),
    ],
)
def test_address_immediates_count(
    capsys: pytest.CaptureFixture[str], operand: str, taddr: str | None, lanes: tuple[int, int], col: int
) -> None:
    args = ["shift", f"tcgen05.shift.cta_group::1.down {operand};", "--format", "json"]
    doc = json.loads(ok(capsys, *args, *(["--taddr", taddr] if taddr else [])))
    assert doc["lanes"] == list(lanes) and doc["columns"] == [col, col + 7]
    assert doc["moves"][0]["from"] == {"lane": lanes[0], "col": col, "cols": 8}
    assert any("imm >> 16" in n for n in doc["notes"])


def test_negative_and_absolute_addresses(capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(
        ok(capsys, "shift", "tcgen05.shift.cta_group::1.down [%r2+-4];", "--taddr", "32,8", "-f", "json")
    )
    assert doc["taddr"] == {"lane": 32, "col": 4} and doc["address"]["immediate"] == -4
    doc = json.loads(ok(capsys, "shift", "tcgen05.shift.cta_group::2.down [0x200008];", "-f", "json"))
    assert doc["coordinates"] == "absolute" and doc["address"]["register"] is None
    assert doc["taddr"] == {"lane": 32, "col": 8} and doc["moves"][-1]["to"]["lane"] == 63
    assert "absolute address" in bad(
        capsys, "shift", "tcgen05.shift.cta_group::1.down [0];", "--taddr", "0,0"
    )
    assert "give --taddr" in bad(capsys, "shift", "tcgen05.shift.cta_group::1.down [%r2+-4];")
    assert "not a multiple of 32" in bad(capsys, "shift", "tcgen05.shift.cta_group::1.down [0x100000];")


def test_table_says_what_is_left_open(capsys: pytest.CaptureFixture[str], plain_terminal: None) -> None:
    out = ok(capsys, "shift", SYNTAX, "--taddr", "32,8")
    assert "lanes 32..62 move down one lane to 33..63, columns 8..15" in out
    assert "unspecified" in out and "not moved (overwritten)" in out
    notes = [line for line in out.splitlines() if line.startswith("note: ")]
    assert any("first row (lane 32)" in n for n in notes) and any("8..15" in n for n in notes)


def test_one_lane(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "shift", SYNTAX, "--taddr", "64,0", "--lane", "70")
    assert out.splitlines()[0].endswith("its element moves to lane 71; it afterwards holds what lane 69 held")
    record = json.loads(ok(capsys, "shift", SYNTAX, "--taddr", "64,0", "--lane", "95", "-f", "json"))
    assert (record["goes_to"], record["held_after"]) == (None, 94)
    assert ok(capsys, "shift", SYNTAX, "--lane", "0", "-f", "csv") == "cta,lane,goes_to,held_after\n0,0,1,\n"


@pytest.mark.parametrize("suffix", ["png", "svg", "html", "json", "csv", "txt"])
def test_output_by_suffix_is_what_the_api_saves(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str
) -> None:
    line = "tcgen05.shift.cta_group::2.down [taddr];"
    ok(capsys, "shift", line, "--taddr", "32,8", "-o", str(tmp_path / f"a.{suffix}"))
    tmemviz.shift(line, taddr=(32, 8)).save(tmp_path / f"b.{suffix}")
    a, b = (tmp_path / f"a.{suffix}").read_bytes(), (tmp_path / f"b.{suffix}").read_bytes()
    if suffix == "png":
        assert a[:8] == b"\x89PNG\r\n\x1a\n" and b[:8] == a[:8]
    else:
        assert a == b
    if suffix == "html":
        assert b'data-lane="33"' in a and b'data-cta="1"' in a


def test_the_api_answers_like_the_cli() -> None:
    doc = tmemviz.shift(EXAMPLE, taddr="96,0")
    assert repr(doc) == "<tmemviz shift: tcgen05.shift.cta_group::1.down, 31 moves>"
    assert doc.which(lane=100).held_after == 99
    assert doc.cells[0]["to"] == {"lane": 97, "col": 0, "cols": 8}
    assert tmemviz.shift is tmemviz.shift and callable(tmemviz.shift)


def test_the_figure_draws_each_row_in_its_new_lane() -> None:
    spec = tmemviz.shift("tcgen05.shift.cta_group::2.down [t];").figure("auto")  # type: ignore[misc]
    cells = [dict(b.data) for b in spec.boxes if b.data]
    assert len(cells) == 2 * 2 * 32 * 8  # two CTAs, before and after, 32 lanes, 8 columns
    after = [c for c in cells if "src" in c and c["src"] != "unspecified" and c["lane"] != c["src"]]
    assert {(c["cta"], int(c["lane"]) - int(c["src"])) for c in after} == {("0", 1), ("1", 1)}
    unknown = {(c["cta"], c["lane"]) for c in cells if c["src"] == "unspecified"}
    assert unknown == {("0", "0"), ("1", "0")}
    assert len(spec.panels[0].arrows) == 2 * 31


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("tcgen05.shift.cta_group::1 [t];", "lacks .down"),
        ("tcgen05.shift.down [t];", "lacks .cta_group::1 or .cta_group::2"),
        ("tcgen05.shift.cta_group::1.cta_group::1.down [t];", "two .cta_group qualifiers"),
        ("tcgen05.shift.down.cta_group::2.down [t];", "two .down qualifiers"),
        ("tcgen05.shift.cta_group::1.up [t];", "'.up' is not a qualifier of tcgen05.shift"),
        ("tcgen05.shift.cta_group::1.down.sync [t];", "'.sync' is not a qualifier"),
        ("tcgen05.shift.cta_group::3.down [t];", "must be 1 or 2"),
        ("tcgen05.shift.cta_group::1.down.31x256b [t];", "31x256b is implicit"),
        ("tcgen05.shift.cta_group::1.down [t], [u];", "takes one operand"),
        ("tcgen05.shift.cta_group::1.down [t-4];", "is not an address PTX allows"),  # ptxas: syntax error
        ("tcgen05.shift.cta_group::1.down %r2;", "takes one operand"),
        ("tcgen05.cp.cta_group::1.128x256b [t], d;", "use 'tmemviz cp'"),
        ("tcgen05.ld.sync.aligned.32x32b.x1.b32 {r}, [t];", "use 'tmemviz layout'"),
        ("mov.b32 %r1, 0;", "is not a tcgen05.shift instruction"),
        ("", "is empty"),
    ],
)
def test_bad_lines_are_one_line_exit_2(capsys: pytest.CaptureFixture[str], line: str, message: str) -> None:
    assert message in bad(capsys, "shift", line)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--taddr", "40,0"], "taddr lane 40 is not a multiple of 32"),
        (["--taddr", "128,0"], "outside Tensor Memory"),
        (["--taddr", "32,505"], "must be 0..504"),
        (["--taddr", "x"], "must be a whole number"),
        (["--lane", "5", "--taddr", "32,0"], "lane 5 is outside the shifted matrix, lanes 32..63"),
        (["--lane", "5", "--cta", "1"], "only with .cta_group::2"),
        (["--cta", "1"], "--cta goes with --lane"),
        (["-o", "x.pdf"], "unsupported output suffix"),
        (["-f", "png"], "goes to a file"),
    ],
)
def test_bad_options_are_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert message in bad(capsys, "shift", SYNTAX, *args)


def test_shapes_lists_the_implicit_shape(capsys: pytest.CaptureFixture[str], plain_terminal: None) -> None:
    out = ok(capsys, "shapes")
    assert "tcgen05.shift.cta_group::N.down" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("31x256b"))
    assert row.split() == ["31x256b", "(implicit)", "31", "256", "32", "multiple", "of", "32"]
