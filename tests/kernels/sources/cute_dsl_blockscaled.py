"""CuTe DSL block-scaled GEMMs written for tmemviz's tests and corpus, compiled without a GPU.

    CUTE_DSL_ARCH=sm_100a python cute_dsl_blockscaled.py OUT_DIR [NAME ...]

C = A * B^T on one 128x128 tile per CTA (one CTA, four warps), A and B K-major in a narrow type with one
scale factor per ``vec`` elements along K:

- ``blockscaled_nvfp4``: E2M1 A/B, E4M3 scale factors per 16 (``kind::mxf4nvf4.block_scale.block16``);
- ``blockscaled_mxf8``: E4M3 A/B, UE8M0 scale factors per 32 (``kind::mxf8f6f4.block_scale.block32``).

Each K step: the four warps copy the step's scale factors (kept in global memory in the order shared memory
holds them) into shared memory, a fence makes them visible to the async proxy, one thread loads A and B
with TMA, copies the scale factors to Tensor Memory with ``tcgen05.cp`` (``Cp4x32x128bOp``: 32 lanes,
broadcast to the four lane quarters) and issues the step's MMAs with the scale factors' Tensor Memory
addresses; the accumulator sits in columns 0-127, the scale factors after it.
"""

# ruff: noqa: I001 - common sets the DSL's environment variables before cutlass is first imported
from __future__ import annotations

import sys

from common import main

import cutlass
import cutlass.cute as cute
import cutlass.utils.blackwell_helpers as sm100
import cutlass.utils.blockscaled_layout as scaled
from cutlass.cute.nvgpu import OperandMajorMode, cpasync, tcgen05
from cutlass.cute.runtime import make_fake_compact_tensor

ACC = cutlass.Float32
STAGES = 2
K_TILE = 128


