// The Plan: what extraction chose and what lowering turns into a device program.
//
// A plan is the extracted logical program (`graph`, whose ops give every op's semantics) plus,
// in execution order, the device ops that compute it: each graph op once, with the placement
// of its result (layout, buffer, memory layout, core grid), and `to_layout` conversions
// wherever a consumer needs a value placed differently from how its producer left it. Values
// are numbered: first the graph's arguments (as the host hands them over: row-major in DRAM,
// then converted if an op needs otherwise), then each op's result.
//
//   Plan p = extract_plan(...);                  // cost/extract.h
//   for (const PlannedOp& op : p.ops)
//     fmt::print("{} {} on {} cores: {:.2f} us\n", op.name, op.kind, op.cores, op.predicted_us);
#pragma once

#include "tilesat/graph/graph.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilesat::cost {

/// How elements are ordered: 32x32 tiles (what the FPU computes on) or plain rows.
enum class Layout : uint8_t { Tile, RowMajor };
/// Where a tensor lives.
enum class BufferType : uint8_t { DRAM, L1 };
/// How a tensor is spread over banks or cores.
enum class MemoryLayout : uint8_t { Interleaved, HeightSharded, WidthSharded, BlockSharded };
/// Matmul math fidelity: how many passes the FPU makes over the mantissa bits.
enum class MathFidelity : uint8_t { LoFi, HiFi2, HiFi3, HiFi4 };

/// A rectangle of worker cores.
struct CoreGrid {
  uint32_t rows = 1;
  uint32_t cols = 1;
  uint32_t cores() const { return rows * cols; }
  friend bool operator==(const CoreGrid&, const CoreGrid&) = default;
};

/// Where and how a tensor is stored on the device.
struct Placement {
  Layout layout = Layout::Tile;
  BufferType buffer = BufferType::DRAM;
  MemoryLayout memory = MemoryLayout::Interleaved;
  /// Sharded: the grid the shards are spread over. Interleaved: {1, 1} (unused).
  CoreGrid grid;
  /// Sharded: the rows and columns (elements) of one shard, of the tensor seen as 2-D
  /// (all leading dims folded into rows). Interleaved: {0, 0}.
  std::array<int64_t, 2> shard_shape{0, 0};
  friend bool operator==(const Placement&, const Placement&) = default;
};

/// The free parameters of a matmul kernel, in tiles (the planner picks them).
struct MatmulBlocking {
  int64_t per_core_m = 1;     // output tile rows per core
  int64_t per_core_n = 1;     // output tile columns per core
  int64_t in0_block_w = 1;    // inner-dim tiles per step
  int64_t out_subblock_h = 1; // DST sub-block, h * w <= the DST register tiles
  int64_t out_subblock_w = 1;
  /// The output block a core accumulates over all of K at a time (divides per_core_m x
  /// per_core_n, a multiple of the sub-block). Equal to the per-core block when its circular
  /// buffers fit L1; smaller ones stream: each re-reads its rows of in0 and columns of in1.
  int64_t out_block_h = 1;
  int64_t out_block_w = 1;
  friend bool operator==(const MatmulBlocking&, const MatmulBlocking&) = default;
};

/// Why an op costs what it costs: each bound, and which one dominates.
struct CostBreakdown {
  double compute_us = 0;
  double dram_us = 0;
  double noc_us = 0;
  double l1_us = 0;
  double dispatch_us = 0;
  /// "compute", "dram", "noc", "l1", "dispatch", or "view" (a reshape with no kernel).
  std::string dominant;
  /// A one-line account with the numbers (tiles, cycles, bytes, bandwidths).
  std::string detail;
};

/// Whether an op so costed is a reshape ttnn runs as a view of its input (no kernel, no time).
inline bool is_view(const CostBreakdown& c) {
  return c.dominant == "view";
}

/// A value of the plan: a graph value (or a converted copy of one) and how it is stored.
struct PlannedValue {
  NodeId node = 0; // the graph node whose value this is
  Placement placement;
  /// Computed once when the program loads (const-eval): a weight argument, a constant, or
  /// a one-time op's result. Always in DRAM.
  bool one_time = false;
};

/// One device op, in execution order.
struct PlannedOp {
  /// The graph node computed; for a conversion, the node whose value is converted.
  NodeId node = 0;
  /// The registry name of the op ("matmul", "add_relu", "fused_eltwise") or "to_layout".
  std::string kind;
  /// The value it defines as the printer names it ("%3"); conversions add a suffix.
  std::string name;
  /// Indices into Plan::values.
  std::vector<uint32_t> operands;
  uint32_t result = 0;
  /// The cores that compute it.
  CoreGrid grid;
  uint32_t cores = 1;
  MathFidelity fidelity = MathFidelity::HiFi4;
  /// Matmul and linear only.
  std::optional<MatmulBlocking> blocking;
  double predicted_us = 0;
  /// Circular buffers plus the L1-resident tensors this op touches, per core.
  int64_t l1_bytes_per_core = 0;
  CostBreakdown cost;
  /// Circular buffers its kernel allocates (at most the device's limit).
  int64_t circular_buffers = 0;
  /// Const-eval: it reads only one-time values (weights, constants and what is computed from
  /// them) and runs once when the program loads, not in every inference; its time is counted
  /// in Plan::predicted_one_time_us.
  bool one_time = false;

  bool is_to_layout() const { return kind == "to_layout"; }
};

/// The chosen program for one device. With const-eval (CostOptions::const_eval), the ops that
/// depend only on weights and constants come first and are marked `one_time`.
struct Plan {
  /// The device descriptor's name ("wormhole_b0").
  std::string device;
  /// The mesh the program runs on, every chip the same program (SPMD; mesh_plan.h): {1, 1}
  /// for one chip, {1, 8} for a T3000's ring.
  std::array<int64_t, 2> mesh_shape{1, 1};
  /// Whether ops were priced as replayed from a trace (CostOptions::trace), or each with the
  /// host's dispatch time.
  bool traced = true;
  /// The extracted logical program.
  Graph graph;
  /// Arguments first (in graph argument order), then op results.
  std::vector<PlannedValue> values;
  /// On a mesh, by index into `values`: how the value is spread over the chips ("replicated",
  /// "shard(dim=0, axis=1, chips=8)", "partial(axis=1, chips=8)"), or "host" for a full host
  /// tensor (an argument, a result after its mesh_shard). Empty on one chip.
  std::vector<std::string> distributions;
  /// distributions[v], or "" (one chip).
  const std::string& distribution(uint32_t v) const {
    static const std::string kNone;
    return v < distributions.size() ? distributions[v] : kNone;
  }
  std::vector<PlannedOp> ops;
  /// The values holding the graph's results, in result order.
  std::vector<uint32_t> results;
  /// Per inference: the ops that are not one-time.
  double predicted_total_us = 0;
  /// Once when the program loads: the one-time (const-eval) ops, which come first in `ops`.
  double predicted_one_time_us = 0;
  int64_t peak_l1_bytes_per_core = 0;
  /// "dp" or "z3" (which extractor produced the plan), its selection's extraction objective
  /// (extract_problem.h: op costs plus distinct conversions, us), and the relative gap
  /// (objective - lower bound) / objective to the best lower bound proven on that objective (0
  /// when proven optimal).
  std::string extraction_method;
  double extraction_cost = 0;
  double optimality_gap = 0;
};

} // namespace tilesat::cost
