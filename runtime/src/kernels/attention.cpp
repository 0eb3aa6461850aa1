// attention.cpp: scaled dot-product attention as flash attention runs it on the device: each
// query row streams the keys and values in blocks of one tile (32 keys), keeping a running
// maximum, a running sum of exponentials and an output accumulator that each block rescales
// (the online softmax), so the scores of a row never exist whole.
#include "kernel.h"

#include <cmath>
#include <limits>

namespace tilesat::runtime::detail {

void run_attention(OpContext& ctx) {
  const fb::Attention* p = ctx.op.params_as_Attention();
  const std::vector<int64_t>&qs = ctx.inputs[0].shape, &ks = ctx.inputs[1].shape,
        &vs = ctx.inputs[2].shape;
  std::vector<float> q = read_logical(ctx.memory, ctx.inputs[0]);
  std::vector<float> k = read_logical(ctx.memory, ctx.inputs[1]);
  std::vector<float> v = read_logical(ctx.memory, ctx.inputs[2]);
  const int64_t batch = qs[0], heads = qs[1], sq = qs[2], d = qs[3];
  const int64_t kv_heads = ks[1], skv = ks[2], dv = vs[3], group = heads / kv_heads;
  const std::vector<int64_t> scores{batch, heads, sq, skv};
  std::vector<float> mask;
  std::vector<int64_t> mask_st;
  if (ctx.inputs.size() == 4) {
    mask = read_logical(ctx.memory, ctx.inputs[3]);
    mask_st = mapped_strides(ctx.inputs[3].shape, scores,
                             right_aligned(ctx.inputs[3].shape.size(), scores.size()));
  }
  const double scale = p->scale(), fill = p->mask_fill();
  const double neg_inf = -std::numeric_limits<double>::infinity();
  constexpr int64_t kBlock = 32;
  std::vector<float> out(static_cast<size_t>(batch * heads * sq * dv));
  ctx.pool.run(static_cast<size_t>(batch * heads), [&](size_t bh) {
    const auto b = static_cast<int64_t>(bh) / heads, h = static_cast<int64_t>(bh) % heads;
    const int64_t kv = b * kv_heads + h / group;
    std::vector<double> acc(static_cast<size_t>(dv)), s(kBlock);
    for (int64_t i = 0; i < sq; ++i) {
      const float* qi = &q[static_cast<size_t>(((b * heads + h) * sq + i) * d)];
      double run_max = neg_inf, run_sum = 0;
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t j0 = 0; j0 < skv; j0 += kBlock) {
        const int64_t n = std::min(kBlock, skv - j0);
        double block_max = neg_inf;
        for (int64_t j = 0; j < n; ++j) {
          const float* kj = &k[static_cast<size_t>((kv * skv + j0 + j) * d)];
          double dot = 0;
          for (int64_t e = 0; e < d; ++e) dot += double{qi[e]} * double{kj[e]};
          double x = dot * scale;
          if (!mask.empty()) {
            int64_t off =
                operand_offset(((b * heads + h) * sq + i) * skv + j0 + j, scores, mask_st);
            double m = mask[static_cast<size_t>(off)];
            x = p->select_mask() ? (m != 0 ? x : fill) : x + m;
          }
          if (p->is_causal() && j0 + j > i) x = neg_inf;
          s[static_cast<size_t>(j)] = x;
          block_max = std::max(block_max, x);
        }
        const double new_max = std::max(run_max, block_max);
        if (new_max == neg_inf) continue; // every score so far masked out
        const double rescale = run_max == neg_inf ? 0.0 : std::exp(run_max - new_max);
        run_sum *= rescale;
        for (double& a : acc) a *= rescale;
        for (int64_t j = 0; j < n; ++j) {
          const double w = std::exp(s[static_cast<size_t>(j)] - new_max);
          run_sum += w;
          const float* vj = &v[static_cast<size_t>((kv * skv + j0 + j) * dv)];
          for (int64_t e = 0; e < dv; ++e) acc[static_cast<size_t>(e)] += w * double{vj[e]};
        }
        run_max = new_max;
      }
      float* o = &out[static_cast<size_t>(((b * heads + h) * sq + i) * dv)];
      for (int64_t e = 0; e < dv; ++e)
        o[e] = static_cast<float>(acc[static_cast<size_t>(e)] / run_sum);
    }
  });
  const program::TileView& view = ctx.output.view;
  ctx.for_each_tile([&](int64_t bt, int64_t tr, int64_t tc, float* tile) {
    fill_elements(view, bt, tr, tc, tile, [&](int64_t f) { return out[static_cast<size_t>(f)]; });
  });
}

} // namespace tilesat::runtime::detail
