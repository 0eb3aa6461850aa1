// The sharing-aware refinement on hand-made extraction problems: op costs chosen so that only
// the single-class switches find the better assignment, and the objective never rises.
#include "tilesat/cost/extract_problem.h"
#include "tilesat/cost/extract_share.h"
#include "tilesat/cost/placement.h"
#include "tilesat/graph/parser.h"
#include "tilesat/rewrites/payload.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace tilesat::cost {
namespace {

// %r has two e-nodes once %0 and %2 are merged: relu(x), or abs(m) reading %m, which the other
// result %b reads too.
constexpr const char* kShared = R"(module {
  func.func @main(%x: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
    %0 = "ttir.relu"(%x) : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %m = "ttir.exp"(%x) : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %b = "ttir.neg"(%m) : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %2 = "ttir.abs"(%m) : (tensor<32x32xf32>) -> tensor<32x32xf32>
    return %0, %b, %2 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>
  }
})";

struct SharedProblem {
  rewrites::TensorEGraph teg;
  ExtractionProblem problem;
  egraph::Id r = 0;
  uint32_t fused = 0, decomposed = 0; // r's configurations
};

// Every class in one placement (DRAM tile), so no conversions: the objective is the sum of the
// reached configurations' costs. relu(x) costs `fused`; abs(m) 1, exp 20, neg 1.
SharedProblem shared_problem(double fused_cost) {
  SharedProblem s;
  Graph g = parse_text(kShared, "shared.mlir").modules.at(0).functions.at(0);
  s.teg = rewrites::to_egraph(g);
  egraph::EGraph& eg = s.teg.egraph;
  eg.merge(s.teg.results[0], s.teg.results[2]);
  eg.rebuild();
  s.problem.teg = &s.teg;
  s.r = eg.find(s.teg.results[0]);
  for (egraph::Id c : s.teg.results) s.problem.results.push_back(eg.find(c));
  auto op_of = [&](egraph::NodeId n) {
    return rewrites::op_of(eg.node(n).op).value_or(OpKind::Argument);
  };
  for (egraph::Id c : eg.classes()) {
    ProblemClass& pc = s.problem.classes[eg.find(c)];
    pc.placements = {dram_tile_placement()};
    pc.dram_tile = 0;
    for (egraph::NodeId n : eg.eclass(c).nodes) {
      const OpKind op = op_of(n);
      const double cost = op == OpKind::Relu                       ? fused_cost
                          : op == OpKind::Exp                      ? 20
                          : op == OpKind::Abs || op == OpKind::Neg ? 1
                                                                   : 0;
      std::vector<uint32_t> reads(eg.node(n).children.size(), 0);
      if (op == OpKind::Relu) s.fused = static_cast<uint32_t>(pc.configs.size());
      if (op == OpKind::Abs) s.decomposed = static_cast<uint32_t>(pc.configs.size());
      pc.configs.push_back(NodeConfig{n, 0, reads, cost});
    }
  }
  // Operands first: x, m, then the rest.
  std::vector<egraph::Id> order;
  for (egraph::Id c : eg.classes())
    if (eg.eclass(c).nodes.size() == 1 && eg.node(eg.eclass(c).nodes[0]).children.empty())
      order.push_back(eg.find(c));
  for (egraph::Id c : eg.classes())
    if (op_of(eg.eclass(c).nodes[0]) == OpKind::Exp) order.push_back(eg.find(c));
  for (egraph::Id c : eg.classes())
    if (std::find(order.begin(), order.end(), eg.find(c)) == order.end())
      order.push_back(eg.find(c));
  s.problem.order = order;
  return s;
}

// The assignment the tree cost picks: each class its cheapest configuration counting its
// operands, here relu(x) for r (10 against 1 + 20).
Assignment tree_choice(const SharedProblem& s) {
  Assignment a;
  for (const auto& [c, pc] : s.problem.classes) a[c] = 0;
  a[s.r] = s.fused;
  return a;
}

TEST(ExtractShare, SwitchToADecompositionWhoseOperandAnotherResultPaysFor) {
  // relu(x) 10 beside exp 20 (read by %b anyway) + abs 1: 31 as the tree cost picks it, 22 with
  // abs(m). No share set finds it: %m has one reader in the assignment (share 20) and two
  // possible ones (share 10), both above relu's 10; only switching %r alone does.
  SharedProblem s = shared_problem(10);
  Assignment seed = tree_choice(s);
  ASSERT_EQ(objective(s.problem, seed).value_or(-1), 31);
  SharedRefinement r = refine_shared(s.problem, seed);
  EXPECT_DOUBLE_EQ(r.objective, 22);
  EXPECT_EQ(r.assignment.at(s.r), s.decomposed);
  EXPECT_GE(r.rounds, 1u);
  EXPECT_DOUBLE_EQ(objective(s.problem, r.assignment).value_or(-1), r.objective);
}

TEST(ExtractShare, KeepsTheSeedWhenNoSwitchHelps) {
  // relu(x) at 0.5 is cheaper than abs(m) even with exp paid: nothing to gain.
  SharedProblem s = shared_problem(0.5);
  Assignment seed = tree_choice(s);
  SharedRefinement r = refine_shared(s.problem, seed);
  EXPECT_DOUBLE_EQ(r.objective, 21.5);
  EXPECT_EQ(r.assignment.at(s.r), s.fused);
  EXPECT_EQ(r.rounds, 0u);
}

} // namespace
} // namespace tilesat::cost
