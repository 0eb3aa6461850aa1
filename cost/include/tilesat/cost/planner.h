// The placement planner: a logical graph becomes a Plan on one device.
//
// Ops run in the graph's topological order. Each op's result takes the candidate placement
// (placement.h) that makes the op cheapest under the cost model while the op's footprint
// (circular buffers plus L1-resident operands and result) and every L1 tensor alive at that
// program point fit the device's usable L1. Operands are converted by `to_layout` enforcers
// where the op needs otherwise (row-major host data to tiles; two sharded operands of a binary
// op with different shard specs); each conversion of a value is made once and shared.
// Arguments stay DRAM interleaved; results are left in DRAM. When a later program point
// overflows L1, the largest L1 value alive there is moved to DRAM and planning restarts.
//
//   CostModel model(load_device("wormhole_b0"));
//   Plan p = plan_graph(graph, model);
//   p.ops.size();  p.predicted_total_us;  p.peak_l1_bytes_per_core;
#pragma once

#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/plan.h"
#include "tilesat/graph/graph.h"

namespace tilesat::cost {

/// Plans `g` (which must verify) on the model's device; throws tilesat::Error naming the op and
/// the bytes it needs when an op fits in L1 under no placement.
Plan plan_graph(const Graph& g, const CostModel& model);

/// Per op of the plan, the L1 bytes per core of the other L1-resident values alive while it
/// runs (defined earlier, used then or later, or a result), in linear time. The op's own
/// operands, result and circular buffers are not counted: its `l1_bytes_per_core` holds them.
///   std::vector<int64_t> live = live_l1_bytes(plan, model);  // live[i]: beside op i
std::vector<int64_t> live_l1_bytes(const Plan& plan, const CostModel& model);

/// Throws tilesat::Error, naming the value and both sizes, when a value of `g` (an argument
/// or an op's result, in the smaller of its tile and row-major forms) is larger than the
/// device's DRAM: the one case with no plan (anything smaller streams from DRAM block by
/// block).
///   require_fits_dram(g, load_device("wormhole_b0"));
void require_fits_dram(const Graph& g, const Device& device);

} // namespace tilesat::cost
