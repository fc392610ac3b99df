"""tmemviz check's CI options, each firing and not: --select, --ignore, --fail-on, --notes/--no-notes, and
the exit statuses they lead to (0 nothing left at the level, 1 something left, 2 an option refused)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from check.test_rules import ALLOC, FREE, good, kernel
from cli_run import bad, run

LEAK = kernel(ALLOC.format(cols=64))
"""A warning (never-freed) and two notes (alloc-columns, target)."""
COLS = good(48)
"""Two errors (alloc-columns: 48 is not a power of 2) and a note (target)."""
TARGET = kernel(ALLOC.format(cols=64) + FREE.format(cols=64), "sm_120a")
"""An error (target) and a note (alloc-columns)."""


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The kernels as files in an empty working directory (no pyproject.toml above it decides)."""
    monkeypatch.chdir(tmp_path)
    out = {}
    for name, text in (("leak", LEAK), ("cols", COLS), ("target", TARGET)):
        (tmp_path / f"{name}.ptx").write_text(text)
        out[name] = f"{name}.ptx"
    return out


def shown(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[tuple[str, str, str]]]:
    """Exit status and the (file, severity, rule) of every finding shown (as JSON)."""
    code, out, err = run(capsys, "check", *args, "-f", "json")
    assert err == "", err
    found = [(f["path"], x["severity"], x["rule"]) for f in json.loads(out)["files"] for x in f["findings"]]
    return code, found


def test_by_default_errors_and_warnings_fail_and_notes_are_left_out(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, found = shown(capsys, files["leak"])
    assert (code, found) == (1, [("leak.ptx", "warning", "never-freed")])
    code, found = shown(capsys, files["cols"], files["target"])
    assert code == 1 and {s for _, s, _ in found} == {"error"} and len(found) == 3


def test_select(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, found = shown(capsys, *files.values(), "--select", "target")
    assert (code, found) == (1, [("target.ptx", "error", "target")])
    # Comma-separated or repeated; a rule that finds nothing here selects nothing.
    code, found = shown(capsys, *files.values(), "--select", "never-freed,target", "--select", "wait-ld")
    assert code == 1 and sorted(r for _, _, r in found) == ["never-freed", "target"]
    code, found = shown(capsys, files["leak"], "--select", "target")
    assert (code, found) == (0, []), "the warning is not selected: nothing fails"
    code, found = shown(capsys, files["leak"], "--select", "target", "--notes")
    assert (code, found) == (0, [("leak.ptx", "note", "target")])


def test_ignore(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, found = shown(capsys, files["leak"], "--ignore", "never-freed")
    assert (code, found) == (0, [])
    code, found = shown(capsys, files["leak"], files["target"], "--ignore", "alloc-columns, target")
    assert (code, found) == (1, [("leak.ptx", "warning", "never-freed")])
    # --ignore wins over --select for a rule in both.
    code, found = shown(capsys, files["target"], "--select", "target", "--ignore", "target")
    assert (code, found) == (0, [])


def test_unknown_rule_ids_are_refused(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    line = bad(capsys, "check", files["leak"], "--select", "never-freed,outside-alloc")
    assert "unknown rule 'outside-alloc' in --select" in line and "outside-allocation" in line
    assert "unreadable" in line, "the refusal lists every valid id"
    line = bad(capsys, "check", files["leak"], "--ignore", "E501")
    assert "unknown rule 'E501' in --ignore" in line


def test_fail_on(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert shown(capsys, files["leak"], "--fail-on", "error")[0] == 0, "a warning does not fail at error"
    assert shown(capsys, files["target"], "--fail-on", "error")[0] == 1
    assert shown(capsys, files["leak"], "--fail-on", "warning")[0] == 1
    assert shown(capsys, files["leak"], "--ignore", "never-freed", "--fail-on", "warning")[0] == 0
    # --fail-on note fails on notes, so it shows them.
    code, found = shown(capsys, files["leak"], "--ignore", "never-freed", "--fail-on", "note")
    assert code == 1 and {s for _, s, _ in found} == {"note"}
    code, _, err = run(capsys, "check", files["leak"], "--fail-on", "never")
    assert code == 2 and "never" in err and "Traceback" not in err


def test_notes(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, found = shown(capsys, files["leak"], "--notes")
    assert code == 1 and sorted(s for _, s, _ in found) == ["note", "note", "warning"]
    code, found = shown(capsys, files["leak"], "--ignore", "never-freed", "--notes")
    assert code == 0 and len(found) == 2, "notes are shown, and do not fail at the default level"
    code, found = shown(capsys, files["leak"], "--no-notes")
    assert (code, found) == (1, [("leak.ptx", "warning", "never-freed")])
    line = bad(capsys, "check", files["leak"], "--notes", "--no-notes")
    assert "--notes and --no-notes" in line


def test_the_table_says_what_was_left_out(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", files["leak"], "--ignore", "never-freed")
    assert (code, err) == (0, "") and "leak.ptx: no findings (not shown: 2 notes)" in out
    code, out, _ = run(capsys, "check", files["leak"], "--ignore", "never-freed", "--notes")
    assert "leak.ptx: 2 notes" in out and "not shown" not in out
