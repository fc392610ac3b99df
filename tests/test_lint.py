"""The code base stays ruff-clean (lint and format), checked as part of the suite."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    exe = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(exe).exists():
        pytest.skip("ruff is not installed (it comes with the [test] extra)")
    return [exe]


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]])
def test_ruff(args: list[str]) -> None:
    result = subprocess.run([*_ruff(), *args], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
