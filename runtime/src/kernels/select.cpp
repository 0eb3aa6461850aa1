// select.cpp: take (slices of data picked by i32 indices, ONNX Gather and embedding lookups)
// and where (a or b by a mask, all three broadcast). Formulas follow the reference
// interpreter (graph/src/ops/take.cpp, select.cpp).
#include "kernel.h"
#include "tilesat/graph/diagnostic.h"

#include <fmt/format.h>

namespace tilesat::runtime::detail {

void run_take(OpContext& ctx) {
  const TensorRef &data = ctx.inputs[0], &indices = ctx.inputs[1];
  auto dim = static_cast<size_t>(ctx.op.params_as_Take()->dim());
  std::vector<float> table = read_logical(ctx.memory, data);
  std::vector<float> raw = read_logical(ctx.memory, indices);
  int64_t extent = data.shape[dim], inner = 1;
  for (size_t d = dim + 1; d < data.shape.size(); ++d) inner *= data.shape[d];
  // Indices are data, not checked when the program is loaded: check them before any tile.
  std::vector<int64_t> idx(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    auto k = static_cast<int64_t>(raw[i]);
    if (k < -extent || k >= extent) {
      throw Error(fmt::format("op {} (take): expected indices in [{}, {}), got {} at flat "
                              "position {}",
                              ctx.op.name() != nullptr ? ctx.op.name()->str() : "?", -extent,
                              extent, k, i));
    }
    idx[i] = k < 0 ? k + extent : k;
  }
  auto count = static_cast<int64_t>(idx.size());
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile, [&](int64_t f) {
      int64_t k = f % inner, i = f / inner % count, o = f / inner / count;
      return table[static_cast<size_t>((o * extent + idx[static_cast<size_t>(i)]) * inner + k)];
    });
  });
}

void run_where(OpContext& ctx) {
  BroadcastInputs in(ctx);
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile,
                  [&](int64_t f) { return in.at(0, f) != 0.0f ? in.at(1, f) : in.at(2, f); });
  });
}

} // namespace tilesat::runtime::detail
