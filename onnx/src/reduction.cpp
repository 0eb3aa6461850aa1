// reduction.cpp: Softmax, ReduceMean/Sum/Max and GlobalAveragePool.
#include "converters.h"

#include <fmt/format.h>
#include <numeric>

namespace tilesat::onnx {

std::pair<Value, int64_t> softmax_operand(NodeContext& c) {
  Builder& b = c.builder();
  Value x = c.operand(0);
  Shape s = b.type(x).shape;
  int64_t rank = s.rank();
  bool legacy = c.opset() < 13;
  int64_t axis =
      norm_axis(c.attr_int("axis", legacy ? 1 : -1), std::max<int64_t>(rank, 1), "'axis'");
  if (!legacy || axis == rank - 1) return {x, axis};
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= s[d];
  return {b.reshape(x, {outer, inner}), 1};
}

Value shaped_as_input(NodeContext& c, Value y) {
  Shape s = c.input_shape(0);
  return c.builder().type(y).shape == s ? y : c.builder().reshape(y, s.dims());
}

Value log_softmax(Builder& b, Value x, int64_t axis) {
  ReduceOptions keep{{axis}, true};
  Value shifted = b.subtract(x, b.max(x, keep));
  return b.subtract(shifted, b.log(b.sum(b.exp(shifted), keep)));
}

void convert_softmax(NodeContext& c) {
  auto [in, axis] = softmax_operand(c);
  c.set_output(0, shaped_as_input(c, c.builder().softmax(in, axis)));
}

void convert_reduce(NodeContext& c) {
  const std::string& type = c.node().op_type();
  // ReduceSum takes its axes as an input from opset 13, the others from opset 18.
  std::optional<std::vector<int64_t>> axes = axes_of(c, type == "ReduceSum" ? 13 : 18, 1);
  bool keep = c.attr_int("keepdims", 1) != 0;
  bool noop_empty = c.attr_int("noop_with_empty_axes", 0) != 0;
  if ((!axes || axes->empty()) && noop_empty) {
    c.forward(0, 0);
    return;
  }
  Builder& b = c.builder();
  Value x = c.operand(0);
  ReduceOptions o;
  if (axes) o.dims = *axes;
  if (o.dims.empty()) {
    o.dims.resize(static_cast<size_t>(b.type(x).shape.rank()));
    std::iota(o.dims.begin(), o.dims.end(), 0);
  }
  o.keep_dim = keep;
  OpKind kind = type == "ReduceMean"  ? OpKind::Mean
                : type == "ReduceSum" ? OpKind::Sum
                                      : OpKind::Max;
  c.set_output(0, kind == OpKind::Mean  ? b.mean(x, o)
                  : kind == OpKind::Sum ? b.sum(x, o)
                                        : b.max(x, o));
}

void convert_global_average_pool(NodeContext& c) {
  Builder& b = c.builder();
  Value x = c.operand(0);
  ReduceOptions o{spatial_dims(c, b.type(x).shape), true};
  c.set_output(0, b.mean(x, o));
}

} // namespace tilesat::onnx
