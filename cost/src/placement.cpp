// placement.cpp: candidate placements of a value, and placement names.
#include "tilesat/cost/placement.h"

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
  return kind == OpKind::Conv2d && operand >= 1;
}

Placement argument_placement(bool on_device) {
  return on_device ? dram_tile_placement() : host_placement();
}

namespace {

// The most cores (whole grid rows, or part of one row) whose count divides `tiles`, as a grid;
// nullopt when only one core would do.
std::optional<CoreGrid> linear_grid(int64_t tiles, const CoreGrid& g) {
  for (int64_t k = std::min<int64_t>(tiles, g.cores()); k > 1; --k) {
    if (tiles % k) continue;
    if (k <= g.cols) return CoreGrid{1, static_cast<uint32_t>(k)};
    if (k % g.cols == 0) return CoreGrid{static_cast<uint32_t>(k / g.cols), g.cols};
  }
  return std::nullopt;
}

// The largest x <= limit dividing n.
int64_t largest_divisor(int64_t n, int64_t limit) {
  for (int64_t x = std::min(n, limit); x > 1; --x)
    if (n % x == 0) return x;
  return 1;
}

// The placement a rule describes for a value with `t` tiles (rows, cols), if the value can
// take it on this grid.
std::optional<Placement> placement_of(const rewrites::LayoutRule& rule,
                                      const std::array<int64_t, 2>& t, const CoreGrid& g) {
  using rewrites::LayoutMemory;
  BufferType buffer = rule.buffer == rewrites::LayoutBuffer::L1 ? BufferType::L1 : BufferType::DRAM;
  switch (rule.memory) {
  case LayoutMemory::Interleaved:
    return Placement{Layout::Tile, buffer, MemoryLayout::Interleaved, {}, {0, 0}};
  case LayoutMemory::HeightSharded:
    if (auto grid = linear_grid(t[0], g))
      return Placement{Layout::Tile,
                       buffer,
                       MemoryLayout::HeightSharded,
                       *grid,
                       {t[0] / grid->cores() * 32, t[1] * 32}};
    return std::nullopt;
  case LayoutMemory::WidthSharded:
    if (auto grid = linear_grid(t[1], g))
      return Placement{Layout::Tile,
                       buffer,
                       MemoryLayout::WidthSharded,
                       *grid,
                       {t[0] * 32, t[1] / grid->cores() * 32}};
    return std::nullopt;
  case LayoutMemory::BlockSharded: {
    int64_t r = largest_divisor(t[0], g.rows), c = largest_divisor(t[1], g.cols);
    if (r * c == 1 && g.cores() > 1) return std::nullopt;
    return Placement{Layout::Tile,
                     buffer,
                     MemoryLayout::BlockSharded,
                     CoreGrid{static_cast<uint32_t>(r), static_cast<uint32_t>(c)},
                     {t[0] / r * 32, t[1] / c * 32}};
  }
  }
  return std::nullopt;
}

bool conditions_hold(const rewrites::LayoutRule& rule, const TensorType& type, const Placement& p) {
  for (const rewrites::LayoutCondition& c : rule.conditions) {
    switch (c.kind) {
    case rewrites::LayoutCondition::Kind::TileAligned: {
      const Shape& s = type.shape;
      int64_t rows = s.rank() >= 2 ? s[s.rank() - 2] : 1;
      int64_t cols = s.rank() >= 1 ? s[s.rank() - 1] : 1;
      if (rows % 32 || cols % 32) return false;
      break;
    }
    case rewrites::LayoutCondition::Kind::MinCores:
      if (p.memory != MemoryLayout::Interleaved && p.grid.cores() < c.value) return false;
      break;
    }
  }
  return true;
}

} // namespace

std::shared_ptr<const LayoutChoice> LayoutChoice::shipped() {
  static const std::shared_ptr<const LayoutChoice> choice = [] {
    auto c = std::make_shared<LayoutChoice>();
    c->rules = rewrites::load_rule_file(rewrites::rule_set_path("layout-choice")).layouts;
    return c;
  }();
  return choice;
}

bool LayoutVariant::allows(OpKind producer) const {
  if (rules.empty()) return true;
  for (const rewrites::LayoutRule* r : rules)
    if (r->applies_to(producer)) return true;
  return false;
}

std::vector<LayoutVariant> layout_variants(const TensorType& type, const Device& device,
                                           const LayoutChoice& layouts) {
  std::vector<LayoutVariant> out{{dram_tile_placement(), {}}};
  auto t = CostModel::tiles_2d(type.shape);
  for (const rewrites::LayoutRule& rule : layouts.rules) {
    std::optional<Placement> p = placement_of(rule, t, device.grid_usable);
    if (!p || !conditions_hold(rule, type, *p)) continue;
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const LayoutVariant& v) { return v.placement == *p; });
    if (same == out.end())
      out.push_back(LayoutVariant{*p, {&rule}});
    else if (!same->rules.empty())
      same->rules.push_back(&rule);
  }
  return out;
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
