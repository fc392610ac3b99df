"""What tmemviz check reads: PTX files named, directories walked (sorted, hidden directories and
excluded paths skipped), and nothing else: input that is not PTX (empty, Python, a README, a SASS
listing, a cubin) is refused in one sentence when named, passed over when a walk finds it. A tcgen05
statement the reader cannot read is an ``unreadable`` finding."""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pytest
from check.test_options import COLS, LEAK
from check.test_rules import good
from cli_run import bad, run

import tmemviz
from tmemviz.errors import TmemvizError

KERNELS = Path(__file__).parents[1] / "kernels"
SASS = KERNELS / "triton_mma_scaled.sass"
CUBIN = KERNELS / "triton_mma_scaled.cubin"


def paths(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    code, out, err = run(capsys, "check", *args, "-f", "json")
    assert code in (0, 1) and err == "", err
    return [f["path"] for f in json.loads(out)["files"]]


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("empty.ptx", b"", "empty.ptx is empty; tmemviz check reads PTX modules"),
        ("blank.ptx", b"\n  \n// only a comment\n", "blank.ptx holds no PTX (no .target, .entry, .func"),
        ("script.py", b"import triton\nprint('tcgen05')\n", "script.py holds no PTX"),
        ("README.md", b"# Kernels\n\nSee `tmemviz check`.\n", "README.md holds no PTX"),
        (
            "listing.ptx",
            SASS.read_bytes(),
            "listing.ptx is a SASS listing, but tmemviz check judges PTX; run",
        ),
        ("k.sass", SASS.read_bytes(), "k.sass is a SASS listing"),
        ("k.cubin", CUBIN.read_bytes(), "k.cubin is a cubin (an ELF file), but tmemviz check judges PTX"),
        ("cubin.ptx", CUBIN.read_bytes(), "cubin.ptx is a cubin"),
    ],
)
def test_input_that_is_not_ptx_is_refused(
    name: str, content: bytes, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_bytes(content)
    (tmp_path / "good.ptx").write_text(good())
    line = bad(capsys, "check", "good.ptx", name)
    assert line.startswith(f"tmemviz: {said}")
    # What it is, and what check reads (or which command reads what it is).
    assert line.endswith("as compilers write them") or line.endswith(
        "run tmemviz explain for SASS, or check the PTX it was built from"
    )
    # The Python API raises the one exception type with the same sentence.
    with pytest.raises(TmemvizError) as caught:
        tmemviz.check([name])
    assert f"tmemviz: {caught.value}" == line
    # A directory walk passes it over silently (only *.ptx files are looked at at all).
    assert paths(capsys, ".") == ["good.ptx"]


def test_standard_input_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"# just a README\n")))
    assert "- holds no PTX" in bad(capsys, "check", "-")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SASS.read_bytes())))
    assert "- is a SASS listing" in bad(capsys, "check", "-")
    with pytest.raises(TmemvizError, match="the text is empty; tmemviz check reads PTX"):
        tmemviz.check(text=" \n")
    with pytest.raises(TmemvizError, match="<text> holds no PTX"):
        tmemviz.check(text="def f():\n    return 1\n")
    # A bare tcgen05 statement is PTX (its module's .target is missing, which the target rule says).
    (checked,) = tmemviz.check(text="tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r2];").subject
    assert [f.rule for f in checked.findings if f.severity == "error"] == ["target"]


