"""[tool.tmemviz.check] in the nearest pyproject.toml: found from the working directory upward, each
setting applied, the command line's options over it one by one, and a bad setting refused in one
sentence naming the file and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from check.test_options import LEAK, TARGET
from cli_run import bad, run


def project(root: Path, table: str | None) -> Path:
    """A project at ``root``: its pyproject.toml (with ``table`` as [tool.tmemviz.check], if any) and
    kernels/leak.ptx (a warning, two notes), kernels/target.ptx (an error, a note)."""
    (root / "kernels").mkdir(parents=True, exist_ok=True)
    (root / "kernels" / "leak.ptx").write_text(LEAK)
    (root / "kernels" / "target.ptx").write_text(TARGET)
    text = '[project]\nname = "kernels"\n'
    if table is not None:
        text += f"\n[tool.tmemviz.check]\n{table}\n"
    (root / "pyproject.toml").write_text(text)
    return root


def found(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[tuple[str, str]]]:
    code, out, err = run(capsys, "check", *args, "-f", "json")
    assert err == "", err
    return code, [(x["severity"], x["rule"]) for f in json.loads(out)["files"] for x in f["findings"]]


def test_each_setting_applies(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    project(tmp_path, None)
    assert found(capsys, "kernels") == (1, [("warning", "never-freed"), ("error", "target")])
    project(tmp_path, 'select = ["target"]')
    assert found(capsys, "kernels") == (1, [("error", "target")])
    project(tmp_path, 'ignore = ["target", "never-freed"]')
    assert found(capsys, "kernels") == (0, [])
    project(tmp_path, 'ignore = ["target"]\nfail-on = "error"')
    assert found(capsys, "kernels") == (0, [("warning", "never-freed")])
    project(tmp_path, "notes = true")
    code, findings = found(capsys, "kernels")
    assert code == 1 and [s for s, _ in findings].count("note") == 3
    project(tmp_path, 'exclude = ["kernels/target.ptx"]')
    assert found(capsys, "kernels") == (1, [("warning", "never-freed")])


def test_the_command_line_wins(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    project(tmp_path, 'select = ["target"]\nfail-on = "error"\nnotes = true\nexclude = ["target.ptx"]')
    # target.ptx is excluded; leak.ptx's target finding is a note (shown: notes = true), and fails not.
    assert found(capsys, "kernels") == (0, [("note", "target")])
    assert found(capsys, "kernels", "--select", "never-freed") == (0, [("warning", "never-freed")])
    assert found(capsys, "kernels", "--select", "never-freed", "--fail-on", "warning")[0] == 1
    assert found(capsys, "kernels", "--exclude", "leak.ptx") == (1, [("error", "target")])
    code, findings = found(capsys, "kernels", "--exclude", "leak.ptx", "--select", "alloc-columns")
    assert (code, findings) == (0, [("note", "alloc-columns")]), "notes = true from the file"
    assert found(capsys, "kernels", "--exclude", "leak.ptx", "--select", "alloc-columns", "--no-notes") == (
        0,
        [],
    )
    # A file named on the command line is checked even if a pattern matches it.
    assert found(capsys, "kernels/target.ptx")[1] == [("error", "target")]


def test_the_nearest_pyproject_decides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    project(tmp_path, 'ignore = ["never-freed", "target"]')
    deep = tmp_path / "src" / "deep"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert found(capsys, str(tmp_path / "kernels")) == (0, []), "found from the working directory upward"
    # A nearer pyproject.toml without the table is the project: the outer one's settings do not leak in.
    (tmp_path / "src" / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    assert found(capsys, str(tmp_path / "kernels"))[0] == 1


def test_the_baseline_setting_is_relative_to_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project(tmp_path, None)
    monkeypatch.chdir(tmp_path)
    code, _, _ = run(capsys, "check", "kernels", "--write-baseline", "ci/baseline.json")
    assert code == 2, "its directory must exist"
    (tmp_path / "ci").mkdir()
    assert run(capsys, "check", "kernels", "--write-baseline", "ci/baseline.json")[0] == 0
    project(tmp_path, 'baseline = "ci/baseline.json"')
    (tmp_path / "ci" / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "ci" / "sub")
    assert found(capsys, str(tmp_path / "kernels")) == (0, [])
    # --baseline on the command line replaces it (here: one that records nothing).
    (tmp_path / "empty.json").write_text('{"tmemviz-check-baseline": 1, "findings": []}')
    assert found(capsys, str(tmp_path / "kernels"), "--baseline", str(tmp_path / "empty.json"))[0] == 1


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('selct = ["target"]', "has no setting 'selct'; the settings are select, ignore, fail-on"),
        ('fail_on = "error"', "has no setting 'fail_on'"),
        ('fail-on = "warn"', "fail-on must be one of error, warning, note, got 'warn'"),
        ('select = "target"', 'select must be a list of strings, e.g. select = ["..."]'),
        ('ignore = ["target", "wait_ld"]', "unknown rule 'wait_ld' in "),
        ("notes = 1", "notes must be true or false, got 1"),
        ("baseline = 3", "baseline must be a file name (a string), got 3"),
        ("exclude = [1]", "exclude must be a list of strings"),
        ("select = [", "is not valid TOML"),
    ],
)
def test_a_bad_setting_is_refused_naming_the_file_and_key(
    table: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project(tmp_path, table)
    monkeypatch.chdir(tmp_path)
    line = bad(capsys, "check", "kernels")
    assert said in line and "pyproject.toml" in line
    if "TOML" not in said:
        assert "[tool.tmemviz.check]" in line


def test_a_table_that_is_not_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    project(tmp_path, None)
    (tmp_path / "pyproject.toml").write_text('[tool.tmemviz]\ncheck = "strict"\n')
    monkeypatch.chdir(tmp_path)
    assert "must be a table of settings" in bad(capsys, "check", "kernels")
