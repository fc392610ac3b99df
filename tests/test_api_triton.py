"""A real Triton ``CompiledKernel`` given to explain and check (issue P21): compiled here for sm_100a
without a GPU (Triton ships its own ptxas). Skipped where Triton is not installed: it is no test extra
(a large download), so this runs where a developer has it, e.g. ``pip install triton`` in a venv."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")

import tmemviz  # noqa: E402


@triton.jit
def _matmul(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):  # type: ignore[no-untyped-def]
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TRITON_CACHE_DIR", str(tmp_path_factory.mktemp("triton-cache")))
        patch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
        sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "constexpr", "N": "constexpr",
               "K": "constexpr"}  # fmt: skip
        source = ASTSource(fn=_matmul, signature=sig, constexprs={"M": 128, "N": 128, "K": 64})
        return triton.compile(source, target=GPUTarget("cuda", 100, 32))


def test_explain_and_check_take_a_compiled_kernel(compiled: Any, tmp_path: Path) -> None:
    assert isinstance(compiled.asm["ptx"], str) and compiled.asm["cubin"][:4] == b"\x7fELF"
    doc = tmemviz.explain(compiled)
    (module,) = doc.cells
    assert module.path == f"<{compiled.name}.ptx>"
    ops = {i["op"] for i in module.instructions}
    assert {"alloc", "mma", "commit", "ld", "dealloc"} <= ops, ops
    mma = next(i for i in module.instructions if i["op"] == "mma")
    assert mma["kind"] == "f16" and "N=128" in mma["summary"]  # the idesc Triton built, decoded
    # The same records as the PTX text itself, and as the file it would be written to.
    path = tmp_path / "matmul.ptx"
    path.write_text(compiled.asm["ptx"])
    assert [i["ptx"] for i in tmemviz.explain(path).cells[0].instructions] == [
        i["ptx"] for i in module.instructions
    ]
    checked = tmemviz.check(compiled)
    assert checked.cells[0].path == f"<{compiled.name}.ptx>"
    assert checked.cells[0].findings == tmemviz.check(path).cells[0].findings
    bundle = doc._repr_mimebundle_()
    assert {"text/plain", "text/html", "image/png"} <= set(bundle)


def test_a_compiled_kernels_cubin_explains_as_sass(compiled: Any) -> None:
    from tmemviz.sass.cubin import find_nvdisasm

    if find_nvdisasm() is None:
        pytest.skip("nvdisasm is absent (the test extra has it)")
    doc = tmemviz.explain(compiled.asm["cubin"])
    assert doc.cells[0].path == "<cubin>"
    assert {"mma", "ld"} <= {i["op"] for i in doc.cells[0].instructions}
