"""Baselines: --write-baseline records the findings, --baseline takes them out of later runs, matched by
file, rule and a fingerprint that survives lines added above and registers renumbered; a new finding
still fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from check.test_options import COLS, LEAK
from cli_run import bad, run

from tmemviz.families.check.baseline import fingerprints, normalized
from tmemviz.families.check.findings import Finding


def shifted(text: str) -> str:
    """The same kernel, edited as a recompile would: lines added above everything and before the alloc,
    its registers renumbered."""
    text = text.replace("%r1", "%r31").replace("%r2", "%r32")
    text = "// regenerated\n//\n//\n" + text
    return text.replace("mov.b32 %r31, smem;", "mov.b32 %r5, 7;\nadd.s32 %r6, %r5, 1;\n\nmov.b32 %r31, smem;")


def second_kernel(text: str) -> str:
    """``text`` with its .entry k repeated as k2 (the same statements, so the same fingerprints' texts)."""
    body = text[text.index(".visible .entry") :]
    return text + body.replace(".entry k(", ".entry k2(")


@pytest.fixture
def kernels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "cols.ptx").write_text(COLS)
    (tmp_path / "k" / "leak.ptx").write_text(LEAK)
    return tmp_path


def shown(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[tuple[str, int, str]]]:
    code, out, err = run(capsys, "check", *args, "-f", "json")
    assert err == "", err
    return code, [
        (Path(f["path"]).name, x["line"], x["rule"]) for f in json.loads(out)["files"] for x in f["findings"]
    ]


def test_round_trip(kernels: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, before = shown(capsys, "k")
    assert code == 1 and len(before) == 3
    code, out, err = run(capsys, "check", "k", "--write-baseline", "tmemviz-baseline.json")
    # Written, then used at once: nothing left to fail on, and the table says what the baseline holds.
    assert (code, err) == (0, "") and "3 findings recorded in the baseline tmemviz-baseline.json" in out
    recorded = json.loads((kernels / "tmemviz-baseline.json").read_text())
    assert recorded["tmemviz-check-baseline"] == 1
    assert [(e["path"], e["line"], e["rule"]) for e in recorded["findings"]] == [
        ("k/cols.ptx", 10, "alloc-columns"),
        ("k/cols.ptx", 15, "alloc-columns"),
        ("k/leak.ptx", 10, "never-freed"),
    ]
    assert shown(capsys, "k", "--baseline", "tmemviz-baseline.json") == (0, [])
    # Lines added above, registers renumbered: the same findings, on other lines, still recorded.
    (kernels / "k" / "cols.ptx").write_text(shifted(COLS))
    (kernels / "k" / "leak.ptx").write_text(shifted(LEAK))
    code, moved = shown(capsys, "k")
    assert code == 1 and [line for _, line, _ in moved] == [16, 21, 16]
    assert shown(capsys, "k", "--baseline", "tmemviz-baseline.json") == (0, [])
    # A new finding fails, and only it is shown: another target, and the same bug once more.
    (kernels / "k" / "leak.ptx").write_text(shifted(LEAK).replace("sm_100a", "sm_120a"))
    assert shown(capsys, "k", "--baseline", "tmemviz-baseline.json") == (1, [("leak.ptx", 16, "target")])
    (kernels / "k" / "leak.ptx").write_text(shifted(LEAK))
    (kernels / "k" / "cols.ptx").write_text(second_kernel(shifted(COLS)))
    code, new = shown(capsys, "k", "--baseline", "tmemviz-baseline.json")
    assert code == 1 and [(name, rule) for name, _, rule in new] == [("cols.ptx", "alloc-columns")] * 2
    assert all(line > 25 for _, line, _ in new), "the second kernel's two, not the first's"


def test_a_baseline_holds_what_the_run_shows(kernels: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "check", "k", "--select", "never-freed", "--notes", "--write-baseline", "b.json")
    recorded = json.loads((kernels / "b.json").read_text())["findings"]
    assert [(e["rule"], e["severity"]) for e in recorded] == [("never-freed", "warning")]
    # Findings the baseline does not record fail; paths are relative to the baseline's directory.
    (kernels / "sub").mkdir()
    (kernels / "sub" / "b.json").write_text((kernels / "b.json").read_text().replace('"k/', '"../k/'))
    code, left = shown(capsys, "k", "--baseline", "sub/b.json")
    assert code == 1 and sorted(r for _, _, r in left) == ["alloc-columns", "alloc-columns"]


def test_an_output_that_cannot_be_written_writes_no_baseline(
    kernels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad(capsys, "check", "k", "--write-baseline", "b.json", "-o", "out.yaml")
    assert not (kernels / "b.json").exists()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (None, "cannot read the baseline b.json"),
        ("{", "the baseline b.json is not JSON"),
        ("[]", "is not a tmemviz check baseline"),
        ('{"tmemviz-check-baseline": 2, "findings": []}', "is not a tmemviz check baseline"),
        (
            '{"tmemviz-check-baseline": 1, "findings": [{"path": "k/a.ptx"}]}',
            "finding 1 needs a path, a rule",
        ),
    ],
)
def test_a_bad_baseline_is_refused(
    text: str | None, said: str, kernels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if text is not None:
        (kernels / "b.json").write_text(text)
    assert said in bad(capsys, "check", "k", "--baseline", "b.json")


def test_fingerprints() -> None:
    text = "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 48;"
    assert normalized("  " + text.replace("%r1", "%r17") + " // nCols") == normalized(text)
    assert normalized(text) != normalized(text.replace("48", "64")), "immediates are what is wrong"
    a, b = Finding(10, "error", "alloc-columns", "x 48"), Finding(90, "error", "alloc-columns", "x 48")
    first = fingerprints([a, b], {10: text, 90: text})
    assert len(set(first.values())) == 2, "the same statement twice: two occurrences, two fingerprints"
    moved = fingerprints([Finding(12, "error", "alloc-columns", "x 48")], {12: text.replace("%r1", "%r7")})
    assert list(moved.values()) == [first[a]]
    # Without a statement's text, the message stands in, its numbers (lines among them) dropped.
    m1 = fingerprints([Finding(3, "warning", "wait-ld", "the ld on line 7")], {})
    m2 = fingerprints([Finding(9, "warning", "wait-ld", "the ld on line 13")], {})
    assert m1.popitem()[1] == m2.popitem()[1]
