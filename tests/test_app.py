"""The command as a well-kept CLI: --version, bare help, usage lines, shell completion, durable writes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import ok, run

from tmemviz import __version__, writing
from tmemviz.cli.app import COMMANDS, version
from tmemviz.errors import TmemvizError

REPO = Path(__file__).resolve().parents[1]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def tmemviz(*args: str, env: dict[str, str] | None = None, **kw: object) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "tmemviz", *args],
        capture_output=True,
        text=True,
        env=full,
        **kw,  # type: ignore[call-overload]
    )


def test_version_matches_the_package(capsys: pytest.CaptureFixture[str]) -> None:
    assert version() == __version__
    assert ok(capsys, "--version") == f"tmemviz {__version__}\n"
    assert ok(capsys, "-V") == f"tmemviz {__version__}\n"


@pytest.mark.usefixtures("plain_terminal")
def test_bare_tmemviz_prints_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    bare = run(capsys)
    helped = run(capsys, "--help")
    assert bare == helped and bare[0] == 0
    assert bare[1].startswith("Usage: tmemviz [OPTIONS] COMMAND [ARGS]...")
    for name in COMMANDS:
        assert f"  {name} " in bare[1]
    for option in ("--version", "--install-completion", "--show-completion"):
        assert option in bare[1]


@pytest.mark.usefixtures("plain_terminal")
@pytest.mark.parametrize("name", list(COMMANDS))
def test_usage_lines_name_arguments_in_capitals(capsys: pytest.CaptureFixture[str], name: str) -> None:
    text = ok(capsys, name, "--help")
    usage = text.splitlines()[0]
    assert usage.startswith(f"Usage: tmemviz {name} [OPTIONS]")
    assert "{" not in usage and usage == usage.replace(
        usage[len("Usage: tmemviz ") :], usage[len("Usage: tmemviz ") :]
    )
    for word in usage.split()[4:]:
        assert word.strip("[].") == word.strip("[].").upper(), usage


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_show_completion_prints_a_script(shell: str) -> None:
    done = tmemviz("--show-completion", shell, env={"SHELL": f"/bin/{shell}"})
    assert done.returncode == 0, done.stderr
    assert "_TMEMVIZ_COMPLETE" in done.stdout and "tmemviz" in done.stdout


def complete(words: str) -> list[str]:
    """What bash completion offers after ``words`` (the last word being completed)."""
    parts = words.split(" ")
    env = {"_TMEMVIZ_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(len(parts) - 1)}
    done = tmemviz(env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_completion_of_commands_shapes_nums_and_formats() -> None:
    assert complete("tmemviz wh") == ["which", "where"]
    assert complete("tmemviz which 16x2") == ["16x256b"]
    assert "16dp256b" in complete("tmemviz layout 16")
    assert complete("tmemviz which 16x256b --num ") == ["x1", "x2", "x4", "x8", "x16", "x32"]
    assert complete("tmemviz layout SM100_TMEM_LOAD_16dp128b2x --num x6") == ["x64"]
    assert complete("tmemviz which 16x256b --format ") == ["text", "json"]
    assert complete("tmemviz cp 64") == ["64x128b.warpx2::02_13", "64x128b.warpx2::01_23"]
    assert "SM100_UTCCP_4x32dp128bit_2cta" in complete("tmemviz cp SM100_UTCCP_4x")
    assert "SM100_TMEM_STORE_16dp32b128x_16b" in complete("tmemviz ptx SM100_TMEM_STORE_16dp32b1")


# --- durable, atomic writes -------------------------------------------------------------------


def test_an_interrupted_write_leaves_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(b"old")

    def fail(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(TmemvizError, match="No space left"):
        writing.write_atomic(target, b"new contents")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_write_is_synced_before_the_rename_and_the_directory_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("fsync-dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "fsync-file")
        real_fsync(fd)

    def replace(src: str, dst: str | Path) -> None:
        events.append("rename")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    writing.write_atomic(tmp_path / "out.txt", b"data")
    assert events == ["fsync-file", "rename", "fsync-dir"]
    assert (tmp_path / "out.txt").read_bytes() == b"data"


def test_concurrent_figures_to_one_name_leave_one_valid_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "same.png"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "tmemviz", "figure", "16x256b", "--num", "x2", "-o", str(target)]
    # One writer more than the machine has cores (at least three, at most six) races for one name: they
    # overlap, which is enough to show a half-written or second file; each costs a Python with matplotlib,
    # so writers beyond that add start-up time and no new interleaving.
    writers = min(6, max(3, (os.cpu_count() or 1) + 1))
    procs = [subprocess.Popen(argv, env=env, stderr=subprocess.PIPE) for _ in range(writers)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    assert [p.name for p in tmp_path.iterdir()] == ["same.png"]
    reference = tmp_path.parent / "reference.png"
    ok(capsys, *argv[3:-1], str(reference))  # the same command in-process: the bytes are the same
    assert target.read_bytes().startswith(PNG_SIGNATURE)
    assert target.read_bytes() == reference.read_bytes()


@pytest.mark.usefixtures("plain_terminal")
def test_gallery_takes_its_directory_as_argument_or_output(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tmemviz import gallery

    full = gallery.entries
    monkeypatch.setattr(gallery, "entries", lambda catalog: full(catalog)[:2])  # two figures suffice here
    for args in (
        [str(tmp_path / "a")],
        ["-o", str(tmp_path / "b")],
        ["--output", str(tmp_path / "c"), str(tmp_path / "c")],
    ):
        assert run(capsys, "gallery", *args)[0] == 0
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert len(names) == 2 * 3 + 2  # svg, png and html per figure; README.md and index.html
    for other in ("b", "c"):
        assert sorted(p.name for p in (tmp_path / other).iterdir()) == names
        for name in names:
            assert (tmp_path / other / name).read_bytes() == (tmp_path / "a" / name).read_bytes()
    code, _, err = run(capsys, "gallery", str(tmp_path / "a"), "-o", str(tmp_path / "b"))
    assert code == 2 and "give the directory once" in err