class BlockScaledGemm:
    def __init__(self, ab: type, sf: type, vec: int) -> None:
        self.ab, self.sf, self.vec = ab, sf, vec
        self.mma_tiler = (128, 128, K_TILE)

    @cute.jit
    def __call__(self, a, b, sfa, sfb, c, stream) -> None:  # type: ignore[no-untyped-def]
        mma = sm100.make_blockscaled_trivial_tiled_mma(
            self.ab, self.ab, OperandMajorMode.K, OperandMajorMode.K, self.sf, self.vec,
            tcgen05.CtaGroup.ONE, self.mma_tiler[:2],
        )  # fmt: skip
        a_layout = sm100.make_smem_layout_a(mma, self.mma_tiler, self.ab, STAGES)
        b_layout = sm100.make_smem_layout_b(mma, self.mma_tiler, self.ab, STAGES)
        sfa_layout = scaled.make_smem_layout_sfa(mma, self.mma_tiler, self.vec, STAGES)
        sfb_layout = scaled.make_smem_layout_sfb(mma, self.mma_tiler, self.vec, STAGES)
        load = cpasync.CopyBulkTensorTileG2SOp(tcgen05.CtaGroup.ONE)
        tma_a, ta = cute.nvgpu.make_tiled_tma_atom_A(
            load, a, cute.slice_(a_layout, (None, None, None, 0)), self.mma_tiler, mma
        )
        tma_b, tb = cute.nvgpu.make_tiled_tma_atom_B(
            load, b, cute.slice_(b_layout, (None, None, None, 0)), self.mma_tiler, mma
        )
        grid = (cute.size(c, mode=[0]) // 128, cute.size(c, mode=[1]) // 128, 1)
        self.kernel(
            mma, tma_a, ta, tma_b, tb, sfa, sfb, c, a_layout, b_layout, sfa_layout, sfb_layout
        ).launch(grid=grid, block=(128, 1, 1), stream=stream)

    @cute.kernel
    def kernel(self, mma, tma_a, ta, tma_b, tb, sfa, sfb, c, a_layout, b_layout, sfa_layout, sfb_layout):  # type: ignore[no-untyped-def]
        warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
        tidx, _, _ = cute.arch.thread_idx()
        bidx, bidy, _ = cute.arch.block_idx()
        smem = cutlass.memory.SmemAllocator()
        sa = smem.allocate_tensor(self.ab, a_layout.outer, byte_alignment=128, swizzle=a_layout.inner)
        sb = smem.allocate_tensor(self.ab, b_layout.outer, byte_alignment=128, swizzle=b_layout.inner)
        ssfa = smem.allocate_tensor(self.sf, sfa_layout, byte_alignment=128)
        ssfb = smem.allocate_tensor(self.sf, sfb_layout, byte_alignment=128)
        bars = smem.allocate_array(cutlass.Int64, 4)
        full, empty, done = bars, bars + 1, bars + 3
        holder = smem.allocate_array(cutlass.Int32, 1)
        if warp == 0:
            with cute.arch.elect_one():
                cute.arch.mbarrier_init(full, 1)
                cute.arch.mbarrier_init(empty, 1)
                cute.arch.mbarrier_init(empty + 1, 1)
                cute.arch.mbarrier_init(done, 1)
            cute.arch.mbarrier_init_fence()
            cute.arch.alloc_tmem(256, holder)
        cute.arch.barrier()

        ga = cute.local_tile(ta, cute.slice_(self.mma_tiler, (None, 0, None)), (bidx, None))
        gb = cute.local_tile(tb, cute.slice_(self.mma_tiler, (0, None, None)), (bidy, None))
        thr = mma.get_slice(0)
        one = cute.make_layout(1)
        tas, tag = cpasync.tma_partition(
            tma_a, 0, one, cute.group_modes(sa, 0, 3), cute.group_modes(thr.partition_A(ga), 0, 3)
        )
        tbs, tbg = cpasync.tma_partition(
            tma_b, 0, one, cute.group_modes(sb, 0, 3), cute.group_modes(thr.partition_B(gb), 0, 3)
        )
        fa, fb = mma.make_fragment_A(sa), mma.make_fragment_B(sb)
        tx = cute.size_in_bytes(self.ab, cute.slice_(a_layout, (None, None, None, 0))) + cute.size_in_bytes(
            self.ab, cute.slice_(b_layout, (None, None, None, 0))
        )

        # Tensor Memory: the accumulator, then SFA, then SFB.
        tmem = cute.arch.retrieve_tmem_ptr(ACC, 16, holder)
        acc = cute.make_tensor(tmem, mma.make_fragment_C(mma.partition_shape_C(self.mma_tiler[:2])).layout)
        sfa_tmem_layout = scaled.make_tmem_layout_sfa(
            mma, self.mma_tiler, self.vec, cute.slice_(sfa_layout, (None, None, None, 0))
        )
        sfb_tmem_layout = scaled.make_tmem_layout_sfb(
            mma, self.mma_tiler, self.vec, cute.slice_(sfb_layout, (None, None, None, 0))
        )
        sfa_cols = tcgen05.find_tmem_tensor_col_offset(acc)
        tsfa = cute.make_tensor(cute.recast_ptr(tmem + sfa_cols, dtype=self.sf), sfa_tmem_layout)
        sfb_cols = sfa_cols + tcgen05.find_tmem_tensor_col_offset(tsfa)
        tsfb = cute.make_tensor(cute.recast_ptr(tmem + sfb_cols, dtype=self.sf), sfb_tmem_layout)

        # tcgen05.cp of each stage's scale factors: shared-memory descriptors -> Tensor Memory.
        cp = cute.make_copy_atom(tcgen05.Cp4x32x128bOp(tcgen05.CtaGroup.ONE), self.sf)
        sfa_copy = tcgen05.make_s2t_copy(cp, cute.filter_zeros(tsfa))
        sfb_copy = tcgen05.make_s2t_copy(cp, cute.filter_zeros(tsfb))
        sfa_thr, sfb_thr = sfa_copy.get_slice(0), sfb_copy.get_slice(0)
        sfa_src = tcgen05.get_s2t_smem_desc_tensor(sfa_copy, sfa_thr.partition_S(cute.filter_zeros(ssfa)))
        sfb_src = tcgen05.get_s2t_smem_desc_tensor(sfb_copy, sfb_thr.partition_S(cute.filter_zeros(ssfb)))
        sfa_dst = sfa_thr.partition_D(cute.filter_zeros(tsfa))
        sfb_dst = sfb_thr.partition_D(cute.filter_zeros(tsfb))

        # The scale factors of one K step, as global memory keeps them: (tile, k step, bytes of a stage).
        step_a = cute.cosize(cute.slice_(sfa_layout, (None, None, None, 0)))
        step_b = cute.cosize(cute.slice_(sfb_layout, (None, None, None, 0)))
        k_tiles = cute.size(tag, mode=[1])
        for k in cutlass.range(k_tiles):
            s = k % STAGES
            if k >= STAGES:  # the MMAs of K step k - 2 have read stage s
                cute.arch.mbarrier_wait(empty + s, ((k // STAGES) - 1) % 2)
            flat_a = cute.make_tensor(ssfa.iterator + s * step_a, cute.make_layout(step_a))
            flat_b = cute.make_tensor(ssfb.iterator + s * step_b, cute.make_layout(step_b))
            per = step_a // 128
            cute.autovec_copy(cute.local_tile(sfa[(bidx, k, None)], (per,), (tidx,)),
                              cute.local_tile(flat_a, (per,), (tidx,)))  # fmt: skip
            cute.autovec_copy(cute.local_tile(sfb[(bidy, k, None)], (per,), (tidx,)),
                              cute.local_tile(flat_b, (per,), (tidx,)))  # fmt: skip
            cute.arch.fence_proxy("async.shared", space="cta")
            cute.arch.barrier()
            if warp == 0:
                with cute.arch.elect_one():
                    cute.arch.mbarrier_arrive_and_expect_tx(full, tx)
                cute.copy(tma_a, tag[(None, k)], tas[(None, s)], tma_bar_ptr=full)
                cute.copy(tma_b, tbg[(None, k)], tbs[(None, s)], tma_bar_ptr=full)
                cute.arch.mbarrier_wait(full, k % 2)
                cute.copy(sfa_copy, sfa_src[(None, None, None, None, s)], sfa_dst)
                cute.copy(sfb_copy, sfb_src[(None, None, None, None, s)], sfb_dst)
                for kb in cutlass.range_constexpr(cute.size(fa, mode=[2])):
                    mma.set(tcgen05.Field.ACCUMULATE, k != 0 or kb != 0)
                    mma.set(tcgen05.Field.SFA, tsfa[(None, None, kb)].iterator)
                    mma.set(tcgen05.Field.SFB, tsfb[(None, None, kb)].iterator)
                    cute.gemm(mma, acc, fa[(None, None, kb, s)], fb[(None, None, kb, s)], acc)
                with cute.arch.elect_one():
                    tcgen05.commit(empty + s)
        if warp == 0:
            with cute.arch.elect_one():
                tcgen05.commit(done)

        cute.arch.mbarrier_wait(done, 0)
        tile = acc[((None, None), 0, 0)]
        copy = tcgen05.make_tmem_copy(
            cute.make_copy_atom(tcgen05.Ld32x32bOp(tcgen05.Repetition.x64), ACC), tile
        )
        mine = copy.get_slice(tidx)
        dst = mine.partition_D(cute.local_tile(c, (128, 128), (bidx, bidy)))
        regs = cute.make_rmem_tensor(dst.shape, ACC)
        cute.copy(copy, mine.partition_S(tile), regs)
        cute.arch.fence_view_async_tmem_load()
        cute.autovec_copy(regs, dst)
        cute.arch.barrier()
        if warp == 0:
            cute.arch.dealloc_tmem(tmem, 256)


def fake_args(ab: type, sf: type, vec: int) -> tuple:
    """A (M, K), B (N, K), C (M, N), and each tile's scale factors per K step in shared memory's order."""
    m, n, k = (
        cute.sym_int32(divisibility=128),
        cute.sym_int32(divisibility=128),
        cute.sym_int32(divisibility=128),
    )
    steps = cute.sym_int32()
    per_step = 128 * K_TILE // vec
    a = make_fake_compact_tensor(ab, (m, k), stride_order=(1, 0), assumed_align=32)
    b = make_fake_compact_tensor(ab, (n, k), stride_order=(1, 0), assumed_align=32)
    sfa = make_fake_compact_tensor(
        sf, (cute.sym_int32(), steps, per_step), stride_order=(2, 1, 0), assumed_align=16
    )
    sfb = make_fake_compact_tensor(
        sf, (cute.sym_int32(), steps, per_step), stride_order=(2, 1, 0), assumed_align=16
    )
    c = make_fake_compact_tensor(ACC, (m, n), stride_order=(1, 0), assumed_align=16)
    return a, b, sfa, sfb, c


KERNELS = {
    "blockscaled_nvfp4": (
        "block-scaled gemm", "no", "no",
        lambda: BlockScaledGemm(cutlass.Float4E2M1FN, cutlass.Float8E4M3FN, 16),
        fake_args(cutlass.Float4E2M1FN, cutlass.Float8E4M3FN, 16),
    ),
    "blockscaled_mxf8": (
        "block-scaled gemm", "no", "no",
        lambda: BlockScaledGemm(cutlass.Float8E4M3FN, cutlass.Float8E8M0FNU, 32),
        fake_args(cutlass.Float8E4M3FN, cutlass.Float8E8M0FNU, 32),
    ),
}  # fmt: skip

if __name__ == "__main__":
    sys.exit(main(KERNELS, sys.argv[1:]))
