// The tile matmul micro-kernel: C += sum over k-tiles of A[k] x B[k], on 32x32 f32 tiles in
// face order (tilesat/program/storage.h). It picks AVX-512, AVX2+FMA or portable code at run
// time by what the CPU supports; `tile_matmul_isa()` says which, and `tile_matmul_kernels()`
// lists every implementation the CPU can run (tests check each one).
//
//   float c[1024] = {};                       // one output tile
//   const float* a[2] = {a0, a1};             // A(i, 0), A(i, 1)
//   const float* b[2] = {b0, b1};             // B(0, j), B(1, j)
//   tile_matmul(c, a, b, 2);
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace tilesat::runtime {

/// One implementation of the micro-kernel and the instruction set it needs.
///
///   for (const TileMatmulKernel& k : tile_matmul_kernels()) k.fn(c, a, b, 2);
struct TileMatmulKernel {
  using Fn = void (*)(float* c, const float* const* a, const float* const* b, int64_t k_tiles);
  std::string_view isa;
  Fn fn;
};

/// The implementations this CPU can run, fastest first: the first is what `tile_matmul` uses.
std::span<const TileMatmulKernel> tile_matmul_kernels();

void tile_matmul(float* c, const float* const* a, const float* const* b, int64_t k_tiles);
/// "avx512", "avx2" or "portable".
std::string_view tile_matmul_isa();

} // namespace tilesat::runtime
