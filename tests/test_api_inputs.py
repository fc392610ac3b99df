"""explain and check take what a notebook holds (issue P21): a path, a pathlib.Path, PTX or SASS text
told by content (never tried as a file name), cubin bytes, and a compiled kernel's ``.asm``; each
refusal is one clipped sentence."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import tmemviz
from tmemviz import TmemvizError
from tmemviz.sass.cubin import find_nvdisasm

KERNELS = Path(__file__).resolve().parent / "kernels"
PTX = KERNELS / "triton_mma_epilogue.ptx"
BIG = KERNELS / "cutlass_example72_nvfp4_gemm.ptx"  # ~150 KB: a module a compiler hands over as one string
CUBIN = KERNELS / "triton_16x256b.cubin"
SASS = KERNELS / "triton_split_16x32bx2.sass"
needs_nvdisasm = pytest.mark.skipif(find_nvdisasm() is None, reason="nvdisasm is absent (a test extra)")


def instructions(doc: Any) -> list[list[dict[str, Any]]]:
    """Each file's records without its name: what two ways of giving the same kernel must agree on."""
    return [[{k: v for k, v in i.items()} for i in f.instructions] for f in doc.cells]


class Compiled:
    """What Triton's CompiledKernel offers tmemviz: a name and an ``asm`` mapping."""

    def __init__(self, name: str, **asm: Any) -> None:
        self.name = name
        self.asm = asm


def test_text_path_and_pathlib_give_the_same_records() -> None:
    by_path = tmemviz.explain(str(PTX))
    assert instructions(tmemviz.explain(PTX)) == instructions(by_path)
    text = tmemviz.explain(PTX.read_text())
    assert instructions(text) == instructions(by_path)
    assert [f.path for f in text.cells] == ["<text>"] and by_path.cells[0].path == str(PTX)
    assert instructions(tmemviz.explain(text=PTX.read_text())) == instructions(by_path)


def test_a_whole_module_as_text_is_read_not_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = BIG.read_text()
    assert len(text) > 100_000
    doc = tmemviz.explain(text)
    assert doc.cells[0].path == "<text>" and len(doc.cells[0].instructions) > 10
    assert tmemviz.check(text).cells[0].path == "<text>"


@pytest.mark.parametrize(
    "text",
    [
        ".version 9.0",
        ".target sm_100a",
        ".visible .entry k()",
        "tcgen05.wait::ld.sync.aligned;",
        "        /*0030*/   LDTM.x8 R4, tmem[UR4] ;",
        "  LDTM.x8 R4, tmem[UR4] ;",
    ],
)
def test_one_line_of_code_is_text(text: str) -> None:
    doc = tmemviz.explain(text)
    assert doc.cells[0].path == "<text>"


def test_sass_text_is_explained_as_sass() -> None:
    from_file = tmemviz.explain(SASS)
    from_text = tmemviz.explain(SASS.read_text())
    assert from_text.cells[0].path == "<text>"
    assert instructions(from_text) == instructions(from_file) and len(from_text.cells[0].instructions) > 0


@pytest.mark.parametrize("name", ["kernel.ptx", "x" * 5000, "a b " * 300, "it's " * 100])
def test_a_missing_file_is_one_clipped_sentence(name: str) -> None:
    for call in (tmemviz.explain, tmemviz.check):
        with pytest.raises(TmemvizError) as caught:
            call(name)
        message = str(caught.value)
        assert message.startswith("cannot read '") and "no such file" in message
        assert "\n" not in message and len(message) < 400, message
        if len(name) > 200:
            assert f"({len(name)} characters)" in message


@pytest.mark.parametrize(
    ("given", "words"),
    [
        (3, "got the int 3"),
        (b"\xff\xfe\x00", "neither a cubin (ELF) nor PTX or SASS text"),
        (b"just some bytes", "neither a cubin (ELF) nor PTX or SASS text"),
        (object(), "explain takes a path, PTX or SASS text, cubin bytes or a compiled kernel"),
        (Compiled("k", ttir="module {}"), "holds no 'ptx' text or 'cubin' bytes (it holds 'ttir')"),
    ],
)
def test_what_explain_cannot_take_is_said(given: Any, words: str) -> None:
    with pytest.raises(TmemvizError, match=None) as caught:
        tmemviz.explain(given)
    assert words in str(caught.value)


