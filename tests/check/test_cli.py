"""tmemviz check at the command line: formats, exit statuses 0/1/2, the TMEM map (SARIF: test_sarif.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import bad, flat, run

import tmemviz

KERNELS = Path(__file__).parents[1] / "kernels"
CLEAN = KERNELS / "check_triton_mma_n128.ptx"
FIGURES = sorted(p.name for p in KERNELS.glob("*.ptx"))


def broken(tmp_path: Path) -> Path:
    path = tmp_path / "bad.ptx"
    path.write_text(CLEAN.read_text().replace(".target sm_100a", ".target sm_120a"))
    return path


def test_exit_statuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", str(CLEAN))
    # Notes are left out by default, and the table says how many (--notes shows them).
    assert (code, err) == (0, "") and "no findings (not shown: 2 notes)" in flat(out)
    assert "2 notes not shown: --notes shows them" in out
    code, out, err = run(capsys, "check", str(CLEAN), "--notes")
    assert (code, err) == (0, "") and "2 notes" in out and "compute capability 10.0 only" in flat(out)
    code, out, err = run(capsys, "check", str(broken(tmp_path)), str(CLEAN))
    assert code == 1 and "target" in out and err == ""
    line = bad(capsys, "check", str(tmp_path / "missing.ptx"))
    assert "missing.ptx" in line
    (tmp_path / "bin.ptx").write_bytes(b"\x00\xff\xfe")
    bad(capsys, "check", str(tmp_path / "bin.ptx"))


def test_json_is_files_with_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", str(broken(tmp_path)), "--format", "json")
    doc = json.loads(out)
    # The caveat the table prints travels with the JSON (P18: JSON keeps what .notes carry).
    assert code == 1 and list(doc) == ["notes", "files"] and all(isinstance(n, str) for n in doc["notes"])
    (f,) = doc["files"]
    assert f["path"].endswith("bad.ptx")
    assert all(set(x) == {"line", "severity", "rule", "message"} for x in f["findings"])
    assert {x["rule"] for x in f["findings"] if x["severity"] == "error"} == {"target"}
    assert {x["severity"] for x in f["findings"]} == {"error"}, "notes only with --notes"
    assert any("note not shown" in n or "notes not shown" in n for n in doc["notes"])


@pytest.mark.parametrize("name", FIGURES)
def test_the_map_draws_within_the_figure_budgets(name: str, tmp_path: Path) -> None:
    doc = tmemviz.check(KERNELS / name)
    png, html = doc.save(tmp_path / "map.png"), doc.save(tmp_path / "map.html")
    assert png.stat().st_size <= 1 << 20 and html.stat().st_size <= 2 << 20
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and b"<html" in html.read_bytes()[:200].lower()


def test_the_map_marks_outside_in_the_error_colour() -> None:
    from tmemviz.families.explain.mapbands import OUTSIDE

    text = CLEAN.read_text().replace("shared::cta.b32 [%r4], 128;", "shared::cta.b32 [%r4], 64;")
    spec = tmemviz.check(text=text).figure("auto")
    _, _, columns = spec.panels  # the kernel's budget, the allocation's lifetime, its columns
    past = [b for b in columns.boxes if b.fill == OUTSIDE]
    assert columns.width == 128 and OUTSIDE == "#e31a1c"
    assert past and all(b.x == 64 for b in past), "the columns from 64 on are past the 64 allocated"
    assert all("outside the allocation" in b.tooltip for b in past)


def test_explain_draws_the_same_map(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import io

    out = tmp_path / "map.svg"
    code, _, err = run(capsys, "explain", str(CLEAN), "-o", str(out))
    assert (code, err) == (0, "") and out.read_bytes().startswith(b"<?xml")
    spec = tmemviz.explain(CLEAN).figure("auto")
    assert spec.panels == tmemviz.check(CLEAN).figure("auto").panels
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(CLEAN.read_bytes())))
    # the map follows the one read of the input, so standard input is drawn too (nothing is read twice)
    code, _, err = run(capsys, "explain", "-", "-o", str(tmp_path / "stdin.png"))
    assert (code, err) == (0, "") and (tmp_path / "stdin.png").read_bytes().startswith(b"\x89PNG")


def test_check_reads_standard_input_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(CLEAN.read_bytes())))
    out = tmp_path / "map.html"
    code, _, err = run(capsys, "check", "-", "-o", str(out))
    assert (code, err) == (0, "") and out.stat().st_size > 0


def test_sarif_is_a_form_of_the_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The API's save() writes the SARIF that -o FILE.sarif writes (one document, one writer)."""
    bad_ptx = broken(tmp_path)
    code, _, _ = run(capsys, "check", str(bad_ptx), "--notes", "-o", str(tmp_path / "cli.sarif"))
    assert code == 1
    tmemviz.check(bad_ptx).save(tmp_path / "api.sarif")  # the API's document keeps every finding

    def timeless(path: Path) -> dict:
        log = json.loads(path.read_text())
        for invocation in log["runs"][0]["invocations"]:
            assert invocation.pop("startTimeUtc") <= invocation.pop("endTimeUtc")
        return log

    assert timeless(tmp_path / "api.sarif") == timeless(tmp_path / "cli.sarif")
