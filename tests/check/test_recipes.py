"""What docs/check.md and .pre-commit-hooks.yaml tell a user to run works: the pre-commit hook, the GitHub
Actions job, the refusals it shows (printed as shown), and its baseline file example."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
import yaml
from check.test_options import LEAK
from check.test_rules import good
from cli_run import run

REPO = Path(__file__).resolve().parents[2]
PAGE = (REPO / "docs" / "check.md").read_text(encoding="utf-8")
KERNELS = REPO / "tests" / "kernels"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE, re.DOTALL)


def test_the_pre_commit_hook(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "tmemviz-check" and hook["language"] == "python" and hook["name"]
    files = re.compile(hook["files"])
    assert files.search("kernels/gemm.ptx") and not files.search("gemm.py") and not files.search("a.ptx.bak")
    # Its entry is the installed command (pre-commit installs this package and runs the script)...
    command, *args = shlex.split(hook["entry"])
    assert command == "tmemviz" and re.search(
        r'^tmemviz = "tmemviz\.cli:main"$', (REPO / "pyproject.toml").read_text(), re.M
    )
    # ...given the staged files by name: a clean one passes, a leak fails.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.ptx").write_text(good())
    (tmp_path / "leak.ptx").write_text(LEAK)
    assert run(capsys, *args, "ok.ptx")[0] == 0
    assert run(capsys, *args, "ok.ptx", "leak.ptx")[0] == 1
    assert "tmemviz-check" in PAGE and ".pre-commit-hooks.yaml" in PAGE


def test_the_github_actions_job(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    (job_text,) = [b for b in blocks("yaml") if "upload-sarif" in b]
    workflow = yaml.safe_load(job_text)
    (job,) = workflow["jobs"].values()
    assert workflow["permissions"]["security-events"] == "write"
    steps = job["steps"]
    (check,) = [s for s in steps if "tmemviz check" in s.get("run", "")]
    (upload,) = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    assert steps.index(check) < steps.index(upload) and "!cancelled()" in upload["if"]
    argv = shlex.split(check["run"])
    assert argv[:2] == ["tmemviz", "check"]
    assert argv[argv.index("-o") + 1] == upload["with"]["sarif_file"]
    # The step as written, in a repository with a kernel with a bug: exit 1 (the step fails), SARIF written.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "leak.ptx").write_text(LEAK)
    (tmp_path / "README.md").write_text("# kernels\n")
    code, _, err = run(capsys, *argv[1:])
    assert (code, err) == (1, "")
    log = json.loads((tmp_path / upload["with"]["sarif_file"]).read_text())
    (result,) = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "kernels/leak.ptx"


def test_the_refusals_it_shows(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.ptx").write_text("")
    (tmp_path / "README.md").write_text("# Kernels\n")
    (tmp_path / "k.sass").write_bytes((KERNELS / "triton_mma_scaled.sass").read_bytes())
    (tmp_path / "k.cubin").write_bytes((KERNELS / "triton_mma_scaled.cubin").read_bytes())
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "k.ptx").write_text(good())
    shown = [
        (m.group(1), m.group(2))
        for block in blocks("console")
        for m in re.finditer(r"^\$ tmemviz (.+)\n(tmemviz: .+)$", block, re.M)
    ]
    assert len(shown) >= 5
    for argv, said in shown:
        code, out, err = run(capsys, *shlex.split(argv))
        assert (code, out, err.strip()) == (2, "", said), argv


def test_the_baseline_example_is_a_baseline(tmp_path: Path) -> None:
    from tmemviz.families.check.baseline import read_baseline

    (example,) = [b for b in blocks("json") if "tmemviz-check-baseline" in b]
    (tmp_path / "b.json").write_text(example)
    assert sum(read_baseline(str(tmp_path / "b.json")).entries.values()) == 1
