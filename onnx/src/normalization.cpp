// normalization.cpp: LayerNormalization (opset 17).
#include "converters.h"

#include <fmt/format.h>

namespace tilesat::onnx {

void convert_layer_norm(NodeContext& c) {
  for (size_t i = 1; i < c.num_outputs(); ++i) {
    if (c.wants_output(i))
      c.fail("expected only output 0 (Y), got a request for Mean or InvStdDev");
  }
  if (c.attr_int("stash_type", 1) != 1) c.fail("expected 'stash_type' 1 (float)");
  Builder& b = c.builder();
  Value x = c.operand(0);
  DType d = b.type(x).dtype;
  Value scale = operand_like(c, 1, d, false);
  std::optional<Value> bias;
  if (c.has_input(2)) bias = operand_like(c, 2, d, false);
  int64_t axis = c.attr_int("axis", -1);
  double eps = c.attr_float("epsilon", 1e-5);
  c.set_output(0, b.layer_norm(x, &scale, bias ? &*bias : nullptr, axis, eps));
}

} // namespace tilesat::onnx
