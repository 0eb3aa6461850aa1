// ttnn_matmul_default.cpp: ttnn's program configuration for a matmul given none.
#include "tilesat/cost/ttnn_matmul_default.h"

#include "ceil_div.h"

#include <algorithm>

namespace tilesat::cost {

MatmulConfig ttnn_default_matmul(const MatmulConfig& config, const Device& device) {
  MatmulConfig m = config;
  const int64_t mt = ceil_div(m.m, 32), kt = ceil_div(m.k, 32), nt = ceil_div(m.n, 32);
  const int64_t cols = std::max<uint32_t>(m.grid.cols, 1);
  m.packer_l1_acc = false;
  // The largest square block of output tiles whose circular buffers (inner block 2) fit the
  // usable L1.
  int64_t factor = 1;
  for (int64_t f = 16; f > 1; f /= 2) {
    if (matmul_cb_bytes(m, f, f, 2) < device.usable_l1_bytes()) {
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
