"""explain -f json is streamed: the same bytes as the document's JSON, written as records are made."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

import tmemviz
from tests.cli_run import bad, ok
from tmemviz.api import catalog
from tmemviz.families.explain.document import NOTES
from tmemviz.families.explain.ops import Explainer
from tmemviz.families.explain.scan import Module, records
from tmemviz.families.explain.source import scanned
from tmemviz.families.explain.stream import write_json

FIXTURES = Path(__file__).parents[1] / "kernels"
ALL = sorted(FIXTURES.glob("*.ptx"))


def streamed(paths: list[Path]) -> str:
    out = io.BytesIO()
    explainer = Explainer(catalog())
    write_json(scanned(paths, None, explainer), explainer, out.write, NOTES)
    return out.getvalue().decode()


def test_streamed_json_is_the_documents_json() -> None:
    assert streamed(ALL) == tmemviz.explain(ALL).to_json()
    for path in ALL:
        assert streamed([path]) == tmemviz.explain([path]).to_json()


def test_sass_between_ptx_modules_streams_as_the_document() -> None:
    """A PTX module's repeats are written from one shared record (ops.Explainer.shared); a SASS listing's
    records are rewritten on the way and are not: the same bytes either way, in any order."""
    sass = sorted(FIXTURES.glob("*.sass"))
    paths = [FIXTURES / "cute_dsl_fmha.ptx", *sass, FIXTURES / "cute_dsl_scaled_nvf4.ptx", sass[0]]
    assert streamed(paths) == tmemviz.explain(paths).to_json()
    seen: list[tuple[str, bool]] = []

    class Spy(Explainer):
        def __call__(self, line, statement, parsed, fn, module):  # type: ignore[no-untyped-def]
            seen.append((getattr(module, "language", "ptx"), self.shared))
            return super().__call__(line, statement, parsed, fn, module)

    spy = Spy(catalog())
    write_json(scanned(paths, None, spy), spy, io.BytesIO().write, NOTES)
    assert {kind: shared for kind, shared in seen} == {"ptx": True, "sass": False} and not spy.shared


def test_a_repeat_is_the_statements_one_shared_record_while_streaming() -> None:
    lines = (FIXTURES / "cute_dsl_fmha.ptx").read_text().splitlines()
    explainer = Explainer(catalog())
    explainer.lazy_cells = explainer.shared = True
    made = list(records(Module("k.ptx"), lines, explainer))
    assert len({id(r) for r in made}) < len(made)  # the same dict, its head set each time
    explainer.shared = False
    fresh = list(records(Module("k.ptx"), lines, explainer))
    assert len({id(r) for r in fresh}) == len(fresh)  # not shared: every record its own


def test_cli_json_to_stdout_and_to_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = FIXTURES / "cutlass_atoms.ptx"
    text = ok(capsys, "explain", str(path), "-f", "json")
    assert text == tmemviz.explain([path]).to_json()
    ok(capsys, "explain", str(path), "-o", str(tmp_path / "a.json"))
    assert (tmp_path / "a.json").read_text() == text


def test_records_are_written_before_the_module_ends() -> None:
    """The first record is out while the rest of the module has not been read."""
    written: list[bytes] = []
    consumed = []

    def lines():
        yield from [".target sm_100a\n", ".entry k()\n", "{\n", "tcgen05.wait::ld.sync.aligned;\n"]
        consumed.append(len(written))
        yield "}\n"

    explainer = Explainer(catalog())
    module = Module("k.ptx")
    write_json([(module, records(module, lines(), explainer))], explainer, written.append)
    assert consumed and any(b"wait::ld" in w for w in written[: consumed[0]])


def test_stdin_twice_is_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    err = bad(capsys, "explain", "-", "-")
    assert "standard input (-) can be read only once" in err and "Traceback" not in err


def test_a_statement_that_never_ends_is_cut_and_warned(tmp_path: Path) -> None:
    path = tmp_path / "endless.ptx"
    with path.open("w") as f:
        f.write(".target sm_100a\n.entry k()\n{\ntcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1,\n")
        for _ in range(20_000):
            f.write("%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1,\n")
        f.write("}, [%r2];\ntcgen05.wait::ld.sync.aligned;\n}\n")
    f_ = tmemviz.explain([path]).lists()[0][1][0]
    assert any("was cut there" in w["message"] for w in f_["warnings"])
    # Reading went on after the cut: the statement after the next ';' is explained.
    assert any(i["op"] == "wait::ld" for i in f_["instructions"])


def test_huge_numbers_are_one_warning_not_a_traceback() -> None:
    """One warning per statement that matters: the tcgen05 line, and the mov whose value an alloc asks
    for (a mov nothing asks about is not looked at)."""
    big = "1" + "0" * 5000
    text = (f".entry k()\n{{\nmov.b32 %r6, {big};\nmov.b32 %r7, {big};\n"
            "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r9], %r6;\n"
            f"tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2 + {big}], {{%r3}};\n}}\n")  # fmt: skip
    f = tmemviz.explain(text=text).lists()[0][1][0]
    assert [w["line"] for w in f["warnings"] if "64-bit" in w["message"]] == [3, 6]


@pytest.mark.skipif(sys.platform != "linux", reason="/dev/zero")
def test_dev_zero_is_refused_not_read_forever(capsys: pytest.CaptureFixture[str]) -> None:
    assert "not a regular file" in bad(capsys, "explain", "/dev/zero")
    assert "not a regular file" in bad(capsys, "explain", "/dev/zero", "-f", "json")


@pytest.mark.parametrize("name", ["cute_dsl_fmha.ptx", "cutlass_atoms.ptx", "triton_ld_red_sm103a.ptx"])
def test_the_table_from_row_sized_records_is_the_documents(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    path = FIXTURES / name
    ok(capsys, "explain", str(path), "-o", str(tmp_path / "a.txt"))
    tmemviz.explain([path]).save(tmp_path / "b.txt")
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()


def test_a_missing_second_file_writes_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = bad(
        capsys, "explain", str(FIXTURES / "cutlass_atoms.ptx"), str(tmp_path / "none.ptx"), "-f", "json"
    )
    assert "cannot read" in err and "none.ptx" in err
    assert "is a directory" in bad(capsys, "explain", str(tmp_path), "-f", "json")


def test_json_to_a_stdout_that_takes_text_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The JSON is written as bytes; a stdout without a byte buffer (a notebook's, a redirected one) gets
    the same text."""
    from tmemviz.families.explain.source import stream_json

    path = FIXTURES / "cute_dsl_gemm.ptx"
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    stream_json([path], None, catalog(), None)
    assert out.getvalue() == tmemviz.explain([path]).to_json()
