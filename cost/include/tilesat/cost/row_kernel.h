// row_kernel: the per-core work of ttnn's row-wise normalizations (layer_norm, rms_norm and
// softmax over the last dim), as their compute kernels run it.
//
// ttnn splits these ops by tile row: an interleaved op gives each core whole rows of Wt tiles
// (split_work_to_cores over NC*Ht rows; the width is never split), and a sharded one works on
// the rows of its shard. Per row the compute kernel makes a fixed sequence of passes over the
// row's tiles, each pass a loop of unpack, FPU (and SFPU) and pack over blocks of tiles held
// in circular buffers, and one single-tile step on the row's reduced statistic (1/sqrt of the
// variance plus eps, 1/sum). Layer norm: reduce (mean), x - mean, square, reduce (variance),
// times 1/sigma, then gamma and beta; rms_norm skips the mean and its subtraction; softmax
// (ttnn's default numeric_stable): reduce (max), x - max and exp, reduce (sum), times 1/sum
// (tenstorrent/tt-metal ttnn/cpp/ttnn/operations/normalization/layernorm/device/kernels/
// compute/layernorm.cpp, layernorm_op_multi_core.cpp; normalization/softmax/device/kernels/
// compute/softmax.cpp). Intermediate buffers are f32 with fp32_dest_acc_en, else bf16.
//
// A pass streams its tiles through three pipelined threads: a tile takes the longer of its
// unpack plus FPU time (the FPU waits for its source registers) and its pack time. When the
// row's buffers do not fit L1, ttnn's large-tensor variant keeps a fixed number of tiles and
// reads x once per pass that needs it (three times for layer norm and stable softmax, twice
// for rms_norm). A sharded op whose rows span several cores combines its partial statistics
// across them (one round for rms_norm, two for layer norm: the mean, then the variance).
//
//   RowKernel k = row_kernel(device, {.kind = OpKind::RmsNorm, .gamma = true});
//   // k.cycles_per_tile: the passes over one tile of a row; k.cycles_per_row: its 1/sqrt step
#pragma once

#include "tilesat/cost/device.h"
#include "tilesat/graph/dtype.h"
#include "tilesat/graph/op.h"

#include <string>

namespace tilesat::cost {

/// What a row kernel is asked to do.
struct RowKernelOp {
  OpKind kind = OpKind::LayerNorm; ///< LayerNorm, RmsNorm or Softmax
  DType in = DType::BF16, out = DType::BF16;
  bool gamma = false, beta = false; ///< the norms' scale and shift (a row each)
  bool fp32_accumulate = false;     ///< fp32_dest_acc_en: f32 intermediates
  double fidelity_passes = 4;       ///< FPU passes of a multiply (HiFi4: 4)
};

/// The per-tile and per-row work of one row kernel, and the facts its placement needs.
struct RowKernel {
  double cycles_per_tile = 0;    ///< every pass over one tile of a row
  double cycles_per_row = 0;     ///< the single-tile step on a row's statistic
  int combine_rounds = 0;        ///< exchanges of partial statistics when a row spans cores
  double row_bytes_per_tile = 0; ///< L1 bytes of the whole-row buffers per tile of a row
  int64_t interm_tile_bytes = 0;
  int large_reads = 1;       ///< reads of x per row in ttnn's large-tensor variant
  double large_fraction = 0; ///< share of L1 the row buffers may take before that variant
  std::string what;          ///< the passes, for an estimate's detail
};

/// The row kernel of `op` on `d` (see the file comment).
RowKernel row_kernel(const Device& d, const RowKernelOp& op);

} // namespace tilesat::cost
