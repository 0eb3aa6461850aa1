// reduction.cpp: reductions over dims (sum, mean, max) and softmax.
#include "ops/op_impl.h"

#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace tilesat::ops {

namespace {

// Which dims a reduction folds, and the result shape with them kept as 1.
struct ReduceLayout {
  std::vector<bool> reduced;
  Shape kept;        // reduced dims are 1
  Shape result;      // kept, or with reduced dims removed
  int64_t count = 1; // elements folded into each result element
};

ReduceLayout reduce_layout(const Shape& x, const Attrs& attrs) {
  const auto& dims = attrs.get<std::vector<int64_t>>("dim_arg");
  ReduceLayout l;
  l.reduced.assign(static_cast<size_t>(x.rank()), dims.empty());
  for (int64_t d : dims) {
    int64_t a = axis_or_fail(d, x.rank(), "'dim_arg' entries");
    if (l.reduced[static_cast<size_t>(a)]) {
      fail(fmt::format("expected distinct dims in 'dim_arg', got {}", list_str(dims)));
    }
    l.reduced[static_cast<size_t>(a)] = true;
  }
  std::vector<int64_t> kept, removed;
  for (int64_t d = 0; d < x.rank(); ++d) {
    bool r = l.reduced[static_cast<size_t>(d)];
    kept.push_back(r ? 1 : x[d]);
    if (r) l.count *= x[d];
    if (!r) removed.push_back(x[d]);
  }
  l.kept = Shape(kept);
  l.result = attrs.get<bool>("keep_dim") ? Shape(kept) : Shape(removed);
  return l;
}

// Folds every input element into its result element with `step`, starting from `init`.
template <class Step>
std::vector<double> fold(const Tensor& x, const ReduceLayout& l, double init, Step step) {
  std::vector<int64_t> strides = l.kept.strides();
  for (size_t d = 0; d < strides.size(); ++d) {
    if (l.reduced[d]) strides[d] = 0;
  }
  std::vector<double> acc(static_cast<size_t>(l.kept.numel()), init);
  std::vector<int64_t> target = strided_offsets(x.shape(), strides);
  for (size_t i = 0; i < target.size(); ++i) {
    double& a = acc[static_cast<size_t>(target[i])];
    a = step(a, double{x.data()[i]});
  }
  return acc;
}

Tensor to_tensor(const TensorType& result, const std::vector<double>& values) {
  Tensor out(result);
  for (size_t i = 0; i < values.size(); ++i) out.data()[i] = static_cast<float>(values[i]);
  return out;
}

} // namespace

TensorType infer_reduce(const InferArgs& in) {
  const TensorType& x = *in.operands[0];
  return TensorType{x.dtype, reduce_layout(x.shape, in.attrs).result, {}};
}

Tensor eval_sum(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  ReduceLayout l = reduce_layout(x.shape(), in.attrs);
  return to_tensor(in.result, fold(x, l, 0.0, [](double a, double v) { return a + v; }));
}

Tensor eval_mean(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  ReduceLayout l = reduce_layout(x.shape(), in.attrs);
  std::vector<double> s = fold(x, l, 0.0, [](double a, double v) { return a + v; });
  for (double& v : s) v /= static_cast<double>(l.count); // 0 / 0 = NaN for an empty mean
  return to_tensor(in.result, s);
}

Tensor eval_max(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  ReduceLayout l = reduce_layout(x.shape(), in.attrs);
  double lowest = -std::numeric_limits<double>::infinity();
  // NaN propagates, as in NumPy.
  return to_tensor(in.result, fold(x, l, lowest, [](double a, double v) {
                     return std::isnan(a) || std::isnan(v) ? std::nan("") : std::max(a, v);
                   }));
}

TensorType infer_softmax(const InferArgs& in) {
  const TensorType& x = *in.operands[0];
  axis_or_fail(in.attrs.get<int64_t>("dimension"), x.shape.rank(), "'dimension'");
  return TensorType{x.dtype, x.shape, {}};
}

Tensor eval_softmax(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  const Shape& s = x.shape();
  int64_t dim = axis_or_fail(in.attrs.get<int64_t>("dimension"), s.rank(), "'dimension'");
  int64_t outer = 1, n = s[dim], inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= s[d];
  for (int64_t d = dim + 1; d < s.rank(); ++d) inner *= s[d];
  Tensor out(in.result);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return static_cast<size_t>((o * n + j) * inner + i); };
      // Subtracting the max keeps exp() finite; the result is unchanged.
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < n; ++j) m = std::max(m, double{x.data()[at(j)]});
      double sum = 0.0;
      for (int64_t j = 0; j < n; ++j) sum += std::exp(double{x.data()[at(j)]} - m);
      for (int64_t j = 0; j < n; ++j) {
        out.data()[at(j)] = static_cast<float>(std::exp(double{x.data()[at(j)]} - m) / sum);
      }
    }
  }
  return out;
}

} // namespace tilesat::ops
