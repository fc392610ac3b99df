"""Triton and Gluon kernels written for tmemviz's tests and corpus, compiled without a GPU.

    python triton_kernels.py OUT_DIR [NAME ...]

Each kernel is compiled by ``triton.compile(source, target=GPUTarget("cuda", 100, 32))`` (no driver, no
GPU) and its PTX written to ``OUT_DIR/NAME.ptx``, the ``.file`` directives naming only this script's file
name; ``OUT_DIR/entries.json`` says what each kernel is. Needs ``triton`` 3.9 (not a dependency of
tmemviz: run it in a scratch environment).

- ``gluon_gemm``: Gluon, C = A * B^T for one 128x128 tile per program, A and B f16 K-major loaded by TMA
  into a 3-stage shared-memory ring, ``tcgen05_mma`` into a 128x128 f32 accumulator in Tensor Memory
  (each MMA signals the stage's barrier), the accumulator loaded with its default register layout.
- ``gluon_persistent_ws``: Gluon, persistent (programs walk the tiles with a stride of the grid) and
  warp-specialized (``warp_specialize``: a TMA loader warp, an MMA warp, the default partition's four
  warps as epilogue) with a ring of two Tensor Memory accumulators (``index(i % 2)``), so the epilogue
  drains tile i while the MMA warp accumulates tile i + 1.
- ``gluon_mma_scaled``: Gluon, ``tcgen05_mma_scaled`` of e4m3 A/B with UE8M0 scale factors per 32 (an
  ``mxf8f6f4`` block-scaled MMA), the scales loaded from global memory and stored to Tensor Memory.
- ``triton_matmul``: plain Triton in the tutorial's manner (pointer arithmetic, ``tl.dot`` in a K loop,
  grouped tile order), which the compiler lowers to tcgen05 MMAs with a Tensor Memory accumulator.
- ``triton_matmul_persistent_ws``: plain Triton, persistent over tiles with tensor descriptors and
  ``tl.range(..., warp_specialize=True)``: the compiler splits it into loader, MMA and epilogue warps.
"""

# ruff: noqa: SIM113, B007 - kernel loops are compiled by Triton, which has no enumerate()
from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource
from triton.experimental.gluon.language.nvidia.blackwell import (
    TensorMemoryLayout,
    TensorMemoryScalesLayout,
    allocate_tensor_memory,
    mbarrier,
    tcgen05_commit,
    tcgen05_mma,
    tcgen05_mma_scaled,
    tma,
)

TARGET = GPUTarget("cuda", 100, 32)
BM, BN, BK = 128, 128, 64


