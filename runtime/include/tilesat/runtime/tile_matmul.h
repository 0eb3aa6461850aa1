// The tile matmul micro-kernel: C += sum over k-tiles of A[k] x B[k], on 32x32 f32 tiles in
// face order (tilesat/program/storage.h). It picks AVX-512, AVX2+FMA or portable code at run
// time by what the CPU supports; `tile_matmul_isa()` says which.
//
//   float c[1024] = {};                       // one output tile
//   const float* a[2] = {a0, a1};             // A(i, 0), A(i, 1)
//   const float* b[2] = {b0, b1};             // B(0, j), B(1, j)
//   tile_matmul(c, a, b, 2);
#pragma once

#include <cstdint>
#include <string_view>

namespace tilesat::runtime {

void tile_matmul(float* c, const float* const* a, const float* const* b, int64_t k_tiles);
/// "avx512", "avx2" or "portable".
std::string_view tile_matmul_isa();

} // namespace tilesat::runtime
