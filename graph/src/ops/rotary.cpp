// rotary.cpp: rotary_embedding, the rotary position embedding in the rotate-half convention:
// x * cos + rotate_half(x) * sin, rotate_half(x) = concat(-x[..., D/2:], x[..., :D/2]).
#include "ops/op_impl.h"

#include <fmt/format.h>

namespace tilesat::ops {

TensorType infer_rotary_embedding(const InferArgs& in) {
  const TensorType &x = *in.operands[0], &cos = *in.operands[1], &sin = *in.operands[2];
  check_same_dtype(x.dtype, cos.dtype);
  check_same_dtype(x.dtype, sin.dtype);
  if (x.shape.rank() < 2)
    fail(fmt::format("expected an operand of rank >= 2 [..., seq, head_dim], got {}",
                     x.shape.str()));
  const int64_t d = x.shape[x.shape.rank() - 1];
  if (d % 2 != 0) fail(fmt::format("expected an even head_dim, got {}", d));
  const char* names[] = {"cos", "sin"};
  for (size_t i = 1; i < 3; ++i) {
    const Shape& t = in.operands[i]->shape;
    std::optional<Shape> b = broadcast_shapes(x.shape, t);
    if (t.rank() < 1 || t[t.rank() - 1] != d || !b || *b != x.shape)
      fail(fmt::format("expected {} [..., seq, {}] that broadcasts to the operand {}, got {}",
                       names[i - 1], d, x.shape.str(), t.str()));
  }
  return TensorType{x.dtype, x.shape, {}};
}

Tensor eval_rotary_embedding(const EvalArgs& in) {
  const Tensor &x = *in.operands[0], &cos = *in.operands[1], &sin = *in.operands[2];
  const Shape& s = x.shape();
  const int64_t d = s[s.rank() - 1], half = d / 2;
  auto offsets = [&](const Tensor& t) {
    return strided_offsets(
        s, broadcast_strides(t.shape(), s, right_aligned_dims(t.shape().rank(), s.rank())));
  };
  std::vector<int64_t> cos_at = offsets(cos), sin_at = offsets(sin);
  Tensor out(in.result);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t j = i % d;
    const double rotated = j < half ? -double{x[i + half]} : double{x[i - half]};
    auto u = static_cast<size_t>(i);
    out[i] = static_cast<float>(double{x[i]} * cos[cos_at[u]] + rotated * sin[sin_at[u]]);
  }
  return out;
}

} // namespace tilesat::ops
