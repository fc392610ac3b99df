"""Every benchmark number the docs quote agrees with the recorded data (benchmarks/results/*.json).

No benchmark runs here: the quotes (``<!-- bench:NAME.KEY -->`` before a number, tables between
``<!-- bench-table:NAME -->`` markers) are read from README.md, docs/*.md and benchmarks/README.md and
compared with the data by benchmarks/tables.py's rules; the checks are shown to fail on doctored copies.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import tables  # noqa: E402
from results import RESULTS  # noqa: E402

PAGES = tables.pages(REPO)
# A number with a time, size or ratio unit outside code is a measurement unless it is marked, or is one
# of these (limits and facts, not benchmark results).
NOT_MEASURED = {
    "docs/limits.md": ["228 KB"],
    "docs/api.md": ["300 KB"],  # a limit tests/test_notebook.py asserts
    "docs/check.md": ["1 MB", "2 MB"],  # the TMEM map's size limits, asserted by tests/check
}
MEASUREMENT = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?: ?(?:ms|s|KB|MB|GB)|x)(?![\w-])")


def _relative(page: Path) -> str:
    return page.relative_to(REPO).as_posix()


@pytest.mark.parametrize("page", PAGES, ids=_relative)
def test_quoted_numbers_agree_with_the_data(page: Path) -> None:
    found = tables.problems(page.read_text(encoding="utf-8"), RESULTS)
    assert not found, f"{_relative(page)} (rewrite: python benchmarks/tables.py):\n" + "\n".join(found)


def test_the_docs_quote_the_data() -> None:
    """Marked quotes exist on every page that states benchmark results, and every data file is quoted."""
    quoted = {key.split(".")[0] for page in PAGES for key, _, _ in tables.quotes(page.read_text())}
    for page in PAGES:
        quoted |= {m.group("name").split("-")[0] for m in tables.TABLE.finditer(page.read_text())}
    for data in RESULTS.glob("*.json"):
        assert data.stem in quoted, f"benchmarks/results/{data.name} is quoted nowhere"


def _prose(text: str) -> str:
    """``text`` without code blocks, code spans, marked quotes and generated tables."""
    spans = sorted((m.start(), m.end()) for _, m, _ in tables.quotes(text) if m is not None)
    for start, end in reversed(spans):
        text = text[:start] + " " + text[end:]
    text = tables.TABLE.sub("", text)
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return tables.MARK.sub("", re.sub(r"`[^`\n]*`", "", text))


@pytest.mark.parametrize("page", PAGES, ids=_relative)
def test_no_unmarked_measurement(page: Path) -> None:
    """A time, size or ratio in prose is marked (so checked), or is a listed limit."""
    allowed = NOT_MEASURED.get(_relative(page), [])
    found = MEASUREMENT.finditer(_prose(page.read_text()))
    unmarked = [m.group(0) for m in found if m.group(0) not in allowed]
    assert not unmarked, f"{_relative(page)}: unmarked measurements {unmarked}; mark each <!-- bench:KEY -->"


def test_every_data_file_says_where_and_when() -> None:
    for path in sorted(RESULTS.glob("*.json")):
        data = json.loads(path.read_text())
        assert path.read_text() == json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", path
        for field in ("benchmark", "command", "date", "machine", "tools", "conditions", "results"):
            assert field in data, f"{path.name} has no {field}"
        assert {"cores", "cpu", "python"} <= set(data["machine"]), path.name
        for key, entry in data["results"].items():
            assert {"value", "unit", "noise", "what"} <= set(entry), f"{path.name}: {key}"
            assert entry["noise"] >= 0, f"{path.name}: {key}"
            assert "measured" not in entry or entry["measured"].startswith("as measured on 20"), key


# The checks can fail: on doctored copies of a real page and of the data.

QUOTE = "explain.corpus.cpu_s"


def _page_quoting(key: str) -> tuple[Path, str]:
    for page in PAGES:
        text = page.read_text()
        if f"<!-- bench:{key}" in text:
            return page, text
    raise AssertionError(f"no page quotes {key}")


def test_a_doctored_number_fails() -> None:
    _, text = _page_quoting(QUOTE)
    entry = tables.lookup(QUOTE, RESULTS)
    value, noise = float(entry["value"]), float(entry["noise"])
    mark = f"<!-- bench:{QUOTE} -->"
    at = text.index(mark) + len(mark)
    shown = tables.VALUE.match(text, at)
    assert shown and shown.group("num")
    assert not tables.problems(text, RESULTS)
    doctored = text[:at] + f"{value * (1.2 + 2 * noise):.2f}" + text[shown.end("num") :]
    assert any(QUOTE in why for why in tables.problems(doctored, RESULTS))
    within = text[:at] + f"{value * 1.01:.2f}" + text[shown.end("num") :]
    assert not tables.problems(within, RESULTS), "1% off is within the noise"


def test_a_missing_key_or_file_fails(tmp_path: Path) -> None:
    _, text = _page_quoting(QUOTE)
    for data in RESULTS.glob("*.json"):
        shutil.copy(data, tmp_path / data.name)
    assert not tables.problems(text, tmp_path)
    explain = json.loads((tmp_path / "explain.json").read_text())
    del explain["results"][QUOTE.split(".", 1)[1]]
    (tmp_path / "explain.json").write_text(json.dumps(explain))
    assert any("has no result" in why for why in tables.problems(text, tmp_path))
    (tmp_path / "explain.json").unlink()
    assert any("no data file" in why for why in tables.problems(text, tmp_path))


def test_a_changed_value_fails_its_table(tmp_path: Path) -> None:
    text = (REPO / "benchmarks" / "README.md").read_text()
    assert "<!-- bench-table:explain -->" in text
    for data in RESULTS.glob("*.json"):
        shutil.copy(data, tmp_path / data.name)
    explain = json.loads((tmp_path / "explain.json").read_text())
    explain["results"]["plain.cpu_s"]["value"] *= 2
    (tmp_path / "explain.json").write_text(json.dumps(explain))
    assert any("table explain" in why for why in tables.problems(text, tmp_path))
    rewritten = tables.rewrite_tables(text, tmp_path)
    assert not [why for why in tables.problems(rewritten, tmp_path) if "table" in why]


def test_rewriting_keeps_the_text_and_precision(tmp_path: Path) -> None:
    (tmp_path / "demo.json").write_text(json.dumps({"date": "2026-01-01T00:00Z", "results": {
        "t": {"value": 1.4449, "unit": "s", "noise": 0.05, "what": ""},
        "b": {"value": 84_992, "unit": "bytes", "noise": 0.01, "what": ""},
        "n": {"value": 25_713, "unit": "count", "noise": 0.0, "what": ""},
        "lo": {"value": 0.31, "unit": "s", "noise": 0.05, "what": ""},
        "hi": {"value": 0.79, "unit": "s", "noise": 0.05, "what": ""},
        "v": {"value": "met", "unit": "", "noise": 0.0, "what": ""},
    }}))  # fmt: skip
    text = (
        "about <!-- bench:demo.t -->9.9 s, <!-- bench:demo.b -->1 KB, <!-- bench:demo.n -->1,000 "
        "instructions, <!-- bench:demo.lo,demo.hi -->0.1-0.2 s; "
        "the goal is <!-- bench:demo.v -->**missed**."
    )
    assert len(tables.problems(text, tmp_path)) == 6
    new = tables.rewrite_quotes(text, tmp_path)
    assert new == (
        "about <!-- bench:demo.t -->1.4 s, <!-- bench:demo.b -->83 KB, "
        "<!-- bench:demo.n -->25,700 instructions, <!-- bench:demo.lo,demo.hi -->0.3-0.8 s; "
        "the goal is <!-- bench:demo.v -->**met**."
    )
    assert not tables.problems(new, tmp_path)
