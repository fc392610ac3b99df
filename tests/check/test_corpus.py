"""explain and check on the corpus of real Blackwell kernels that ``python benchmarks/corpus.py`` builds
from registry packages and this project's kernel sources (CUTLASS's examples, CuTe DSL, Triton/Gluon,
nvcc, quack-kernels; nobody here tuned tmemviz for them).

Runs only where the corpus is: ``TMEMVIZ_CORPUS=DIR`` or ``.corpus/manifest.json`` at the repository
root; otherwise every test here is skipped with the reason. explain must read every tcgen05 instruction
of every PTX module and cubin (no "not read as PTX" warning, no instruction it could not decode; every
MMA of a PTX with its M and N decoded), and
check must report no error or warning but those listed, with the reason, in
``benchmarks/corpus-allowed.json`` (only wait-ld findings whose SASS was read belong there: ``sass`` says
"confirmed" where ptxas's code has the path too, "ordered" where ptxas happens to order what the PTX does
not, as ``benchmarks/waits_in_sass.py`` found by assembling each kernel with its PTX lines tagged), and
must report the bug a kernel keeps on purpose (its manifest entry's ``expected_findings`` rules). Where
a module has such findings, check is given its cubin (``--sass``) and must agree with that independent
reading: a "confirmed" one stays a warning that the SASS confirms, an "ordered" one becomes a note saying
the SASS orders it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import tmemviz

ROOT = Path(__file__).resolve().parents[2]
ALLOWED_FILE = ROOT / "benchmarks" / "corpus-allowed.json"


def corpus_dir() -> Path | None:
    named = os.environ.get("TMEMVIZ_CORPUS")
    if named:
        return Path(named)
    default = ROOT / ".corpus"
    return default if (default / "manifest.json").is_file() else None


DIR = corpus_dir()
MANIFEST: dict[str, Any] | None = (
    json.loads((DIR / "manifest.json").read_text()) if DIR and (DIR / "manifest.json").is_file() else None
)
pytestmark = pytest.mark.skipif(
    MANIFEST is None,
    reason="no kernel corpus: build one with `python benchmarks/corpus.py` (into .corpus/) or set "
    "TMEMVIZ_CORPUS to a corpus folder holding manifest.json"
    + (f" ({DIR} has no manifest.json)" if DIR else ""),
)
FILES = MANIFEST["files"] if MANIFEST else []
PTX = sorted(f["path"] for f in FILES if f["path"].endswith(".ptx"))
CUBINS = sorted(f["path"] for f in FILES if f["path"].endswith(".cubin"))


def allowed() -> list[dict[str, Any]]:
    return json.loads(ALLOWED_FILE.read_text())


def test_the_manifest_says_what_each_file_is() -> None:
    """Every file listed is there and says where it comes from; every PTX has its cubin and listing."""
    assert DIR is not None
    keys = {"path", "project", "compiler", "compiler_version", "made", "source"}
    for entry in FILES:
        assert keys <= entry.keys(), entry["path"]
        assert (DIR / entry["path"]).is_file(), entry["path"]
        if entry["path"].endswith(".ptx"):
            assert {"kind", "persistent", "warp_specialized", "cta_group"} <= entry.keys(), entry["path"]
    paths = {entry["path"] for entry in FILES}
    for ptx in PTX:
        stem = ptx.removesuffix(".ptx")
        assert f"{stem}.cubin" in paths and f"{stem}.sass" in paths, f"{ptx}: no cubin or listing"


def test_the_allowed_findings_are_verified_wait_ld_warnings_of_the_corpus() -> None:
    """Each allowed finding names a corpus PTX, a line, the wait-ld rule and why it stands."""
    names = set(PTX)
    for item in allowed():
        assert set(item) == {"file", "line", "rule", "sass", "why"}, item
        assert item["rule"] == "wait-ld" and item["why"].strip(), item
        assert item["sass"] in ("confirmed", "ordered") and "SASS (ptxas 13.5" in item["why"], item
        assert item["file"] in names, f"{item['file']} is not in the corpus"


@pytest.mark.parametrize("path", PTX + CUBINS)
def test_explain_reads_every_instruction(path: str) -> None:
    assert DIR is not None
    modules = tmemviz.explain([DIR / path]).lists()[0][1]
    assert modules, f"{path}: explain found no module"
    not_read = [
        (w["line"], w["message"]) for m in modules for w in m["warnings"] if "not read" in w["message"]
    ]
    refused = [
        (i["line"], i.get("error", i["op"]))
        for m in modules
        for i in m["instructions"]
        if "error" in i or i["op"] == "unknown"
    ]
    assert not_read == [] and refused == []
    if path.endswith(".ptx"):  # every MMA's shape from the PTX: each compiler builds its idesc from constants
        shapeless = [
            i["line"]
            for m in modules
            for i in m["instructions"]
            if i["op"] == "mma" and not ((i.get("idesc") or {}).get("m") and (i.get("idesc") or {}).get("n"))
        ]
        assert shapeless == [], f"{path}: M and N not decoded on lines {shapeless[:5]}"


EXPECTED = {f["path"]: set(f.get("expected_findings", [])) for f in FILES}


@pytest.mark.parametrize("path", PTX)
def test_check_reports_nothing_but_what_is_allowed(path: str) -> None:
    assert DIR is not None
    listed = {item["line"]: item for item in allowed() if item["file"] == path}
    # Given the cubin only where the SASS has something to judge (reading it costs an nvdisasm run).
    sass = DIR / path.replace(".ptx", ".cubin") if listed else None
    (checked,) = tmemviz.check(DIR / path, sass=sass).subject
    found = sorted(
        (f.line, f.rule, f.message) for f in checked.findings if f.severity in ("error", "warning")
    )
    ok = {line for line, item in listed.items() if item["sass"] == "confirmed"}
    expected = EXPECTED[path]
    assert [f for f in found if not (f[0] in ok and f[1] == "wait-ld") and f[1] not in expected] == []
    assert expected <= {rule for _, rule, _ in found}, f"{path}: the bug it keeps on purpose is not reported"
    judged = {f.line: f for f in checked.findings if f.rule == "wait-ld" and f.line in listed}
    for line, item in listed.items():
        f = judged.get(line)
        assert f is not None, f"{path}:{line}: the listed wait-ld finding is gone"
        if item["sass"] == "confirmed":
            assert f.severity == "warning", f.message
            assert "the SASS given confirms it" in f.message, f.message
        else:
            assert f.severity == "note" and "the SASS given orders it" in f.message, f.message
