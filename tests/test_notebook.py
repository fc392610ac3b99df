"""The API in a real Jupyter kernel: each result displays HTML (tables, the interactive figure), a small
PNG for static viewers and one line of text, and a notebook of the README's and docs' examples, saved
with its outputs, stays small (issues P13, P21)."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

KERNELS = Path(__file__).resolve().parent / "kernels"
MAX_NOTEBOOK_BYTES = 300_000
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

CELLS = [
    # The README's example, then what docs/api.md shows, each result displayed bare.
    "import tmemviz\ntmemviz.layout('16x256b', num=4).which(lane=9, col=5)",
    "tmemviz.layout('16x256b', num=4)",
    "tmemviz.tile(n=64, shape='16x256b')",
    "tmemviz.cp('64x128b', multicast='warpx2::01_23')",
    "ptx = open({kernel!r}).read()\ntmemviz.explain(ptx)",
    "tmemviz.check(ptx)",
    # A compiled kernel as Triton hands it over: an object whose .asm maps "ptx" to the module's text.
    "class Compiled:\n    name = 'mma_epilogue'\n    asm = {{'ptx': ptx}}\n\ntmemviz.explain(Compiled())",
    "tmemviz.desc('0x4000404000010000')",
    "r = tmemviz.layout('16x256b', num=4).which(lane=9, col=5)\nprint(r.thread, r.reg)",
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> object:
    tmp = tmp_path_factory.mktemp("notebook")
    # A kernel spec of this very interpreter, so the kernel imports the tmemviz under test.
    spec = tmp / "jupyter" / "kernels" / "tmemviz-test"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "tmemviz", "language": "python"})
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(tmp / "jupyter"))
        notebook = nbformat.v4.new_notebook()
        kernel = str(KERNELS / "triton_mma_epilogue.ptx")
        notebook.cells = [nbformat.v4.new_code_cell(c.format(kernel=kernel)) for c in CELLS]
        client = nbclient.NotebookClient(
            notebook, timeout=300, kernel_name="tmemviz-test", resources={"metadata": {"path": str(tmp)}}
        )
        client.execute()
    return notebook


def shown(notebook: object, cell: int) -> dict[str, str]:
    outputs = notebook.cells[cell].outputs  # type: ignore[attr-defined]
    assert len(outputs) == 1 and outputs[0]["output_type"] == "execute_result", outputs
    return outputs[0]["data"]


def test_every_result_shows_html_png_and_text(executed: object) -> None:
    from tmemviz.draw.notebook import unpacked

    for cell in range(1, 8):
        data = shown(executed, cell)
        assert set(data) == {"text/plain", "text/html", "image/png"}, (cell, set(data))
        assert data["text/plain"].startswith("<tmemviz ")
        # The PNG is for viewers that run no HTML: a real image, and small (the schematic).
        png = base64.b64decode(data["image/png"])
        assert png.startswith(PNG_MAGIC) and len(png) < 60_000, (cell, len(png))
        page = data["text/html"]
        assert 'sandbox="allow-scripts"' in page and "<iframe" in page
        # The frame holds the whole offline page, compressed: nothing loads from the network.
        inner = unpacked(page).decode()
        assert "default-src 'none'" in inner and inner.startswith("<!DOCTYPE html>")
        if cell == 7:  # desc's figure: the descriptor's bit fields
            assert "SBO" in inner
        assert "https://" not in page and "http://" not in page
    layout = unpacked(shown(executed, 1)["text/html"]).decode()
    assert 'data-lane="9"' in layout
    assert shown(executed, 1)["text/plain"].startswith("<tmemviz layout: tcgen05.ld.sync.aligned.16x256b.x4")


def test_explain_and_check_show_their_tables_collapsible(executed: object) -> None:
    explained = shown(executed, 4)["text/html"]
    # One row per tcgen05 instruction, under a collapsible title, then the TMEM map.
    assert explained.count("<details") >= 2 and "<summary>" in explained
    for ptx in ("tcgen05.alloc.cta_group::1", "tcgen05.mma.cta_group::1.kind::f16", "tcgen05.dealloc"):
        assert ptx in explained, ptx
    assert "allocates 32 columns of Tensor Memory" in explained  # the per-instruction explanation
    checked = shown(executed, 5)["text/html"]
    assert "<details" in checked and "alloc-columns" in checked and "<th>rule</th>" in checked
    compiled = shown(executed, 6)
    assert "&lt;mma_epilogue.ptx&gt;" in compiled["text/html"] and "tcgen05.alloc" in compiled["text/html"]


def test_the_saved_notebook_stays_small(executed: object, tmp_path: Path) -> None:
    path = tmp_path / "examples.ipynb"
    nbformat.write(executed, str(path))
    size = path.stat().st_size
    assert size < MAX_NOTEBOOK_BYTES, size
    printed = executed.cells[-1].outputs[0]["text"]  # type: ignore[attr-defined]
    assert printed.split() == ["6", "3"]
    readme = shown(executed, 0)
    assert readme == {"text/plain": "Record(lane=9, col=5, thread=6, reg=3, half=None)"}
