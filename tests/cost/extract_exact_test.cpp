// Exact extraction against the dynamic program: shared values paid once, a proven optimum with
// gap 0, lower bounds below every objective, a time limit too short to solve, and the model
// fixtures (exact never worse than the DP in the extraction objective).
#include "tilesat/cost/extract.h"
#include "tilesat/cost/extract_problem.h"
#include "tilesat/graph/parser.h"
#include "tilesat/onnx/import.h"
#include "tilesat/rewrites/rule_sets.h"

#include <algorithm>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat::cost {
namespace {

// Three narrow linears reading one input (tests/lit/rewrites/parallel-merge.mlir): with the
// parallel-merge rules, one linear on the concatenated weights and a slice per value.
constexpr const char* kThreeLinears = R"(module {
  func.func @main(%arg0: tensor<1x32x2048xf32>, %arg1: tensor<2048x32xf32>, %arg2: tensor<32xf32>, %arg3: tensor<2048x32xf32>, %arg4: tensor<32xf32>, %arg5: tensor<2048x32xf32>, %arg6: tensor<32xf32>) -> (tensor<1x32x32xf32>, tensor<1x32x32xf32>, tensor<1x32x32xf32>) {
    %0 = "ttir.linear"(%arg0, %arg1, %arg2) : (tensor<1x32x2048xf32>, tensor<2048x32xf32>, tensor<32xf32>) -> tensor<1x32x32xf32>
    %1 = "ttir.linear"(%arg0, %arg3, %arg4) : (tensor<1x32x2048xf32>, tensor<2048x32xf32>, tensor<32xf32>) -> tensor<1x32x32xf32>
    %2 = "ttir.linear"(%arg0, %arg5, %arg6) : (tensor<1x32x2048xf32>, tensor<2048x32xf32>, tensor<32xf32>) -> tensor<1x32x32xf32>
    return %0, %1, %2 : tensor<1x32x32xf32>, tensor<1x32x32xf32>, tensor<1x32x32xf32>
  }
})";

Graph three_linears() {
  Graph g = parse_text(kThreeLinears, "three_linears.mlir").modules.at(0).functions.at(0);
  for (NodeId a : g.arguments())
    if (g.node(a).name != "arg0") g.mutable_node(a).role = ArgRole::Weight;
  return g;
}

DevicePlanResult plan(const Graph& g, std::initializer_list<std::string> sets, double limit_s,
                      bool share_refinement = true) {
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(sets);
  ExtractOptions options{limit_s};
  options.share_refinement = share_refinement;
  return optimize_for_device(g, rules, egraph::RunnerConfig(),
                             CostModel(load_device("wormhole_b0")), options);
}

size_t count_ops(const Graph& g, OpKind kind) {
  size_t n = 0;
  for (NodeId id : g.topological_order())
    if (g.node(id).kind == kind) ++n;
  return n;
}

// Bounds and gap hold together: bound <= every objective found, gap in [0, 1] and equal to
// (returned objective - bound) / returned objective.
void expect_consistent(const DevicePlanResult& r) {
  const ExtractionReport& x = r.extraction;
  EXPECT_GE(x.lower_bound, 0);
  EXPECT_LE(x.lower_bound, x.dp_objective * (1 + 1e-9));
  if (std::isfinite(x.exact_objective)) {
    EXPECT_LE(x.lower_bound, x.exact_objective * (1 + 1e-9));
    EXPECT_LE(x.exact_objective, x.dp_objective * (1 + 1e-9));
  }
  EXPECT_GE(r.plan.optimality_gap, 0);
  EXPECT_LE(r.plan.optimality_gap, 1);
  EXPECT_NEAR(r.plan.optimality_gap,
              (r.plan.extraction_cost - x.lower_bound) / r.plan.extraction_cost, 1e-9);
}

TEST(ExtractExact, SharedProductIsPaidOnce) {
  // The tree cost prices the merged product once per slice reading it, so alone it keeps
  // three linears; exact extraction pays it once and proves the merged form optimal.
  DevicePlanResult tree = plan(three_linears(), {"layout-choice", "parallel-merge"}, 0, false);
  EXPECT_EQ(tree.plan.extraction_method, "dp");
  EXPECT_EQ(tree.extraction.shared_rounds, 0u);
  EXPECT_EQ(count_ops(tree.plan.graph, OpKind::Linear), 3u);

  DevicePlanResult exact =
      plan(three_linears(), {"layout-choice", "parallel-merge"}, 20, /*share_refinement=*/false);
  EXPECT_EQ(exact.plan.extraction_method, "z3");
  EXPECT_EQ(exact.extraction.status, "optimal");
  EXPECT_EQ(exact.extraction.bound, "z3");
  EXPECT_EQ(count_ops(exact.plan.graph, OpKind::Linear), 1u);
  EXPECT_EQ(count_ops(exact.plan.graph, OpKind::Slice), 3u);
  EXPECT_LT(exact.extraction.exact_objective, exact.extraction.dp_objective - 1);
  EXPECT_LT(exact.plan.predicted_total_us, tree.plan.predicted_total_us);
  EXPECT_EQ(exact.plan.optimality_gap, 0);
  EXPECT_DOUBLE_EQ(exact.plan.extraction_cost, exact.extraction.exact_objective);
  expect_consistent(exact);
  // Without exact extraction the DP's plan has a real gap to the same bounds' weaker form.
  expect_consistent(tree);
  EXPECT_GT(tree.plan.optimality_gap, 0);
}

