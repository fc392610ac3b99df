"""A CuTe DSL attention forward kernel written for tmemviz's tests and corpus, compiled without a GPU.

    CUTE_DSL_ARCH=sm_100a python cute_dsl_attention.py OUT_DIR [NAME ...]

``attention``: one CTA (four warps, one query row per thread) computes O = softmax(Q K^T) V for a block of
128 queries, f16 Q/K/V/O, head dimension 128, f32 accumulators in Tensor Memory, over the key/value
sequence in blocks of 128 (online softmax):

- S = Q K_j^T: an MMA from shared memory into Tensor Memory columns 0-127;
- each thread loads its row of S (``tcgen05.ld`` 32x32b.x32, four loads, then ``tcgen05.wait::ld``: the
  DSL does not wait by itself), takes the row maximum, turns it
  into P = exp2((S - max) * scale) and the row sum in registers; for j > 0 it loads its row of O (columns
  128-255), rescales it by exp2((old max - new max) * scale) and stores it back (``tcgen05.st``);
- P, as f16 pairs, is stored to Tensor Memory columns 256-319 (``tcgen05.st`` 32x32b.x32, two stores);
- O += P V_j: an MMA whose A operand is read from Tensor Memory (``tcgen05.mma ... [d], [a], b``);
- at the end O is loaded, divided by the row sum and stored to global memory.
"""

# ruff: noqa: I001 - common sets the DSL's environment variables before cutlass is first imported
from __future__ import annotations

import math
import sys

from common import main

import cutlass
import cutlass.cute as cute
import cutlass.utils.blackwell_helpers as sm100
from cutlass.cute.nvgpu import OperandMajorMode, cpasync, tcgen05
from cutlass.cute.runtime import make_fake_compact_tensor

F16 = cutlass.Float16
ACC = cutlass.Float32
BLOCK = 128
HEAD = 128


