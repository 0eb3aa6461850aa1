// row_kernel.cpp: the passes of ttnn's layer_norm, rms_norm and softmax compute kernels.
#include "tilesat/cost/row_kernel.h"

#include "tilesat/cost/op_cost.h"

#include <algorithm>
#include <fmt/format.h>
#include <vector>

namespace tilesat::cost {

RowKernel row_kernel(const Device& d, const RowKernelOp& op) {
  RowKernel k;
  const double x = static_cast<double>(CostModel::tile_bytes(op.in));
  const double o = static_cast<double>(CostModel::tile_bytes(op.out));
  k.interm_tile_bytes = CostModel::tile_bytes(op.fp32_accumulate ? DType::F32 : DType::BF16);
  const double i = static_cast<double>(k.interm_tile_bytes);
  // Gamma and beta rows come in the input's format (ttnn reads them beside x).
  const double g = x;
  const double elt = d.fpu_eltwise_cycles_per_tile;
  const double mul = elt * op.fidelity_passes;
  // The FPU reduces 16x16 per cycle, twice its eltwise rate; a sum pays the fidelity passes
  // of its scaler multiply, a max does not.
  const double reduce_sum = elt / 2 * op.fidelity_passes, reduce_max = elt / 2;
  std::vector<std::string> names;
  // Each tile of a pass: the longer of unpack then FPU, and pack, and at least the measured
  // floor of an FPU pass. A broadcast operand (the row's statistic, the reduce scaler) is
  // unpacked again for every tile.
  auto pass = [&](const char* name, double unpack_bytes, double fpu, double pack_bytes) {
    k.cycles_per_tile += std::max({unpack_bytes / d.unpack_bytes_per_cycle + fpu,
                                   pack_bytes / d.pack_bytes_per_cycle, kFpuPassFloorCycles});
    names.emplace_back(name);
  };
  const double scaler = static_cast<double>(CostModel::tile_bytes(DType::BF16));
  // Gamma and beta end the norms: the last pass writes the result, the others intermediates.
  auto affine = [&](double in_bytes) {
    pass("x 1/sigma", in_bytes + i, mul, op.gamma ? i : o);
    if (op.gamma) pass("gamma", i + g, mul, op.beta ? i : o);
    if (op.beta) pass("beta", i + g, elt, o);
  };
  const double one_tile_sfpu = d.sfpu_cycles_per_tile;
  switch (op.kind) {
  case OpKind::LayerNorm:
    pass("mean", x + scaler, reduce_sum, 0);
    pass("x - mean", x + i, elt, i);
    pass("square", 2 * i, mul, i);
    pass("variance", i + scaler, reduce_sum, 0);
    affine(i);
    k.cycles_per_row = elt + one_tile_sfpu * sfpu_weight(OpKind::Rsqrt);
    k.combine_rounds = 2;
    k.row_bytes_per_tile = x + 2 * i + (op.gamma ? g : 0) + (op.beta ? g : 0);
    k.large_reads = 3;
    k.large_fraction = 0.95;
    break;
  case OpKind::RmsNorm:
    pass("square", 2 * x, mul, i);
    pass("mean square", i + scaler, reduce_sum, 0);
    affine(x);
    k.cycles_per_row = elt + one_tile_sfpu * sfpu_weight(OpKind::Rsqrt);
    k.combine_rounds = 1;
    k.row_bytes_per_tile = x + i + (op.gamma ? g : 0) + (op.beta ? g : 0);
    k.large_reads = 2;
    k.large_fraction = 0.95;
    break;
  default: // Softmax
    pass("max", x + scaler, reduce_max, 0);
    pass("exp(x - max)", x + i, elt + one_tile_sfpu * sfpu_weight(OpKind::Exp), i);
    pass("sum", i + scaler, reduce_sum, 0);
    pass("x 1/sum", 2 * i, mul, o);
    k.cycles_per_row = one_tile_sfpu * sfpu_weight(OpKind::Reciprocal);
    k.combine_rounds = 2;
    k.row_bytes_per_tile = x + i;
    k.large_reads = 3;
    k.large_fraction = 0.90;
    break;
  }
  k.what = fmt::format("({} passes: {})", names.size(), fmt::join(names, ", "));
  return k;
}

} // namespace tilesat::cost
