// A persistent, warp-specialized f16 GEMM in inline asm, written for tmemviz's corpus:
// nvcc -std=c++17 -arch=sm_100a -ptx. Compiled, never run.
//
// Six warps: warp 4 loads A and B tiles with bulk copies into a two-stage shared-memory ring, warp 5
// issues the MMAs (one thread), warps 0-3 drain the accumulator. The accumulator has two stages in
// Tensor Memory (256 columns): tile i of this CTA accumulates at column (i & 1) * 128, the stage index
// carried by the tile loop, so the MMA warp fills one stage while the epilogue drains the other.
// A and B are kept in global memory tile by tile in the no-swizzle K-major core-matrix order, so a bulk
// copy of a tile's bytes lands as the MMA's descriptors read it.
#include "nvcc_tmem.cuh"

constexpr int TILE = 128, K_TILE = 64, STAGES = 2;
constexpr uint32_t TILE_BYTES = TILE * K_TILE * 2;
constexpr uint32_t IDESC = 0x08200010u;  // kind::f16: D F32, A/B F16 K-major, N = 128, M = 128

__global__ void __launch_bounds__(192) persistent_ws(const uint8_t* a, const uint8_t* b, float* c, int tiles_m,
                                                     int tiles_n, int k_tiles) {
  __shared__ alignas(1024) uint8_t sa[STAGES][TILE_BYTES];
  __shared__ alignas(1024) uint8_t sb[STAGES][TILE_BYTES];
  __shared__ alignas(8) uint64_t full[STAGES], empty[STAGES], acc_full[2], acc_empty[2];
  __shared__ uint32_t slot;
  uint32_t const warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int const tiles = tiles_m * tiles_n;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(smem_u32(&full[s]), 1);
      mbar_init(smem_u32(&empty[s]), 1);
    }
    for (int s = 0; s < 2; ++s) {
      mbar_init(smem_u32(&acc_full[s]), 1);
      mbar_init(smem_u32(&acc_empty[s]), 128);
    }
  }
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;" ::"r"(smem_u32(&slot)));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  }
  fence_before();
  __syncthreads();
  fence_after();
  uint32_t const tmem = slot;

  if (warp == 4 && lane == 0) {  // producer
    int n = 0;
#pragma unroll 1
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
#pragma unroll 1
      for (int k = 0; k < k_tiles; ++k, ++n) {
        int const s = n % STAGES;
        mbar_wait(smem_u32(&empty[s]), ((n / STAGES) & 1) ^ 1);
        mbar_expect_tx(smem_u32(&full[s]), 2 * TILE_BYTES);
        bulk_load(smem_u32(sa[s]), a + (size_t(t / tiles_n) * k_tiles + k) * TILE_BYTES, TILE_BYTES,
                  smem_u32(&full[s]));
        bulk_load(smem_u32(sb[s]), b + (size_t(t % tiles_n) * k_tiles + k) * TILE_BYTES, TILE_BYTES,
                  smem_u32(&full[s]));
      }
    }
  } else if (warp == 5 && lane == 0) {  // MMA issuer
    int n = 0, i = 0;
#pragma unroll 1
    for (int t = blockIdx.x; t < tiles; t += gridDim.x, ++i) {
      uint32_t const stage = i & 1;
      uint32_t const d = tmem + stage * TILE;  // this tile's accumulator stage
      mbar_wait(smem_u32(&acc_empty[stage]), ((i >> 1) & 1) ^ 1);
      fence_after();
#pragma unroll 1
      for (int k = 0; k < k_tiles; ++k, ++n) {
        int const s = n % STAGES;
        mbar_wait(smem_u32(&full[s]), (n / STAGES) & 1);
        fence_after();
        // Core matrices of 8 rows x 16 bytes: 128 bytes apart along K, 8 of them per 8-row group.
        uint64_t const adesc = smem_desc(smem_u32(sa[s]), 128, 128 * (K_TILE / 8));
        uint64_t const bdesc = smem_desc(smem_u32(sb[s]), 128, 128 * (K_TILE / 8));
#pragma unroll
        for (int kk = 0; kk < K_TILE / 16; ++kk) {  // K = 16 per MMA: two core matrices, 256 bytes
          uint32_t const accumulate = (k | kk) != 0;
          asm volatile(
              "{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
              " tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(d),
              "l"(adesc + kk * 16), "l"(bdesc + kk * 16), "r"(IDESC), "r"(accumulate));
        }
        asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(
            smem_u32(&empty[s])));
      }
      asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(
          smem_u32(&acc_full[stage])));
    }
  } else if (warp < 4) {  // epilogue: this warp's 32 lanes of the stage, 16 columns per load
    int i = 0;
#pragma unroll 1
    for (int t = blockIdx.x; t < tiles; t += gridDim.x, ++i) {
      uint32_t const stage = i & 1;
      mbar_wait(smem_u32(&acc_full[stage]), (i >> 1) & 1);
      fence_after();
      uint32_t const taddr = tmem + ((warp * 32) << 16) + stage * TILE;
      float* row = c + (size_t(t / tiles_n) * TILE + warp * 32 + lane) * (size_t(tiles_n) * TILE) +
                   size_t(t % tiles_n) * TILE;
#pragma unroll 1
      for (int col = 0; col < TILE; col += 16) {
        uint32_t r[16];
        asm volatile(
            "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, "
            "%13, %14, %15}, [%16];"
            : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
              "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]),
              "=r"(r[15])
            : "r"(taddr + col));
        asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
        for (int j = 0; j < 16; ++j) row[col + j] = __uint_as_float(r[j]);
      }
      fence_before();
      mbar_arrive(smem_u32(&acc_empty[stage]));
    }
  }
  fence_before();
  __syncthreads();
  if (warp == 0) {
    fence_after();
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" ::"r"(tmem));
  }
}
