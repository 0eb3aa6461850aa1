// test_plans.h: plans built by hand for lowering and runtime tests (what extraction will
// produce): every argument converted once to the placement its users want, every op on one
// core grid, results as they are left (lowering adds the conversion for the host).
#pragma once

#include "tilesat/cost/plan.h"
#include "tilesat/graph/builder.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/lowering/device_summary.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <map>

namespace tilesat::testing {

struct PlanSpec {
  cost::CoreGrid grid{1, 1};
  /// Where each op result (and converted argument) goes.
  std::function<cost::Placement(const TensorType&)> place = [](const TensorType&) {
    return cost::Placement{
        cost::Layout::Tile, cost::BufferType::L1, cost::MemoryLayout::Interleaved, {1, 1}, {0, 0}};
  };
};

inline cost::Placement host_placement() {
  return cost::Placement{cost::Layout::RowMajor,
                         cost::BufferType::DRAM,
                         cost::MemoryLayout::Interleaved,
                         {1, 1},
                         {0, 0}};
}

/// A block-sharded placement of a tensor over `grid` (shards of whole tiles).
inline cost::Placement block_sharded(const TensorType& t, cost::CoreGrid grid) {
  const Shape& s = t.shape;
  int64_t rows = s.rank() >= 2 ? s[s.rank() - 2] : 1, cols = s.rank() >= 1 ? s[s.rank() - 1] : 1;
  int64_t batch = 1;
  for (int64_t i = 0; i + 2 < s.rank(); ++i) batch *= s[i];
  int64_t tr = batch * ((rows + 31) / 32), tc = (cols + 31) / 32;
  int64_t sr = (tr + grid.rows - 1) / grid.rows, sc = (tc + grid.cols - 1) / grid.cols;
  return cost::Placement{cost::Layout::Tile,
                         cost::BufferType::L1,
                         cost::MemoryLayout::BlockSharded,
                         grid,
                         {std::max<int64_t>(sr, 1) * 32, std::max<int64_t>(sc, 1) * 32}};
}

inline cost::Plan plan_for(const Graph& g, const PlanSpec& spec = {}) {
  cost::Plan p;
  p.device = "test";
  p.graph = g;
  std::map<NodeId, uint32_t> raw, placed;
  for (NodeId a : g.arguments()) {
    raw[a] = static_cast<uint32_t>(p.values.size());
    p.values.push_back({a, host_placement()});
  }
  auto get = [&](NodeId n) -> uint32_t {
    if (auto it = placed.find(n); it != placed.end()) return it->second;
    // An argument not yet converted.
    cost::Placement want = spec.place(g.node(n).type);
    if (want == host_placement()) return placed[n] = raw.at(n);
    auto v = static_cast<uint32_t>(p.values.size());
    p.values.push_back({n, want});
    cost::PlannedOp op;
    op.node = n;
    op.kind = "to_layout";
    op.name = value_name(g, n) + ".tile";
    op.operands = {raw.at(n)};
    op.result = v;
    op.grid = spec.grid;
    op.cores = spec.grid.cores();
    op.predicted_us = 0.5;
    p.ops.push_back(op);
    return placed[n] = v;
  };
  for (NodeId n : g.topological_order()) {
    const Node& node = g.node(n);
    if (node.kind == OpKind::Argument) continue;
    cost::PlannedOp op;
    op.node = n;
    op.kind = std::string(op_name(node.kind));
    op.name = value_name(g, n);
    for (NodeId o : node.operands) op.operands.push_back(get(o));
    op.result = static_cast<uint32_t>(p.values.size());
    p.values.push_back({n, spec.place(node.type)});
    placed[n] = op.result;
    op.grid = spec.grid;
    op.cores = spec.grid.cores();
    op.predicted_us = 1.0;
    p.ops.push_back(op);
  }
  for (const GraphResult& r : g.results()) p.results.push_back(get(r.value));
  for (const cost::PlannedOp& op : p.ops) p.predicted_total_us += op.predicted_us;
  return p;
}

/// A made-up device: the grid given, 1 MiB of L1 per core, 1 GiB of DRAM.
inline lowering::DeviceSummary test_device(uint32_t rows, uint32_t cols,
                                           uint64_t l1 = uint64_t{1} << 20) {
  return lowering::DeviceSummary{"test", rows, cols, l1, uint64_t{1} << 30, 1};
}

/// max |got - ref| <= tol * max(1, max |ref|) (a normwise relative error).
inline void expect_close(const Tensor& got, const Tensor& ref, double tol,
                         const std::string& what) {
  ASSERT_EQ(got.shape(), ref.shape()) << what;
  double scale = 1.0, err = 0.0;
  size_t worst = 0;
  for (int64_t i = 0; i < ref.numel(); ++i) scale = std::max(scale, double{std::fabs(ref[i])});
  for (int64_t i = 0; i < ref.numel(); ++i) {
    double d = std::fabs(double{got[i]} - double{ref[i]});
    if (std::isnan(ref[i]) != std::isnan(got[i])) d = INFINITY;
    if (std::isnan(ref[i]) && std::isnan(got[i])) d = 0;
    if (d > err) {
      err = d;
      worst = static_cast<size_t>(i);
    }
  }
  EXPECT_LE(err, tol * scale) << what << ": element " << worst << " got " << got[worst] << " want "
                              << ref[worst];
}

/// The seed MLP (seed 000 §3.4): 4 ops after transpose folding, fusion and broadcast folding.
inline Graph seed_mlp(int64_t batch = 32, DType dt = DType::F32) {
  Graph g("main");
  Builder b(g);
  Value x = b.input("x", {batch, 128}, dt);
  Value w1 = b.weight("w1", {256, 128}, dt), b1 = b.weight("b1", {256}, dt);
  Value w2 = b.weight("w2", {10, 256}, dt), b2 = b.weight("b2", {10}, dt);
  Value h = b.add_relu(b.matmul(x, w1, {.transpose_b = true}), b1, {.broadcast_dims = {1}});
  b.output(b.add(b.matmul(h, w2, {.transpose_b = true}), b2, {.broadcast_dims = {1}}));
  return g;
}

} // namespace tilesat::testing
