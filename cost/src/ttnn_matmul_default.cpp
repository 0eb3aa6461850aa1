// ttnn_matmul_default.cpp: ttnn's program configuration for a matmul given none.
#include "tilesat/cost/ttnn_matmul_default.h"

#include "ceil_div.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace tilesat::cost {
namespace {

// ttnn's estimate of a matmul's circular buffers per core: double-buffered in0 and in1 blocks,
// the output block (sized with in0's tile) and an intermediate block (f32 tiles when
// accumulating in f32, else the larger of a bf16 tile and the output tile).
int64_t ttnn_cb_estimate(const MatmulConfig& m, int64_t h, int64_t w, int64_t in0_block_w) {
  const int64_t interm = m.fp32_accumulate ? 4096 : std::max<int64_t>(2048, m.out_tile_bytes);
  return 2 * h * in0_block_w * m.in0_tile_bytes + 2 * w * in0_block_w * m.in1_tile_bytes +
         h * w * (m.in0_tile_bytes + interm);
}

struct OutBlock {
  int64_t h, w, in0_block_w;
};

// The output block and inner block ttnn streams a per-core block in when its circular buffers
// do not fit: divisors of the per-core sides, the most tiles first (the squarest of equal
// products). The inner block is kept while any output block fits with it; unless `keep_inner`,
// it then shrinks through its divisors.
OutBlock fit_out_block(const MatmulConfig& m, int64_t per_core_m, int64_t per_core_n,
                       int64_t in0_block_w, int64_t usable, bool keep_inner) {
  if (ttnn_cb_estimate(m, per_core_m, per_core_n, in0_block_w) < usable)
    return {per_core_m, per_core_n, in0_block_w};
  auto factors = [](int64_t n) {
    std::vector<int64_t> f = {n, 1};
    for (int64_t d = n / 2; d > 1; --d)
      if (n % d == 0) f.push_back(d);
    return f;
  };
  auto ratio = [](int64_t a, int64_t b) {
    return static_cast<double>(std::max(a, b)) / static_cast<double>(std::min(a, b));
  };
  std::map<int64_t, std::pair<int64_t, int64_t>> by_tiles;
  for (int64_t h : factors(per_core_m)) {
    for (int64_t w : factors(per_core_n)) {
      auto it = by_tiles.find(h * w);
      if (it == by_tiles.end() || ratio(it->second.first, it->second.second) >= ratio(h, w))
        by_tiles[h * w] = {h, w};
    }
  }
  const int64_t min_inner = keep_inner ? in0_block_w : 1;
  for (int64_t k = in0_block_w; k >= min_inner; --k) {
    if (in0_block_w % k) continue;
    for (auto it = by_tiles.rbegin(); it != by_tiles.rend(); ++it)
      if (ttnn_cb_estimate(m, it->second.first, it->second.second, k) < usable)
        return {it->second.first, it->second.second, k};
  }
  return {1, 1, 1};
}

} // namespace

std::pair<int64_t, int64_t> ttnn_subblock(int64_t out_h, int64_t out_w, bool fp32, bool one_row) {
  static constexpr std::array<std::pair<int, int>, 20> kChoices = {{
      {4, 2}, {2, 4}, {8, 1}, {1, 8}, {7, 1}, {1, 7}, {3, 2}, {2, 3}, {6, 1}, {1, 6},
      {5, 1}, {1, 5}, {2, 2}, {4, 1}, {1, 4}, {3, 1}, {1, 3}, {2, 1}, {1, 2}, {1, 1},
  }};
  for (auto [h, w] : kChoices) {
    if ((fp32 && h * w > 4) || (one_row && h != 1)) continue;
    if (out_h % h == 0 && out_w % w == 0) return {h, w};
  }
  return {1, 1};
}

MatmulConfig ttnn_default_matmul(const MatmulConfig& config, const Device& device) {
  MatmulConfig m = config;
  const int64_t mt = std::max<int64_t>(ceil_div(m.m, 32), 1),
                kt = std::max<int64_t>(ceil_div(m.k, 32), 1),
                nt = std::max<int64_t>(ceil_div(m.n, 32), 1);
  const int64_t rows = std::max<uint32_t>(m.grid.rows, 1),
                cols = std::max<uint32_t>(m.grid.cols, 1);
  const int64_t usable = device.usable_l1_bytes();
  m.packer_l1_acc = false;
  // The largest square block of output tiles whose circular buffers (inner block 2) fit.
  int64_t factor = 1;
  for (int64_t f = 16; f > 1; f /= 2) {
    if (ttnn_cb_estimate(m, f, f, 2) < usable) {
      factor = f;
      break;
    }
  }
  const int64_t blocks_y = ceil_div(mt, factor), blocks_x = ceil_div(nt, factor);
  MatmulBlocking b;
  if ((blocks_y == 1) != (blocks_x == 1)) {
    // One row of blocks: in0 to everyone; one column of blocks: in1 to everyone. Each core
    // holds all rows (columns) and a slice of the columns (rows); inner block 2 when it divides.
    m.mcast = blocks_y == 1 ? MatmulMcast::In0Row1D : MatmulMcast::In1Col1D;
    b.per_core_m = blocks_y == 1 ? mt : ceil_div(mt, rows * cols);
    b.per_core_n = blocks_y == 1 ? ceil_div(nt, rows * cols) : nt;
    b.in0_block_w = kt % 2 == 0 ? 2 : 1;
    OutBlock o = fit_out_block(m, b.per_core_m, b.per_core_n, b.in0_block_w, usable, true);
    b.out_block_h = o.h;
    b.out_block_w = o.w;
  } else {
    // 2-D over the whole grid: inner block Kt / cols tiles (1 when that does not divide); when
    // the circular buffers do not fit, the output block shrinks first.
    m.mcast = MatmulMcast::Block2D;
    b.per_core_m = ceil_div(mt, rows);
    b.per_core_n = ceil_div(nt, cols);
    OutBlock o =
        fit_out_block(m, b.per_core_m, b.per_core_n, kt % cols == 0 ? kt / cols : 1, usable, false);
    b.out_block_h = o.h;
    b.out_block_w = o.w;
    b.in0_block_w = o.in0_block_w;
  }
  std::tie(b.out_subblock_h, b.out_subblock_w) =
      ttnn_subblock(b.out_block_h, b.out_block_w, m.fp32_accumulate, false);
  m.in0_block_w = b.in0_block_w;
  m.blocking = b;
  return m;
}

} // namespace tilesat::cost
