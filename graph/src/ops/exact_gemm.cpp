// exact_gemm.cpp: the blocked double-accumulating matrix product of exact_gemm.h.
//
// Blocks as BLAS does: C is computed kMc rows by kNc columns at a time into double
// accumulators; for each block of kKc contracted indices the A and B blocks are packed (as
// doubles, zero-padded to whole register tiles) so that the micro-kernel reads both
// contiguously and keeps a kMr x kNr tile of C in registers. The accumulators persist across
// the kKc blocks in memory, so every element still sees its products in ascending order.
#include "ops/exact_gemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace tilesat::ops {

namespace {

constexpr int64_t kMr = 4;   // rows of the register tile
constexpr int64_t kNr = 8;   // columns of the register tile: one vector of 8 doubles
constexpr int64_t kMc = 128; // rows of C per block (packed A: kMc x kKc doubles, 128 KiB)
constexpr int64_t kNc = 256; // columns of C per block (accumulators: kMc x kNc, 256 KiB)
constexpr int64_t kKc = 128; // contracted indices per packed block (packed B: 256 KiB)

// Eight doubles: one AVX-512 register, two AVX2 ones, four SSE2 ones.
using V8d = double __attribute__((vector_size(8 * sizeof(double))));

int64_t round_up(int64_t x, int64_t to) {
  return (x + to - 1) / to * to;
}

// c[r * c_step + j] += sum over p in [0, kc) of ap[p * kMr + r] * bp[p * kNr + j], for the
// kMr x kNr tile at c, in ascending p. GCC also compiles AVX-512 and AVX2 clones (the product of
// two floats is exact in double, so a fused multiply-add would round the same).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void micro_kernel(double* c, int64_t c_step, const double* ap, const double* bp, int64_t kc) {
  V8d acc[kMr];
#pragma GCC unroll 4
  for (int64_t r = 0; r < kMr; ++r) std::memcpy(&acc[r], c + r * c_step, sizeof(V8d));
  for (int64_t p = 0; p < kc; ++p) {
    V8d b;
    std::memcpy(&b, bp + p * kNr, sizeof b);
#pragma GCC unroll 4
    for (int64_t r = 0; r < kMr; ++r) acc[r] += b * ap[p * kMr + r];
  }
#pragma GCC unroll 4
  for (int64_t r = 0; r < kMr; ++r) std::memcpy(c + r * c_step, &acc[r], sizeof(V8d));
}

// Lanes [0, lanes) of a block, kc contracted indices long, as `tiles` tiles of `width` lanes:
// lane l (at src + l * lane_step) at index p (src + p * p_step) goes to
// dst[((l / width) * kc + p) * width + l % width]; lanes past `lanes` are zero.
void pack(double* dst, const float* src, int64_t lane_step, int64_t p_step, int64_t lanes,
          int64_t tiles, int64_t width, int64_t kc) {
  for (int64_t t = 0; t < tiles; ++t)
    for (int64_t p = 0; p < kc; ++p)
      for (int64_t r = 0; r < width; ++r) {
        const int64_t l = t * width + r;
        *dst++ = l < lanes ? double{src[l * lane_step + p * p_step]} : 0.0;
      }
}

} // namespace

void exact_gemm(GemmShape s, MatrixView a, MatrixView b, const double* row_init, MatrixOut out) {
  if (s.m <= 0 || s.n <= 0) return;
  // Sized for this product's blocks: a depthwise conv calls this once per channel with a few
  // rows and taps.
  const int64_t m_pad = round_up(std::min(kMc, s.m), kMr),
                n_pad = round_up(std::min(kNc, s.n), kNr);
  const int64_t k_block = std::min(kKc, s.k);
  std::vector<double> acc(static_cast<size_t>(m_pad * n_pad));
  std::vector<double> ap(static_cast<size_t>(m_pad * k_block));
  std::vector<double> bp(static_cast<size_t>(k_block * n_pad));
  for (int64_t i0 = 0; i0 < s.m; i0 += kMc) {
    const int64_t mc = std::min(kMc, s.m - i0), mc_pad = round_up(mc, kMr);
    for (int64_t j0 = 0; j0 < s.n; j0 += kNc) {
      const int64_t nc = std::min(kNc, s.n - j0), nc_pad = round_up(nc, kNr);
      for (int64_t i = 0; i < mc_pad; ++i) {
        const double init = i < mc && row_init != nullptr ? row_init[i0 + i] : 0.0;
        std::fill_n(acc.begin() + i * nc_pad, nc_pad, init);
      }
      for (int64_t p0 = 0; p0 < s.k; p0 += kKc) {
        const int64_t kc = std::min(kKc, s.k - p0);
        // A rows [i0, i0 + mc) as tiles of kMr rows, B columns [j0, j0 + nc) as strips of kNr.
        pack(ap.data(), a.data + i0 * a.row_step + p0 * a.col_step, a.row_step, a.col_step, mc,
             mc_pad / kMr, kMr, kc);
        pack(bp.data(), b.data + p0 * b.row_step + j0 * b.col_step, b.col_step, b.row_step, nc,
             nc_pad / kNr, kNr, kc);
        // Strip by strip: a strip of B stays in the L1 cache while every row tile uses it.
        for (int64_t t = 0; t < nc_pad / kNr; ++t)
          for (int64_t u = 0; u < mc_pad / kMr; ++u)
            micro_kernel(acc.data() + u * kMr * nc_pad + t * kNr, nc_pad, ap.data() + u * kc * kMr,
                         bp.data() + t * kc * kNr, kc);
      }
      for (int64_t i = 0; i < mc; ++i)
        for (int64_t j = 0; j < nc; ++j)
          out.data[(i0 + i) * out.row_step + (j0 + j) * out.col_step] =
              static_cast<float>(acc[static_cast<size_t>(i * nc_pad + j)]);
    }
  }
}

} // namespace tilesat::ops
