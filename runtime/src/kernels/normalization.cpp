// normalization.cpp: layer_norm and rms_norm over the trailing dims from `axis`: each row's
// statistics in double (gathered first: layer_norm's mean and variance, rms_norm's mean
// square), then every element normalized, scaled and shifted as the reference interpreter does
// (graph/src/ops/normalization.cpp).
#include "kernel.h"

#include <cmath>

namespace tilesat::runtime::detail {
namespace {

// Normalizes each row of the dims from `axis` on, centred on its mean first when `center`;
// inputs after the first are the scale and the bias.
void normalize(OpContext& ctx, int64_t axis, double epsilon, bool center) {
  const TensorRef& x = ctx.inputs[0];
  std::vector<float> in = read_logical(ctx.memory, x);
  std::vector<int64_t> norm(x.shape.begin() + axis, x.shape.end());
  int64_t n = numel(norm), rows = n == 0 ? 0 : numel(x.shape) / n;
  // Scale and bias, with their strides over the normalized dims (0 where broadcast).
  std::vector<std::vector<float>> params;
  std::vector<std::vector<int64_t>> param_st;
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    params.push_back(read_logical(ctx.memory, ctx.inputs[i]));
    const std::vector<int64_t>& s = ctx.inputs[i].shape;
    param_st.push_back(mapped_strides(s, norm, right_aligned(s.size(), norm.size())));
  }
  std::vector<double> mean(static_cast<size_t>(rows)), inv(static_cast<size_t>(rows));
  // Row statistics in chunks of rows, the chunks in parallel.
  int64_t chunks = std::min<int64_t>(rows, int64_t{ctx.pool.threads()} * 4);
  ctx.pool.run(static_cast<size_t>(chunks), [&](size_t chunk) {
    int64_t r0 = rows * static_cast<int64_t>(chunk) / chunks;
    int64_t r1 = rows * static_cast<int64_t>(chunk + 1) / chunks;
    for (int64_t r = r0; r < r1; ++r) {
      const float* row = in.data() + r * n;
      double m = 0.0, var = 0.0;
      if (center) {
        for (int64_t j = 0; j < n; ++j) m += row[j];
        m /= static_cast<double>(n);
      }
      for (int64_t j = 0; j < n; ++j) var += (row[j] - m) * (row[j] - m);
      var /= static_cast<double>(n);
      mean[static_cast<size_t>(r)] = m;
      inv[static_cast<size_t>(r)] = 1.0 / std::sqrt(var + epsilon);
    }
  });
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile, [&](int64_t f) {
      auto r = static_cast<size_t>(f / n);
      int64_t j = f % n;
      double val = (in[static_cast<size_t>(f)] - mean[r]) * inv[r];
      if (!params.empty())
        val *= params[0][static_cast<size_t>(operand_offset(j, norm, param_st[0]))];
      if (params.size() > 1)
        val += params[1][static_cast<size_t>(operand_offset(j, norm, param_st[1]))];
      return static_cast<float>(val);
    });
  });
}

} // namespace

void run_layer_norm(OpContext& ctx) {
  const fb::LayerNorm& p = *ctx.op.params_as_LayerNorm();
  normalize(ctx, p.axis(), p.epsilon(), true);
}

void run_rms_norm(OpContext& ctx) {
  const fb::RmsNorm& p = *ctx.op.params_as_RmsNorm();
  normalize(ctx, p.axis(), p.epsilon(), false);
}

} // namespace tilesat::runtime::detail
