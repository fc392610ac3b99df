// Two small kernels written for tmemviz check's tests against CuTe's SM100 atoms and allocators (the
// headers of the PyPI package nvidia-cutlass 4.2.0): nvcc -std=c++17 -arch=sm_100a -ptx
// --expt-relaxed-constexpr -I<CUTLASS include>. Compiled, never run.
//
// gemm_tile: 128 columns (Allocator1Sm), one 128x128 f16 MMA into them, then each warp reads its 32 lanes
//   with one load of 8 columns (32dp32b8x) in a loop of 16 (not unrolled), at base + (warp*32 << 16) + c,
//   and frees.
// pair_roundtrip: a cluster of two CTAs, 256 columns per CTA allocated for the pair (Allocator2Sm,
//   cta_group::2); each warp stores 8 columns at column 64 and reads them back at column 72 after copying.
#include <cstdint>

#include <cute/arch/copy_sm100.hpp>
#include <cute/arch/mma_sm100_desc.hpp>
#include <cute/arch/mma_sm100_umma.hpp>
#include <cute/arch/tmem_allocator_sm100.hpp>
#include <cute/numeric/numeric_types.hpp>
#include <cutlass/arch/barrier.h>

using namespace cute;
using namespace cute::SM100::TMEM::LOAD;
using namespace cute::SM100::TMEM::STORE;

__global__ void gemm_tile(float* out, uint64_t adesc, uint64_t bdesc) {
  __shared__ uint32_t slot;
  __shared__ alignas(8) uint64_t bar;
  TMEM::Allocator1Sm tmem_alloc;
  uint32_t const warp = threadIdx.x / 32;
  if (warp == 0) {
    tmem_alloc.allocate(128, &slot);
    tmem_alloc.release_allocation_lock();
  }
  if (threadIdx.x == 0) cutlass::arch::ClusterBarrier::init(&bar, 1);
  __syncthreads();
  uint32_t const base = slot;
  if (threadIdx.x == 0) {
    uint64_t const idesc =
        UMMA::make_runtime_instr_desc<half_t, half_t, float, 128, 128, UMMA::Major::K, UMMA::Major::K>();
    SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 128, UMMA::Major::K, UMMA::Major::K>::fma(
        adesc, bdesc, base, 0u, idesc);
    cutlass::arch::umma_arrive(&bar);
  }
  cutlass::arch::ClusterBarrier::wait(&bar, 0);
  uint32_t const lanes = base + ((warp * 32) << 16);
  float sum = 0.f;
  // A loop kept as a loop: the address of each load is not a constant of the function.
#pragma unroll 1
  for (int c = 0; c < 128; c += 8) {
    uint32_t r[8];
    SM100_TMEM_LOAD_32dp32b8x::copy(lanes + c, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
    cutlass::arch::fence_view_async_tmem_load();
    for (int i = 0; i < 8; ++i) sum += __uint_as_float(r[i]);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  __syncthreads();
  if (warp == 0) tmem_alloc.free(base, 128);
}

__global__ void __cluster_dims__(2, 1, 1) pair_roundtrip(uint32_t* out) {
  __shared__ uint32_t slot;
  TMEM::Allocator2Sm tmem_alloc;
  uint32_t const warp = threadIdx.x / 32;
  if (warp == 0) {
    tmem_alloc.allocate(256, &slot);
    tmem_alloc.release_allocation_lock();
  }
  cute::cluster_sync();
  uint32_t const lanes = slot + ((warp * 32) << 16);
  uint32_t v = threadIdx.x * 3u + blockIdx.x;
  SM100_TMEM_STORE_32dp32b8x::copy(v, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6, v + 7, lanes + 64);
  cutlass::arch::fence_view_async_tmem_store();
  uint32_t r[8];
  SM100_TMEM_LOAD_32dp32b8x::copy(lanes + 64, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
  cutlass::arch::fence_view_async_tmem_load();
  SM100_TMEM_STORE_32dp32b8x::copy(r[7], r[6], r[5], r[4], r[3], r[2], r[1], r[0], lanes + 72);
  cutlass::arch::fence_view_async_tmem_store();
  SM100_TMEM_LOAD_32dp32b8x::copy(lanes + 72, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
  cutlass::arch::fence_view_async_tmem_load();
  out[blockIdx.x * blockDim.x + threadIdx.x] = r[0] + r[1] + r[2] + r[3] + r[4] + r[5] + r[6] + r[7];
  cute::cluster_sync();
  if (warp == 0) tmem_alloc.free(slot, 256);
}
