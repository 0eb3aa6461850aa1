// placement.cpp: candidate placements of a value, and placement names.
#include "tilesat/cost/placement.h"

#include "tilesat/cost/op_cost.h"

#include <fmt/format.h>

namespace tilesat::cost {

Placement host_placement() {
  return Placement{Layout::RowMajor, BufferType::DRAM, MemoryLayout::Interleaved, {}, {0, 0}};
}

Placement dram_tile_placement() {
  return Placement{Layout::Tile, BufferType::DRAM, MemoryLayout::Interleaved, {}, {0, 0}};
}

bool reads_as_stored(OpKind kind, size_t operand) {
  return kind == OpKind::Conv2d && operand >= 1;
}

std::vector<Placement> candidate_placements(const TensorType& type, const Device& device,
                                            OpKind producer) {
  std::vector<Placement> out;
  out.push_back(dram_tile_placement());
  out.push_back(Placement{Layout::Tile, BufferType::L1, MemoryLayout::Interleaved, {}, {0, 0}});
  auto t = CostModel::tiles_2d(type.shape);
  const CoreGrid& g = device.grid_usable;
  bool matmul = producer == OpKind::Matmul || producer == OpKind::Linear;
  if (!matmul) {
    // Height sharded: the most cores (as whole rows of the grid, or part of one row) whose
    // count divides the tile rows.
    for (int64_t k = std::min<int64_t>(t[0], g.cores()); k > 1; --k) {
      if (t[0] % k) continue;
      CoreGrid grid;
      if (k <= g.cols)
        grid = CoreGrid{1, static_cast<uint32_t>(k)};
      else if (k % g.cols == 0)
        grid = CoreGrid{static_cast<uint32_t>(k / g.cols), g.cols};
      else
        continue;
      out.push_back(Placement{Layout::Tile,
                              BufferType::L1,
                              MemoryLayout::HeightSharded,
                              grid,
                              {t[0] / k * 32, t[1] * 32}});
      break;
    }
  }
  // Block sharded: the largest grid whose rows and columns divide the tile rows and columns.
  int64_t r = 1, c = 1;
  for (int64_t x = std::min<int64_t>(t[0], g.rows); x >= 1; --x)
    if (t[0] % x == 0) {
      r = x;
      break;
    }
  for (int64_t x = std::min<int64_t>(t[1], g.cols); x >= 1; --x)
    if (t[1] % x == 0) {
      c = x;
      break;
    }
  if (r * c > 1 || g.cores() == 1)
    out.push_back(Placement{Layout::Tile,
                            BufferType::L1,
                            MemoryLayout::BlockSharded,
                            CoreGrid{static_cast<uint32_t>(r), static_cast<uint32_t>(c)},
                            {t[0] / r * 32, t[1] / c * 32}});
  return out;
}

std::string_view layout_name(Layout l) {
  return l == Layout::Tile ? "tile" : "row_major";
}

std::string_view buffer_name(BufferType b) {
  return b == BufferType::DRAM ? "DRAM" : "L1";
}

std::string_view memory_layout_name(MemoryLayout m) {
  switch (m) {
  case MemoryLayout::Interleaved:
    return "interleaved";
  case MemoryLayout::HeightSharded:
    return "height_sharded";
  case MemoryLayout::WidthSharded:
    return "width_sharded";
  case MemoryLayout::BlockSharded:
    return "block_sharded";
  }
  return "?";
}

std::string placement_str(const Placement& p) {
  std::string s = fmt::format("{} {} {}", layout_name(p.layout), buffer_name(p.buffer),
                              memory_layout_name(p.memory));
  if (p.memory != MemoryLayout::Interleaved)
    s += fmt::format(" {}x{} shard {}x{}", p.grid.rows, p.grid.cols, p.shard_shape[0],
                     p.shard_shape[1]);
  return s;
}

} // namespace tilesat::cost
