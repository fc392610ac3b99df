"""Triton Language Extensions (TLX) Blackwell tutorials compiled to PTX without a GPU: the fixtures of
tests/kernels/tlx.

Run in a scratch virtual environment holding the registry packages tests/kernels/README.md names
(triton-utlx, the triton it installs, torch for CPU: the tutorials import it), never in the project's own:

    python tlx_kernels.py OUT_DIR

The tutorials are the ones the triton-utlx wheel ships (``tlx/tutorials``), imported unchanged. They ask
the active driver for a device when imported, so a stand-in answers "cpu"; nothing else of a driver is
used: ``triton.compile`` of an ``ASTSource`` for ``GPUTarget("cuda", 100, 32)`` (sm_100a) needs none.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
from typing import Any


class _NoGpu:
    """The driver the tutorials meet at import time: its device is the CPU."""

    def get_active_torch_device(self) -> Any:
        import torch

        return torch.device("cpu")

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)


def _tutorial(name: str) -> Any:
    import triton

    path = os.path.join(os.path.dirname(triton.__file__), "..", "tlx", "tutorials", name + ".py")
    spec = importlib.util.spec_from_file_location(name, os.path.abspath(path))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _jit(kernel: Any) -> Any:
    """The JIT function under the tutorial's autotuner and heuristics wrappers."""
    import triton

    while not isinstance(kernel, triton.runtime.jit.JITFunction):
        kernel = kernel.fn
    return kernel


def _compile(kernel: Any, signature: dict[str, str], constants: dict[str, Any]) -> str:
    """The PTX for sm_100a, as the Triton fixtures' script writes it (``.file`` names without the build
    machine's path)."""
    from triton.compiler import ASTSource
    from triton_kernels import ptx_of  # beside this file

    for name in constants:
        signature[name] = "constexpr"
    return ptx_of(ASTSource(_jit(kernel), signature, constants), {"num_warps": 4, "num_stages": 1})


def attention() -> str:
    """``blackwell_fa_ws_pipelined``: forward attention, head dim 128, fp16, its first autotuning config
    (BLOCK_M 256 in 2 MMA groups, BLOCK_N 128), no causal mask (STAGE 1)."""
    module = _tutorial("blackwell_fa_ws_pipelined")
    head = 128
    config = dict(module.configs[0].kwargs)
    rows, cols = config["BLOCK_M"] // config["NUM_MMA_GROUPS"], config["BLOCK_N"]
    signature = {
        "sm_scale": "fp32", "M": "*fp32", "Z": "i32", "H": "i32",
        "desc_q": f"tensordesc<fp16[{rows},{head}]>", "desc_k": f"tensordesc<fp16[{cols},{head}]>",
        "desc_v": f"tensordesc<fp16[{cols},{head}]>", "desc_o": f"tensordesc<fp16[{rows},{head}]>",
        "N_CTX": "i32",
    }  # fmt: skip
    params = inspect.signature(_jit(module._attn_fwd_ws).fn).parameters
    constants = {
        k: v for k, v in dict(config, HEAD_DIM=head, FP8_OUTPUT=False, STAGE=1).items() if k in params
    }
    return _compile(module._attn_fwd_ws, signature, constants)


def gemm() -> str:
    """``blackwell_gemm_ws``: the persistent warp-specialized GEMM with the configuration the tutorial's
    own heuristic picks for 8192 x 8192 x 8192 on 148 SMs (two accumulators of 256 columns)."""
    module = _tutorial("blackwell_gemm_ws")
    config = module.get_heuristic_config(8192, 8192, 8192, 148)
    config.pop("pre_hook")
    config.pop("ctas_per_cga")
    bm, bn, bk = config["BLOCK_SIZE_M"], config["BLOCK_SIZE_N"], config["BLOCK_SIZE_K"]
    groups, sub = config["NUM_MMA_GROUPS"], config["EPILOGUE_SUBTILE"]
    signature = {
        "a_desc": f"tensordesc<fp16[{bm // groups},{bk}]>", "b_desc": f"tensordesc<fp16[{bk},{bn}]>",
        "c_desc": f"tensordesc<fp16[{bm // groups},{bn // sub}]>",
        "workspace_desc": f"tensordesc<fp16[{bm // groups},{bn // sub}]>",
        "M": "i32", "N": "i32", "K": "i32",
    }  # fmt: skip
    constants = dict(config, NUM_SMS=148, USE_WARP_BARRIER=False)
    return _compile(module.matmul_kernel_tma_ws_blackwell, signature, constants)


KERNELS = {"fa_ws_pipelined": attention, "gemm_ws": gemm}


def main(out: str) -> None:
    from triton.runtime import driver

    driver.set_active(_NoGpu())
    os.makedirs(out, exist_ok=True)
    for name, build in KERNELS.items():
        with open(os.path.join(out, name + ".ptx"), "w") as f:
            f.write(build())


if __name__ == "__main__":
    main(sys.argv[1])
