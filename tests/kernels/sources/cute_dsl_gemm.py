"""CuTe DSL GEMMs written for tmemviz's tests and corpus, compiled without a GPU.

    CUTE_DSL_ARCH=sm_100a python cute_dsl_gemm.py OUT_DIR [NAME ...]

Each kernel is compiled by ``cute.compile`` on fake tensors (``make_fake_compact_tensor``,
``make_fake_stream``) with ``CUTE_DSL_KEEP=ptx``; the PTX is copied to ``OUT_DIR/NAME.ptx`` and
``OUT_DIR/entries.json`` says what each kernel is. Needs ``nvidia-cutlass-dsl`` 4.8.1 (not a dependency
of tmemviz: run it in a scratch environment).

The kernels (C = A * B^T, A M x K and B N x K, K-major f16, f32 accumulator in Tensor Memory):

- ``gemm``: one 128x128 tile per CTA, one CTA, TMA loads of A and B into a 2-stage shared-memory ring,
  one thread issues the MMAs and commits to an mbarrier, four warps read the accumulator back with
  ``tcgen05.ld`` 32x32b.x32 and store it.
- ``gemm_persistent_ws``: persistent (a CTA walks tiles ``blockIdx.x, +gridDim.x, ...``) and
  warp-specialized (warp 4 loads with TMA, warp 5 issues MMAs, warps 0-3 drain the accumulator) with a
  2-stage accumulator in Tensor Memory: tile ``i`` accumulates at column ``(i % 2) * 128``, so the MMA
  warp fills one stage while the epilogue drains the other (mbarriers ``acc_full``/``acc_empty``).
- ``gemm_n64``: ``gemm`` with a 128x64 tile (64 columns of Tensor Memory).
- ``gemm_2cta``: the same one-tile kernel on a cluster of 2 CTAs with ``cta_group::2`` MMAs (256x128 per
  pair, each CTA holds its 128 rows), TMEM allocated by both CTAs of the pair.
"""

# ruff: noqa: I001, SIM113, B007 - common sets the DSL's environment before cutlass is first imported;
# kernel loops are compiled by the DSL, which has no enumerate() (and needs the tile loop's variable)
from __future__ import annotations

import sys

from common import main

import cutlass
import cutlass.cute as cute
import cutlass.utils.blackwell_helpers as sm100
from cutlass.cute.nvgpu import cpasync, tcgen05
from cutlass.cute.runtime import make_fake_compact_tensor

AB = cutlass.Float16
ACC = cutlass.Float32
K_TILE = 64
STAGES = 2


