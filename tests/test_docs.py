"""The README and docs say what tmemviz does: their Python examples run as doctests, their shell lines
print what they show."""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import pytest
from cli_run import ok

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_python_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # examples that save() write here
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
    examples = "\n".join(blocks)
    if ">>>" not in examples:
        pytest.skip(f"{page.name} has no Python examples")
    test = doctest.DocTestParser().get_doctest(examples, {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, f"{page.name}: {runner.failures} of {runner.tries} examples failed"


def test_readme_shell_example_prints_what_it_shows(capsys: pytest.CaptureFixture[str]) -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```\n\$ tmemviz (.+)\n(.+?)\n```", text)
    assert blocks, "the README shows at least one command with its output"
    for argv, shown in blocks:
        assert ok(capsys, *shlex.split(argv)).strip() == shown.strip()


def test_api_page_shows_every_public_function() -> None:
    """docs/api.md runs an example of each function of the API (and the table names each one)."""
    import tmemviz

    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    examples = "\n".join(re.findall(r"```python\n(.*?)```", text, re.DOTALL))
    table = {m.group(1) for m in re.finditer(r"^\| `(\w+)\(", text, re.MULTILINE)}
    for name in tmemviz.API:
        assert f"tmemviz.{name}(" in examples, f"docs/api.md has no example of tmemviz.{name}"
        assert name in table, f"docs/api.md's table does not list {name}"
