// select.cpp: where(cond, a, b), the elementwise choice between two tensors by a mask, with
// NumPy broadcasting of all three operands (the form of ONNX Where and of attention masks).
#include "ops/op_impl.h"

#include <fmt/format.h>

namespace tilesat::ops {

namespace {

Shape where_shape(const Shape& c, const Shape& a, const Shape& b) {
  std::optional<Shape> ab = broadcast_shapes(a, b);
  std::optional<Shape> s = ab ? broadcast_shapes(c, *ab) : std::nullopt;
  if (!s) {
    fail(
        fmt::format("expected broadcastable shapes, got {}, {} and {}", c.str(), a.str(), b.str()));
  }
  return *s;
}

} // namespace

TensorType infer_where(const InferArgs& in) {
  const TensorType& c = *in.operands[0];
  const TensorType& a = *in.operands[1];
  const TensorType& b = *in.operands[2];
  check_same_dtype(a.dtype, b.dtype);
  return TensorType{a.dtype, where_shape(c.shape, a.shape, b.shape), {}};
}

Tensor eval_where(const EvalArgs& in) {
  const Tensor& c = *in.operands[0];
  const Tensor& a = *in.operands[1];
  const Tensor& b = *in.operands[2];
  const Shape& r = in.result.shape;
  auto offsets = [&](const Tensor& t) {
    return strided_offsets(
        r, broadcast_strides(t.shape(), r, right_aligned_dims(t.shape().rank(), r.rank())));
  };
  std::vector<int64_t> co = offsets(c), ao = offsets(a), bo = offsets(b);
  Tensor out(in.result);
  for (size_t i = 0; i < co.size(); ++i) out.data()[i] = c[co[i]] != 0.0f ? a[ao[i]] : b[bo[i]];
  return out;
}

} // namespace tilesat::ops
