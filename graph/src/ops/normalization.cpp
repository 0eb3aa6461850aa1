// normalization.cpp: layer_norm and rms_norm: normalize over the trailing dims from `axis`
// (layer_norm centred on the mean and divided by the standard deviation, rms_norm divided by
// the root mean square), then scale and shift by optional operands broadcast over those dims.
#include "ops/op_impl.h"

#include <cmath>
#include <fmt/format.h>
#include <span>

namespace tilesat::ops {

namespace {

// The normalized trailing dims of `x`: [axis, rank).
Shape normalized_shape(const Shape& x, int64_t axis) {
  return Shape(std::vector<int64_t>(x.begin() + axis, x.end()));
}

// The shape of a normalization: its operand's, with parameters (named by `names`, operand 1 on)
// that broadcast to the normalized dims and a non-negative epsilon.
TensorType infer_norm(const InferArgs& in, std::span<const char* const> names) {
  const TensorType& x = *in.operands[0];
  if (x.shape.rank() < 1) fail("expected an operand of rank >= 1, got rank 0");
  int64_t axis = axis_or_fail(in.attrs.get<int64_t>("axis"), x.shape.rank(), "'axis'");
  Shape norm = normalized_shape(x.shape, axis);
  for (size_t i = 1; i < in.operands.size(); ++i) {
    const TensorType& p = *in.operands[i];
    check_same_dtype(x.dtype, p.dtype);
    std::optional<Shape> s = broadcast_shapes(norm, p.shape);
    if (!s || *s != norm) {
      fail(fmt::format("expected a {} that broadcasts to the normalized shape {}, got {}",
                       names[i - 1], norm.str(), p.shape.str()));
    }
  }
  if (!(in.attrs.get<double>("epsilon") >= 0.0)) {
    fail(fmt::format("expected a non-negative 'epsilon', got {}", in.attrs.get<double>("epsilon")));
  }
  return TensorType{x.dtype, x.shape, {}};
}

// Each row over the normalized dims divided by its standard deviation after subtracting its
// mean (`center`) or by its root mean square, then times operand 1 and plus operand 2 where
// given; statistics in double.
Tensor eval_norm(const EvalArgs& in, bool center) {
  const Tensor& x = *in.operands[0];
  int64_t axis = axis_or_fail(in.attrs.get<int64_t>("axis"), x.shape().rank(), "'axis'");
  Shape norm = normalized_shape(x.shape(), axis);
  int64_t n = norm.numel(), rows = n == 0 ? 0 : x.numel() / n;
  double eps = in.attrs.get<double>("epsilon");
  // Offsets of scale and bias for each element of the normalized shape.
  std::vector<std::vector<int64_t>> param_offsets;
  for (size_t i = 1; i < in.operands.size(); ++i) {
    const Shape& p = in.operands[i]->shape();
    param_offsets.push_back(strided_offsets(
        norm, broadcast_strides(p, norm, right_aligned_dims(p.rank(), norm.rank()))));
  }
  Tensor out(in.result);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x.data().data() + r * n;
    double mean = 0.0, var = 0.0;
    if (center) {
      for (int64_t j = 0; j < n; ++j) mean += row[j];
      mean /= static_cast<double>(n);
    }
    for (int64_t j = 0; j < n; ++j) var += (row[j] - mean) * (row[j] - mean);
    var /= static_cast<double>(n);
    double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < n; ++j) {
      double v = (row[j] - mean) * inv;
      auto uj = static_cast<size_t>(j);
      if (!param_offsets.empty()) v *= (*in.operands[1])[param_offsets[0][uj]];
      if (param_offsets.size() > 1) v += (*in.operands[2])[param_offsets[1][uj]];
      out[r * n + j] = static_cast<float>(v);
    }
  }
  return out;
}

} // namespace

TensorType infer_layer_norm(const InferArgs& in) {
  static constexpr const char* kNames[] = {"scale", "bias"};
  return infer_norm(in, kNames);
}

Tensor eval_layer_norm(const EvalArgs& in) {
  return eval_norm(in, true);
}

TensorType infer_rms_norm(const InferArgs& in) {
  static constexpr const char* kNames[] = {"weight"};
  return infer_norm(in, kNames);
}

Tensor eval_rms_norm(const EvalArgs& in) {
  return eval_norm(in, false);
}

} // namespace tilesat::ops
