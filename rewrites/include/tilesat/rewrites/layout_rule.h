// Layout rules: the physical variants (placements) an op's result may take, as rule-file data.
//
// A rule file line `layout NAME: OPS => LAYOUT BUFFER MEMORY [grids all] [if CONDITION, ...]`
// says that the result of any op in OPS may be placed so (docs/rules.md). OPS is `*` (every
// op), op names and op-set names, each optionally negated with `!` to exclude it. The words
// are `tile` or `row_major` (row-major variants are interleaved, and only data-movement ops
// produce them); `dram` or `l1`; `interleaved`, `height_sharded`, `width_sharded` or
// `block_sharded`. A sharded variant spans the largest grid its shards fit (cost/placement.h:
// for height and width sharding the core count ttnn would use), or with `grids all` every
// such grid (one variant each). Conditions: `tile-aligned` (the last two
// dims are whole tiles), `min-cores(N)` and `max-cores(N)` (a sharded variant's core count). The
// cost model (cost/) reads these rules to enumerate each value's candidate placements; tile DRAM
// interleaved is always a candidate, so a file without layout rules plans every value there.
//
// A `reads NAME: OPS => BUFFER MEMORY` line (OperandRule) constrains where those ops read
// their operands from instead.
//
//   RuleFile f = parse_rule_file("ops mm = matmul, linear\n"
//                                "layout height: *, !mm => tile l1 height_sharded\n", "x.rules");
//   f.layouts[0].applies_to(OpKind::Add);      // true
//   f.layouts[0].applies_to(OpKind::Matmul);   // false
#pragma once

#include "tilesat/graph/op.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilesat::rewrites {

/// Where a value lives and how it is spread over cores (mirrors cost::BufferType and
/// cost::MemoryLayout, which this module cannot see).
enum class LayoutTiling : uint8_t { Tile, RowMajor };
enum class LayoutBuffer : uint8_t { Dram, L1 };
enum class LayoutMemory : uint8_t { Interleaved, HeightSharded, WidthSharded, BlockSharded };

/// A condition a layout rule puts on the value it places.
struct LayoutCondition {
  enum class Kind : uint8_t {
    TileAligned, ///< the value's last two dims are multiples of the tile (32)
    MinCores,    ///< a sharded variant spans at least `value` cores
    MaxCores,    ///< a sharded variant spans at most `value` cores
  };
  Kind kind = Kind::TileAligned;
  int64_t value = 0;
};

/// The ops a `layout` or `reads` line names: `*`, ops and op sets, `!x` to exclude.
struct OpSelection {
  /// Every op unless `all` is false, then only `ops`; `excluded` removes ops either way.
  bool all = false;
  std::vector<OpKind> ops;
  std::vector<OpKind> excluded;

  bool applies_to(OpKind kind) const;
};

/// One `layout` line of a rule file.
struct LayoutRule : OpSelection {
  std::string name;
  LayoutTiling tiling = LayoutTiling::Tile;
  LayoutBuffer buffer = LayoutBuffer::Dram;
  LayoutMemory memory = LayoutMemory::Interleaved;
  /// `grids all`: one variant per grid the shards divide, not only the largest.
  bool every_grid = false;
  std::vector<LayoutCondition> conditions;
  /// "file:line" the rule came from, for reports.
  std::string origin;
};

/// One `reads` line: `reads NAME: OPS => BUFFER MEMORY`, where the ops in OPS read their
/// operands (a hardware constraint, e.g. seed 001's reductions read L1-sharded tensors).
/// MEMORY is `interleaved`, `sharded` (any of the three) or one sharding.
///   reads reductions: sum, mean, max => l1 sharded
struct OperandRule : OpSelection {
  std::string name;
  LayoutBuffer buffer = LayoutBuffer::L1;
  /// The memory layouts accepted (all three shardings for `sharded`).
  std::vector<LayoutMemory> memory;
  std::string origin;

  /// Whether an operand in `buffer` with `memory` satisfies the rule.
  bool accepts(LayoutBuffer buffer, LayoutMemory memory) const;
};

} // namespace tilesat::rewrites
