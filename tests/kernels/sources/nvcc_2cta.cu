// A 2-CTA (cta_group::2) f16 GEMM tile in inline asm, written for tmemviz's corpus:
// nvcc -std=c++17 -arch=sm_100a -ptx. Compiled, never run.
//
// A cluster of two CTAs computes one 256x128 tile: each CTA loads its 128 rows of A and its 64 rows of B
// (bulk copies, the same core-matrix order as nvcc_persistent_ws.cu), the pair meets at barrier.cluster,
// and the leader CTA's one thread issues cta_group::2 MMAs (M = 256: each CTA's Tensor Memory holds its
// 128 rows) and commits to both CTAs' mbarriers (multicast). Both CTAs allocate and free 128 columns as a
// pair (tcgen05.alloc/dealloc.cta_group::2) and each warp reads its 32 lanes back.
#include "nvcc_tmem.cuh"

constexpr int K_TILE = 64;
constexpr uint32_t A_BYTES = 128 * K_TILE * 2, B_BYTES = 64 * K_TILE * 2;
constexpr uint32_t IDESC = 0x10200010u;  // kind::f16: D F32, A/B F16 K-major, N = 128, M = 256

__device__ inline void cluster_sync_all() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128)
    pair_gemm(const uint8_t* a, const uint8_t* b, float* c, int k_tiles) {
  __shared__ alignas(1024) uint8_t sa[A_BYTES];
  __shared__ alignas(1024) uint8_t sb[B_BYTES];
  __shared__ alignas(8) uint64_t loaded, done;
  __shared__ uint32_t slot;
  uint32_t const warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  int const pair = blockIdx.x / 2;
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&loaded), 1);
    mbar_init(smem_u32(&done), 1);
  }
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 128;" ::"r"(smem_u32(&slot)));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;");
  }
  fence_before();
  cluster_sync_all();
  fence_after();
  uint32_t const tmem = slot;
#pragma unroll 1
  for (int k = 0; k < k_tiles; ++k) {
    if (threadIdx.x == 0) {  // each CTA loads its half of the operands into its own shared memory
      mbar_expect_tx(smem_u32(&loaded), A_BYTES + B_BYTES);
      bulk_load(smem_u32(sa), a + ((size_t(pair) * 2 + rank) * k_tiles + k) * A_BYTES, A_BYTES, smem_u32(&loaded));
      bulk_load(smem_u32(sb), b + (size_t(rank) * k_tiles + k) * B_BYTES, B_BYTES, smem_u32(&loaded));
      mbar_wait(smem_u32(&loaded), k & 1);
    }
    fence_before();
    cluster_sync_all();  // both halves are in place
    fence_after();
    if (rank == 0 && threadIdx.x == 0) {
      uint64_t const adesc = smem_desc(smem_u32(sa), 128, 128 * (K_TILE / 8));
      uint64_t const bdesc = smem_desc(smem_u32(sb), 128, 128 * (K_TILE / 8));
#pragma unroll
      for (int kk = 0; kk < K_TILE / 16; ++kk) {
        asm volatile(
            "{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
            " tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(tmem),
            "l"(adesc + kk * 16), "l"(bdesc + kk * 16), "r"(IDESC), "r"(uint32_t((k | kk) != 0)));
      }
      // Both CTAs' "done" barriers learn when these MMAs are complete (the last K step's count).
      asm volatile(
          "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(
              smem_u32(&done)),
          "h"(uint16_t(0b11)));
    }
    mbar_wait(smem_u32(&done), k & 1);  // the MMAs read this step's shared memory: wait before reloading
  }
  fence_after();
  uint32_t const lanes = tmem + ((warp * 32) << 16);
  float* row = c + (size_t(pair) * 256 + rank * 128 + warp * 32 + lane) * 128;
#pragma unroll 1
  for (int col = 0; col < 128; col += 32) {
    uint32_t r[32];
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "
        "%14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
          "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]),
          "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]),
          "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
        : "r"(lanes + col));
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    for (int j = 0; j < 32; ++j) row[col + j] = __uint_as_float(r[j]);
  }
  fence_before();
  cluster_sync_all();  // the peer is done with the pair's Tensor Memory too
  fence_after();
  if (warp == 0) {
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 128;" ::"r"(tmem));
  }
}
