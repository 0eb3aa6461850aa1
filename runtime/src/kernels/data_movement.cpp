// data_movement.cpp: reshape, permute (and transpose), strided copies (the head moves),
// broadcast, concat, slice, constant and full. Each output element is gathered from the input's
// logical index.
#include "kernel.h"

#include <algorithm>

namespace tilesat::runtime::detail {

void run_reshape(OpContext& ctx) {
  // Same elements in the same row-major order.
  std::vector<float> in = read_logical(ctx.memory, ctx.inputs[0]);
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile, [&](int64_t f) { return in[static_cast<size_t>(f)]; });
  });
}

void run_permute(OpContext& ctx) {
  std::vector<float> in = read_logical(ctx.memory, ctx.inputs[0]);
  std::vector<int64_t> perm = longs(ctx.op.params_as_Permute()->permutation());
  std::vector<int64_t> in_st = strides(ctx.inputs[0].shape);
  std::vector<int64_t> st(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) st[i] = in_st[static_cast<size_t>(perm[i])];
  const std::vector<int64_t>& out = ctx.output.shape;
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile,
                  [&](int64_t f) { return in[static_cast<size_t>(operand_offset(f, out, st))]; });
  });
}

void run_strided_copy(OpContext& ctx) {
  std::vector<float> in = read_logical(ctx.memory, ctx.inputs[0]);
  const fb::StridedCopy* c = ctx.op.params_as_StridedCopy();
  std::vector<int64_t> shape = longs(c->shape()), st = longs(c->strides());
  const int64_t base = c->base();
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile, [&](int64_t f) {
      return in[static_cast<size_t>(base + operand_offset(f, shape, st))];
    });
  });
}

void run_broadcast(OpContext& ctx) {
  std::vector<float> in = read_logical(ctx.memory, ctx.inputs[0]);
  const std::vector<int64_t>& out = ctx.output.shape;
  std::vector<int64_t> st =
      mapped_strides(ctx.inputs[0].shape, out, longs(ctx.op.params_as_Broadcast()->dims()));
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile,
                  [&](int64_t f) { return in[static_cast<size_t>(operand_offset(f, out, st))]; });
  });
}

void run_concat(OpContext& ctx) {
  auto dim = static_cast<size_t>(ctx.op.params_as_Concat()->dim());
  const std::vector<int64_t>& out = ctx.output.shape;
  std::vector<std::vector<float>> ins;
  std::vector<int64_t> starts; // first index along dim of each input
  int64_t at = 0;
  for (const TensorRef& t : ctx.inputs) {
    ins.push_back(read_logical(ctx.memory, t));
    starts.push_back(at);
    at += t.shape[dim];
  }
  int64_t inner = 1;
  for (size_t d = dim + 1; d < out.size(); ++d) inner *= out[d];
  int64_t extent = out[dim];
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile, [&](int64_t f) {
      int64_t in_row = f % inner, idx = (f / inner) % extent, outer = f / inner / extent;
      auto which = static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), idx) -
                                       starts.begin() - 1);
      int64_t own = ctx.inputs[which].shape[dim];
      int64_t off = (outer * own + (idx - starts[which])) * inner + in_row;
      return ins[which][static_cast<size_t>(off)];
    });
  });
}

void run_slice(OpContext& ctx) {
  std::vector<float> in = read_logical(ctx.memory, ctx.inputs[0]);
  std::vector<int64_t> begins = longs(ctx.op.params_as_Slice()->begins());
  std::vector<int64_t> steps = longs(ctx.op.params_as_Slice()->steps());
  std::vector<int64_t> in_st = strides(ctx.inputs[0].shape);
  int64_t base = 0;
  std::vector<int64_t> st(in_st.size());
  for (size_t d = 0; d < in_st.size(); ++d) {
    base += begins[d] * in_st[d];
    st[d] = steps[d] * in_st[d];
  }
  const std::vector<int64_t>& out = ctx.output.shape;
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile, [&](int64_t f) {
      return in[static_cast<size_t>(base + operand_offset(f, out, st))];
    });
  });
}

void run_constant(OpContext& ctx) {
  const program::TileView& v = ctx.output.view;
  if (ctx.op.params_type() == fb::OpParams::Full) {
    float value = ctx.op.params_as_Full()->value();
    ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
      fill_elements(v, b, tr, tc, tile, [&](int64_t) { return value; });
    });
    return;
  }
  const auto* values = ctx.op.params_as_Constant()->values();
  bool splat = values->size() == 1;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile,
                  [&](int64_t f) { return values->Get(splat ? 0u : static_cast<uint32_t>(f)); });
  });
}

} // namespace tilesat::runtime::detail
