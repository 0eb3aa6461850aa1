// tile_matmul.cpp: the tile micro-kernels (portable, AVX2+FMA, AVX-512) and the choice among
// them. The vector kernels share one body, tile_matmul_simd.h, compiled once per instruction
// set.
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

#if defined(__x86_64__)
#define TILESAT_SIMD 512
#include "tile_matmul_simd.h"
#undef TILESAT_SIMD
#define TILESAT_SIMD 256
#include "tile_matmul_simd.h"
#undef TILESAT_SIMD
#endif

std::vector<TileMatmulKernel> available() {
  std::vector<TileMatmulKernel> ks;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) ks.push_back({"avx512", avx512::kernel});
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    ks.push_back({"avx2", avx2::kernel});
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
