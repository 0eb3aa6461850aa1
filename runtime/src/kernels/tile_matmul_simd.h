// tile_matmul_simd.h: the register-blocked tile matmul, written once over a vector type. It has
// no include guard on purpose: tile_matmul.cpp includes it once per instruction set with
// TILESAT_SIMD set to 512 (AVX-512: namespace avx512) or 256 (AVX2 + FMA: namespace avx2); each
// inclusion compiles the body below for that instruction set (a target pragma) and
// defines `kernel`, the tile_matmul entry point for it.
//
//   #define TILESAT_SIMD 512
//   #include "tile_matmul_simd.h"    // avx512::kernel(c, a, b, k_tiles)
//
// A strip of kRows output rows x 32 columns stays in registers across a block of k-tiles;
// each k step loads one row of B and broadcasts one element of A per output row. Face order
// keeps the addressing simple when k walks one face column at a time: for k in [16h, 16h + 16)
// the A elements of a strip sit at fixed offsets from one pointer and the B row moves by 16
// floats, so the inner loop is loads and FMAs only. The k-tiles are taken in blocks of kBlock
// so a block of B (16 KiB) stays in the L1 cache while every strip of the output tile uses
// it; the last strip of a block prefetches the next block's B.

// GCC takes the instruction set for a region as `#pragma GCC target`, clang as an attribute
// applied to every function of the region.
#if TILESAT_SIMD == 512
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
#define TILESAT_MM(op) _mm512_##op
namespace avx512 {
constexpr int kRows = 8; // 8 rows x 2 vectors: 16 of the 32 zmm registers
#else
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#define TILESAT_MM(op) _mm256_##op
namespace avx2 {
constexpr int kRows = 2; // 2 rows x 4 vectors: 8 of the 16 ymm registers
#endif

using V = decltype(TILESAT_MM(setzero_ps)());
constexpr int kLanes = sizeof(V) / sizeof(float);

inline V load(const float* p) {
  return TILESAT_MM(loadu_ps)(p);
}
inline void store(float* p, V v) {
  TILESAT_MM(storeu_ps)(p, v);
}
inline V splat(float x) {
  return TILESAT_MM(set1_ps)(x);
}
inline V fma(V a, V b, V c) {
  return TILESAT_MM(fmadd_ps)(a, b, c);
}

constexpr int kCols = 32 / kLanes; // vectors per output row

// Strip rows [r0, r0 + kRows) over k-tiles [0, n); `next_b`: the k-tiles to prefetch or null.
[[gnu::always_inline]] inline void strip(float* c, const float* const* a, const float* const* b,
                                         int64_t n, int r0, const float* const* next_b) {
  V acc[kRows][kCols];
  for (int r = 0; r < kRows; ++r)
    for (int q = 0; q < kCols; ++q) acc[r][q] = load(c + face_offset(r0 + r, q * kLanes));
  for (int64_t kt = 0; kt < n; ++kt) {
    for (int half = 0; half < 2; ++half) {
      // Element (r, k) of the strip's A at ap[r * 16 + k]; row k of B at bp + face_offset(k, c).
      const float* ap = a[kt] + face_offset(r0, half * 16);
      const float* bp = b[kt] + face_offset(half * 16, 0);
#pragma GCC unroll 4
      for (int k = 0; k < 16; ++k) {
        if (next_b != nullptr) {
          const float* nb = next_b[kt] + face_offset(half * 16, 0) + k * 16;
          __builtin_prefetch(nb);
          __builtin_prefetch(nb + 256);
        }
        V bq[kCols];
        for (int q = 0; q < kCols; ++q) bq[q] = load(bp + face_offset(k, q * kLanes));
        for (int r = 0; r < kRows; ++r) {
          V av = splat(ap[r * 16 + k]);
          for (int q = 0; q < kCols; ++q) acc[r][q] = fma(av, bq[q], acc[r][q]);
        }
      }
    }
  }
  for (int r = 0; r < kRows; ++r)
    for (int q = 0; q < kCols; ++q) store(c + face_offset(r0 + r, q * kLanes), acc[r][q]);
}

void kernel(float* c, const float* const* a, const float* const* b, int64_t k_tiles) {
  for (int64_t k0 = 0; k0 < k_tiles; k0 += kBlock) {
    int64_t n = std::min(kBlock, k_tiles - k0);
    // The next block, when it is a whole one (its k-tiles line up with this block's).
    const float* const* next_b = k0 + kBlock + n <= k_tiles ? b + k0 + kBlock : nullptr;
    for (int r0 = 0; r0 + kRows < 32; r0 += kRows) strip(c, a + k0, b + k0, n, r0, nullptr);
    strip(c, a + k0, b + k0, n, 32 - kRows, next_b);
  }
}

#undef TILESAT_MM
} // namespace avx512 or avx2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
