"""Compile quack-kernels' SM100 GEMMs without a GPU, through quack's own tensor-free compile entry point
(``quack.gemm._compile_gemm``: fake tensors, a fake stream, ``cute.compile``), and keep their PTX.

    CUTE_DSL_ARCH=sm_100a python corpus_quack.py OUT_DIR

Run by benchmarks/corpus.py in a scratch environment holding ``quack-kernels`` and
``nvidia-cutlass-dsl`` (neither is a dependency of tmemviz). quack's on-disk kernel cache is switched off
(``QUACK_CACHE_ENABLED=0``) so nothing outside OUT_DIR and a temporary dump folder is written, and quack
fetches nothing at run time (its configuration was read: no network access in its compile path).
"""

# ruff: noqa: E402 - the DSL's and quack's environment is set before either is imported
from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from pathlib import Path

os.environ.setdefault("CUTE_DSL_ARCH", "sm_100a")
os.environ["CUTE_DSL_KEEP"] = "ptx"
os.environ["CUTE_DSL_LINEINFO"] = "1"
os.environ["CUTE_DSL_NO_CACHE"] = "1"
os.environ["CUTE_DSL_DISABLE_FILE_CACHING"] = "1"
os.environ["QUACK_CACHE_ENABLED"] = "0"
os.environ["CUDA_VISIBLE_DEVICES"] = ""
DUMP = Path(tempfile.mkdtemp(prefix="quack-dump-"))
os.environ["CUTE_DSL_DUMP_DIR"] = str(DUMP)

import cutlass
import quack.gemm as gemm
from quack.gemm_config import SplitKMode
from quack.rounding import RoundingMode

BF16, F32 = cutlass.BFloat16, cutlass.Float32

VARIANTS: dict[str, tuple[str, str, dict]] = {
    # name: (kind, persistent, _compile_gemm arguments that differ from BASE)
    "gemm_bf16_1cta": ("gemm", "yes", {"tile_shape_mn": (128, 256), "cluster_shape_mnk": (1, 1, 1)}),
    "gemm_bf16_2cta": ("gemm", "yes", {"tile_shape_mn": (256, 256), "cluster_shape_mnk": (2, 1, 1)}),
    "gemm_bf16_clc": ("gemm", "yes (dynamic, cluster launch control)",
                      {"tile_shape_mn": (256, 256), "cluster_shape_mnk": (2, 1, 1),
                       "is_dynamic_persistent": True}),
    "gemm_bf16_colvec_beta": ("gemm (epilogue: column vector, beta*C)", "yes",
                              {"tile_shape_mn": (128, 128), "cluster_shape_mnk": (1, 1, 1), "c_dtype": BF16,
                               "colvec_dtype": F32, "colvec_ndim": 2, "beta_mode": 2}),
    "gemm_mxf8_blockscaled": ("block-scaled gemm", "yes",
                              {"a_dtype": cutlass.Float8E4M3FN, "b_dtype": cutlass.Float8E4M3FN,
                               "tile_shape_mn": (128, 256), "cluster_shape_mnk": (1, 1, 1),
                               "sf_dtype": cutlass.Float8E8M0FNU, "sf_vec_size": 32}),
    "gemm_nvfp4_blockscaled": ("block-scaled gemm", "yes",
                               {"a_dtype": cutlass.Float4E2M1FN, "b_dtype": cutlass.Float4E2M1FN,
                                "tile_shape_mn": (256, 256), "cluster_shape_mnk": (2, 1, 1),
                                "sf_dtype": cutlass.Float8E4M3FN, "sf_vec_size": 16}),
}  # fmt: skip

BASE = dict(
    a_dtype=BF16, b_dtype=BF16, d_dtype=BF16, c_dtype=None, a_major="k", b_major="k", d_major="n",
    c_major="n", pingpong=False, persistent=True, is_dynamic_persistent=False, rowvec_dtype=None,
    colvec_dtype=None, colvec_ndim=0, alpha_mode=0, beta_mode=0, add_to_output=False, concat_layout=None,
    varlen_m=False, varlen_k=False, gather_A=False, use_tma_gather=False, has_batch_idx_permute=False,
    device_capacity=(10, 0), rounding_mode=RoundingMode.RN, sr_seed_mode=0, num_warps=None, split_k=1,
    split_k_mode=SplitKMode.SERIAL,
)  # fmt: skip


def compile_one(name: str, args: dict, out: Path) -> None:
    for old in DUMP.rglob("*"):
        if old.is_file():
            old.unlink()
    compile_gemm = getattr(gemm._compile_gemm, "__wrapped__", gemm._compile_gemm)
    compile_gemm(**{**BASE, **args})
    found = sorted(DUMP.rglob("*.ptx"))
    if len(found) != 1:
        raise RuntimeError(f"expected one PTX in the dump folder, found {[p.name for p in found]}")
    lines = []
    for line in found[0].read_text().splitlines(keepends=True):
        if line.lstrip().startswith(".file") and '"' in line:  # no path of the build machine
            head, file, tail = line.split('"', 2)
            line = f'{head}"{Path(file).name}"{tail}'
        lines.append(line)
    (out / f"{name}.ptx").write_text("".join(lines))


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    entries, failed = [], 0
    for name in argv[1:] or sorted(VARIANTS):
        kind, persistent, args = VARIANTS[name]
        try:
            compile_one(name, args, out)
        except Exception:  # one kernel failing is reported; the others go on
            traceback.print_exc()
            failed += 1
            continue
        entries.append(
            {"file": f"{name}.ptx", "kind": kind, "persistent": persistent, "warp_specialized": "yes"}
        )
    (out / "entries.json").write_text(json.dumps(entries, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
