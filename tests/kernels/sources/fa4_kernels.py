"""FlashAttention-4's SM100 kernels compiled to PTX without a GPU: the fixtures of tests/kernels/fa4.

Run in a scratch virtual environment holding the registry packages tests/kernels/README.md names
(flash-attn-4, nvidia-cutlass-dsl, quack-kernels, torch), never in the project's own:

    python fa4_kernels.py OUT_DIR

Each kernel is built by FA4's own host entry (``interface._flash_attn_fwd``) on fake tensors
(``FakeTensorMode``, its precompile path), in a process of its own, so that CuTe DSL dumps that
kernel's PTX and cubin alone into ``OUT_DIR/NAME``. ``FLASH_ATTENTION_ARCH`` and
``FLASH_ATTENTION_NUM_SMS`` stand in for FA4's device queries; the persistent scheduler's host-side grid
sizing still asks the driver for the SM count, so ``HardwareInfo`` answers 148 (B200's; it sizes the
launch grid only, not the device code).
"""

from __future__ import annotations

import os
import subprocess
import sys

KERNELS = {
    # name: (head dim, dtype, causal, MLA route or None)
    "fwd_h128_bf16_causal": (128, "bf16", True, None),
    "mla_fwd_1cta_bf16_decode": (512, "bf16", False, "1"),
}


def build(name: str) -> None:
    import cutlass.utils
    import torch
    from flash_attn.cute import interface, tile_scheduler
    from torch._subclasses.fake_tensor import FakeTensorMode

    class HardwareInfo:  # no driver here: B200's 148 SMs
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def get_device_multiprocessor_count(self) -> int:
            return 148

        def get_max_active_clusters(self, cluster_size: int = 1) -> int:
            return 148 // cluster_size

    cutlass.utils.HardwareInfo = HardwareInfo
    if hasattr(tile_scheduler, "HardwareInfo"):
        tile_scheduler.HardwareInfo = HardwareInfo
    head, dtype_name, causal, mla = KERNELS[name]
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[dtype_name]
    with FakeTensorMode():
        if mla is None:  # batch 4, 4096 tokens, 16 heads
            q, k, v = (torch.empty(4, 4096, 16, head, dtype=dtype, device="cuda") for _ in range(3))
            interface._flash_attn_fwd(q, k, v, causal=causal, return_lse=True)
        else:  # DeepSeek's absorbed MLA decode: one query, 128 heads, q 64 + qv 512, one KV head
            q = torch.empty(64, 1, 128, 64, dtype=dtype, device="cuda")
            qv = torch.empty(64, 1, 128, 512, dtype=dtype, device="cuda")
            k = torch.empty(64, 8192, 1, 64, dtype=dtype, device="cuda")
            v = torch.empty(64, 8192, 1, 512, dtype=dtype, device="cuda")
            interface._flash_attn_fwd(q, k, v, qv=qv, causal=causal, return_lse=True)


def main(out: str) -> None:
    for name, (_, _, _, mla) in KERNELS.items():
        dump = os.path.join(out, name)
        os.makedirs(dump, exist_ok=True)  # CuTe DSL writes into it, and makes none
        env = dict(
            os.environ,
            FLASH_ATTENTION_ARCH="sm_100a",
            FLASH_ATTENTION_NUM_SMS="148",
            CUTE_DSL_ARCH="sm_100a",
            CUTE_DSL_KEEP="ptx,cubin",
            CUTE_DSL_DUMP_DIR=dump,
            CUDA_VISIBLE_DEVICES="",
        )
        if mla is not None:
            env["FLASH_ATTENTION_MLA_1CTA"] = mla
        subprocess.run([sys.executable, __file__, "--one", name], env=env, check=True)


if __name__ == "__main__":
    if sys.argv[1] == "--one":
        build(sys.argv[2])
    else:
        main(sys.argv[1])
