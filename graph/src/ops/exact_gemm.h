// exact_gemm.h: private to graph/: the reference interpreter's matrix product, shared by
// matmul, linear and conv2d. Every output element is its initial value plus the products of
// its row of A and column of B, summed in double in ascending order of the contracted index,
// exactly as the plain triple loop sums it: the product of two floats is exact in double, so
// the sums are the only roundings and blocking, packing and vector width change the speed,
// never a bit of the result.
//
//   // out (2 x 3, row-major) = a (2 x 4, row-major) * b (4 x 3, row-major)
//   exact_gemm({2, 3, 4}, {a, 4, 1}, {b, 3, 1}, nullptr, {out, 3, 1});
#pragma once

#include <cstdint>

namespace tilesat::ops {

/// Extents of C (m x n) = A (m x k) * B (k x n).
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
};

/// A matrix read in place: element (i, j) is data[i * row_step + j * col_step] (a transposed
/// operand swaps the steps; a broadcast one has a zero step).
struct MatrixView {
  const float* data = nullptr;
  int64_t row_step = 0, col_step = 0;
};

/// A matrix written in place, element (i, j) at data[i * row_step + j * col_step].
struct MatrixOut {
  float* data = nullptr;
  int64_t row_step = 0, col_step = 0;
};

/// out(i, j) = float(row_init[i] + sum over p ascending of a(i, p) * b(p, j)), with the sum in
/// double (row_init null: 0).
void exact_gemm(GemmShape s, MatrixView a, MatrixView b, const double* row_init, MatrixOut out);

} // namespace tilesat::ops
