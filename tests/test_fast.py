"""Instant answers: one-shot queries without Typer, Rich or PyYAML, batches, and the shape-file cache.

The fast path (tmemviz.cli.fast) must answer exactly what Typer would: a corpus
of command lines, good and bad, runs through both and the results must match.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import bad, ok, run

from tmemviz import files
from tmemviz.cli import app
from tmemviz.cli.fast import read

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "tests" / "kernels"

CORPUS = [
    ["which", "16x256b", "--num", "x4", "--lane", "9", "--col", "5"],
    ["which", "16x256b", "-n", "x4", "--lane=9", "--col=5", "-f", "json"],
    ["which", "16x256b", "--num", "x2", "--pack", "--lane", "1", "--col", "5", "--half", "lo"],
    ["which", "16x256b", "--num", "x2", "--unpack", "--op", "st", "--lane", "1", "--col", "5"],
    ["which", "16x32bx2", "--num", "x8", "--split-offset", "4", "--lane", "1", "--col", "5"],
    ["which", "16x256b", "--taddr", "32,16", "--warp", "1", "--lane", "33", "--col", "17"],
    ["which", "32x32b", "-n", "4", "--red", "max", "--type", "f32", "--abs", "--lane", "3", "--col", "2"],
    ["which", "16x256b", "--lane", "-1", "--col", "5"],
    ["which", "16x256b", "--lane", "x", "--col", "5"],
    ["which", "16x256b", "--lane", "9"],
    ["which", "16x256b", "--lane", "9", "--lane", "8", "--col", "1"],
    ["which", "16x256b", "--bogus", "1"],
    ["which", "16x256b", "-f", "yaml", "--lane", "1", "--col", "1"],
    ["which", "--help"],
    ["which"],
    ["where", "16x256b", "--num", "x4", "-t", "5", "-r", "4"],
    ["where", "16x256b", "--num", "x4", "--thread", "5", "--reg", "99"],
    ["where", "SM100_TMEM_LOAD_16dp256b4x_16b", "-t", "0", "-r", "0", "-f", "json"],
    ["cp", "64x128b.warpx2::01_23", "--row", "40"],
    ["cp", "64x128b.warpx2::01_23", "--lane", "104", "--col", "3", "-f", "json"],
    ["cp", "128x256b", "--row", "3", "-f", "csv"],
    ["cp", "64x128b"],
    ["decompress", "b4x16_p64", "--hex", "1032547698badcfe", "--format", "json"],
    [
        "decompress",
        "b6x16_p32",
        "-t",
        "e3m2",
        "--elements",
        "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0",
        "-f",
        "json",
    ],
    ["desc", "0x4000404000010000", "-f", "json"],
    ["idesc", "136314896", "--kind", "f16", "-f", "json"],
    [
        "idesc",
        "--kind",
        "mxf4nvf4",
        "--a-type",
        "e2m1",
        "--b-type",
        "e2m1",
        "--scale-type",
        "ue4m3",
        "--n",
        "256",
    ],
    ["desc", "--sbo", "1024", "--swizzle", "128B"],
    ["ptx", "16x256b", "--num", "x4", "--emit", "cccl"],
    ["ptx", "tcgen05.cp.cta_group::2.64x128b.warpx2::02_13", "--emit", "ptx"],
    ["ptx", "16x256b", "--emit", "fortran"],
    # PTX lines as compilers print them: a guard, an address immediate (lane +16), a line break, a comment.
    [
        "layout",
        "@%p2 tcgen05.st.sync.aligned.16x64b.x2.b32 [%r2 + 1048576], {%r3,\n %r4}; // st",
        "-f",
        "json",
    ],
    [
        "which",
        "@!%p2 tcgen05.st.sync.aligned.16x64b.x2.b32 [ %r2 + 1048576 ], {%r3, %r4};",
        "--lane",
        "17",
        "--col",
        "1",
    ],
    [
        "where",
        "@%p2 tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r3, %r4}, [%r2+0x80];",
        "--thread",
        "3",
        "--reg",
        "1",
        "--taddr",
        "32,0",
    ],
    ["ptx", "@%p2 tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%r3, %r4}, [%r2 + 16], 2;", "--emit", "ptx"],
    ["cp", "@%p1 tcgen05.cp.cta_group::1.128x256b [%r1 + 32], %rd4;", "-f", "json"],
    ["ptx", "16x256b", "--num", "x4", "-f", "json"],
    ["layout", "16x256b", "--num", "x2", "-f", "csv"],
    ["layout", "16x32bx2", "--num", "x2", "-f", "json"],
    [
        "smem",
        "--major",
        "K",
        "--swizzle",
        "128B",
        "--dtype",
        "bf16",
        "--rows",
        "8",
        "--cols",
        "64",
        "-f",
        "json",
    ],
    ["shapes", "-f", "json"],
    ["shift", "tcgen05.shift.cta_group::1.down [taddr];", "--taddr", "32,8", "--format", "json"],
    ["shift", "@%p1 tcgen05.shift.down.cta_group::2 [%r2+0x200000]; // c", "--lane", "40"],
    ["ptx", "tcgen05.shift.down.cta_group::1 [taddr0];", "--emit", "cccl"],
    # explain takes FILE... (every positional): one, two, -f before or after them, none, a missing one.
    ["explain", str(KERNELS / "mma_forms.ptx"), "-f", "json"],
    ["explain", "-f", "json", str(KERNELS / "mma_forms.ptx"), str(KERNELS / "nvcc_inline_asm.ptx")],
    ["explain", str(KERNELS / "mma_forms.ptx")],
    ["explain"],
    ["explain", str(KERNELS / "no_such.ptx"), "-f", "json"],
    ["explain", str(KERNELS / "mma_forms.ptx"), "-f", "yaml"],
]


@pytest.mark.usefixtures("plain_terminal")
@pytest.mark.parametrize("argv", CORPUS, ids=lambda a: " ".join(a)[:60])
def test_fast_path_answers_exactly_as_typer(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    fast = run(capsys, *argv)
    monkeypatch.setattr("tmemviz.cli.fast.read", lambda argv, commands: None)
    assert run(capsys, *argv) == fast


def test_fast_path_declines_what_typer_must_handle() -> None:
    for argv in (
        ["which", "--help"],
        ["which", "16x256b", "--bogus"],
        ["which", "-h"],
        [],
        ["nope"],
        ["which", "16x256b", "--lane", "9", "--lane", "8", "--col", "1"],
    ):
        assert read(argv, app.COMMANDS) is None, argv
    assert read(["which", "16x256b", "--lane", "9", "--col", "5"], app.COMMANDS) is not None
    assert read(["explain", "a.ptx", "-", "-f", "json"], app.COMMANDS) is not None  # FILE... too


def _imports(*argv: str, env: dict[str, str], cwd: Path | None = None) -> set[str]:
    script = (
        "import sys, io, contextlib\n"
        "from tmemviz.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main({list(argv)!r})\n"
        "assert code == 0, code\n"
        "print(' '.join(sorted(m.split('.')[0] for m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True, cwd=cwd
    )
    return set(done.stdout.split())


ANSWERS = [
    ["which", "16x256b", "--num", "x4", "--lane", "9", "--col", "5"],
    ["where", "16x256b", "--num", "x4", "-t", "5", "-r", "4", "-f", "json"],
    ["ptx", "16x256b", "--num", "x4", "--emit", "ptx"],
    ["cp", "64x128b.warpx2::01_23", "--row", "40"],
    ["decompress", "b4x16_p64", "--hex", "1032547698badcfe", "--format", "json"],
    ["desc", "0x4000404000010000", "-f", "json"],
    ["idesc", "136314896", "--kind", "f16", "-f", "json"],
]


@pytest.mark.parametrize("argv", ANSWERS, ids=lambda a: a[0])
def test_answers_import_neither_typer_rich_nor_yaml(argv: list[str], tmp_path: Path) -> None:
    env = {**os.environ, "TMEMVIZ_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(REPO)}
    first = _imports(*argv, env=env)  # the first run parses the shipped files and fills the cache
    assert "typer" not in first and "rich" not in first and "matplotlib" not in first
    again = _imports(*argv, env=env)
    assert not {"typer", "rich", "yaml", "matplotlib", "click"} & again, again


def test_a_json_check_imports_neither_hashlib_nor_datetime(tmp_path: Path) -> None:
    """Fingerprints (hashlib) and SARIF's date-times (datetime) are made only where a run writes SARIF or
    a baseline: a JSON check of a kernel with findings (its notes) loads neither, a SARIF check both (run
    where no pyproject.toml is found: reading one loads datetime with tomllib)."""
    env = {**os.environ, "TMEMVIZ_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(REPO)}
    kernel = str(REPO / "tests" / "kernels" / "cute_dsl_gemm.ptx")
    json, sarif = ("check", kernel, "--notes", "-f", "json"), ("check", kernel, "--notes", "-f", "sarif")
    _imports(*json, env=env, cwd=tmp_path)  # the first run fills the cache
    assert not {"hashlib", "datetime"} & _imports(*json, env=env, cwd=tmp_path)
    assert {"hashlib", "datetime"} <= _imports(*sarif, env=env, cwd=tmp_path)


# --- batches ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("plain_terminal")
def test_which_batch_equals_one_question_at_a_time(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pairs = [(lane, col) for lane in range(16) for col in range(0, 32, 3)]
    batch = tmp_path / "q.txt"
    batch.write_text("# lane,col\n" + "\n".join(f"{a},{b}" for a, b in pairs) + "\n\n")
    for fmt in ("text", "json"):
        out = ok(capsys, "which", "16x256b", "--num", "x4", "--batch", str(batch), "-f", fmt)
        one = "".join(
            ok(capsys, "which", "16x256b", "--num", "x4", "--lane", str(a), "--col", str(b), "-f", fmt)
            for a, b in pairs
        )
        assert out == one


@pytest.mark.usefixtures("plain_terminal")
def test_where_batch_from_stdin_streams_and_reports_bad_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("5,4\n0x1 0x2\nbad\n99,0\n31,15\n"))
    code, out, err = run(capsys, "where", "16x256b", "--num", "x4", "--batch", "-", "-f", "json")
    assert code == 2
    records = [json.loads(line) for line in out.splitlines()]  # one per question, bad ones with "error"
    assert [(r.get("thread"), r.get("reg"), "error" in r) for r in records] == [
        (5, 4, False),
        (1, 2, False),
        (None, None, True),
        (99, 0, True),
        (31, 15, False),
    ]
    assert err.splitlines() == [
        "tmemviz: line 3: expected THREAD,REG, got 'bad'",
        "tmemviz: line 4: thread must be 0..31 (its lane id in the warp), got 99",
    ]


@pytest.mark.usefixtures("plain_terminal")
def test_batch_refuses_mixed_or_missing_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert "leave out --lane" in bad(capsys, "which", "16x256b", "--lane", "1", "--batch", "-")
    assert "cannot read" in bad(capsys, "which", "16x256b", "--batch", str(tmp_path / "missing.txt"))
    assert "give --thread and --reg, or --batch FILE" in bad(capsys, "where", "16x256b", "-t", "1")


def test_a_10000_line_batch_runs_in_one_process(tmp_path: Path) -> None:
    batch = tmp_path / "q.txt"
    batch.write_text("".join(f"{i % 16},{i % 32}\n" for i in range(10_000)))
    done = subprocess.run(
        [sys.executable, "-m", "tmemviz", "which", "16x256b", "--num", "x4", "--batch", str(batch)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=True,
    )
    lines = done.stdout.splitlines()
    assert (
        len(lines) == 10_000 and lines[9] == "lane 9, column 9 of 16x256b.x4 is held by thread 4, register r7"
    )


# --- the cache of shipped shape documents --------------------------------------------------------


def shipped() -> list[Path]:
    return sorted(files.builtin_dir().rglob("*.yaml"))


def test_cached_documents_equal_the_yaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import yaml

    monkeypatch.setenv("TMEMVIZ_CACHE_DIR", str(tmp_path))
    for path in shipped():
        assert files.read_yaml(path) == yaml.safe_load(path.read_text())
    cache = marshal.loads(next(tmp_path.glob("documents-*.marshal")).read_bytes())
    assert len(cache) == len(shipped())
    files._CACHES.clear()
    for path in shipped():
        assert files.read_yaml(path) == yaml.safe_load(path.read_text())  # now from the cache


def test_a_changed_file_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMEMVIZ_CACHE_DIR", str(tmp_path / "cache"))
    path = shipped()[0]
    files.read_yaml(path)
    key = next(iter(files._cache().entries))
    files._cache().entries[key] = {"poisoned": True}  # what a stale entry would hold
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000))
    try:
        assert "poisoned" not in files.read_yaml(path)
        assert list(files._cache().entries) != [key] and len(files._cache().entries) == 1  # the old one gone
        on_disk = marshal.loads(next((tmp_path / "cache").glob("documents-*.marshal")).read_bytes())
        assert key not in on_disk and len(on_disk) == 1
    finally:
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_a_damaged_or_unwritable_cache_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import yaml

    from tmemviz import __version__

    monkeypatch.setenv("TMEMVIZ_CACHE_DIR", str(tmp_path))
    python = f"py{sys.version_info.major}{sys.version_info.minor}"
    (tmp_path / f"documents-{__version__}-{python}.marshal").write_bytes(b"\x00damaged")
    files._CACHES.clear()
    path = shipped()[0]
    assert files.read_yaml(path) == yaml.safe_load(path.read_text())
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    monkeypatch.setenv("TMEMVIZ_CACHE_DIR", str(blocked / "cache"))
    assert files.read_yaml(path) == yaml.safe_load(path.read_text())


def test_user_files_are_never_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMEMVIZ_CACHE_DIR", str(tmp_path / "cache"))
    mine = tmp_path / "mine.yaml"
    mine.write_text("a: 1\n")
    assert files.read_yaml(mine) == {"a": 1}
    mine.write_text("a: 2\n")
    assert files.read_yaml(mine) == {"a": 2}
    assert not any("mine" in key for key in files._cache().entries)
