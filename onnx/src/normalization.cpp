// normalization.cpp: LayerNormalization (opset 17).
#include "converters.h"

#include <algorithm>
#include <fmt/format.h>

namespace tilesat::onnx {

void convert_layer_norm(NodeContext& c) {
  if (c.attr_int("stash_type", 1) != 1) c.fail("expected 'stash_type' 1 (float)");
  Builder& b = c.builder();
  Value x = c.operand(0);
  DType d = b.type(x).dtype;
  Value scale = operand_like(c, 1, d, false);
  std::optional<Value> bias;
  if (c.has_input(2)) bias = operand_like(c, 2, d, false);
  int64_t axis = c.attr_int("axis", -1);
  double eps = c.attr_float("epsilon", 1e-5);
  int64_t rank = b.type(x).shape.rank();
  int64_t from = norm_axis(axis, std::max<int64_t>(rank, 1), "'axis'");
  if (c.wants_output(0))
    c.set_output(0, b.layer_norm(x, &scale, bias ? &*bias : nullptr, from, eps));
  // The optional Mean and InvStdDev (training outputs) over the normalized dims, kept as 1.
  if (c.wants_output(1) || c.wants_output(2)) {
    ReduceOptions o;
    for (int64_t dim = from; dim < rank; ++dim) o.dims.push_back(dim);
    o.keep_dim = true;
    Value mean = b.mean(x, o);
    Value centered = b.subtract(x, mean);
    Value var = b.mean(b.multiply(centered, centered), o);
    if (c.wants_output(1)) c.set_output(1, mean);
    if (c.wants_output(2)) c.set_output(2, b.rsqrt(b.add(var, b.scalar(eps, d))));
  }
}

} // namespace tilesat::onnx