TEST(ExtractExact, SharingAwareRefinementFindsTheMergedProduct) {
  // Refined with the merged product's cost split among the slices that would read it, the
  // DP computes one linear. It is a local search: it slices two of the values out of a
  // two-value slice (one slice more than exact extraction's optimum), which exact finds.
  DevicePlanResult dp = plan(three_linears(), {"layout-choice", "parallel-merge"}, 0);
  EXPECT_EQ(dp.plan.extraction_method, "dp");
  EXPECT_GE(dp.extraction.shared_rounds, 1u);
  EXPECT_EQ(count_ops(dp.plan.graph, OpKind::Linear), 1u);
  EXPECT_LT(dp.extraction.dp_objective, dp.extraction.tree_objective - 1);
  expect_consistent(dp);

  DevicePlanResult exact = plan(three_linears(), {"layout-choice", "parallel-merge"}, 20);
  EXPECT_EQ(exact.extraction.status, "optimal");
  EXPECT_LE(exact.extraction.exact_objective, exact.extraction.dp_objective + 1e-6);
  EXPECT_EQ(count_ops(exact.plan.graph, OpKind::Slice), 3u);
  EXPECT_EQ(exact.plan.optimality_gap, 0);
  expect_consistent(exact);
}

TEST(ExtractExact, SharingNeedsNoRules) {
  // Without the merge rules there is one way to compute each value: exact extraction proves
  // the DP's choice optimal.
  DevicePlanResult r = plan(three_linears(), {"layout-choice"}, 20);
  EXPECT_EQ(r.extraction.status, "optimal");
  EXPECT_EQ(count_ops(r.plan.graph, OpKind::Linear), 3u);
  EXPECT_NEAR(r.extraction.exact_objective, r.extraction.dp_objective, 1e-9);
  EXPECT_EQ(r.plan.optimality_gap, 0);
  expect_consistent(r);
}

TEST(ExtractExact, BoundsAreBelowTheDpObjective) {
  DevicePlanResult r = plan(three_linears(), {"layout-choice", "parallel-merge"}, 0);
  EXPECT_TRUE(r.extraction.status.empty());
  EXPECT_THAT(r.extraction.bound, ::testing::AnyOf("path", "mandatory"));
  EXPECT_GT(r.extraction.lower_bound, 0);
  EXPECT_DOUBLE_EQ(r.plan.extraction_cost, r.extraction.dp_objective);
  expect_consistent(r);
}

onnx::ImportedModel fixture(const std::string& name) {
  return onnx::import_file(std::string(TILESAT_SOURCE_DIR) + "/tests/models/" + name + ".onnx");
}

TEST(ExtractExact, TinyTimeLimitKeepsTheDpPlan) {
  onnx::ImportedModel m = fixture("mobilenet_v2");
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(rewrites::default_rule_set_names());
  CostModel model(load_device("wormhole_b0"));
  DevicePlanResult dp = optimize_for_device(m.graph, rules, {}, model, ExtractOptions{0});
  for (double limit : {1e-6, 0.01}) {
    DevicePlanResult r;
    ASSERT_NO_THROW(r = optimize_for_device(m.graph, rules, {}, model, ExtractOptions{limit}))
        << limit;
    EXPECT_FALSE(r.plan.ops.empty());
    EXPECT_THAT(r.extraction.status, ::testing::AnyOf("no time", "timeout", "optimal"));
    EXPECT_LE(r.plan.predicted_total_us, dp.plan.predicted_total_us + 1e-9);
    expect_consistent(r);
  }
}

// The second start (reshapes priced as copies) plans MobileNet-V2 faster than the first alone:
// with its flattening reshapes free views the tree cost misses where the layout should change.
TEST(ExtractExact, CopyStartKeepsTheEarlyLayoutChange) {
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(rewrites::default_rule_set_names());
  CostModel model(load_device("wormhole_b0"));
  onnx::ImportedModel m = fixture("mobilenet_v2");
  DevicePlanResult both = optimize_for_device(m.graph, rules, {}, model, ExtractOptions{});
  DevicePlanResult one =
      optimize_for_device(m.graph, rules, {}, model, ExtractOptions{.copy_start = false});
  EXPECT_TRUE(both.extraction.copy_start_taken);
  EXPECT_FALSE(one.extraction.copy_start_taken);
  EXPECT_LT(both.plan.predicted_total_us, one.plan.predicted_total_us);
  expect_consistent(both);
}

TEST(ExtractExact, NeverWorseThanTheDpOnFixtures) {
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(rewrites::default_rule_set_names());
  CostModel model(load_device("wormhole_b0"));
  for (const char* name : {"bert_layer", "resnet18"}) {
    onnx::ImportedModel m = fixture(name);
    DevicePlanResult r = optimize_for_device(m.graph, rules, {}, model, ExtractOptions{0.5});
    EXPECT_THAT(r.extraction.status, ::testing::AnyOf("timeout", "optimal")) << name;
    EXPECT_TRUE(std::isfinite(r.extraction.exact_objective)) << name;
    EXPECT_LE(r.plan.predicted_total_us, r.extraction.dp_planned_us + 1e-9) << name;
    // Z3's proven bound or the combinatorial one, never above what was found.
    EXPECT_GT(r.extraction.lower_bound, 0) << name;
    expect_consistent(r);
  }
}

} // namespace
} // namespace tilesat::cost
