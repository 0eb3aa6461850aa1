// tile_matmul.cpp: the 32x32x32 tile product with register blocking. A strip of output rows
// stays in vector registers across every k-tile; each step loads one row of B (two 16-float
// face rows) and broadcasts one element of A per output row.
#include "tilesat/runtime/tile_matmul.h"

#include "tilesat/program/storage.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tilesat::runtime {
namespace {

using program::face_offset;

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

#if defined(__x86_64__)
// Eight rows x 32 columns = 16 zmm accumulators.
__attribute__((target("avx512f"))) void avx512(float* c, const float* const* a,
                                               const float* const* b, int64_t k_tiles) {
  constexpr int R = 8;
  for (int r0 = 0; r0 < 32; r0 += R) {
    __m512 acc[R][2];
    for (int r = 0; r < R; ++r) {
      acc[r][0] = _mm512_loadu_ps(c + face_offset(r0 + r, 0));
      acc[r][1] = _mm512_loadu_ps(c + face_offset(r0 + r, 16));
    }
    for (int64_t kt = 0; kt < k_tiles; ++kt) {
      const float* at = a[kt];
      const float* bt = b[kt];
      for (int k = 0; k < 32; ++k) {
        __m512 b0 = _mm512_loadu_ps(bt + face_offset(k, 0));
        __m512 b1 = _mm512_loadu_ps(bt + face_offset(k, 16));
        for (int r = 0; r < R; ++r) {
          __m512 av = _mm512_set1_ps(at[face_offset(r0 + r, k)]);
          acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
          acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
        }
      }
    }
    for (int r = 0; r < R; ++r) {
      _mm512_storeu_ps(c + face_offset(r0 + r, 0), acc[r][0]);
      _mm512_storeu_ps(c + face_offset(r0 + r, 16), acc[r][1]);
    }
  }
}

// Two rows x 32 columns = 8 ymm accumulators.
__attribute__((target("avx2,fma"))) void avx2(float* c, const float* const* a,
                                              const float* const* b, int64_t k_tiles) {
  constexpr int R = 2;
  for (int r0 = 0; r0 < 32; r0 += R) {
    __m256 acc[R][4];
    for (int r = 0; r < R; ++r)
      for (int q = 0; q < 4; ++q) acc[r][q] = _mm256_loadu_ps(c + face_offset(r0 + r, q * 8));
    for (int64_t kt = 0; kt < k_tiles; ++kt) {
      const float* at = a[kt];
      const float* bt = b[kt];
      for (int k = 0; k < 32; ++k) {
        __m256 bq[4];
        for (int q = 0; q < 4; ++q) bq[q] = _mm256_loadu_ps(bt + face_offset(k, q * 8));
        for (int r = 0; r < R; ++r) {
          __m256 av = _mm256_set1_ps(at[face_offset(r0 + r, k)]);
          for (int q = 0; q < 4; ++q) acc[r][q] = _mm256_fmadd_ps(av, bq[q], acc[r][q]);
        }
      }
    }
    for (int r = 0; r < R; ++r)
      for (int q = 0; q < 4; ++q) _mm256_storeu_ps(c + face_offset(r0 + r, q * 8), acc[r][q]);
  }
}
#endif

using Kernel = void (*)(float*, const float* const*, const float* const*, int64_t);

struct Choice {
  Kernel fn;
  std::string_view isa;
};

Choice choose() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {avx512, "avx512"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {avx2, "avx2"};
#endif
  return {portable, "portable"};
}

const Choice& chosen() {
  static const Choice c = choose();
  return c;
}

} // namespace

void tile_matmul(float* c, const float* const* a, const float* const* b, int64_t k_tiles) {
  chosen().fn(c, a, b, k_tiles);
}

std::string_view tile_matmul_isa() {
  return chosen().isa;
}

} // namespace tilesat::runtime