class Gemm:
    """C = A * B^T on one MMA tile per CTA (or per CTA pair), or persistent and warp-specialized."""

    def __init__(self, cta_group: int = 1, persistent: bool = False, n: int = 128) -> None:
        self.cta_group = cta_group
        self.persistent = persistent
        self.n = n
        self.mma_tiler = (128 * cta_group, n, K_TILE)
        self.acc_stages = 2 if persistent else 1
        self.threads = 192 if persistent else 128

    @cute.jit
    def __call__(self, a: cute.Tensor, b: cute.Tensor, c: cute.Tensor, stream) -> None:  # type: ignore[no-untyped-def]
        group = tcgen05.CtaGroup.TWO if self.cta_group == 2 else tcgen05.CtaGroup.ONE
        mma = sm100.make_trivial_tiled_mma(
            AB,
            AB,
            cute.nvgpu.OperandMajorMode.K,
            cute.nvgpu.OperandMajorMode.K,
            ACC,
            group,
            self.mma_tiler[:2],
        )
        a_layout = sm100.make_smem_layout_a(mma, self.mma_tiler, AB, STAGES)
        b_layout = sm100.make_smem_layout_b(mma, self.mma_tiler, AB, STAGES)
        cluster = cute.make_layout((self.cta_group, 1, 1))
        vmnk = cute.tiled_divide(cluster, (mma.thr_id.shape,))
        load = cpasync.CopyBulkTensorTileG2SOp(group)
        tma_a, ta = cute.nvgpu.make_tiled_tma_atom_A(
            load, a, cute.slice_(a_layout, (None, None, None, 0)), self.mma_tiler, mma, vmnk.shape
        )
        tma_b, tb = cute.nvgpu.make_tiled_tma_atom_B(
            load, b, cute.slice_(b_layout, (None, None, None, 0)), self.mma_tiler, mma, vmnk.shape
        )
        tiles_m = cute.size(c, mode=[0]) // 128
        tiles_n = cute.size(c, mode=[1]) // self.n
        grid = (148, 1, 1) if self.persistent else (tiles_m, tiles_n, 1)
        self.kernel(mma, tma_a, ta, tma_b, tb, c, a_layout, b_layout, vmnk).launch(
            grid=grid, block=(self.threads, 1, 1), cluster=(self.cta_group, 1, 1), stream=stream
        )

    @cute.kernel
    def kernel(self, mma, tma_a, ta, tma_b, tb, c, a_layout, b_layout, vmnk) -> None:  # type: ignore[no-untyped-def]
        if cutlass.const_expr(self.persistent):
            self.persistent_ws(mma, tma_a, ta, tma_b, tb, c, a_layout, b_layout)
        else:
            self.one_tile(mma, tma_a, ta, tma_b, tb, c, a_layout, b_layout, vmnk)

    @cute.jit
    def operands(self, mma, tma_a, ta, tma_b, tb, a_layout, b_layout, v):  # type: ignore[no-untyped-def]
        """Shared memory for A and B, their TMA partitions over (tile, k), the MMA's fragments."""
        smem = cutlass.memory.SmemAllocator()
        sa = smem.allocate_tensor(AB, a_layout.outer, byte_alignment=128, swizzle=a_layout.inner)
        sb = smem.allocate_tensor(AB, b_layout.outer, byte_alignment=128, swizzle=b_layout.inner)
        bars = smem.allocate_array(cutlass.Int64, 8)
        holder = smem.allocate_array(cutlass.Int32, 1)  # where tcgen05.alloc writes the TMEM address
        # (tile_m, K_TILE, m tiles, k tiles) of A and (tile_n, K_TILE, n tiles, k tiles) of B
        ga = cute.local_tile(ta, cute.slice_(self.mma_tiler, (None, 0, None)), (None, None))
        gb = cute.local_tile(tb, cute.slice_(self.mma_tiler, (0, None, None)), (None, None))
        thr = mma.get_slice(v)
        one = cute.make_layout(1)
        tas, tag = cpasync.tma_partition(
            tma_a, 0, one, cute.group_modes(sa, 0, 3), cute.group_modes(thr.partition_A(ga), 0, 3)
        )
        tbs, tbg = cpasync.tma_partition(
            tma_b, 0, one, cute.group_modes(sb, 0, 3), cute.group_modes(thr.partition_B(gb), 0, 3)
        )
        tx = cute.size_in_bytes(AB, cute.slice_(a_layout, (None, None, None, 0))) + cute.size_in_bytes(
            AB, cute.slice_(b_layout, (None, None, None, 0))
        )
        return mma.make_fragment_A(sa), mma.make_fragment_B(sb), tas, tag, tbs, tbg, bars, holder, tx

    @cute.jit
    def accumulator(self, mma, holder):  # type: ignore[no-untyped-def]
        """The accumulator in Tensor Memory: (128 lanes, N columns) per stage, stage s at column N*s."""
        shape = mma.partition_shape_C(self.mma_tiler[:2])
        fake = mma.make_fragment_C(cute.append(shape, self.acc_stages))
        tmem = cute.arch.retrieve_tmem_ptr(ACC, 16, holder)
        return tmem, cute.make_tensor(tmem, fake.layout)

    @cute.jit
    def drain(self, acc_tile, c, tile_m, tile_n, tidx):  # type: ignore[no-untyped-def]
        """Each of the four epilogue warps reads its 32 lanes (32x32b.x32, N/32 loads) and stores them."""
        copy = tcgen05.make_tmem_copy(
            cute.make_copy_atom(tcgen05.Ld32x32bOp(tcgen05.Repetition.x32), ACC), acc_tile
        )
        mine = copy.get_slice(tidx)
        gc = cute.local_tile(c, (128, self.n), (tile_m, tile_n))
        dst = mine.partition_D(gc)
        regs = cute.make_rmem_tensor(dst.shape, ACC)
        cute.copy(copy, mine.partition_S(acc_tile), regs)
        return regs, dst

    @cute.jit
    def one_tile(self, mma, tma_a, ta, tma_b, tb, c, a_layout, b_layout, vmnk):  # type: ignore[no-untyped-def]
        warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
        tidx, _, _ = cute.arch.thread_idx()
        bidx, bidy, _ = cute.arch.block_idx()
        two = cutlass.const_expr(self.cta_group == 2)
        rank = cute.arch.make_warp_uniform(cute.arch.block_idx_in_cluster())
        v = rank % self.cta_group
        leader = v == 0
        fa, fb, tas, tag, tbs, tbg, bars, holder, tx = self.operands(
            mma, tma_a, ta, tma_b, tb, a_layout, b_layout, v
        )
        full, done = bars, bars + STAGES
        if warp == 0:
            with cute.arch.elect_one():
                for s in cutlass.range_constexpr(STAGES):
                    cute.arch.mbarrier_init(full + s, 1)
                cute.arch.mbarrier_init(done, 1)
            cute.arch.mbarrier_init_fence()
            cute.arch.alloc_tmem(self.n, holder, is_two_cta=two)
        if cutlass.const_expr(two):
            cute.arch.cluster_arrive()
            cute.arch.cluster_wait()
        else:
            cute.arch.barrier()
        tmem, acc = self.accumulator(mma, holder)
        pair_m = bidx // self.cta_group
        k_tiles = cute.size(tag, mode=[2])
        if warp == 0:
            # Stage k % 2 is loaded (both CTAs of a pair load their half and signal the leader's
            # barrier), then the leader's one thread issues the MMAs of that stage.
            for k in cutlass.range(k_tiles):
                s = k % STAGES
                if leader:
                    with cute.arch.elect_one():
                        cute.arch.mbarrier_arrive_and_expect_tx(full + s, tx * self.cta_group)
                cute.copy(tma_a, tag[(None, pair_m, k)], tas[(None, s)], tma_bar_ptr=full + s)
                cute.copy(tma_b, tbg[(None, bidy, k)], tbs[(None, s)], tma_bar_ptr=full + s)
                if leader:
                    cute.arch.mbarrier_wait(full + s, (k // STAGES) % 2)
                    for kb in cutlass.range_constexpr(cute.size(fa, mode=[2])):
                        mma.set(tcgen05.Field.ACCUMULATE, k != 0 or kb != 0)
                        cute.gemm(mma, acc[(None, None, None, 0)], fa[(None, None, kb, s)],
                                  fb[(None, None, kb, s)], acc[(None, None, None, 0)])  # fmt: skip
            if leader:
                with cute.arch.elect_one():
                    if cutlass.const_expr(two):
                        tcgen05.commit(done, 0b11, tcgen05.CtaGroup.TWO)
                    else:
                        tcgen05.commit(done)
        cute.arch.mbarrier_wait(done, 0)
        regs, dst = self.drain(acc[((None, None), 0, 0, 0)], c, bidx, bidy, tidx)
        cute.arch.fence_view_async_tmem_load()
        cute.autovec_copy(regs, dst)
        if cutlass.const_expr(two):
            cute.arch.cluster_arrive()
            cute.arch.cluster_wait()
        else:
            cute.arch.barrier()
        if warp == 0:
            cute.arch.dealloc_tmem(tmem, self.n, is_two_cta=two)

    @cute.jit
    def persistent_ws(self, mma, tma_a, ta, tma_b, tb, c, a_layout, b_layout):  # type: ignore[no-untyped-def]
        warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
        tidx, _, _ = cute.arch.thread_idx()
        bidx, _, _ = cute.arch.block_idx()
        grid, _, _ = cute.arch.grid_dim()
        fa, fb, tas, tag, tbs, tbg, bars, holder, tx = self.operands(
            mma, tma_a, ta, tma_b, tb, a_layout, b_layout, 0
        )
        full, empty = bars, bars + STAGES  # shared-memory stages: loaded / consumed by the MMAs
        acc_full, acc_empty = bars + 2 * STAGES, bars + 2 * STAGES + 2  # accumulator stages
        if warp == 4:
            with cute.arch.elect_one():
                for s in cutlass.range_constexpr(STAGES):
                    cute.arch.mbarrier_init(full + s, 1)
                    cute.arch.mbarrier_init(empty + s, 1)
                for s in cutlass.range_constexpr(2):
                    cute.arch.mbarrier_init(acc_full + s, 1)
                    cute.arch.mbarrier_init(acc_empty + s, 128)
            cute.arch.mbarrier_init_fence()
        if warp == 0:
            cute.arch.alloc_tmem(2 * self.n, holder)
        cute.arch.barrier()
        tmem, acc = self.accumulator(mma, holder)
        tiles_n = cute.size(tbg, mode=[1])
        tiles = cute.size(tag, mode=[1]) * tiles_n
        k_tiles = cute.size(tag, mode=[2])
        if warp == 4:  # TMA producer
            kc = 0
            for t in cutlass.range(bidx, tiles, grid):
                for k in cutlass.range(k_tiles):
                    s = kc % STAGES
                    cute.arch.mbarrier_wait(empty + s, ((kc // STAGES) % 2) ^ 1)
                    with cute.arch.elect_one():
                        cute.arch.mbarrier_arrive_and_expect_tx(full + s, tx)
                    cute.copy(tma_a, tag[(None, t // tiles_n, k)], tas[(None, s)], tma_bar_ptr=full + s)
                    cute.copy(tma_b, tbg[(None, t % tiles_n, k)], tbs[(None, s)], tma_bar_ptr=full + s)
                    kc += 1
        if warp == 5:  # MMA issuer: tile i into accumulator stage i % 2
            kc = 0
            i = 0
            for t in cutlass.range(bidx, tiles, grid):
                a = i % 2
                cute.arch.mbarrier_wait(acc_empty + a, ((i // 2) % 2) ^ 1)
                for k in cutlass.range(k_tiles):
                    s = kc % STAGES
                    cute.arch.mbarrier_wait(full + s, (kc // STAGES) % 2)
                    for kb in cutlass.range_constexpr(cute.size(fa, mode=[2])):
                        mma.set(tcgen05.Field.ACCUMULATE, k != 0 or kb != 0)
                        cute.gemm(mma, acc[(None, None, None, a)], fa[(None, None, kb, s)],
                                  fb[(None, None, kb, s)], acc[(None, None, None, a)])  # fmt: skip
                    with cute.arch.elect_one():
                        tcgen05.commit(empty + s)
                    kc += 1
                with cute.arch.elect_one():
                    tcgen05.commit(acc_full + a)
                i += 1
        if warp < 4:  # epilogue: drain stage i % 2 while the MMA warp fills the other
            i = 0
            for t in cutlass.range(bidx, tiles, grid):
                a = i % 2
                cute.arch.mbarrier_wait(acc_full + a, (i // 2) % 2)
                regs, dst = self.drain(acc[((None, None), 0, 0, a)], c, t // tiles_n, t % tiles_n, tidx)
                cute.arch.fence_view_async_tmem_load()
                cute.arch.mbarrier_arrive(acc_empty + a)
                cute.autovec_copy(regs, dst)
                i += 1
        cute.arch.barrier()
        if warp == 0:
            cute.arch.dealloc_tmem(tmem, 2 * self.n)


def fake_args() -> tuple:
    """A (M, K), B (N, K), C (M, N) with M, N, K known only at run time (so loops stay loops)."""
    m, n, k = (
        cute.sym_int32(divisibility=256),
        cute.sym_int32(divisibility=128),
        cute.sym_int32(divisibility=64),
    )
    a = make_fake_compact_tensor(AB, (m, k), stride_order=(1, 0), assumed_align=16)
    b = make_fake_compact_tensor(AB, (n, k), stride_order=(1, 0), assumed_align=16)
    c = make_fake_compact_tensor(ACC, (m, n), stride_order=(1, 0), assumed_align=16)
    return a, b, c


KERNELS = {
    "gemm": ("gemm", "no", "no", lambda: Gemm(), fake_args()),
    "gemm_persistent_ws": ("gemm", "yes", "yes", lambda: Gemm(persistent=True), fake_args()),
    "gemm_2cta": ("gemm", "no", "no", lambda: Gemm(cta_group=2), fake_args()),
    "gemm_n64": ("gemm", "no", "no", lambda: Gemm(n=64), fake_args()),
}


if __name__ == "__main__":
    sys.exit(main(KERNELS, sys.argv[1:]))
