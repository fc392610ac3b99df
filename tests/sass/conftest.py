"""NVIDIA's ptxas and nvdisasm for the SASS tests: from the test extra's pip packages (nvidia-cuda-nvcc,
nvidia-cuda-nvdisasm), else PATH; the tests that need them skip, saying why, when they are absent."""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


def pip_tool(name: str) -> str | None:
    """``name`` from an installed nvidia-cuda-* wheel (nvidia/cu13/bin), else from PATH."""
    import importlib.util

    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or ()) if spec else ():
        for candidate in sorted(Path(root).glob(f"*/bin/{name}")):
            return str(candidate)
    return shutil.which(name)


@pytest.fixture(scope="session")
def sass_tools() -> tuple[str, str]:
    """(ptxas, nvdisasm), both able to handle sm_100a/sm_103a (CUDA 13)."""
    from observe import version

    ptxas, nvdisasm = pip_tool("ptxas"), pip_tool("nvdisasm")
    if ptxas is None or nvdisasm is None:
        pytest.skip("ptxas and nvdisasm are absent: pip install 'tmemviz[test]' brings nvidia-cuda-nvcc and "
                    "nvidia-cuda-nvdisasm")  # fmt: skip
    if int(version(ptxas).split(".")[0]) < 13:
        pytest.skip(f"ptxas {version(ptxas)} is older than 13 (sm_103a and the spellings need CUDA 13)")
    return ptxas, nvdisasm


@pytest.fixture(scope="session")
def observed_now(sass_tools: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Every form of forms.py assembled and disassembled by the tools here (once per session)."""
    from observe import observe

    return observe(*sass_tools, tmp_path_factory.mktemp("forms"))


_EXPLAINED: dict[tuple[Path, str], tuple[dict, dict]] = {}


def explained(ptx: Path, cubin: Path) -> tuple[dict, dict]:
    """``tmemviz.explain([ptx, cubin])``'s two file documents, once per PTX file and cubin content (the
    records are only read). A committed cubin is what ptxas assembles here with the README's flags
    (-lineinfo), so the tests that explain it (test_kernels, test_operands) share one nvdisasm run:
    about half a second of nvdisasm's start-up each, whatever the cubin."""
    import tmemviz

    key = (ptx, hashlib.sha256(cubin.read_bytes()).hexdigest())
    if key not in _EXPLAINED:
        ptx_file, sass_file = tmemviz.explain([ptx, cubin]).lists()[0][1]
        _EXPLAINED[key] = (ptx_file, sass_file)
    return _EXPLAINED[key]
