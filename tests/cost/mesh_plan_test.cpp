// Mesh plans: the per-chip SPMD graph of a partition and its plan on the mesh's chip; one chip
// plans exactly as before.
#include "tilesat/cost/device.h"
#include "tilesat/cost/mesh_emit.h"
#include "tilesat/cost/mesh_plan.h"
#include "tilesat/cost/plan_io.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/graph/mesh_interpreter.h"
#include "tilesat/rewrites/rule_sets.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace tilesat::cost {
namespace {

// gelu(x @ w1) @ w2 + x: Megatron's MLP block with its residual.
Graph mlp_block(DType dtype = DType::BF16, int64_t hidden = 2048) {
  Graph g;
  NodeId x = g.add_argument("x", {dtype, Shape{32, hidden}});
  NodeId w1 = g.add_argument("w1", {dtype, Shape{hidden, 4 * hidden}}, ArgRole::Weight);
  NodeId w2 = g.add_argument("w2", {dtype, Shape{4 * hidden, hidden}}, ArgRole::Weight);
  NodeId h = g.add_op(OpKind::Gelu, {g.add_op(OpKind::Matmul, {x, w1})});
  NodeId y = g.add_op(OpKind::Matmul, {h, w2});
  g.add_result(g.add_op(OpKind::Add, {y, x}));
  return g;
}

size_t count(const Graph& g, std::string_view op) {
  size_t n = 0;
  for (NodeId v = 0; v < g.num_nodes(); ++v) n += op_name(g.node(v).kind) == op ? 1 : 0;
  return n;
}

TEST(MeshPlan, PerChipGraphHasShardsAndCollectives) {
  Graph g = mlp_block();
  CostModel t3k(load_device("t3k"));
  MeshPartition p = partition_for_mesh(g, t3k, *MeshChoice::shipped());
  MeshGraph m = per_chip_graph(g, p);
  EXPECT_TRUE(m.graph.verify().empty());
  EXPECT_EQ(m.graph.arguments().size(), 3u);
  // Each argument in, the result out; one collective of the partial sums at least.
  EXPECT_GE(count(m.graph, "mesh_shard"), 4u);
  EXPECT_GE(count(m.graph, "all_reduce") + count(m.graph, "reduce_scatter"), 1u);
  // The first product is one chip's 1/8 of the columns.
  bool local = false;
  for (NodeId v = 0; v < m.graph.num_nodes(); ++v)
    local = local || (m.graph.node(v).kind == OpKind::Matmul &&
                      m.graph.node(v).type.shape == Shape{32, 1024});
  EXPECT_TRUE(local);
  EXPECT_EQ(m.graph.node(m.graph.results()[0].value).type.shape, (Shape{32, 2048}));

  Plan plan = plan_on_mesh(g, t3k, *MeshChoice::shipped());
  EXPECT_EQ(plan.mesh_shape, (std::array<int64_t, 2>{1, 8}));
  auto collective = std::find_if(plan.ops.begin(), plan.ops.end(), [](const PlannedOp& o) {
    return o.kind == "all_reduce" || o.kind == "reduce_scatter";
  });
  ASSERT_NE(collective, plan.ops.end());
  EXPECT_GT(collective->predicted_us, 0);
  EXPECT_NE(plan.distribution(collective->result), "");
  EXPECT_NE(plan_to_text(plan).find("mesh 1x8"), std::string::npos);
}

// The per-chip graph on every chip (interpret_mesh) computes what the graph computes.
void expect_same_numbers(const Graph& g, const char* device) {
  CostModel model(load_device(device));
  MeshPartition p = partition_for_mesh(g, model, *MeshChoice::shipped());
  MeshGraph m = per_chip_graph(g, p);
  std::vector<Tensor> args = random_arguments(g, 3);
  std::vector<Tensor> want = evaluate(g, args);
  std::vector<Tensor> got = interpret_mesh(m.graph, args, p.mesh_shape);
  ASSERT_EQ(got.size(), want.size());
  for (size_t r = 0; r < want.size(); ++r) {
    ASSERT_EQ(got[r].shape(), want[r].shape());
    for (int64_t i = 0; i < want[r].numel(); ++i)
      ASSERT_NEAR(got[r][i], want[r][i], 1e-3 * (1 + std::abs(want[r][i])))
          << device << " result " << r << " element " << i;
  }
}

TEST(MeshPlan, PerChipGraphComputesTheSameNumbers) {
  Graph mlp = mlp_block(DType::F32, 512);
  expect_same_numbers(mlp, "t3k");
  expect_same_numbers(mlp, "n300");
  expect_same_numbers(mlp, "galaxy");

  // A convolution split by batch; a softmax over heads split by them; a sum over a split dim.
  Graph g;
  NodeId x = g.add_argument("x", {DType::F32, Shape{8, 8, 8, 16}});
  NodeId w = g.add_argument("w", {DType::F32, Shape{16, 16, 3, 3}}, ArgRole::Weight);
  Attrs pad;
  pad.set("padding", std::vector<int64_t>{1, 1, 1, 1});
  NodeId c = g.add_op(OpKind::Relu, {g.add_op(OpKind::Conv2d, {x, w}, pad)});
  g.add_result(c);
  NodeId q = g.add_argument("q", {DType::F32, Shape{1, 8, 64, 32}});
  NodeId k = g.add_argument("k", {DType::F32, Shape{1, 8, 32, 64}});
  Attrs all;
  all.set("dim_arg", std::vector<int64_t>{1});
  NodeId s = g.add_op(OpKind::Softmax, {g.add_op(OpKind::Matmul, {q, k})});
  g.add_result(g.add_op(OpKind::Sum, {s}, all));
  expect_same_numbers(g, "t3k");
}

TEST(MeshPlan, OneChipPlansAsBefore) {
  Graph g = mlp_block();
  CostModel one(load_device("wormhole_b0"));
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets({"canonical"});
  DevicePlanResult a = optimize_for_device(g, rules, {}, one, {});
  DevicePlanResult b = optimize_for_mesh(g, rules, {}, one, {}, *MeshChoice::shipped());
  EXPECT_EQ(plan_to_text(a.plan), plan_to_text(b.plan));
  EXPECT_TRUE(b.plan.distributions.empty());
}

} // namespace
} // namespace tilesat::cost