class Attention:
    def __init__(self) -> None:
        self.qk_tiler = (BLOCK, BLOCK, HEAD)
        self.pv_tiler = (BLOCK, HEAD, BLOCK)

    @cute.jit
    def __call__(self, q, k, v, o, stream) -> None:  # type: ignore[no-untyped-def]
        one = tcgen05.CtaGroup.ONE
        qk = sm100.make_trivial_tiled_mma(
            F16, F16, OperandMajorMode.K, OperandMajorMode.K, ACC, one, (BLOCK, BLOCK)
        )
        pv = sm100.make_trivial_tiled_mma(
            F16,
            F16,
            OperandMajorMode.K,
            OperandMajorMode.MN,
            ACC,
            one,
            (BLOCK, HEAD),
            tcgen05.OperandSource.TMEM,
        )
        q_layout = sm100.make_smem_layout_a(qk, self.qk_tiler, F16, 1)
        k_layout = sm100.make_smem_layout_b(qk, self.qk_tiler, F16, 1)
        v_layout = sm100.make_smem_layout_b(pv, self.pv_tiler, F16, 1)
        load = cpasync.CopyBulkTensorTileG2SOp(one)
        tma_q, tq = cute.nvgpu.make_tiled_tma_atom_A(load, q, cute.slice_(q_layout, (None, None, None, 0)),
                                                     self.qk_tiler, qk)  # fmt: skip
        tma_k, tk = cute.nvgpu.make_tiled_tma_atom_B(load, k, cute.slice_(k_layout, (None, None, None, 0)),
                                                     self.qk_tiler, qk)  # fmt: skip
        tma_v, tv = cute.nvgpu.make_tiled_tma_atom_B(load, v, cute.slice_(v_layout, (None, None, None, 0)),
                                                     self.pv_tiler, pv)  # fmt: skip
        grid = (cute.size(q, mode=[0]) // BLOCK, 1, 1)
        self.kernel(qk, pv, tma_q, tq, tma_k, tk, tma_v, tv, o, q_layout, k_layout, v_layout).launch(
            grid=grid, block=(128, 1, 1), stream=stream
        )

    @cute.kernel
    def kernel(self, qk, pv, tma_q, tq, tma_k, tk, tma_v, tv, o, q_layout, k_layout, v_layout):  # type: ignore[no-untyped-def]
        warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
        tidx, _, _ = cute.arch.thread_idx()
        bidx, _, _ = cute.arch.block_idx()
        smem = cutlass.memory.SmemAllocator()
        sq = smem.allocate_tensor(F16, q_layout.outer, byte_alignment=128, swizzle=q_layout.inner)
        sk = smem.allocate_tensor(F16, k_layout.outer, byte_alignment=128, swizzle=k_layout.inner)
        sv = smem.allocate_tensor(F16, v_layout.outer, byte_alignment=128, swizzle=v_layout.inner)
        bars = smem.allocate_array(cutlass.Int64, 4)
        loaded, s_done, o_done = bars, bars + 1, bars + 2
        holder = smem.allocate_array(cutlass.Int32, 1)
        if warp == 0:
            with cute.arch.elect_one():
                cute.arch.mbarrier_init(loaded, 1)
                cute.arch.mbarrier_init(s_done, 1)
                cute.arch.mbarrier_init(o_done, 1)
            cute.arch.mbarrier_init_fence()
            cute.arch.alloc_tmem(512, holder)
        cute.arch.barrier()

        one = cute.make_layout(1)
        gq = cute.local_tile(tq, cute.slice_(self.qk_tiler, (None, 0, None)), (bidx, None))
        gk = cute.local_tile(tk, cute.slice_(self.qk_tiler, (0, None, None)), (None, 0))
        gv = cute.local_tile(tv, cute.slice_(self.pv_tiler, (0, None, None)), (0, None))
        tqs, tqg = cpasync.tma_partition(tma_q, 0, one, cute.group_modes(sq, 0, 3),
                                         cute.group_modes(qk.get_slice(0).partition_A(gq), 0, 3))  # fmt: skip
        tks, tkg = cpasync.tma_partition(tma_k, 0, one, cute.group_modes(sk, 0, 3),
                                         cute.group_modes(qk.get_slice(0).partition_B(gk), 0, 3))  # fmt: skip
        tvs, tvg = cpasync.tma_partition(tma_v, 0, one, cute.group_modes(sv, 0, 3),
                                         cute.group_modes(pv.get_slice(0).partition_B(gv), 0, 3))  # fmt: skip
        fq, fk, fv = qk.make_fragment_A(sq), qk.make_fragment_B(sk), pv.make_fragment_B(sv)
        q_bytes = cute.size_in_bytes(F16, cute.slice_(q_layout, (None, None, None, 0)))
        kv_bytes = cute.size_in_bytes(F16, cute.slice_(k_layout, (None, None, None, 0))) + cute.size_in_bytes(
            F16, cute.slice_(v_layout, (None, None, None, 0))
        )

        # Tensor Memory: S at columns 0-127, O at 128-255, P (f16 pairs) at 256-319.
        tmem = cute.arch.retrieve_tmem_ptr(ACC, 16, holder)
        ts = cute.make_tensor(tmem, qk.make_fragment_C(qk.partition_shape_C((BLOCK, BLOCK))).layout)
        to = cute.make_tensor(tmem + 128, pv.make_fragment_C(pv.partition_shape_C((BLOCK, HEAD))).layout)
        fp = pv.make_fragment_A(pv.partition_shape_A((BLOCK, BLOCK)))
        tp = cute.make_tensor(cute.recast_ptr(tmem + 256, dtype=F16), fp.layout)

        ld = cute.make_copy_atom(tcgen05.Ld32x32bOp(tcgen05.Repetition.x32), ACC)
        st = cute.make_copy_atom(tcgen05.St32x32bOp(tcgen05.Repetition.x32), ACC)
        s_tile, o_tile = ts[((None, None), 0, 0)], to[((None, None), 0, 0)]
        # P's 64 columns of f16 pairs, seen as 32-bit words laid out as the first 64 columns of S.
        p_tile = cute.make_tensor(tmem + 256, cute.local_tile(s_tile, (BLOCK, BLOCK // 2), (0, 0)).layout)
        s_ld = tcgen05.make_tmem_copy(ld, s_tile).get_slice(tidx)
        o_ld = tcgen05.make_tmem_copy(ld, o_tile).get_slice(tidx)
        o_st = tcgen05.make_tmem_copy(st, o_tile).get_slice(tidx)
        p_st = tcgen05.make_tmem_copy(st, p_tile).get_slice(tidx)
        s_src, o_src, o_dst, p_dst = s_ld.partition_S(s_tile), o_ld.partition_S(o_tile), \
            o_st.partition_D(o_tile), p_st.partition_D(p_tile)  # fmt: skip
        s_regs = cute.make_rmem_tensor(s_ld.partition_D(s_tile).shape, ACC)
        o_regs = cute.make_rmem_tensor(o_ld.partition_D(o_tile).shape, ACC)
        p_regs = cute.make_rmem_tensor(p_st.partition_S(p_tile).shape, ACC)
        p_half = cute.make_rmem_tensor(s_regs.shape, F16)

        scale = 1.0 / math.sqrt(HEAD) * math.log2(math.e)
        row_max = -cutlass.Float32.inf
        row_sum = cutlass.Float32(0.0)
        blocks = cute.size(tkg, mode=[1])
        for j in cutlass.range(blocks):
            if warp == 0:
                with cute.arch.elect_one():
                    cute.arch.mbarrier_arrive_and_expect_tx(loaded, kv_bytes + (q_bytes if j == 0 else 0))
                if j == 0:
                    cute.copy(tma_q, tqg[(None, 0)], tqs[(None, 0)], tma_bar_ptr=loaded)
                cute.copy(tma_k, tkg[(None, j)], tks[(None, 0)], tma_bar_ptr=loaded)
                cute.copy(tma_v, tvg[(None, j)], tvs[(None, 0)], tma_bar_ptr=loaded)
                cute.arch.mbarrier_wait(loaded, j % 2)
                for kb in cutlass.range_constexpr(cute.size(fq, mode=[2])):
                    qk.set(tcgen05.Field.ACCUMULATE, kb != 0)
                    cute.gemm(qk, ts, fq[(None, None, kb, 0)], fk[(None, None, kb, 0)], ts)
                with cute.arch.elect_one():
                    tcgen05.commit(s_done)
            cute.arch.mbarrier_wait(s_done, j % 2)
            cute.copy(s_ld, s_src, s_regs)
            # tcgen05.wait::ld: the loads are complete (PTX 9.7.16.8.5); the DSL does not wait by itself.
            cute.arch.fence_view_async_tmem_load()
            s = s_regs.load()
            new_max = cute.arch.fmax(row_max, s.reduce(cute.ReductionOp.MAX, -cutlass.Float32.inf, 0))
            p = cute.math.exp2((s - new_max) * scale, fastmath=True)
            correction = cute.math.exp2((row_max - new_max) * scale, fastmath=True)
            row_sum = row_sum * correction + p.reduce(cute.ReductionOp.ADD, cutlass.Float32(0.0), 0)
            row_max = new_max
            if j > 0:  # rescale the O accumulated so far (the previous P*V is complete: o_done waited)
                cute.copy(o_ld, o_src, o_regs)
                cute.arch.fence_view_async_tmem_load()
                o_regs.store(o_regs.load() * correction)
                cute.copy(o_st, o_regs, o_dst)
            p_half.store(p.to(F16))
            cute.copy(p_st, cute.make_tensor(cute.recast_tensor(p_half, ACC).iterator, p_regs.layout), p_dst)
            cute.arch.fence_view_async_tmem_store()
            cute.arch.barrier()
            if warp == 0:
                for kb in cutlass.range_constexpr(cute.size(tp, mode=[2])):
                    pv.set(tcgen05.Field.ACCUMULATE, j != 0 or kb != 0)
                    cute.gemm(pv, to, tp[(None, None, kb)], fv[(None, None, kb, 0)], to)
                with cute.arch.elect_one():
                    tcgen05.commit(o_done)
            cute.arch.mbarrier_wait(o_done, j % 2)

        cute.copy(o_ld, o_src, o_regs)
        cute.arch.fence_view_async_tmem_load()
        o_regs.store(o_regs.load() * (1.0 / row_sum))
        out = cute.make_rmem_tensor(o_regs.shape, F16)
        out.store(o_regs.load().to(F16))
        go = cute.local_tile(o, (BLOCK, HEAD), (bidx, 0))
        cute.autovec_copy(out, o_ld.partition_D(go))
        cute.arch.barrier()
        if warp == 0:
            cute.arch.dealloc_tmem(tmem, 512)


def fake_args() -> tuple:
    """Q (queries, 128), K (keys, 128), V (keys, 128) with d contiguous, O (queries, 128)."""
    queries, keys = cute.sym_int32(divisibility=BLOCK), cute.sym_int32(divisibility=BLOCK)
    q = make_fake_compact_tensor(F16, (queries, HEAD), stride_order=(1, 0), assumed_align=16)
    k = make_fake_compact_tensor(F16, (keys, HEAD), stride_order=(1, 0), assumed_align=16)
    v = make_fake_compact_tensor(F16, (HEAD, keys), stride_order=(0, 1), assumed_align=16)
    o = make_fake_compact_tensor(F16, (queries, HEAD), stride_order=(1, 0), assumed_align=16)
    return q, k, v, o


KERNELS = {"attention": ("attention", "no", "no", Attention, fake_args())}

if __name__ == "__main__":
    sys.exit(main(KERNELS, sys.argv[1:]))
