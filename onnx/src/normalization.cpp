// normalization.cpp: LayerNormalization (opset 17) and LRN (local response normalization
// across channels, as AlexNet and GoogLeNet use it).
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

void convert_lrn(NodeContext& c) {
  // y = x / (bias + alpha / size * square_sum)^beta, square_sum over the `size` channels around
  // each (floor((size - 1) / 2) before, ceil((size - 1) / 2) after, clipped at the ends): the
  // squares' product with a banded C x C matrix over the channel dim, moved last and back.
  Builder& b = c.builder();
  Value x = c.operand(0);
  TensorType t = b.type(x);
  int64_t rank = t.shape.rank();
  spatial_dims(c, t.shape);
  if (!c.has_attr("size")) c.fail("expected the attribute 'size'");
  int64_t size = c.attr_int("size", 1);
  if (size < 1) c.fail(fmt::format("expected a positive 'size', got {}", size));
  double alpha = c.attr_float("alpha", 1e-4), beta = c.attr_float("beta", 0.75),
         bias = c.attr_float("bias", 1.0);
  const int64_t channels = t.shape[1], before = (size - 1) / 2, after = size - 1 - before;
  std::vector<double> band(static_cast<size_t>(channels * channels), 0.0);
  for (int64_t from = 0; from < channels; ++from)
    for (int64_t to = std::max<int64_t>(from - after, 0);
         to <= std::min<int64_t>(from + before, channels - 1); ++to)
      band[static_cast<size_t>(from * channels + to)] = 1.0;
  std::vector<int64_t> last, back(static_cast<size_t>(rank));
  for (int64_t dim = 0; dim < rank; ++dim)
    if (dim != 1) last.push_back(dim);
  last.push_back(1);
  for (int64_t i = 0; i < rank; ++i) back[static_cast<size_t>(last[static_cast<size_t>(i)])] = i;
  Value squares = b.permute(b.multiply(x, x), last);
  Value sums = b.matmul(squares, b.constant(Shape{channels, channels}, std::move(band), t.dtype));
  Value shift = b.scalar(bias, t.dtype);
  Value scale = b.scalar(alpha / static_cast<double>(size), t.dtype);
  Value denom = b.add(shift, b.multiply(scale, b.permute(sums, back)));
  c.set_output(0, b.divide(x, b.pow(denom, b.scalar(beta, t.dtype))));
}

} // namespace tilesat::onnx
