// rotary.cpp: the rotary position embedding in the rotate-half convention, each output element
// x * cos + rotate_half(x) * sin in double from its own element and its partner half a row away
// (the first half of each row of head_dim reads the second half negated), as the reference
// interpreter does (graph/src/ops/rotary.cpp).
#include "kernel.h"

namespace tilesat::runtime::detail {

void run_rotary_embedding(OpContext& ctx) {
  BroadcastInputs in(ctx);
  const int64_t d = in.out.back(), half = d / 2;
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile, [&](int64_t f) {
      const double rotated = f % d < half ? -double{in.at(0, f + half)} : in.at(0, f - half);
      return static_cast<float>(double{in.at(0, f)} * in.at(1, f) + rotated * in.at(2, f));
    });
  });
}

} // namespace tilesat::runtime::detail
