// placement.cpp: candidate placements of a value, and placement names.
#include "tilesat/cost/placement.h"

#include "ceil_div.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/rewrites/rule_file.h"
#include "tilesat/rewrites/rule_sets.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>

namespace tilesat::cost {

Placement host_placement() {
  return Placement{Layout::RowMajor, BufferType::DRAM, MemoryLayout::Interleaved, {}, {0, 0}};
}

Placement dram_tile_placement() {
  return Placement{Layout::Tile, BufferType::DRAM, MemoryLayout::Interleaved, {}, {0, 0}};
}

bool reads_as_stored(OpKind kind, size_t operand) {
  // mesh_shard moves host data to (or from) the chips: each chip's shard is tilized as it
  // arrives (its cost), never the whole host tensor on one chip first.
  return (kind == OpKind::Conv2d && operand >= 1) || kind == OpKind::MeshShard;
}

Placement argument_placement(bool on_device) {
  return on_device ? dram_tile_placement() : host_placement();
}

namespace {

// A linear (height or width) sharding of `tiles` tiles over k > 1 cores: shards of
// ceil(tiles / k) tiles (the last one may be short) dealt row-major over the grid, whole rows
// of it and then part of one, as ttnn lays out its height- and width-sharded core sets
// (num_cores_to_corerangeset). The grid is the rectangle around those cores.
struct LinearGrid {
  CoreGrid grid;
  int64_t shard_tiles = 0;
};

LinearGrid linear_grid(int64_t tiles, int64_t k, const CoreGrid& g) {
  CoreGrid grid = k <= g.cols
                      ? CoreGrid{1, static_cast<uint32_t>(k)}
                      : CoreGrid{static_cast<uint32_t>(ceil_div(k, int64_t{g.cols})), g.cols};
  return LinearGrid{grid, ceil_div(tiles, k)};
}

// The linear shardings of `tiles` on grid `g`, the most cores first: the core count ttnn's
// sharded ops choose (conv2d_utils' determine_parallel_config: the most cores whose padding is
// less than one shard, so every core holds a shard), then every core count that divides the
// tiles.
std::vector<LinearGrid> linear_grids(int64_t tiles, const CoreGrid& g) {
  std::vector<LinearGrid> out;
  auto add = [&](int64_t k) {
    LinearGrid l = linear_grid(tiles, k, g);
    for (const LinearGrid& o : out)
      if (o.shard_tiles == l.shard_tiles) return;
    out.push_back(l);
  };
  const int64_t most = std::min<int64_t>(tiles, g.cores());
  for (int64_t k = most; k > 1; --k) {
    int64_t shard = ceil_div(tiles, k);
    if (shard * k - tiles < shard) {
      add(k);
      break;
    }
  }
  for (int64_t k = most; k > 1; --k)
    if (tiles % k == 0) add(k);
  return out;
}

// Divisors of n up to `limit`, the largest first.
std::vector<int64_t> divisors(int64_t n, int64_t limit) {
  std::vector<int64_t> out;
  for (int64_t x = std::min(n, limit); x >= 1; --x)
    if (n % x == 0) out.push_back(x);
  return out;
}

// Block-sharding grids of t (rows, cols) tiles: rows and columns dividing the tile rows and
// columns, more than one core unless the device has one; the largest first.
std::vector<CoreGrid> block_grids(const std::array<int64_t, 2>& t, const CoreGrid& g) {
  std::vector<CoreGrid> out;
  for (int64_t r : divisors(t[0], g.rows))
    for (int64_t c : divisors(t[1], g.cols))
      if (r * c > 1 || g.cores() == 1)
        out.push_back(CoreGrid{static_cast<uint32_t>(r), static_cast<uint32_t>(c)});
  std::stable_sort(out.begin(), out.end(),
                   [](const CoreGrid& a, const CoreGrid& b) { return a.cores() > b.cores(); });
  return out;
}

// The placements a rule describes for a value with `t` tiles (rows, cols) on this grid: none
// when the value cannot take it; for a sharded rule the largest grid, or every grid with
// `grids all`.
std::vector<Placement> placements_of(const rewrites::LayoutRule& rule,
                                     const std::array<int64_t, 2>& t, const CoreGrid& g) {
  using rewrites::LayoutMemory;
  BufferType buffer = rule.buffer == rewrites::LayoutBuffer::L1 ? BufferType::L1 : BufferType::DRAM;
  Layout layout = rule.tiling == rewrites::LayoutTiling::Tile ? Layout::Tile : Layout::RowMajor;
  std::vector<Placement> out;
  switch (rule.memory) {
  case LayoutMemory::Interleaved:
    return {Placement{layout, buffer, MemoryLayout::Interleaved, {}, {0, 0}}};
  case LayoutMemory::HeightSharded:
  case LayoutMemory::WidthSharded: {
    const bool height = rule.memory == LayoutMemory::HeightSharded;
    for (const LinearGrid& l : linear_grids(height ? t[0] : t[1], g)) {
      Placement p{layout, buffer, height ? MemoryLayout::HeightSharded : MemoryLayout::WidthSharded,
                  l.grid,
                  height ? std::array<int64_t, 2>{l.shard_tiles * 32, t[1] * 32}
                         : std::array<int64_t, 2>{t[0] * 32, l.shard_tiles * 32}};
      out.push_back(p);
      if (!rule.every_grid) break;
    }
    return out;
  }
  case LayoutMemory::BlockSharded:
    break;
  }
  std::vector<CoreGrid> grids = block_grids(t, g);
  if (!rule.every_grid && grids.size() > 1) grids.resize(1);
  for (const CoreGrid& grid : grids)
    out.push_back(Placement{layout,
                            buffer,
                            MemoryLayout::BlockSharded,
                            grid,
                            {t[0] / grid.rows * 32, t[1] / grid.cols * 32}});
  return out;
}

bool conditions_hold(const rewrites::LayoutRule& rule, const TensorType& type, const Placement& p) {
  for (const rewrites::LayoutCondition& c : rule.conditions) {
    bool sharded = p.memory != MemoryLayout::Interleaved;
    switch (c.kind) {
    case rewrites::LayoutCondition::Kind::TileAligned: {
      const Shape& s = type.shape;
      int64_t rows = s.rank() >= 2 ? s[s.rank() - 2] : 1;
      int64_t cols = s.rank() >= 1 ? s[s.rank() - 1] : 1;
      if (rows % 32 || cols % 32) return false;
      break;
    }
    case rewrites::LayoutCondition::Kind::MinCores:
      if (sharded && shard_count(type, p) < c.value) return false;
      break;
    case rewrites::LayoutCondition::Kind::MaxCores:
      if (sharded && shard_count(type, p) > c.value) return false;
      break;
    }
  }
  return true;
}

} // namespace

std::shared_ptr<const LayoutChoice> LayoutChoice::shipped() {
  static const std::shared_ptr<const LayoutChoice> choice = [] {
    auto c = std::make_shared<LayoutChoice>();
    rewrites::RuleFile f = rewrites::load_rule_file(rewrites::rule_set_path("layout-choice"));
    c->rules = std::move(f.layouts);
    c->reads = std::move(f.reads);
    return c;
  }();
  return choice;
}

bool moves_rows(OpKind kind) {
  switch (kind) {
  case OpKind::Reshape:
  case OpKind::Permute:
  case OpKind::Transpose:
  case OpKind::Concat:
  case OpKind::Slice:
  case OpKind::Take:
  case OpKind::Broadcast:
  case OpKind::Typecast:
    return true;
  default:
    return false;
  }
}

bool LayoutChoice::reads_row_major(OpKind kind) const {
  if (!moves_rows(kind)) return false;
  return std::any_of(rules.begin(), rules.end(), [&](const rewrites::LayoutRule& r) {
    return r.tiling == rewrites::LayoutTiling::RowMajor && r.applies_to(kind);
  });
}

const rewrites::OperandRule* LayoutChoice::operand_rule(OpKind kind) const {
  for (const rewrites::OperandRule& r : reads)
    if (r.applies_to(kind)) return &r;
  return nullptr;
}

bool accepts(const rewrites::OperandRule& rule, const Placement& p) {
  using rewrites::LayoutMemory;
  auto buffer =
      p.buffer == BufferType::L1 ? rewrites::LayoutBuffer::L1 : rewrites::LayoutBuffer::Dram;
  LayoutMemory memory = p.memory == MemoryLayout::Interleaved     ? LayoutMemory::Interleaved
                        : p.memory == MemoryLayout::HeightSharded ? LayoutMemory::HeightSharded
                        : p.memory == MemoryLayout::WidthSharded  ? LayoutMemory::WidthSharded
                                                                  : LayoutMemory::BlockSharded;
  return p.layout == Layout::Tile && rule.accepts(buffer, memory);
}

bool LayoutVariant::allows(OpKind producer) const {
  if (rules.empty()) return true;
  if (placement.layout == Layout::RowMajor && !moves_rows(producer)) return false;
  for (const rewrites::LayoutRule* r : rules)
    if (r->applies_to(producer)) return true;
  return false;
}

std::vector<LayoutVariant> layout_variants(const TensorType& type, const Device& device,
                                           const LayoutChoice& layouts) {
  std::vector<LayoutVariant> out{{dram_tile_placement(), {}}};
  auto t = CostModel::tiles_2d(type.shape);
  for (const rewrites::LayoutRule& rule : layouts.rules) {
    for (const Placement& p : placements_of(rule, t, device.grid_usable)) {
      if (!conditions_hold(rule, type, p)) continue;
      auto same = std::find_if(out.begin(), out.end(),
                               [&](const LayoutVariant& v) { return v.placement == p; });
      if (same == out.end())
        out.push_back(LayoutVariant{p, {&rule}});
      else if (!same->rules.empty())
        same->rules.push_back(&rule);
    }
  }
  return out;
}

int64_t shard_count(const TensorType& type, const Placement& p) {
  if (p.memory == MemoryLayout::Interleaved) return 0;
  if (p.memory == MemoryLayout::BlockSharded) return p.grid.cores();
  auto t = CostModel::tiles_2d(type.shape);
  const bool height = p.memory == MemoryLayout::HeightSharded;
  int64_t shard_tiles = std::max<int64_t>(ceil_div(p.shard_shape[height ? 0 : 1], int64_t{32}), 1);
  return std::min<int64_t>(ceil_div(height ? t[0] : t[1], shard_tiles), p.grid.cores());
}

std::vector<Placement> candidate_placements(const TensorType& type, const Device& device,
                                            OpKind producer, const LayoutChoice& layouts) {
  std::vector<Placement> out;
  for (const LayoutVariant& v : layout_variants(type, device, layouts))
    if (v.allows(producer)) out.push_back(v.placement);
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
