"""The CUTLASS C++ part of the corpus: the Blackwell examples that the PyPI package ``nvidia-cutlass``
ships under ``cutlass_library/source/examples`` (70-92), each compiled to PTX by the CUDA nvcc on PATH.

Kernel kinds, persistence and warp specialization below are what each example's source says (its
collective builder's schedule, its tile scheduler); ``cta_group`` is read from the PTX itself.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

PACKAGE = "nvidia-cutlass==4.2.0.0"
NVCC_FLAGS = ["-std=c++17", "--expt-relaxed-constexpr", "-ptx"]

# (file under examples/, target, kind, persistent, warp-specialized). Every SM100 GEMM kernel of CUTLASS
# 4.2 is the warp-specialized TMA/UMMA one with a persistent tile scheduler (sm100_gemm_tma_warpspecialized);
# the FMHA examples instantiate both their persistent and their individual tile scheduler ("both").
EXAMPLES: list[tuple[str, str, str, str, str]] = [
    ("70_blackwell_gemm/70_blackwell_fp16_gemm.cu", "sm_100a", "gemm", "yes", "yes"),
    ("70_blackwell_gemm/70_blackwell_fp8_gemm.cu", "sm_100a", "gemm", "yes", "yes"),
    ("71_blackwell_gemm_with_collective_builder/71_blackwell_gemm_with_collective_builder.cu", "sm_100a",
     "gemm", "yes", "yes"),
    ("72_blackwell_narrow_precision_gemm/72a_blackwell_nvfp4_bf16_gemm.cu", "sm_100a", "block-scaled gemm",
     "yes", "yes"),
    ("72_blackwell_narrow_precision_gemm/72b_blackwell_nvfp4_nvfp4_gemm.cu", "sm_100a", "block-scaled gemm",
     "yes", "yes"),
    ("72_blackwell_narrow_precision_gemm/72c_blackwell_mixed_mxfp8_bf16_gemm.cu", "sm_100a",
     "block-scaled gemm", "yes", "yes"),
    ("73_blackwell_gemm_preferred_cluster/blackwell_gemm_preferred_cluster.cu", "sm_100a", "gemm",
     "yes", "yes"),
    ("74_blackwell_gemm_streamk/blackwell_gemm_streamk.cu", "sm_100a", "gemm (stream-k)", "yes", "yes"),
    ("75_blackwell_grouped_gemm/75_blackwell_grouped_gemm.cu", "sm_100a", "grouped gemm", "yes", "yes"),
    ("75_blackwell_grouped_gemm/75_blackwell_grouped_gemm_block_scaled.cu", "sm_100a",
     "block-scaled grouped gemm", "yes", "yes"),
    ("76_blackwell_conv/76_blackwell_conv_fprop.cu", "sm_100a", "conv (implicit gemm)", "yes", "yes"),
    ("76_blackwell_conv/76_blackwell_conv_dgrad.cu", "sm_100a", "conv (implicit gemm)", "yes", "yes"),
    ("76_blackwell_conv/76_blackwell_conv_wgrad.cu", "sm_100a", "conv (implicit gemm)", "yes", "yes"),
    ("77_blackwell_fmha/77_blackwell_fmha.cu", "sm_100a", "attention", "both", "yes"),
    ("77_blackwell_fmha/77_blackwell_fmha_gen.cu", "sm_100a", "attention (decode)", "both", "yes"),
    ("77_blackwell_fmha/77_blackwell_fmha_bwd.cu", "sm_100a", "attention (backward)", "no", "yes"),
    ("77_blackwell_fmha/77_blackwell_mla.cu", "sm_100a", "attention (MLA decode)", "both", "yes"),
    ("77_blackwell_fmha/77_blackwell_mla_fwd.cu", "sm_100a", "attention (MLA)", "both", "yes"),
    ("78_blackwell_emulated_bf16x9_gemm/78_blackwell_emulated_bf16x9_gemm.cu", "sm_100a", "gemm",
     "yes", "yes"),
    ("81_blackwell_gemm_blockwise/81_blackwell_gemm_blockwise.cu", "sm_100a", "blockwise-scaled gemm",
     "yes", "yes"),
    ("81_blackwell_gemm_blockwise/81_blackwell_gemm_groupwise.cu", "sm_100a", "blockwise-scaled gemm",
     "yes", "yes"),
    ("81_blackwell_gemm_blockwise/81_blackwell_grouped_gemm_blockwise.cu", "sm_100a",
     "blockwise-scaled grouped gemm", "yes", "yes"),
    ("81_blackwell_gemm_blockwise/81_blackwell_grouped_gemm_groupwise.cu", "sm_100a",
     "blockwise-scaled grouped gemm", "yes", "yes"),
    ("82_blackwell_distributed_gemm/82_blackwell_distributed_gemm.cu", "sm_100a", "gemm (distributed)",
     "yes", "yes"),
    ("83_blackwell_sparse_gemm/83_blackwell_sparse_gemm.cu", "sm_100a", "sparse gemm", "yes", "yes"),
    ("84_blackwell_narrow_precision_sparse_gemm/84a_blackwell_nvfp4_bf16_sparse_gemm.cu", "sm_100a",
     "block-scaled sparse gemm", "yes", "yes"),
    ("84_blackwell_narrow_precision_sparse_gemm/84b_blackwell_mixed_mxfp8_bf16_sparse_gemm.cu", "sm_100a",
     "block-scaled sparse gemm", "yes", "yes"),
    ("86_blackwell_mixed_dtype_gemm/86_blackwell_mixed_dtype.cu", "sm_100a", "mixed-dtype gemm",
     "yes", "yes"),
    ("89_sm103_fp4_ultra_gemm/89_sm103_fp4_ultra_gemm.cu", "sm_103a", "block-scaled gemm", "yes", "yes"),
    ("90_sm103_fp4_ultra_grouped_gemm/90_sm103_fp4_ultra_grouped_gemm.cu", "sm_103a",
     "block-scaled grouped gemm", "yes", "yes"),
    ("91_fp4_gemv/91_fp4_gemv.cu", "sm_100a", "gemv", "no", "no"),
    ("92_blackwell_moe_gemm/92_blackwell_moe_gemm_regular.cu", "sm_100a", "gemm (MoE)", "yes", "yes"),
    ("92_blackwell_moe_gemm/92_blackwell_moe_gemm_grouped.cu", "sm_100a", "grouped gemm (MoE)", "yes", "yes"),
    ("92_blackwell_moe_gemm/92_blackwell_moe_gemm_fp4_regular.cu", "sm_100a", "block-scaled gemm (MoE)",
     "yes", "yes"),
    ("92_blackwell_moe_gemm/92_blackwell_moe_gemm_fp4_grouped.cu", "sm_100a",
     "block-scaled grouped gemm (MoE)", "yes", "yes"),
]  # fmt: skip

DEFINES = {"77_blackwell_fmha/77_blackwell_mla.cu": ["-DFP16"]}
"""Macros an example needs (its CMakeLists builds 77's examples once per precision, FP16 and FP8; the MLA
example has no default and stops with #error without one)."""

NOT_BUILT = {
    "79_blackwell_geforce_gemm": "GeForce Blackwell (sm_120a): no Tensor Memory, no tcgen05",
    "80_blackwell_geforce_sparse_gemm": "GeForce Blackwell (sm_120a): no Tensor Memory, no tcgen05",
    "87_blackwell_geforce_gemm_blockwise": "GeForce Blackwell (sm_120a): no Tensor Memory, no tcgen05",
    "88_hopper_fmha": "Hopper (sm_90a): no tcgen05",
}
"""Example folders of 70-92 not compiled, and why (their CMakeLists build them only for these targets)."""


def source_root(site: Path) -> Path:
    """``cutlass_library/source`` of the installed package: include/, tools/util/include, examples/."""
    return site / "cutlass_library" / "source"


def curand_headers(site: Path, into: Path) -> Path:
    """A folder holding only curand's headers (pip ``nvidia-curand``): the examples' host utilities
    include ``curand_kernel.h``; the rest of that package's include folder would shadow CUDA's own."""
    into.mkdir(parents=True, exist_ok=True)
    for header in sorted((site / "nvidia" / "cu13" / "include").glob("curand*.h")):
        link = into / header.name
        if not link.exists():
            link.symlink_to(header)
    return into


def command(root: Path, curand: Path, example: str, target: str, out: Path) -> list[str]:
    """The nvcc command for one example (its own folder and examples/common are include paths, as its
    CMakeLists gives them)."""
    source = root / "examples" / example
    flags = (["--use_fast_math"] if example.startswith("77_") else []) + DEFINES.get(example, [])
    return [
        "nvcc", *NVCC_FLAGS, f"-arch={target}", *flags,
        f"-I{root / 'include'}", f"-I{root / 'tools' / 'util' / 'include'}",
        f"-I{root / 'examples' / 'common'}", f"-I{source.parent}", f"-I{curand}",
        str(source), "-o", str(out),
    ]  # fmt: skip


def build(root: Path, curand: Path, example: str, target: str, out: Path, timeout: int) -> dict[str, Any]:
    """Compile one example; the entry's ``made`` names the command without this machine's paths."""
    out.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    done = subprocess.run(
        command(root, curand, example, target, out), capture_output=True, text=True, timeout=timeout
    )
    seconds = round(time.monotonic() - start, 1)
    if done.returncode != 0:
        raise RuntimeError(f"nvcc exit {done.returncode} after {seconds} s: {tail(done.stderr)}")
    fast = " --use_fast_math" if example.startswith("77_") else ""
    fast += "".join(f" {d}" for d in DEFINES.get(example, []))
    made = (
        f"nvcc {' '.join(NVCC_FLAGS)} -arch={target}{fast} "
        "-I<include> -I<tools/util/include> -I<examples/common> -I<example folder> -I<curand headers> "
        f"examples/{example}"
    )
    return {"made": made, "seconds": seconds}


def tail(text: str, lines: int = 6) -> str:
    """The last lines of a compiler's complaint, for the manifest."""
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:])[-1500:]
