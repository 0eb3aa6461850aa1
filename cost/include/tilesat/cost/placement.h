// Placements a value may take on a device, and their names.
//
// The candidates of a value are the physical variants the planner chooses among. Tile DRAM
// interleaved is always one; the others come from layout rules (rewrites/layout_rule.h), the
// `layout` lines of the `layout-choice` rule set or of a user's rule file: tile L1
// interleaved; L1 height sharded over the most cores ttnn's sharded ops would use (every core
// holds a shard of whole tile rows, the last one possibly short; the cores are whole grid rows
// and then part of one), or over fewer cores whose count divides the value's tile rows; width
// sharded likewise over its tile columns;
// block sharded over the largest grid whose rows and columns divide its tile rows and
// columns (with `grids all`, every such grid); row-major interleaved in DRAM or L1 for the
// data-movement ops. Shards are whole tiles. Arguments arrive from the host row-major in DRAM.
//
//   const LayoutChoice& layouts = LayoutChoice::shipped();      // rules/layout-choice.rules
//   for (const Placement& p : candidate_placements(type, device, OpKind::Matmul, layouts))
//     fmt::print("{}\n", placement_str(p));   // "tile DRAM interleaved", ...
#pragma once

#include "tilesat/cost/device.h"
#include "tilesat/cost/plan.h"
#include "tilesat/graph/op.h"
#include "tilesat/graph/tensor.h"
#include "tilesat/rewrites/layout_rule.h"

#include <memory>
#include <string>
#include <vector>

namespace tilesat::cost {

/// The layout rules a cost model plans with. No rules: every value in DRAM interleaved.
struct LayoutChoice {
  std::vector<rewrites::LayoutRule> rules;

  /// `reads` lines: where ops must read their operands from.
  std::vector<rewrites::OperandRule> reads;

  /// Whether op `kind` reads row-major operands as they are: a data-movement op (moves_rows)
  /// some rule lets produce a row-major result. Other ops read tiles.
  bool reads_row_major(OpKind kind) const;
  /// The first `reads` line for op `kind`, or null (any placement will do).
  const rewrites::OperandRule* operand_rule(OpKind kind) const;

  /// The shipped `layout-choice` rule set, loaded once.
  static std::shared_ptr<const LayoutChoice> shipped();
};

/// Whether op `kind` only moves elements (reshape, permute, transpose, concat, slice, take,
/// broadcast, and typecast, a copy that rounds): the ops that may produce a row-major result
/// (the data-movement cores copy rows; every other op computes on tiles in the FPU or SFPU).
bool moves_rows(OpKind kind);

/// A placement and the layout rules that offer it (none: tile DRAM interleaved, which every
/// op may produce).
struct LayoutVariant {
  Placement placement;
  std::vector<const rewrites::LayoutRule*> rules;

  /// Whether an op of kind `producer` may compute the value into this placement (a row-major
  /// one only if it moves_rows).
  bool allows(OpKind producer) const;
};

/// Every placement any layout rule offers a value of `type`, DRAM interleaved first, each
/// once. The rules' conditions are checked; their op lists are left to LayoutVariant::allows.
std::vector<LayoutVariant> layout_variants(const TensorType& type, const Device& device,
                                           const LayoutChoice& layouts);

/// Whether an operand placed at `p` satisfies `rule` (a tile placement in its buffer and
/// memory layout).
bool accepts(const rewrites::OperandRule& rule, const Placement& p);

/// Where the host hands arguments over: row-major, DRAM, interleaved.
Placement host_placement();
/// Tile layout, DRAM, interleaved: where results go back to the host from.
Placement dram_tile_placement();
/// Where a graph's arguments are when the program starts: host_placement(), or
/// dram_tile_placement() when `on_device` (CostOptions::arguments_on_device).
Placement argument_placement(bool on_device);
/// Whether op `kind` reads operand `operand` as it is stored, row-major included, so the
/// planner need not convert it to tiles: conv2d's weight and bias (the device prepares conv
/// weights itself, and a tile copy of an OIHW weight would pad each KHxKW kernel to a whole
/// 32x32 tile: 113x the bytes of a 3x3 kernel); and mesh_shard's operand (host data reaching
/// each chip as its shard, tilized on arrival: mesh_shard's own cost).
///   reads_as_stored(OpKind::Conv2d, 1);  // true
bool reads_as_stored(OpKind kind, size_t operand);
/// The placements the planner may give a value of `type` that op `producer` computes.
std::vector<Placement> candidate_placements(const TensorType& type, const Device& device,
                                            OpKind producer, const LayoutChoice& layouts);
/// The cores a sharded placement of `type` fills, one shard each (its grid's cores in
/// row-major order: height and width sharding may leave the last row of the grid short);
/// 0 when interleaved.
///   shard_count(bf16({16384, 32}), p);  // 128 for 4-tile shards on a 10x13 grid
int64_t shard_count(const TensorType& type, const Placement& p);
/// "tile L1 block_sharded 2x4 shard 32x64", "row_major DRAM interleaved".
std::string placement_str(const Placement& p);
std::string_view layout_name(Layout l);
std::string_view buffer_name(BufferType b);
std::string_view memory_layout_name(MemoryLayout m);

} // namespace tilesat::cost
