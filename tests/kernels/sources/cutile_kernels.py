"""cuTile (PyPI ``cuda-tile``) kernels written for tmemviz's corpus, exported as cubins without a GPU.

    python cutile_kernels.py OUT_DIR [NAME ...]

cuTile writes no PTX: ``cuda.tile.compilation.export_kernel(..., gpu_code="sm_100",
output_format="cubin")`` runs the package's own compiler (tileiras, from ``cuda-toolkit[tileiras]``) and
the cubin is what tmemviz explains (through nvdisasm). ``OUT_DIR/entries.json`` says what each is. Needs
``cuda-tile[tileiras]`` 1.7.0 (not a dependency of tmemviz: run it in a scratch environment).

- ``cutile_gemm``: C = A * B for one 128x128 tile per block, f16 A (M x K) and B (K x N), f32
  accumulator, a K loop of ``ct.mma`` over 64-wide steps; the compiler decides where the accumulator
  lives (on sm_100, Tensor Memory).
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint, CallingConvention, KernelSignature, export_kernel

TM, TN, TK = 128, 128, 64


@ct.kernel
def cutile_gemm(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        x = ct.load(a, index=(bm, k), shape=(tm, tk))
        y = ct.load(b, index=(k, bn), shape=(tk, tn))
        acc = ct.mma(x, y, acc)
    ct.store(c, index=(bm, bn), tile=acc.astype(c.dtype))


def _array(dtype: object) -> ArrayConstraint:
    """A row-major 2-D array of its own (no aliasing), rows 16-byte aligned."""
    return ArrayConstraint(
        dtype, 2, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
        may_alias_internally=False, stride_constant=(None, 1), stride_divisible_by=(8, 1),
        base_addr_divisible_by=16,
    )  # fmt: skip


KERNELS = {
    "cutile_gemm": (
        "gemm",
        cutile_gemm,
        [_array(ct.float16), _array(ct.float16), _array(ct.float16), TM, TN, TK],
    ),
}


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    entries, failed = [], 0
    for name in argv[1:] or sorted(KERNELS):
        kind, kernel, parameters = KERNELS[name]
        try:
            signature = KernelSignature(parameters, CallingConvention.cutile_python_v1(), symbol=name)
            export_kernel(
                kernel, [signature], str(out / f"{name}.cubin"), gpu_code="sm_100", output_format="cubin"
            )
        except Exception:  # one kernel failing is reported; the others go on
            traceback.print_exc()
            failed += 1
            continue
        entries.append({"file": f"{name}.cubin", "kind": kind, "persistent": "no", "warp_specialized": "no"})
    (out / "entries.json").write_text(json.dumps(entries, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
