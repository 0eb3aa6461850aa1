// Z3's choice of a matmul's free parameters: the core grid and the blocking.
//
// The cost model (op_cost.h) predicts a matmul's time from its per-core block (how many output
// tiles each core computes, which fixes the grid), the DST sub-block (how many bytes the
// unpackers move per tile product) and the inner block (how much of K a circular buffer holds).
// `choose_matmul_z3` states the same model as Z3 Optimize constraints over those integers:
// the blocks cover the output on at most the usable grid, the sub-block fits half of DST (a
// quarter when accumulating in f32) and divides the block, the double-buffered inputs and the
// output block fit the usable L1; and minimises the predicted time (the slowest of compute, DRAM
// and NoC; when in0 comes from DRAM each inner block waits for the slower of its compute and
// its fetch), then the grid rows and columns used, then the unpacker traffic, then maximises
// the inner block.
// With a fixed grid (a sharded output's grid) only the blocking is free.
//
//   MatmulConfig c{.m = 1024, .k = 1024, .n = 1024};
//   std::optional<MatmulChoice> z = choose_matmul_z3(c, device, GridFreedom::Free);
//   z->grid;              // 8x8 on wormhole_b0
//   z->blocking.in0_block_w;
#pragma once

#include "tilesat/cost/device.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/plan.h"

#include <optional>

namespace tilesat::cost {

/// Whether Z3 may choose the grid, or must block for `MatmulConfig::grid`.
enum class GridFreedom : uint8_t { Free, Fixed };

/// What Z3 chose.
struct MatmulChoice {
  /// The cores that compute: ceil(Mt / per_core_m) x ceil(Nt / per_core_n).
  CoreGrid grid;
  MatmulBlocking blocking;
};

/// Z3's grid and blocking for `config` on `device`, the output block being the whole per-core
/// block; nullopt when no such blocking fits L1 and DST (the model then streams smaller output
/// blocks, op_cost.h)
/// (or Z3 gives up within its time limit), or for a configuration the statement does not cover
/// (a 1-D multicast, no packer accumulation in L1, a fixed inner block).
std::optional<MatmulChoice> choose_matmul_z3(const MatmulConfig& config, const Device& device,
                                             GridFreedom freedom);

} // namespace tilesat::cost
