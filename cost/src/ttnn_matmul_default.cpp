// ttnn_matmul_default.cpp: ttnn's program configuration for a matmul given none.
#include "tilesat/cost/ttnn_matmul_default.h"

#include <algorithm>

namespace tilesat::cost {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

} // namespace

MatmulConfig ttnn_default_matmul(const MatmulConfig& config, const Device& device) {
  MatmulConfig m = config;
  const int64_t mt = ceil_div(m.m, 32), kt = ceil_div(m.k, 32), nt = ceil_div(m.n, 32);
  const int64_t cols = std::max<uint32_t>(m.grid.cols, 1);
  m.packer_l1_acc = false;
  // The largest square block of output tiles whose circular buffers (inner block 2, in0 and
  // in1 double-buffered, the output block) fit the usable L1.
  int64_t factor = 1;
  for (int64_t f = 16; f > 1; f /= 2) {
    int64_t bytes =
        2 * f * 2 * m.in0_tile_bytes + 2 * 2 * f * m.in1_tile_bytes + f * f * m.out_tile_bytes;
    if (bytes < device.usable_l1_bytes()) {
      factor = f;
      break;
    }
  }
  const int64_t blocks_y = ceil_div(mt, factor), blocks_x = ceil_div(nt, factor);
  if ((blocks_y == 1) != (blocks_x == 1)) {
    // One row of blocks: in0 to everyone; one column of blocks: in1 to everyone.
    m.mcast = blocks_y == 1 ? MatmulMcast::In0Row1D : MatmulMcast::In1Col1D;
    m.in0_block_w = kt % 2 == 0 ? 2 : 1;
    return m;
  }
  m.mcast = MatmulMcast::Block2D;
  m.in0_block_w = kt % cols == 0 ? kt / cols : 1;
  return m;
}

} // namespace tilesat::cost
