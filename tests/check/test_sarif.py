"""tmemviz check's SARIF as code scanning reads it: valid against the full official SARIF 2.1.0 schema,
read by sarif-tools, with the invocation, each rule's help and link, URIs relative to the root, and
fingerprints; notes only with --notes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_run import run

import tmemviz
from tmemviz.families.check.rules import RULES

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "tests" / "kernels"
CLEAN = KERNELS / "check_triton_mma_n128.ptx"
ATOMS = KERNELS / "cutlass_atoms.ptx"
"""A real bug: its block-scaled MMA writes D past its 256 columns (tests/kernels/README.md)."""
SCHEMA = Path("shared") / "schemas" / "sarif-schema-2.1.0.json"
"""The official schema (OASIS), kept beside the repository (``../shared`` from it, or from a directory
above it), never in it."""


def official_schema() -> dict:
    for directory in REPO.parents:
        if (directory / SCHEMA).is_file():
            return json.loads((directory / SCHEMA).read_text(encoding="utf-8"))
    pytest.skip(f"the official SARIF 2.1.0 schema ({SCHEMA.as_posix()}) is not beside the repository")


def validate(log: dict) -> None:
    """Against the whole schema, formats too (uri, uri-reference, date-time)."""
    import jsonschema

    checker = jsonschema.FormatChecker()
    # The format checks run only with their validators installed (the test extras): make sure they do.
    assert not checker.conforms("a b", "uri-reference") and not checker.conforms("noon", "date-time")
    jsonschema.Draft4Validator(official_schema(), format_checker=checker).validate(log)


def sarif(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code, out, err = run(capsys, "check", *args, "--format", "sarif")
    assert err == "", err
    return code, json.loads(out)


def broken(tmp_path: Path) -> Path:
    path = tmp_path / "kernels" / "bad kernel.ptx"
    path.parent.mkdir(exist_ok=True)
    path.write_text(CLEAN.read_text().replace(".target sm_100a", ".target sm_120a"))
    return path


def test_the_log_validates_against_the_official_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, log = sarif(capsys, str(broken(tmp_path)), str(CLEAN), str(ATOMS), "--notes")
    validate(log)
    assert code == 1 and log["version"] == "2.1.0"
    (sarif_run,) = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "tmemviz" and driver["version"] == tmemviz.__version__
    assert [r["id"] for r in driver["rules"]] == [r.id for r in RULES]
    findings = [
        (x.path, f) for x in tmemviz.check([broken(tmp_path), CLEAN, ATOMS]).subject for f in x.findings
    ]
    assert len(sarif_run["results"]) == len(findings)
    for result, (path, finding) in zip(sarif_run["results"], findings, strict=True):
        assert result["ruleId"] == finding.rule == driver["rules"][result["ruleIndex"]]["id"]
        assert result["level"] == finding.severity and result["message"]["text"] == finding.message
        (location,) = result["locations"]
        assert location["physicalLocation"]["region"]["startLine"] == finding.line
        assert location["physicalLocation"]["artifactLocation"]["uri"].endswith(
            Path(path).name.replace(" ", "%20")
        )


def test_invocation_rules_and_fingerprints(capsys: pytest.CaptureFixture[str]) -> None:
    code, log = sarif(capsys, str(ATOMS))
    (sarif_run,) = log["runs"]
    (invocation,) = sarif_run["invocations"]
    assert invocation["executionSuccessful"] is True and invocation["exitCode"] == code == 1
    stamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")  # UTC
    assert stamp.match(invocation["startTimeUtc"]) and stamp.match(invocation["endTimeUtc"])
    assert invocation["startTimeUtc"] <= invocation["endTimeUtc"]
    headings = set(re.findall(r"^### `([\w-]+)`$", (REPO / "docs" / "check.md").read_text(), re.M))
    for rule, descriptor in zip(RULES, sarif_run["tool"]["driver"]["rules"], strict=True):
        assert descriptor["shortDescription"]["text"] == rule.title
        assert descriptor["fullDescription"]["text"] == rule.why
        assert (
            rule.why in descriptor["help"]["text"] and descriptor["helpUri"] in descriptor["help"]["markdown"]
        )
        assert descriptor["defaultConfiguration"]["level"] == rule.level
        # The link is docs/check.md's section of the rule: its heading is the id, so the anchor is.
        base, anchor = descriptor["helpUri"].split("#")
        assert base.endswith("/docs/check.md") and anchor == rule.id and rule.id in headings
    (result,) = sarif_run["results"]
    assert result["ruleId"] == "outside-allocation" and result["level"] == "error"
    (fingerprint,) = result["partialFingerprints"].values()
    assert re.fullmatch(r"[0-9a-f]{24}", fingerprint)


def test_uris_are_relative_to_the_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = broken(tmp_path)
    monkeypatch.chdir(tmp_path)

    def located(log: dict) -> tuple[set, dict]:
        (sarif_run,) = log["runs"]
        places = {
            json.dumps(r["locations"][0]["physicalLocation"]["artifactLocation"])
            for r in sarif_run["results"]
        }
        return {json.loads(p)["uri"] for p in places}, sarif_run["originalUriBaseIds"]

    _, log = sarif(capsys, "kernels")  # the working directory is the root by default
    uris, bases = located(log)
    assert uris == {"kernels/bad%20kernel.ptx"}
    assert bases == {"%SRCROOT%": {"uri": tmp_path.resolve().as_uri() + "/"}}
    assert all(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        for r in log["runs"][0]["results"]
    )
    _, log = sarif(capsys, str(path), "--root", "kernels")
    uris, bases = located(log)
    assert uris == {"bad%20kernel.ptx"} and bases["%SRCROOT%"]["uri"].endswith("/kernels/")
    validate(log)
    # A file outside the root has no relative URI: it is named by an absolute file URI instead.
    _, log = sarif(capsys, str(path), "--root", str(KERNELS))
    uris, _ = located(log)
    assert uris == {path.resolve().as_uri()}
    validate(log)


def test_notes_only_with_notes(capsys: pytest.CaptureFixture[str]) -> None:
    code, log = sarif(capsys, str(CLEAN))
    assert code == 0 and log["runs"][0]["results"] == []
    assert log["runs"][0]["invocations"][0]["exitCode"] == 0
    code, log = sarif(capsys, str(CLEAN), "--notes")
    levels = {r["level"] for r in log["runs"][0]["results"]}
    assert code == 0 and levels == {"note"}


def test_sarif_tools_reads_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Microsoft's sarif-tools (PyPI sarif-tools) reads the log: each finding as its record."""
    loader = pytest.importorskip("sarif.loader")
    out = tmp_path / "check.sarif"
    code, _, _ = run(capsys, "check", str(ATOMS), str(CLEAN), "--notes", "-o", str(out))
    assert code == 1
    sarif_file = loader.load_sarif_file(str(out))
    assert sarif_file.get_distinct_tool_names() == ["tmemviz"]
    records = [(r["Location"], int(r["Line"]), r["Severity"], r["Code"]) for r in sarif_file.get_records()]
    expected = [
        (Path(x.path).name, f.line, f.severity, f.rule)
        for x in tmemviz.check([ATOMS, CLEAN]).subject
        for f in x.findings
    ]
    assert [(Path(p).name, *rest) for p, *rest in records] == expected
    assert sarif_file.get_result_count() == len(expected) and "error" in sarif_file.get_severities()


def test_text_and_standard_input_are_named_by_valid_uris(tmp_path: Path) -> None:
    """``<text>`` (the API's ``text=``) is no URI as it is: it is written percent-encoded."""
    tmemviz.check(text=CLEAN.read_text().replace(".target sm_100a", ".target sm_90a")).save(
        tmp_path / "t.sarif"
    )
    log = json.loads((tmp_path / "t.sarif").read_text())
    validate(log)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]
    }
    assert uris == {"%3Ctext%3E"}