def test_directories_are_walked_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    tree = {
        "kernels/b.ptx": LEAK, "kernels/a/z.ptx": COLS, "kernels/a/b/c.ptx": LEAK, "kernels/A.PTX": LEAK,
        "kernels/.cache/hidden.ptx": COLS, "kernels/notes.txt": LEAK, "kernels/old_draft.ptx": COLS,
        "kernels/empty.ptx": "", "kernels/gen/listing.ptx": SASS.read_text(),
        "kernels/build/x.ptx": COLS,
    }  # fmt: skip
    for name, text in tree.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = paths(capsys, "kernels")
    assert found == [
        "kernels/A.PTX", "kernels/a/b/c.ptx", "kernels/a/z.ptx", "kernels/b.ptx", "kernels/build/x.ptx",
        "kernels/old_draft.ptx",
    ]  # fmt: skip
    assert paths(capsys, "kernels", "--exclude", "*_draft.ptx", "--exclude", "build") == [
        "kernels/A.PTX", "kernels/a/b/c.ptx", "kernels/a/z.ptx", "kernels/b.ptx"
    ]  # fmt: skip
    assert paths(capsys, "kernels", "--exclude", "kernels/a/*") == [
        "kernels/A.PTX", "kernels/b.ptx", "kernels/build/x.ptx", "kernels/old_draft.ptx"
    ]  # fmt: skip
    # Inside the directory, paths read as the walk found them; files and directories mix.
    monkeypatch.chdir(tmp_path / "kernels")
    assert paths(capsys, ".", "--exclude", "a", "--exclude", "build") == ["A.PTX", "b.ptx", "old_draft.ptx"]
    assert paths(capsys, "b.ptx", "a") == ["b.ptx", "a/b/c.ptx", "a/z.ptx"]
    # The API walks too.
    assert [c.path for c in tmemviz.check("a").subject] == ["a/b/c.ptx", "a/z.ptx"]


def test_a_directory_without_ptx_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text("# docs\n")
    (tmp_path / "docs" / "empty.ptx").write_text("")
    line = bad(capsys, "check", str(tmp_path / "docs"))
    assert "no PTX file found in" in line and "docs" in line
    assert "is a directory" not in line


def test_missing_paths_and_devices_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "cannot read" in bad(capsys, "check", str(tmp_path / "nowhere"))
    assert "not a regular file" in bad(capsys, "check", "/dev/null" if Path("/dev/null").exists() else "NUL")
    assert "only once" in bad(capsys, "check", "-", "-")


def test_the_corpus_checks_from_its_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every fixture's PTX, walked: the SASS listings and cubins beside them are passed over."""
    for p in KERNELS.iterdir():
        if p.suffix in (".ptx", ".sass", ".cubin"):
            shutil.copy(p, tmp_path / p.name)
    (tmp_path / "listing.ptx").write_bytes(SASS.read_bytes())
    found = paths(capsys, str(tmp_path))
    assert [Path(p).name for p in found] == sorted(p.name for p in KERNELS.glob("*.ptx"))


BROKEN = """tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r10, %r11}, [%r2;
@%p1 tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r10,, %r11};
add.s32 %r20, [%r10, 1;
"""


def test_a_tcgen05_statement_the_reader_cannot_read_is_a_finding(capsys: pytest.CaptureFixture[str]) -> None:
    text = good(64, BROKEN)
    (checked,) = tmemviz.check(text=text).subject
    unreadable = [f for f in checked.findings if f.rule == "unreadable"]
    line = text.splitlines().index(BROKEN.splitlines()[0]) + 1
    assert [(f.line, f.severity) for f in unreadable] == [(line, "error"), (line + 1, "error")]
    assert "could not be read, so no rule checked it: ' {%r10, %r11}, [%r2' opens a bracket it never" in (
        unreadable[0].message
    )
    assert unreadable[1].message.endswith("'{%r10, , %r11}' has an empty register in its vector")
    # Only tcgen05 statements: the broken add is not one.
    cut = tmemviz.check(text=text.rstrip().rsplit("\n", 2)[0] + "\ntcgen05.wait::ld.sync").subject[0]
    assert [f.message.split(": ", 1)[1] for f in cut.findings if f.rule == "unreadable"][-1] == (
        "the text ends inside a statement (no ';' after it)"
    )


def test_unreadable_at_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.ptx"
    path.write_text(good(64, BROKEN))
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1 and "unreadable" in out
    assert run(capsys, "check", str(path), "--ignore", "unreadable")[0] == 0
    assert (
        run(capsys, "check", str(tmp_path / "k.ptx"), "--select", "unreadable", "--fail-on", "error")[0] == 1
    )
