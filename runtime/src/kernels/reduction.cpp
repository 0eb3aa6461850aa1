// reduction.cpp: sum, mean and max over dims (accumulating in double, as the reference
// does), and softmax along one dim (max-subtracted, row statistics gathered first).
#include "kernel.h"

#include <cmath>
#include <limits>

namespace tilesat::runtime::detail {

void run_reduce(OpContext& ctx) {
  const fb::Reduce& p = *ctx.op.params_as_Reduce();
  const TensorRef& x = ctx.inputs[0];
  std::vector<float> in = read_logical(ctx.memory, x);
  std::vector<int64_t> dims = longs(p.dims());
  std::vector<int64_t> st = strides(x.shape);
  std::vector<bool> reduced(x.shape.size(), false);
  for (int64_t d : dims) reduced[static_cast<size_t>(d)] = true;
  // Offsets of every reduced element relative to the first, and the kept dims' strides in
  // output order.
  std::vector<int64_t> red{0};
  std::vector<int64_t> kept_shape, kept_st;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (reduced[d]) {
      std::vector<int64_t> next;
      for (int64_t i = 0; i < x.shape[d]; ++i)
        for (int64_t o : red) next.push_back(o + i * st[d]);
      red.swap(next);
    } else {
      kept_shape.push_back(x.shape[d]);
      kept_st.push_back(st[d]);
    }
  }
  fb::ReduceKind kind = p.kind();
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile, [&](int64_t f) {
      int64_t base = operand_offset(f, kept_shape, kept_st);
      double acc = kind == fb::ReduceKind::Max ? -std::numeric_limits<double>::infinity() : 0.0;
      for (int64_t o : red) {
        double val = in[static_cast<size_t>(base + o)];
        if (kind == fb::ReduceKind::Max)
          acc = std::isnan(acc) || std::isnan(val) ? std::nan("") : std::max(acc, val);
        else
          acc += val;
      }
      if (kind == fb::ReduceKind::Mean) acc /= static_cast<double>(red.size());
      return static_cast<float>(acc);
    });
  });
}

void run_softmax(OpContext& ctx) {
  const TensorRef& x = ctx.inputs[0];
  std::vector<float> in = read_logical(ctx.memory, x);
  auto dim = static_cast<size_t>(ctx.op.params_as_Softmax()->dim());
  int64_t n = x.shape[dim], inner = 1, outer = 1;
  for (size_t d = dim + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  for (size_t d = 0; d < dim; ++d) outer *= x.shape[d];
  std::vector<double> mx(static_cast<size_t>(outer * inner),
                         -std::numeric_limits<double>::infinity());
  std::vector<double> sum(mx.size(), 0.0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto row = static_cast<size_t>(o * inner + i);
      for (int64_t j = 0; j < n; ++j)
        mx[row] = std::max(mx[row], double{in[static_cast<size_t>((o * n + j) * inner + i)]});
      for (int64_t j = 0; j < n; ++j)
        sum[row] += std::exp(double{in[static_cast<size_t>((o * n + j) * inner + i)]} - mx[row]);
    }
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile, [&](int64_t f) {
      int64_t i = f % inner, o = f / inner / n;
      auto row = static_cast<size_t>(o * inner + i);
      return static_cast<float>(std::exp(double{in[static_cast<size_t>(f)]} - mx[row]) / sum[row]);
    });
  });
}

} // namespace tilesat::runtime::detail
