"""The corpus's jobs other than the CUTLASS examples: kernels written here (CuTe DSL, Triton/Gluon, cuTile,
nvcc inline asm, small CUDA files on the pip package's CuTe atoms; sources in tests/kernels/sources) and a
registry kernel library (quack-kernels) compiled through its own entry point. Each job writes PTX into the
folder it is given and returns one entry per file (see corpus.Job)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import corpus_cutlass as cutlass

DSL = "nvidia-cutlass-dsl==4.8.1"
TRITON = "triton==3.9.0"
QUACK = "quack-kernels==0.6.5"
CUTILE = "cuda-tile[tileiras]==1.7.0"
ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "tests" / "kernels" / "sources"


@dataclass
class Spec:
    name: str
    project: str
    venv: str
    build: Callable[[Any, Path], list[dict[str, Any]]]
    inputs: tuple[Path, ...] = ()


def _script(venv: str, script: Path, source: str) -> Callable[[Any, Path], list[dict[str, Any]]]:
    """Run a kernel script (``python SCRIPT OUT``) in a scratch environment; it writes OUT/entries.json."""

    def build(ctx: Any, out: Path) -> list[dict[str, Any]]:
        env = {**os.environ, "CUTE_DSL_ARCH": "sm_100a", "PYTHONDONTWRITEBYTECODE": "1"}
        command = [str(ctx.python(venv)), "-W", "ignore", str(script), str(out)]
        done = subprocess.run(
            command, cwd=script.parent, capture_output=True, text=True, env=env, timeout=3600
        )
        entries = json.loads((out / "entries.json").read_text()) if (out / "entries.json").is_file() else []
        if not entries:
            raise RuntimeError(f"{script.name} wrote no kernel: {cutlass.tail(done.stderr, 12)}")
        failed = f"some kernels failed: {cutlass.tail(done.stderr)}" if done.returncode else "all compiled"
        made = f"python {script.name} OUT ({failed})"
        return [{**e, "source": source, "made": made} for e in entries]

    return build


def _nvcc(name: str, meta: dict[str, str], headers: bool) -> Callable[[Any, Path], list[dict[str, Any]]]:
    """nvcc -ptx of one of our .cu files; ``headers``: against the pip package's CUTLASS headers."""

    def build(ctx: Any, out: Path) -> list[dict[str, Any]]:
        source = SOURCES / name if (SOURCES / name).is_file() else ROOT / "tests" / "kernels" / name
        flags = ["-std=c++17", "-arch=sm_100a", "-ptx"]
        include = []
        if headers:
            flags.append("--expt-relaxed-constexpr")
            include = [f"-I{cutlass.source_root(ctx.site('cutlass')) / 'include'}"]
        ptx = out / (Path(name).stem + ".ptx")
        done = subprocess.run(["nvcc", *flags, *include, str(source), "-o", str(ptx)], capture_output=True,
                              text=True, timeout=3600)  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"nvcc: {cutlass.tail(done.stderr)}")
        made = f"nvcc {' '.join(flags)}{' -I<nvidia-cutlass include>' if headers else ''} {name}"
        return [
            {
                "file": ptx.name,
                "source": f"{source.relative_to(ROOT)} (written for tmemviz)",
                "made": made,
                **meta,
            }
        ]

    return build


def _no(kind: str) -> dict[str, str]:
    return {"kind": kind, "persistent": "no", "warp_specialized": "no"}


def _ours(script: str, venv: str) -> Spec:
    """A kernel script of tests/kernels/sources run in the named scratch environment."""
    project = {"triton": "tmemviz Triton/Gluon kernels", "cutile": "tmemviz cuTile kernels"}.get(
        venv, "tmemviz CuTe DSL kernels"
    )
    source = f"tests/kernels/sources/{script}.py (written for tmemviz)"
    path = SOURCES / f"{script}.py"
    inputs = (path, SOURCES / "common.py") if venv == "dsl" else (path,)
    return Spec(f"{venv}/{script}", project, venv, _script(venv, path, source), inputs)


def _cu(group: str, name: str, meta: dict[str, str], headers: bool) -> Spec:
    project = "tmemviz CUDA on CuTe atoms" if headers else "tmemviz nvcc inline asm"
    source = SOURCES / name if (SOURCES / name).is_file() else ROOT / "tests" / "kernels" / name
    inputs = (source, SOURCES / "nvcc_tmem.cuh") if source.parent == SOURCES else (source,)
    venv = "cutlass" if headers else "nvcc"
    return Spec(f"{group}/{Path(name).stem}", project, venv, _nvcc(name, meta, headers), inputs)


QUACK_DRIVER = Path(__file__).resolve().parent / "corpus_quack.py"
QUACK_SOURCE = (
    "quack-kernels 0.6.5: quack.gemm._compile_gemm (GemmDefaultSm100), driven by benchmarks/corpus_quack.py"
)

JOBS = [
    _ours("cute_dsl_gemm", "dsl"),
    _ours("cute_dsl_blockscaled", "dsl"),
    _ours("cute_dsl_attention", "dsl"),
    _ours("triton_kernels", "triton"),
    _ours("cutile_kernels", "cutile"),
    _cu("nvcc", "nvcc_inline_asm.cu", _no("instruction forms"), headers=False),
    _cu(
        "nvcc",
        "nvcc_persistent_ws.cu",
        {"kind": "gemm", "persistent": "yes", "warp_specialized": "yes"},
        False,
    ),
    _cu("nvcc", "nvcc_2cta.cu", _no("gemm"), headers=False),
    _cu(
        "cute-atoms",
        "cutlass_atoms.cu",
        {**_no("atom catalogue"), "expected_findings": ["outside-allocation"]},
        True,
    ),
    _cu("cute-atoms", "check_cutlass_tmem.cu", _no("gemm tile; 2-CTA store/load round trip"), True),
    Spec(
        "quack/gemm_sm100",
        "quack-kernels",
        "quack",
        _script("quack", QUACK_DRIVER, QUACK_SOURCE),
        (QUACK_DRIVER,),
    ),
]
