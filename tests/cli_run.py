"""Running the CLI in-process from tests: ``run``, ``ok`` (must succeed), ``bad`` (must fail cleanly)."""

from __future__ import annotations

import pytest

from tmemviz.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the CLI in-process; return (exit status, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def ok(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, out, err = run(capsys, *args)
    assert code == 0, f"tmemviz {' '.join(args)} exited {code}: {err}"
    assert err == "", f"unexpected stderr: {err!r}"
    return out


def bad(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run a command that must fail: status 2, one 'tmemviz: ' line on stderr, nothing on stdout."""
    code, out, err = run(capsys, *args)
    assert "Traceback" not in err
    assert code == 2, f"exit status {code}, stderr {err!r}"
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}: {err!r}"
    assert lines[0].startswith("tmemviz: ") and len(lines[0]) > len("tmemviz: ")
    assert out == ""
    return lines[0]


def flat(text: str) -> str:
    """Collapse all whitespace, so wrapped captions can be searched."""
    return " ".join(text.split())