def test_ptx_as_bytes_and_lists_of_anything() -> None:
    data = PTX.read_bytes()
    assert instructions(tmemviz.explain(data)) == instructions(tmemviz.explain(PTX))
    doc = tmemviz.explain([PTX, PTX.read_text(), Compiled("mma_epilogue", ptx=PTX.read_text())])
    assert [f.path for f in doc.cells] == [str(PTX), "<text>", "<mma_epilogue.ptx>"]
    two = tmemviz.explain([PTX.read_text(), PTX.read_text()])
    assert [f.path for f in two.cells] == ["<text 1>", "<text 2>"]


def test_a_compiled_kernel_gives_its_ptx() -> None:
    kernel = Compiled("mma_epilogue", ptx=PTX.read_text(), cubin=CUBIN.read_bytes(), ttir="module {}")
    doc = tmemviz.explain(kernel)
    assert [f.path for f in doc.cells] == ["<mma_epilogue.ptx>"]
    assert instructions(doc) == instructions(tmemviz.explain(PTX))
    checked = tmemviz.check(kernel)
    assert [f.path for f in checked.cells] == ["<mma_epilogue.ptx>"]
    assert [f.findings for f in checked.cells] == [f.findings for f in tmemviz.check(PTX).cells]


@needs_nvdisasm
def test_cubin_bytes_are_explained_as_their_sass() -> None:
    by_path = tmemviz.explain(CUBIN)
    doc = tmemviz.explain(CUBIN.read_bytes())
    assert [f.path for f in doc.cells] == ["<cubin>"]
    assert instructions(doc) == instructions(by_path) and len(doc.cells[0].instructions) > 0
    only_cubin = tmemviz.explain(Compiled("roundtrip", cubin=CUBIN.read_bytes()))
    assert [f.path for f in only_cubin.cells] == ["<roundtrip.cubin>"]
    assert instructions(only_cubin) == instructions(by_path)


def test_cubin_bytes_without_nvdisasm_say_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import tmemviz.sass.cubin

    monkeypatch.setattr(tmemviz.sass.cubin, "find_nvdisasm", lambda: None)
    with pytest.raises(TmemvizError) as caught:
        tmemviz.explain(CUBIN.read_bytes())
    message = str(caught.value)
    assert message.startswith("<cubin> is a cubin; explaining it needs NVIDIA's nvdisasm")
    assert "pip install '.[sass]'" in message and "nvidia-cuda-nvdisasm" in message
    assert "tmemviz-" not in message and os.sep + "0.cubin" not in message  # no temporary path


def test_check_refuses_cubins_and_sass_in_its_words() -> None:
    with pytest.raises(TmemvizError, match=r"^<cubin> is a cubin \(an ELF file\), but tmemviz check judges"):
        tmemviz.check(CUBIN.read_bytes())
    with pytest.raises(TmemvizError, match=r"^<text> is a SASS listing, but tmemviz check judges PTX"):
        tmemviz.check(SASS.read_text())
    with pytest.raises(TmemvizError, match=r"^the text is empty"):
        tmemviz.check(b"\n.version 9.0\n".decode().replace(".version 9.0", "") + "\n")


def test_the_reader_package_and_the_api_keep_their_names() -> None:
    """``tmemviz.ptx`` is the PTX reader package, whether or not it was imported first; the command
    ``tmemviz ptx`` is the function ``tmemviz.emit``."""
    import tmemviz.ptx.line

    assert not callable(tmemviz.ptx) and tmemviz.ptx.line.parse_line is not None
    assert callable(tmemviz.explain) and callable(tmemviz.check)


