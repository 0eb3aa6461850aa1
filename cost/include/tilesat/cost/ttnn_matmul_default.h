// The program configuration ttnn chooses for a matmul called without one.
//
// `ttnn.matmul(a, b)` with interleaved operands and no program config or core grid picks its
// own multicast layout and blocking (tt-metal's create_simple_matmul_program_config and
// get_mcast_1d_config, ttnn/cpp/ttnn/operations/matmul/device/config/matmul_program_config.cpp):
//
// - blocks of up to 16x16 output tiles per core (the largest of 16, 8, 4, 2 whose circular
//   buffers fit L1) decide the shape: a single row of such blocks that is more than one block
//   wide becomes a 1-D multicast of in0 to the whole grid (every core all rows, a slice of at
//   least one column; inner block 2 tiles), a single column of blocks likewise of in1;
// - otherwise a 2-D multicast over the grid: ceil(Mt / rows) x ceil(Nt / cols) tiles per
//   core, inner block Kt / cols tiles (1 when that does not divide);
// - when ttnn's estimate of the circular buffers (double-buffered inputs, output and
//   intermediate blocks) does not fit the usable L1, the output block shrinks to divisors of
//   the per-core block (most tiles, squarest first), then the inner block (2-D only); the
//   sub-block is the first of ttnn's list (4x2, 2x4, 8x1, 1x8, ...) dividing the output block;
// - the compute kernel's packer does not accumulate in L1 (ttnn's default kernel config).
//
// The cost model predicts such a matmul from the configuration this returns, so the accuracy
// benchmark can score ttnn's out-of-box rows as they ran.
//
//   MatmulConfig c{.m = 512, .k = 1024, .n = 1024, .grid = {8, 8}};
//   MatmulConfig t = ttnn_default_matmul(c, device);   // t.mcast == MatmulMcast::In0Row1D
#pragma once

#include "tilesat/cost/device.h"
#include "tilesat/cost/op_cost.h"

#include <cstdint>
#include <utility>

namespace tilesat::cost {

/// `config` (shapes, tile sizes, placements, grid) with the multicast, blocking (set as
/// `blocking`) and packer accumulation ttnn's default selection gives it on `device`.
MatmulConfig ttnn_default_matmul(const MatmulConfig& config, const Device& device);

/// The first sub-block (h, w) of ttnn's preference list (4x2, 2x4, 8x1, 1x8, ...) that divides
/// an `out_h` x `out_w` output block: at most four tiles when accumulating in f32 (`fp32`), one
/// tile row when `one_row` (a block-sharded output written row by row).
///
///   ttnn_subblock(16, 16, false, false);   // {4, 2}
///   ttnn_subblock(16, 16, false, true);    // {1, 8}
std::pair<int64_t, int64_t> ttnn_subblock(int64_t out_h, int64_t out_w, bool fp32, bool one_row);

} // namespace tilesat::cost