@gluon.jit
def gluon_gemm(a_desc, b_desc, c_ptr, M, N, K, STAGES: gl.constexpr):
    bm: gl.constexpr = a_desc.block_type.shape[0]
    bn: gl.constexpr = b_desc.block_type.shape[0]
    bk: gl.constexpr = a_desc.block_type.shape[1]
    off_m = gl.program_id(0) * bm
    off_n = gl.program_id(1) * bn
    a_s = gl.allocate_shared_memory(a_desc.dtype, [STAGES, bm, bk], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [STAGES, bn, bk], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    freed = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    done = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for j in gl.static_range(STAGES):
        mbarrier.init(ready.index(j), count=1)
        mbarrier.init(freed.index(j), count=1)
    mbarrier.init(done, count=1)
    tmem_layout: gl.constexpr = TensorMemoryLayout([bm, bn], col_stride=1)
    acc = allocate_tensor_memory(gl.float32, [bm, bn], tmem_layout)
    for k in range(gl.cdiv(K, bk)):
        s = k % STAGES
        phase = (k // STAGES) & 1
        # Stage s is free once the MMA that read it STAGES steps ago is complete.
        mbarrier.wait(freed.index(s), phase ^ 1, pred=k >= STAGES)
        mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_load(a_desc, [off_m, k * bk], ready.index(s), a_s.index(s))
        tma.async_load(b_desc, [off_n, k * bk], ready.index(s), b_s.index(s))
        mbarrier.wait(ready.index(s), phase)
        tcgen05_mma(
            a_s.index(s), b_s.index(s).permute((1, 0)), acc, use_acc=k > 0, mbarriers=[freed.index(s)]
        )
    tcgen05_commit(done)
    mbarrier.wait(done, 0)
    out = acc.load()
    rows = off_m + gl.arange(0, bm, layout=gl.SliceLayout(1, out.type.layout))
    cols = off_n + gl.arange(0, bn, layout=gl.SliceLayout(0, out.type.layout))
    gl.store(c_ptr + rows[:, None] * N + cols[None, :], out.to(gl.float16))


@gluon.jit
def _ws_epilogue(c_ptr, N, tiles, tiles_n, accs, acc_ready, acc_free, bm: gl.constexpr, bn: gl.constexpr):
    i = 0
    for t in range(gl.program_id(0), tiles, gl.num_programs(0)):
        buf = i % 2
        mbarrier.wait(acc_ready.index(buf), (i // 2) & 1)
        out = accs.index(buf).load()
        mbarrier.arrive(acc_free.index(buf), count=1)
        rows = (t // tiles_n) * bm + gl.arange(0, bm, layout=gl.SliceLayout(1, out.type.layout))
        cols = (t % tiles_n) * bn + gl.arange(0, bn, layout=gl.SliceLayout(0, out.type.layout))
        gl.store(c_ptr + rows[:, None] * N + cols[None, :], out.to(gl.float16))
        i += 1


@gluon.jit
def _ws_loader(a_desc, b_desc, a_s, b_s, ready, freed, tiles, tiles_n, k_tiles, STAGES: gl.constexpr):
    bm: gl.constexpr = a_desc.block_type.shape[0]
    bn: gl.constexpr = b_desc.block_type.shape[0]
    bk: gl.constexpr = a_desc.block_type.shape[1]
    n = 0
    for t in range(gl.program_id(0), tiles, gl.num_programs(0)):
        for k in range(k_tiles):
            s = n % STAGES
            mbarrier.wait(freed.index(s), ((n // STAGES) & 1) ^ 1)
            mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            tma.async_load(a_desc, [(t // tiles_n) * bm, k * bk], ready.index(s), a_s.index(s))
            tma.async_load(b_desc, [(t % tiles_n) * bn, k * bk], ready.index(s), b_s.index(s))
            n += 1


@gluon.jit
def _ws_mma(a_s, b_s, ready, freed, accs, acc_ready, acc_free, tiles, k_tiles, STAGES: gl.constexpr):
    n = 0
    i = 0
    for t in range(gl.program_id(0), tiles, gl.num_programs(0)):
        buf = i % 2
        acc = accs.index(buf)
        mbarrier.wait(acc_free.index(buf), ((i // 2) & 1) ^ 1)
        for k in range(k_tiles):
            s = n % STAGES
            mbarrier.wait(ready.index(s), (n // STAGES) & 1)
            tcgen05_mma(
                a_s.index(s), b_s.index(s).permute((1, 0)), acc, use_acc=k > 0, mbarriers=[freed.index(s)]
            )
            n += 1
        tcgen05_commit(acc_ready.index(buf))
        i += 1


@gluon.jit
def gluon_persistent_ws(a_desc, b_desc, c_ptr, M, N, K, STAGES: gl.constexpr):
    bm: gl.constexpr = a_desc.block_type.shape[0]
    bn: gl.constexpr = b_desc.block_type.shape[0]
    bk: gl.constexpr = a_desc.block_type.shape[1]
    a_s = gl.allocate_shared_memory(a_desc.dtype, [STAGES, bm, bk], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [STAGES, bn, bk], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    freed = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    acc_ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    acc_free = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(freed.index(s), count=1)
    for b in gl.static_range(2):
        mbarrier.init(acc_ready.index(b), count=1)
        mbarrier.init(acc_free.index(b), count=1)
    accs = allocate_tensor_memory(gl.float32, [2, bm, bn], TensorMemoryLayout([bm, bn], col_stride=1))
    tiles_n = gl.cdiv(N, bn)
    tiles = gl.cdiv(M, bm) * tiles_n
    k_tiles = gl.cdiv(K, bk)
    gl.warp_specialize(
        [
            (_ws_epilogue, (c_ptr, N, tiles, tiles_n, accs, acc_ready, acc_free, bm, bn)),
            (_ws_loader, (a_desc, b_desc, a_s, b_s, ready, freed, tiles, tiles_n, k_tiles, STAGES)),
            (_ws_mma, (a_s, b_s, ready, freed, accs, acc_ready, acc_free, tiles, k_tiles, STAGES)),
        ],
        [1, 1],
        [24, 24],
    )


@gluon.jit
def gluon_mma_scaled(a_desc, b_desc, a_scale_ptr, b_scale_ptr, c_ptr, M, N, K):
    bm: gl.constexpr = a_desc.block_type.shape[0]
    bn: gl.constexpr = b_desc.block_type.shape[0]
    bk: gl.constexpr = a_desc.block_type.shape[1]
    off_m = gl.program_id(0) * bm
    off_n = gl.program_id(1) * bn
    a_s = gl.allocate_shared_memory(a_desc.dtype, [bm, bk], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [bn, bk], b_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.init(mma_bar, count=1)
    acc = allocate_tensor_memory(gl.float32, [bm, bn], TensorMemoryLayout([bm, bn], col_stride=1))
    a_scale_t = allocate_tensor_memory(gl.uint8, [bm, bk // 32], TensorMemoryScalesLayout())
    b_scale_t = allocate_tensor_memory(gl.uint8, [bn, bk // 32], TensorMemoryScalesLayout())
    scale_layout: gl.constexpr = a_scale_t.get_reg_layout()
    rows = gl.arange(0, bm, layout=gl.SliceLayout(1, scale_layout))
    cols = gl.arange(0, bk // 32, layout=gl.SliceLayout(0, scale_layout))
    for k in range(gl.cdiv(K, bk)):
        phase = k & 1
        mbarrier.expect(bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_load(a_desc, [off_m, k * bk], bar, a_s)
        tma.async_load(b_desc, [off_n, k * bk], bar, b_s)
        sa = gl.load(a_scale_ptr + (off_m + rows[:, None]) * (K // 32) + k * (bk // 32) + cols[None, :])
        sb = gl.load(b_scale_ptr + (off_n + rows[:, None]) * (K // 32) + k * (bk // 32) + cols[None, :])
        a_scale_t.store(sa)
        b_scale_t.store(sb)
        mbarrier.wait(bar, phase)
        tcgen05_mma_scaled(a_s, b_s.permute((1, 0)), acc, a_scale_t, b_scale_t, "e4m3", "e4m3", use_acc=k > 0,
                           mbarriers=[mma_bar])  # fmt: skip
        mbarrier.wait(mma_bar, phase)
    out = acc.load()
    r = off_m + gl.arange(0, bm, layout=gl.SliceLayout(1, out.type.layout))
    c = off_n + gl.arange(0, bn, layout=gl.SliceLayout(0, out.type.layout))
    gl.store(c_ptr + r[:, None] * N + c[None, :], out)


@triton.jit
def triton_matmul(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bn, stride_cm,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    # Tiles in groups of GROUP rows, so programs running together share A's rows in L2.
    group = pid // (GROUP * tiles_n)
    first_m = group * GROUP
    rows_here = min(tiles_m - first_m, GROUP)
    pid_m = first_m + (pid % (GROUP * tiles_n)) % rows_here
    pid_n = (pid % (GROUP * tiles_n)) // rows_here
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b = b_ptr + rn[None, :] * stride_bn + rk[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        acc = tl.dot(
            tl.load(a, mask=rk[None, :] < left, other=0.0),
            tl.load(b, mask=rk[:, None] < left, other=0.0),
            acc,
        )
        a += BLOCK_K
        b += BLOCK_K
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(
        c_ptr + cm[:, None] * stride_cm + cn[None, :],
        acc.to(tl.float16),
        mask=(cm[:, None] < M) & (cn[None, :] < N),
    )


@triton.jit
def triton_matmul_persistent_ws(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                BLOCK_K: tl.constexpr, PROGRAMS: tl.constexpr):  # fmt: skip
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, [N, K], [K, 1], [BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BLOCK_M, BLOCK_N])
    tiles_n = tl.cdiv(N, BLOCK_N)
    tiles = tl.cdiv(M, BLOCK_M) * tiles_n
    for t in tl.range(tl.program_id(0), tiles, PROGRAMS, flatten=True, warp_specialize=True):
        off_m = (t // tiles_n) * BLOCK_M
        off_n = (t % tiles_n) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(tl.cdiv(K, BLOCK_K)):
            acc = tl.dot(a_desc.load([off_m, k * BLOCK_K]), b_desc.load([off_n, k * BLOCK_K]).T, acc)
        c_desc.store([off_m, off_n], acc.to(tl.float16))


def _desc(dtype: str, block: list[int], bits: int) -> str:
    layout = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=bits, rank=2)
    return f"tensordesc<{dtype}[{','.join(map(str, block))}],{layout!r}>"


def sources() -> dict[str, tuple[str, str, str, object, dict]]:
    """name -> (kind, persistent, warp_specialized, source to compile, options)."""
    sizes = {"M": "i32", "N": "i32", "K": "i32"}
    fp16 = {"a_desc": _desc("fp16", [BM, BK], 16), "b_desc": _desc("fp16", [BN, BK], 16), "c_ptr": "*fp16"}
    fp8 = {"a_desc": _desc("fp8e4nv", [BM, 128], 8), "b_desc": _desc("fp8e4nv", [BN, 128], 8)}
    scales = {"a_scale_ptr": "*u8", "b_scale_ptr": "*u8", "c_ptr": "*fp32"}
    plain = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", **sizes}
    tiles = {"BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_K": BK}
    strides = {"stride_am": "i32", "stride_bn": "i32", "stride_cm": "i32"}
    staged = {**fp16, **sizes, "STAGES": "constexpr"}
    four = {"num_warps": 4}
    piped = {"num_warps": 4, "num_stages": 3}
    matmul = ASTSource(
        triton_matmul,
        {**plain, **strides, **dict.fromkeys([*tiles, "GROUP"], "constexpr")},
        {**tiles, "GROUP": 8},
    )
    persistent = ASTSource(
        triton_matmul_persistent_ws,
        {**plain, **dict.fromkeys([*tiles, "PROGRAMS"], "constexpr")},
        {**tiles, "PROGRAMS": 148},
    )
    return {
        "gluon_gemm": ("gemm", "no", "no", GluonASTSource(gluon_gemm, staged, {"STAGES": 3}), four),
        "gluon_persistent_ws": (
            "gemm",
            "yes",
            "yes",
            GluonASTSource(gluon_persistent_ws, staged, {"STAGES": 3}),
            four,
        ),
        "gluon_mma_scaled": (
            "block-scaled gemm",
            "no",
            "no",
            GluonASTSource(gluon_mma_scaled, {**fp8, **scales, **sizes}),
            four,
        ),
        "triton_matmul": ("gemm", "no", "no", matmul, piped),
        "triton_matmul_persistent_ws": ("gemm", "yes", "yes", persistent, piped),
    }


def ptx_of(source: object, options: dict) -> str:
    """The PTX Triton writes for ``source``, its .file directives naming only this file."""
    compiled = triton.compile(source, target=TARGET, options=options)
    lines = []
    for line in compiled.asm["ptx"].splitlines(keepends=True):
        if line.lstrip().startswith(".file") and '"' in line:  # no path of the build machine
            head, name, tail = line.split('"', 2)
            line = f'{head}"{Path(name).name}"{tail}'
        lines.append(line)
    return "".join(lines)


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    made = sources()
    entries, failed = [], 0
    for name in argv[1:] or sorted(made):
        kind, persistent, ws, source, options = made[name]
        try:
            (out / f"{name}.ptx").write_text(ptx_of(source, options))
        except Exception:  # one kernel failing is reported; the others go on
            traceback.print_exc()
            failed += 1
            continue
        entries.append(
            {"file": f"{name}.ptx", "kind": kind, "persistent": persistent, "warp_specialized": ws}
        )
    (out / "entries.json").write_text(json.dumps(entries, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
