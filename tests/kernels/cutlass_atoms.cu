// A catalogue of CuTe's SM100 Tensor Memory atoms, written for tmemviz's tests: each atom is called once
// so that its inline asm (as CUTLASS spells it: no space before '{' or '[') lands in one PTX module.
// Compiled, never run: nvcc -std=c++17 -arch=sm_100a -ptx --expt-relaxed-constexpr -I<CUTLASS include>
// with the headers of the PyPI package nvidia-cutlass 4.2.0 (cutlass_library/source/include).
//
// It keeps one real bug on purpose: 256 columns are allocated, and the block-scaled MMA (M=128, N=256)
// writes D at base + 256, columns 256..511. tmemviz check must report exactly that.
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

__global__ void tmem_atoms(uint32_t* out, uint64_t adesc, uint64_t bdesc, int mn_major, uint32_t sfa,
                           uint32_t sfb) {
  __shared__ uint32_t slot;
  __shared__ uint64_t bar;
  TMEM::Allocator1Sm tmem_alloc;
  if (threadIdx.x < 32) {
    tmem_alloc.allocate(256, &slot);
  }
  __syncthreads();
  uint32_t const base = slot;
  uint32_t const warp_lanes = base + (((threadIdx.x / 32) * 32) << 16);
  uint32_t const quarter = base + (((threadIdx.x / 32) * 32 + 0) << 16);
  uint32_t acc = 0;

  {  // Loads, one shape each; every register read before the next access.
    uint32_t r[16];
    SM100_TMEM_LOAD_32dp32b16x::copy(warp_lanes, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9],
                                     r[10], r[11], r[12], r[13], r[14], r[15]);
    cutlass::arch::fence_view_async_tmem_load();
    for (int i = 0; i < 16; ++i) acc += r[i];
    SM100_TMEM_LOAD_16dp256b1x::copy(quarter + 16, r[0], r[1], r[2], r[3]);
    cutlass::arch::fence_view_async_tmem_load();
    acc ^= r[0] + r[1] + r[2] + r[3];
    SM100_TMEM_LOAD_16dp64b4x::copy(quarter + 32, r[0], r[1], r[2], r[3]);
    cutlass::arch::fence_view_async_tmem_load();
    acc += r[0] * r[1] + r[2] * r[3];
    SM100_TMEM_LOAD_16dp128b2x_16b::copy(quarter + 40, r[0], r[1], r[2], r[3]);
    cutlass::arch::fence_view_async_tmem_load();
    acc ^= r[0] | r[1] | r[2] | r[3];
    SM100_TMEM_LOAD_16dp32b8x::copy(quarter + 48, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
    cutlass::arch::fence_view_async_tmem_load();
    for (int i = 0; i < 8; ++i) acc += r[i] << i;
  }
  {  // Stores of what was read.
    SM100_TMEM_STORE_16dp32b2x::copy(acc, acc + 1, warp_lanes + 64);
    cutlass::arch::fence_view_async_tmem_store();
    SM100_TMEM_STORE_32dp32b8x::copy(acc, acc + 1, acc + 2, acc + 3, acc + 4, acc + 5, acc + 6, acc + 7,
                                     warp_lanes + 72);
    cutlass::arch::fence_view_async_tmem_store();
    SM100_TMEM_STORE_16dp256b2x::copy(acc, acc ^ 1, acc ^ 2, acc ^ 3, acc ^ 4, acc ^ 5, acc ^ 6, acc ^ 7,
                                      quarter + 80);
    cutlass::arch::fence_view_async_tmem_store();
    SM100_TMEM_STORE_16dp64b2x_16b::copy(acc, acc >> 16, quarter + 96);
    cutlass::arch::fence_view_async_tmem_store();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    // Dense f16 MMA, 128x128, D at base: B K-major or MN-major, chosen at run time.
    uint64_t const b_k =
        UMMA::make_runtime_instr_desc<half_t, half_t, float, 128, 128, UMMA::Major::K, UMMA::Major::K>();
    uint64_t const b_mn =
        UMMA::make_runtime_instr_desc<half_t, half_t, float, 128, 128, UMMA::Major::K, UMMA::Major::MN>();
    SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 128, UMMA::Major::K, UMMA::Major::K>::fma(
        adesc, bdesc, base, 0u, mn_major ? b_mn : b_k);
    // Block-scaled MXF8 MMA, 128x256, scale-factor IDs from the scale factors' TMEM addresses. D at
    // base + 256 with N = 256: columns 256..511 of a 256-column allocation (the bug kept on purpose).
    uint64_t const scaled = UMMA::make_runtime_instr_desc_block_scaled<
        float_e4m3_t, float_e4m3_t, float, float_ue8m0_t, 128, 256, UMMA::Major::K, UMMA::Major::K>(sfa, sfb);
    SM100_MMA_MXF8F6F4_SS<float_e4m3_t, float_e4m3_t, float, float_ue8m0_t, 128, 256, UMMA::Major::K,
                          UMMA::Major::K>::fma(adesc, bdesc, base + 256, 1u, scaled, sfa, sfb);
    cutlass::arch::umma_arrive(&bar);
  }
  out[threadIdx.x + blockIdx.x * blockDim.x] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    tmem_alloc.release_allocation_lock();
    tmem_alloc.free(base, 256);
  }
}
