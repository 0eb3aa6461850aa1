// Placements a value may take on a device, and their names.
//
// The candidates of a value are the physical variants the planner chooses among: tile layout
// in DRAM or L1 interleaved, L1 height sharded over the cores its tile rows divide evenly,
// and L1 block sharded over a grid whose rows and columns divide its tile rows and columns
// (only shapes whose shards are whole tiles; seed 001: a matmul's sharded output is block
// sharded). Arguments arrive from the host row-major in DRAM.
//
//   for (const Placement& p : candidate_placements(type, device, OpKind::Matmul))
//     fmt::print("{}\n", placement_str(p));   // "tile DRAM interleaved", ...
#pragma once

#include "tilesat/cost/device.h"
#include "tilesat/cost/plan.h"
#include "tilesat/graph/op.h"
#include "tilesat/graph/tensor.h"

#include <string>
#include <vector>

namespace tilesat::cost {

/// Where the host hands arguments over: row-major, DRAM, interleaved.
Placement host_placement();
/// Tile layout, DRAM, interleaved: where results go back to the host from.
Placement dram_tile_placement();
/// Whether op `kind` reads operand `operand` as it is stored, row-major included, so the
/// planner need not convert it to tiles: conv2d's weight and bias (the device prepares conv
/// weights itself, and a tile copy of an OIHW weight would pad each KHxKW kernel to a whole
/// 32x32 tile: 113x the bytes of a 3x3 kernel).
///   reads_as_stored(OpKind::Conv2d, 1);  // true
bool reads_as_stored(OpKind kind, size_t operand);
/// The placements the planner may give a value of `type` that op `producer` computes.
std::vector<Placement> candidate_placements(const TensorType& type, const Device& device,
                                            OpKind producer);
/// "tile L1 block_sharded 2x4 shard 32x64", "row_major DRAM interleaved".
std::string placement_str(const Placement& p);
std::string_view layout_name(Layout l);
std::string_view buffer_name(BufferType b);
std::string_view memory_layout_name(MemoryLayout m);

} // namespace tilesat::cost
