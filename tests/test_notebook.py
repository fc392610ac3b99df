"""The API in a real Jupyter kernel: a bare expression displays the interactive figure (issue P13)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")


def test_layout_displays_its_figure_in_a_notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A kernel spec of this very interpreter, so the kernel imports the tmemviz under test.
    spec = tmp_path / "jupyter" / "kernels" / "tmemviz-test"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "tmemviz", "language": "python"})
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("import tmemviz\ntmemviz.layout('16x256b', num=4)"),
        nbformat.v4.new_code_cell(
            "r = tmemviz.layout('16x256b', num=4).which(lane=9, col=5)\nprint(r.thread, r.reg)"
        ),
    ]
    client = nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="tmemviz-test", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    shown = notebook.cells[0].outputs
    assert len(shown) == 1 and shown[0]["output_type"] == "execute_result"
    data = shown[0]["data"]
    page = data["text/html"]
    assert page.startswith("<iframe") and 'sandbox="allow-scripts"' in page
    # The frame holds the whole offline page: its cells carry their coordinates, no network is allowed.
    assert "data-lane=&quot;9&quot;" in page and "default-src &#x27;none&#x27;" in page
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page
    assert data["text/plain"].startswith("<tmemviz layout: tcgen05.ld.sync.aligned.16x256b.x4.b32")
    printed = notebook.cells[1].outputs[0]["text"]
    assert printed.split() == ["6", "3"]