def test_emit_is_the_ptx_command() -> None:
    """``tmemviz ptx`` in Python is ``tmemviz.emit`` (``tmemviz.ptx`` names the reader package)."""
    doc = tmemviz.emit("SM100_TMEM_LOAD_16dp256b4x")
    assert [c.dialect for c in doc.cells] == ["ptx", "cuda", "cccl", "cutlass", "cute-dsl", "gluon"]
    (cccl,) = tmemviz.emit("SM100_TMEM_LOAD_16dp256b4x", emit="cccl").cells
    assert cccl.code == "cuda::ptx::tcgen05_ld_16x256b(r, taddr);"
    with pytest.raises(TmemvizError, match=r"--multicast applies to tcgen05\.cp"):
        tmemviz.emit("16x256b", multicast="warpx4")
    with pytest.raises(TmemvizError, match="--emit must be ptx, cuda, cccl, cutlass, cute-dsl, gluon or all"):
        tmemviz.emit("16x256b", emit="rust")


def test_a_module_given_on_the_command_line_as_a_name_is_clipped(capsys: pytest.CaptureFixture[str]) -> None:
    """``tmemviz explain "$(cat k.ptx)"``: the shell hands the text over as a file name; the refusal
    quotes a clipped stretch of it, not the module."""
    from cli_run import bad

    text = BIG.read_text()
    for command in ("explain", "check"):
        message = bad(capsys, command, text)
        assert message.startswith("tmemviz: cannot read ") and f"({len(text)} characters)" in message
        assert len(message) < 400 and "\n" not in message.strip()


def test_a_file_whose_name_looks_like_ptx_is_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tcgen05.ptx").write_text(PTX.read_text())
    doc = tmemviz.explain("tcgen05.ptx")
    assert doc.cells[0].path == "tcgen05.ptx" and instructions(doc) == instructions(tmemviz.explain(PTX))


class DslCompiled:
    """What CuTe DSL's compiled function offers: ``function_name`` and the ``__ptx__``/``__cubin__``
    properties (None when the artifacts were not kept)."""

    def __init__(self, ptx: str | None, cubin: bytes | None = None) -> None:
        self.function_name = "gemm"
        self._ptx, self._cubin = ptx, cubin

    @property
    def __ptx__(self) -> str | None:
        return self._ptx

    @property
    def __cubin__(self) -> bytes | None:
        return self._cubin


def test_a_cute_dsl_compiled_function_gives_its_ptx() -> None:
    doc = tmemviz.explain(DslCompiled(PTX.read_text()))
    assert [f.path for f in doc.cells] == ["<gemm.ptx>"]
    assert instructions(doc) == instructions(tmemviz.explain(PTX))
    assert tmemviz.check(DslCompiled(PTX.read_text())).cells[0].path == "<gemm.ptx>"
    with pytest.raises(TmemvizError, match="or with __ptx__"):
        tmemviz.explain(DslCompiled(None))  # compiled without keeping its PTX: nothing to read


def test_check_walks_a_directory_and_takes_text_beside_it(tmp_path: Path) -> None:
    walked = tmemviz.check(KERNELS)
    names = [f.path for f in walked.cells]
    assert str(PTX) in names and all(n.endswith(".ptx") for n in names)
    # Text beside a directory, in a directory of one kernel: the corpus is walked once above (checking
    # all of it again would say nothing new about the order of directory and text).
    (tmp_path / PTX.name).write_bytes(PTX.read_bytes())
    both = tmemviz.check([tmp_path, PTX.read_text()])
    assert [f.path for f in both.cells] == [str(tmp_path / PTX.name), "<text>"]


def test_asking_for_tmemviz_ptx_before_its_import_names_emit() -> None:
    import subprocess
    import sys

    probe = "import tmemviz\ntry:\n    tmemviz.ptx\nexcept AttributeError as e:\n    print(e)\n"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert "the command 'tmemviz ptx' is the function tmemviz.emit" in done.stdout, done.stderr


def test_sarif_of_a_compiled_kernel_names_it_as_text(tmp_path: Path) -> None:
    import json

    saved = tmemviz.check(Compiled("mma_epilogue", ptx=PTX.read_text())).save(tmp_path / "k.sarif")
    (run,) = json.loads(saved.read_text())["runs"]
    where = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    assert where and all(w == {"uri": "%3Cmma_epilogue.ptx%3E"} for w in where), where
