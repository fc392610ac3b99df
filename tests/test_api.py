"""The Python API (issue P13): the same answers as the CLI, from one path, with the CLI's errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import tmemviz
from tests.cli_run import bad, ok
from tests.ldst.oracle import oracle_cells
from tmemviz.errors import TmemvizError

LAYOUT_CASES = [
    ("16x256b", 4, False),
    ("32x32b", 2, True),
    ("16x32bx2", 8, False),
    ("16x64b", 1, False),
    ("16x128b", 16, True),
]


@pytest.mark.parametrize(("shape", "num", "pack"), LAYOUT_CASES)
def test_layout_cells_are_the_oracles(shape: str, num: int, pack: bool) -> None:
    doc = tmemviz.layout(shape, num=num, pack=pack)
    got = {(c.thread, c.reg, c.get("half"), c.lane, c.col) for c in doc.cells}
    assert got == set(oracle_cells(shape, num, pack))  # (thread, reg, half, lane, col)


def test_the_issue_example() -> None:
    ld = tmemviz.layout("16x256b", num=4)
    found = ld.which(lane=9, col=5)
    assert (found.thread, found.reg) == (6, 3)
    assert ld.where(thread=6, reg=3)["cells"] == [{"lane": 9, "col": 5}]
    assert repr(ld) == "<tmemviz layout: tcgen05.ld.sync.aligned.16x256b.x4.b32, 512 cells>"


@pytest.mark.parametrize(("shape", "num", "pack"), LAYOUT_CASES)
def test_which_and_where_agree_with_every_cell(shape: str, num: int, pack: bool) -> None:
    doc = tmemviz.layout(shape, num=num, pack=pack)
    for cell in doc.cells:
        half = cell.get("half")  # with .pack::16b: which half of the register
        owner = doc.which(lane=cell.lane, col=cell.col)
        owners = owner.get("owners") or [owner]
        assert (cell.thread, cell.reg) in {(o["thread"], o["reg"]) for o in owners}
        spots = doc.where(thread=cell.thread, reg=cell.reg)["cells"]
        assert {"lane": cell.lane, "col": cell.col, **({"half": half} if half is not None else {})} in spots


def test_values_as_python_or_as_the_cli_spells_them() -> None:
    a = tmemviz.layout("16x32bx2", num="x2", taddr="32,8", split_offset=4)
    b = tmemviz.layout("16x32bx2", num=2, taddr=(32, 8), split_offset=4)
    assert a.to_json() == b.to_json()
    assert tmemviz.cp("64x128b", multicast="warpx2::01_23", cta_group=2).to_json() == (
        tmemviz.cp("64x128b", multicast="warpx2::01_23", cta_group="2").to_json()
    )


@pytest.mark.parametrize(
    ("call", "argv"),
    [
        (lambda: tmemviz.layout("16x256b", num=64), ["layout", "16x256b", "--num", "x64"]),
        (lambda: tmemviz.layout("nosuch"), ["layout", "nosuch"]),
        (lambda: tmemviz.cp("64x128b"), ["cp", "64x128b"]),
        (lambda: tmemviz.decompress("b4x16_p64", type="e3m2"), ["decompress", "b4x16_p64", "-t", "e3m2"]),
        (lambda: tmemviz.smem(major="K", swizzle="128B"), ["smem", "--major", "K", "--swizzle", "128B"]),
        (lambda: tmemviz.desc(), ["desc"]),
        (lambda: tmemviz.tile(n=100, shape="16x256b"), ["tile", "--n", "100", "--shape", "16x256b"]),
    ],
    ids=["num", "shape", "multicast", "type", "smem", "desc", "tile"],
)
def test_bad_arguments_raise_the_clis_sentence(
    capsys: pytest.CaptureFixture[str], call: object, argv: list[str]
) -> None:
    with pytest.raises(TmemvizError) as caught:
        call()  # type: ignore[operator]
    assert bad(capsys, *argv) == f"tmemviz: {caught.value}"


COMMANDS = {
    "layout": (
        ["layout", "16x32bx2", "--num", "x2", "--pack"],
        lambda: tmemviz.layout("16x32bx2", num=2, pack=True),
    ),
    "cp": (
        ["cp", "64x128b", "-m", "warpx2::02_13"],
        lambda: tmemviz.cp("64x128b", multicast="warpx2::02_13"),
    ),
    "decompress": (
        ["decompress", "b6x16_p32", "-t", "e3m2"],
        lambda: tmemviz.decompress("b6x16_p32", type="e3m2"),
    ),
    "smem": (
        ["smem", "--major", "MN", "--swizzle", "32B", "--dtype", "bf16", "--rows", "16", "--cols", "16"],
        lambda: tmemviz.smem(major="MN", swizzle="32B", dtype="bf16", rows=16, cols=16),
    ),
    "tile": (["tile", "--n", "32", "--shape", "16x64b"], lambda: tmemviz.tile(n=32, shape="16x64b")),
    "desc": (["desc", "0x4000404000010000"], lambda: tmemviz.desc("0x4000404000010000")),
    "shift": (
        ["shift", "tcgen05.shift.down.cta_group::2 [taddr0];", "--taddr", "32,8"],
        lambda: tmemviz.shift("tcgen05.shift.down.cta_group::2 [taddr0];", taddr=(32, 8)),
    ),
}
SUFFIXES = ("png", "svg", "html", "json", "csv", "txt")


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_save_writes_exactly_what_dash_o_writes(
    capsys: pytest.CaptureFixture[str], tmp_path: object, command: str, suffix: str
) -> None:
    argv, call = COMMANDS[command]
    by_cli = tmp_path / f"cli.{suffix}"  # type: ignore[operator]
    doc = call()
    if command == "desc" and suffix == "csv":  # P18: desc draws its bit fields; it has no CSV form
        assert "has no" in bad(capsys, *argv, "-o", str(by_cli))
        with pytest.raises(TmemvizError):
            doc.save(tmp_path / f"api.{suffix}")  # type: ignore[operator]
        assert sorted(p.name for p in tmp_path.iterdir()) == []  # type: ignore[attr-defined]
        return
    ok(capsys, *argv, "-o", str(by_cli))
    by_api = doc.save(tmp_path / f"api.{suffix}")  # type: ignore[operator]
    assert by_api.read_bytes() == by_cli.read_bytes()
    data = by_cli.read_bytes()
    if suffix == "png":
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
    elif suffix == "svg":
        assert data.startswith(b"<?xml")
    elif suffix == "html":
        assert data.startswith(b"<!DOCTYPE html>")
    elif suffix == "json":
        assert json.loads(data) == json.loads(doc.to_json())
        assert data.decode() == ok(capsys, *argv, "--format", "json")
    elif suffix == "csv":
        assert data.decode() == ok(capsys, *argv, "--format", "csv") == doc.to_csv()
    else:
        assert b"\x1b[" not in data, "a .txt file holds no color codes"
        assert data.decode() == doc.to_text()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-o", "x.pdf"], "unsupported output suffix '.pdf'"),
        (["-o", "x.json", "--format", "csv"], "--format csv contradicts the output file 'x.json'"),
        (["-o", "x.png", "-f", "table"], "--format table contradicts the output file 'x.png'"),
        (["--format", "png"], "give -o FILE.png"),
        (["-o", "-"], "-o - needs --format"),
    ],
)
@pytest.mark.parametrize("command", ["layout", "cp", "smem", "tile", "decompress", "shift"])
def test_contradictions_write_nothing(
    capsys: pytest.CaptureFixture[str],
    tmp_path: object,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    extra: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)  # type: ignore[arg-type]
    assert message in bad(capsys, *COMMANDS[command][0], *extra)
    assert list(tmp_path.iterdir()) == []  # type: ignore[attr-defined]


def test_no_suffix_takes_the_format_option(capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    target = tmp_path / "answer"  # type: ignore[operator]
    ok(capsys, "layout", "16x64b", "-f", "json", "-o", str(target))
    assert target.read_text() == tmemviz.layout("16x64b").to_json()


def test_figure_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code = subprocess.run(
        [sys.executable, "-m", "tmemviz", "cp", "32x128b", "-m", "warpx4", "-o", "-", "-f", "svg"],
        capture_output=True,
        timeout=120,
    )
    assert code.returncode == 0, code.stderr
    assert code.stdout.startswith(b"<?xml") and code.stderr == b""


def test_notebook_html_is_a_sandboxed_offline_frame() -> None:
    from tmemviz.draw.notebook import unpacked

    shown = tmemviz.cp("32x128b", multicast="warpx4")._repr_html_()
    assert '<iframe id="tmemviz-' in shown and 'sandbox="allow-scripts"' in shown
    assert "default-src 'none'" in unpacked(shown).decode()
    bundle = tmemviz.desc("0x4000404000010000")._repr_mimebundle_()  # its bit fields (P18)
    assert "SBO" in unpacked(bundle["text/html"]).decode()
    assert set(bundle) == {"text/plain", "text/html", "image/png"}
    only = tmemviz.desc("0x4000404000010000")._repr_mimebundle_(include={"text/plain"})
    assert only == {"text/plain": "<tmemviz desc: 0x4000404000010000, 0 cells>"}
    table = tmemviz.desc("0x4000404000010000")
    table.figure = None  # a result without a figure shows its table as text, and no image
    assert "<pre>" in table._repr_html_() and "SBO" in table._repr_html_()
    assert "image/png" not in table._repr_mimebundle_()


def test_import_tmemviz_is_cheap() -> None:
    probe = (
        "import sys, tmemviz\n"
        "heavy = [m for m in ('typer', 'rich', 'matplotlib', 'yaml', 'tmemviz.api') if m in sys.modules]\n"
        "print(heavy)\n"
        "tmemviz.layout\n"
        "print('tmemviz.api' in sys.modules, [m for m in ('rich', 'matplotlib') if m in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[]", "True []"]


def test_records_read_as_attributes_and_say_what_they_have() -> None:
    cell = tmemviz.layout("32x32b").cells[0]
    assert (cell.thread, cell.lane) == (cell["thread"], cell["lane"])
    with pytest.raises(AttributeError, match="has no field 'bogus'"):
        _ = cell.bogus


def test_importing_a_family_leaves_the_api_function_in_place() -> None:
    """The families live in tmemviz/families/, so loading one never rebinds ``tmemviz.cp``."""
    import tmemviz.families.cp.layout
    from tmemviz import api

    assert tmemviz.cp is api.cp and tmemviz.explain is api.explain and callable(tmemviz.tile)


def test_dir_lists_the_documented_api() -> None:
    shown = dir(tmemviz)
    for name in tmemviz.__all__:
        assert name in shown, name
