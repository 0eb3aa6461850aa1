// elementwise.cpp: elementwise unary and binary ops, with NumPy broadcasting, explicit
// `broadcast_dims`, and rank-0 scalar operands.
#include "ops/op_impl.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numbers>

namespace tilesat::ops {

namespace {

// How the two operands of a binary op map onto its result.
struct BinaryLayout {
  Shape result;
  std::vector<int64_t> a_dims, b_dims; // operand dim i -> result dim
};

// `lo` (operand `lo_index`) maps into `hi` through explicit broadcast_dims.
std::vector<int64_t> explicit_dims(const Shape& lo, const Shape& hi, int lo_index,
                                   const std::vector<int64_t>& bd) {
  if (static_cast<int64_t>(bd.size()) != lo.rank()) {
    fail(fmt::format("expected 'broadcast_dims' to have {} entries (the rank of operand {}), "
                     "got {}",
                     lo.rank(), lo_index, list_str(bd)));
  }
  std::vector<int64_t> dims;
  std::vector<bool> used(static_cast<size_t>(hi.rank()), false);
  for (size_t i = 0; i < bd.size(); ++i) {
    int64_t r = axis_or_fail(bd[i], hi.rank(), "'broadcast_dims' entries");
    if (used[static_cast<size_t>(r)]) {
      fail(fmt::format("expected distinct 'broadcast_dims', got {}", list_str(bd)));
    }
    used[static_cast<size_t>(r)] = true;
    int64_t d = lo[static_cast<int64_t>(i)];
    if (d != 1 && d != hi[r]) {
      fail(fmt::format("expected dim {} of operand {} to be 1 or {} (result dim {}), got {}", i,
                       lo_index, hi[r], r, d));
    }
    dims.push_back(r);
  }
  return dims;
}

BinaryLayout binary_layout(const Shape& a, const Shape& b, const std::vector<int64_t>& bd) {
  BinaryLayout l;
  // A rank-0 operand is a scalar and broadcast_dims describe the other one, which has no
  // lower-rank partner, so they only apply between two tensors of different rank.
  if (!bd.empty() && a.rank() != b.rank() && a.rank() > 0 && b.rank() > 0) {
    bool a_lo = a.rank() < b.rank();
    const Shape& hi = a_lo ? b : a;
    l.result = hi;
    std::vector<int64_t> mapped = explicit_dims(a_lo ? a : b, hi, a_lo ? 0 : 1, bd);
    std::vector<int64_t> identity = right_aligned_dims(hi.rank(), hi.rank());
    l.a_dims = a_lo ? mapped : identity;
    l.b_dims = a_lo ? identity : mapped;
    return l;
  }
  if (!bd.empty() && a.rank() == b.rank() && bd != right_aligned_dims(a.rank(), a.rank())) {
    fail(fmt::format("expected 'broadcast_dims' to be empty or the identity for operands of "
                     "equal rank, got {}",
                     list_str(bd)));
  }
  std::optional<Shape> s = broadcast_shapes(a, b);
  if (!s) fail(fmt::format("expected broadcastable shapes, got {} and {}", a.str(), b.str()));
  l.result = *s;
  l.a_dims = right_aligned_dims(a.rank(), s->rank());
  l.b_dims = right_aligned_dims(b.rank(), s->rank());
  return l;
}

BinaryLayout binary_layout_of(const Shape& a, const Shape& b, const Attrs& attrs) {
  return binary_layout(a, b, attrs.get<std::vector<int64_t>>("broadcast_dims"));
}

template <class F>
Tensor binary(const EvalArgs& in, F f) {
  const Tensor& a = *in.operands[0];
  const Tensor& b = *in.operands[1];
  BinaryLayout l = binary_layout_of(a.shape(), b.shape(), in.attrs);
  std::vector<int64_t> ao =
      strided_offsets(l.result, broadcast_strides(a.shape(), l.result, l.a_dims));
  std::vector<int64_t> bo =
      strided_offsets(l.result, broadcast_strides(b.shape(), l.result, l.b_dims));
  Tensor out(in.result);
  for (size_t i = 0; i < ao.size(); ++i) out.data()[i] = f(a[ao[i]], b[bo[i]]);
  return out;
}

template <class F>
Tensor unary(const EvalArgs& in, F f) {
  Tensor out(in.result);
  const Tensor& x = *in.operands[0];
  for (size_t i = 0; i < out.data().size(); ++i) out.data()[i] = f(x.data()[i]);
  return out;
}

float relu(float x) {
  return x > 0.0f ? x : 0.0f;
}

} // namespace

TensorType infer_binary(const InferArgs& in) {
  const TensorType& a = *in.operands[0];
  const TensorType& b = *in.operands[1];
  BinaryLayout l = binary_layout_of(a.shape, b.shape, in.attrs);
  // A scalar adapts to the tensor it is combined with; two tensors must agree.
  bool a_scalar = a.shape.rank() == 0, b_scalar = b.shape.rank() == 0;
  DType dtype = a.dtype;
  if (a_scalar && !b_scalar) {
    dtype = b.dtype;
  } else if (a_scalar == b_scalar) {
    check_same_dtype(a.dtype, b.dtype);
  }
  return TensorType{dtype, l.result, {}};
}

TensorType infer_unary(const InferArgs& in) {
  return TensorType{in.operands[0]->dtype, in.operands[0]->shape, {}};
}

Tensor eval_add(const EvalArgs& in) {
  return binary(in, [](float a, float b) { return a + b; });
}
Tensor eval_subtract(const EvalArgs& in) {
  return binary(in, [](float a, float b) { return a - b; });
}
Tensor eval_multiply(const EvalArgs& in) {
  return binary(in, [](float a, float b) { return a * b; });
}
Tensor eval_divide(const EvalArgs& in) {
  return binary(in, [](float a, float b) { return a / b; });
}
Tensor eval_maximum(const EvalArgs& in) {
  return binary(in, [](float a, float b) { return std::max(a, b); });
}
Tensor eval_minimum(const EvalArgs& in) {
  return binary(in, [](float a, float b) { return std::min(a, b); });
}
Tensor eval_pow(const EvalArgs& in) {
  return binary(in, [](float a, float b) { return std::pow(a, b); });
}
Tensor eval_equal(const EvalArgs& in) {
  return binary(in, [](float a, float b) { return a == b ? 1.0f : 0.0f; });
}
Tensor eval_less(const EvalArgs& in) {
  return binary(in, [](float a, float b) { return a < b ? 1.0f : 0.0f; });
}
Tensor eval_greater(const EvalArgs& in) {
  return binary(in, [](float a, float b) { return a > b ? 1.0f : 0.0f; });
}
Tensor eval_add_relu(const EvalArgs& in) {
  return binary(in, [](float a, float b) { return relu(a + b); });
}

Tensor eval_relu(const EvalArgs& in) {
  return unary(in, relu);
}
Tensor eval_gelu(const EvalArgs& in) {
  // The exact (erf) form: x * Phi(x).
  return unary(in, [](float x) {
    double d = x;
    return static_cast<float>(0.5 * d * (1.0 + std::erf(d / std::numbers::sqrt2)));
  });
}
Tensor eval_exp(const EvalArgs& in) {
  return unary(in, [](float x) { return std::exp(x); });
}
Tensor eval_log(const EvalArgs& in) {
  return unary(in, [](float x) { return std::log(x); });
}
Tensor eval_neg(const EvalArgs& in) {
  return unary(in, [](float x) { return -x; });
}
Tensor eval_abs(const EvalArgs& in) {
  return unary(in, [](float x) { return std::fabs(x); });
}
Tensor eval_sin(const EvalArgs& in) {
  return unary(in, [](float x) { return std::sin(x); });
}
Tensor eval_cos(const EvalArgs& in) {
  return unary(in, [](float x) { return std::cos(x); });
}
Tensor eval_tanh(const EvalArgs& in) {
  return unary(in, [](float x) { return std::tanh(x); });
}
Tensor eval_sigmoid(const EvalArgs& in) {
  return unary(in, [](float x) { return static_cast<float>(1.0 / (1.0 + std::exp(-double{x}))); });
}
Tensor eval_silu(const EvalArgs& in) {
  return unary(in, [](float x) {
    double d = x;
    return static_cast<float>(d / (1.0 + std::exp(-d)));
  });
}
Tensor eval_sqrt(const EvalArgs& in) {
  return unary(in, [](float x) { return std::sqrt(x); });
}
Tensor eval_rsqrt(const EvalArgs& in) {
  return unary(in, [](float x) { return static_cast<float>(1.0 / std::sqrt(double{x})); });
}
Tensor eval_reciprocal(const EvalArgs& in) {
  return unary(in, [](float x) { return 1.0f / x; });
}

Tensor eval_erf(const EvalArgs& in) {
  return unary(in, [](float x) { return std::erf(x); });
}

} // namespace tilesat::ops
