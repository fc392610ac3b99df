"""A real CuTe DSL compiled function given to explain and check (issue P21): the project's own GEMM
(tests/kernels/sources/cute_dsl_gemm.py) compiled for sm_100a without a GPU, its PTX kept. Skipped where
nvidia-cutlass-dsl is not installed (no test extra: a large download)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

import tmemviz

SOURCES = Path(__file__).resolve().parent / "kernels" / "sources"
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("cutlass") is None, reason="nvidia-cutlass-dsl is not installed"
)


@pytest.fixture(scope="module")
def compiled() -> Any:
    # common sets CUTE_DSL_ARCH=sm_100a and CUTE_DSL_KEEP=ptx, which the DSL reads once, at its import.
    if "cutlass" in sys.modules and "common" not in sys.modules:
        pytest.skip("the CuTe DSL was imported before its PTX could be asked to be kept")
    sys.path.insert(0, str(SOURCES))
    try:
        import common
        import cute_dsl_gemm
        import cutlass.cute as cute
        from cutlass.cute.runtime import make_fake_stream

        try:
            return cute.compile(cute_dsl_gemm.Gemm(), *cute_dsl_gemm.fake_args(), make_fake_stream())
        finally:
            shutil.rmtree(common.DUMP, ignore_errors=True)
    finally:
        sys.path.remove(str(SOURCES))


def test_explain_and_check_take_a_compiled_function(compiled: Any, tmp_path: Path) -> None:
    ptx = compiled.__ptx__
    assert isinstance(ptx, str) and ".entry" in ptx
    doc = tmemviz.explain(compiled)
    (module,) = doc.cells
    assert module.path.startswith("<") and module.path.endswith(".ptx>") and len(module.path) < 60
    assert {"alloc", "mma", "ld", "dealloc"} <= {i["op"] for i in module.instructions}
    path = tmp_path / "gemm.ptx"
    path.write_text(ptx)
    from_file = tmemviz.explain(path).cells[0].instructions
    assert [i["ptx"] for i in module.instructions] == [i["ptx"] for i in from_file]
    checked = tmemviz.check(compiled)
    assert checked.cells[0].findings == tmemviz.check(path).cells[0].findings
