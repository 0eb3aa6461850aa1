// tile_matmul.cpp: the 32x32x32 tile product with register blocking. A strip of output rows
// stays in vector registers across a block of k-tiles; each step loads one row of B (two
// 16-float face rows) and broadcasts one element of A per output row. Face order keeps the
// addressing simple when k walks one face column at a time: for k in [16h, 16h + 16) the A
// elements of a strip sit at fixed offsets from one pointer and the B row moves by 16 floats,
// so the inner loop is loads and FMAs only. The k-tiles are taken in blocks so a block of B
// (kBlock tiles, 16 KiB) stays in the L1 cache while every strip of the output tile uses it.
#include "tilesat/runtime/tile_matmul.h"

#include "tilesat/program/storage.h"

#include <algorithm>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tilesat::runtime {
namespace {

using program::face_offset;

constexpr int64_t kBlock = 4;

void portable(float* c, const float* const* a, const float* const* b, int64_t k_tiles) {
  for (int64_t kt = 0; kt < k_tiles; ++kt) {
    for (int r = 0; r < 32; ++r) {
      for (int k = 0; k < 32; ++k) {
        float av = a[kt][face_offset(r, k)];
        const float* b0 = b[kt] + face_offset(k, 0);
        const float* b1 = b[kt] + face_offset(k, 16);
        float* c0 = c + face_offset(r, 0);
        float* c1 = c + face_offset(r, 16);
        for (int j = 0; j < 16; ++j) {
          c0[j] += av * b0[j];
          c1[j] += av * b1[j];
        }
      }
    }
  }
}

// A of strip rows [r0, r0 + R) for k in face column `half` of tile `at`: element (r, k) is at
// result[r * 16 + k]. The rows must not cross a face boundary.
inline const float* a_strip(const float* at, int r0, int half) {
  return at + face_offset(r0, half * 16);
}
// B row k of face column `half` of tile `bt`, columns 0-15: result[k * 16]; 16-31: + 256.
inline const float* b_rows(const float* bt, int half) {
  return bt + face_offset(half * 16, 0);
}

#if defined(__x86_64__)
// Strip of R rows x 32 columns = 2R zmm accumulators, over k-tiles [0, n).
template <int R>
[[gnu::target("avx512f"), gnu::always_inline]] inline void
strip_avx512(float* c, const float* const* a, const float* const* b, int64_t n, int r0) {
  __m512 acc[R][2];
  for (int r = 0; r < R; ++r) {
    acc[r][0] = _mm512_loadu_ps(c + face_offset(r0 + r, 0));
    acc[r][1] = _mm512_loadu_ps(c + face_offset(r0 + r, 16));
  }
  for (int64_t kt = 0; kt < n; ++kt) {
    for (int half = 0; half < 2; ++half) {
      const float* ap = a_strip(a[kt], r0, half);
      const float* bp = b_rows(b[kt], half);
#pragma GCC unroll 4
      for (int k = 0; k < 16; ++k) {
        __m512 b0 = _mm512_loadu_ps(bp + k * 16);
        __m512 b1 = _mm512_loadu_ps(bp + 256 + k * 16);
        for (int r = 0; r < R; ++r) {
          __m512 av = _mm512_set1_ps(ap[r * 16 + k]);
          acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
          acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
        }
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_ps(c + face_offset(r0 + r, 0), acc[r][0]);
    _mm512_storeu_ps(c + face_offset(r0 + r, 16), acc[r][1]);
  }
}

[[gnu::target("avx512f")]] void avx512(float* c, const float* const* a, const float* const* b,
                                       int64_t k_tiles) {
  for (int64_t k0 = 0; k0 < k_tiles; k0 += kBlock) {
    int64_t n = std::min(kBlock, k_tiles - k0);
    for (int r0 = 0; r0 < 32; r0 += 8) strip_avx512<8>(c, a + k0, b + k0, n, r0);
  }
}

// Strip of R rows x 32 columns = 4R ymm accumulators, over k-tiles [0, n).
template <int R>
[[gnu::target("avx2,fma"), gnu::always_inline]] inline void
strip_avx2(float* c, const float* const* a, const float* const* b, int64_t n, int r0) {
  __m256 acc[R][4];
  for (int r = 0; r < R; ++r)
    for (int q = 0; q < 4; ++q) acc[r][q] = _mm256_loadu_ps(c + face_offset(r0 + r, q * 8));
  for (int64_t kt = 0; kt < n; ++kt) {
    for (int half = 0; half < 2; ++half) {
      const float* ap = a_strip(a[kt], r0, half);
      const float* bp = b_rows(b[kt], half);
#pragma GCC unroll 4
      for (int k = 0; k < 16; ++k) {
        __m256 bq[4];
        for (int q = 0; q < 4; ++q)
          bq[q] = _mm256_loadu_ps(bp + (q / 2) * 256 + k * 16 + (q % 2) * 8);
        for (int r = 0; r < R; ++r) {
          __m256 av = _mm256_set1_ps(ap[r * 16 + k]);
          for (int q = 0; q < 4; ++q) acc[r][q] = _mm256_fmadd_ps(av, bq[q], acc[r][q]);
        }
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int q = 0; q < 4; ++q) _mm256_storeu_ps(c + face_offset(r0 + r, q * 8), acc[r][q]);
}

[[gnu::target("avx2,fma")]] void avx2(float* c, const float* const* a, const float* const* b,
                                      int64_t k_tiles) {
  for (int64_t k0 = 0; k0 < k_tiles; k0 += kBlock) {
    int64_t n = std::min(kBlock, k_tiles - k0);
    for (int r0 = 0; r0 < 32; r0 += 2) strip_avx2<2>(c, a + k0, b + k0, n, r0);
  }
}
#endif

std::vector<TileMatmulKernel> available() {
  std::vector<TileMatmulKernel> ks;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) ks.push_back({"avx512", avx512});
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ks.push_back({"avx2", avx2});
#endif
  ks.push_back({"portable", portable});
  return ks;
}

} // namespace

std::span<const TileMatmulKernel> tile_matmul_kernels() {
  static const std::vector<TileMatmulKernel> ks = available();
  return ks;
}

void tile_matmul(float* c, const float* const* a, const float* const* b, int64_t k_tiles) {
  static const TileMatmulKernel::Fn fn = tile_matmul_kernels().front().fn;
  fn(c, a, b, k_tiles);
}

std::string_view tile_matmul_isa() {
  return tile_matmul_kernels().front().isa;
}

} // namespace tilesat::runtime
