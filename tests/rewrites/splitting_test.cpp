// The splitting rules (opt-in rule set `splitting`): each split form evaluates like the whole
// op. The shipped threshold is 16 MiB of result; these tests load the same rules with a small
// threshold, and extract with a cost that grows faster than each op's size, so the halves are
// cheaper than the whole op and the extracted graph is the split one.
#include "rewrite_test_support.h"
#include "tilesat/egraph/runner.h"
#include "tilesat/graph/builder.h"
#include "tilesat/rewrites/extract.h"
#include "tilesat/rewrites/payload.h"
#include "tilesat/rewrites/rule_file.h"
#include "tilesat/rewrites/rule_sets.h"
#include "tilesat/rewrites/term_language.h"

#include <cmath>
#include <fstream>
#include <gmock/gmock.h>
#include <regex>
#include <sstream>

namespace tilesat::rewrites::testing {
namespace {

// The shipped splitting rules with a threshold of 64 elements (only the rule `only`, when
// given).
std::vector<egraph::Rewrite> small_splitting_rules(const std::string& only) {
  std::ifstream in(rule_set_path("splitting"));
  std::string text, line;
  while (std::getline(in, line))
    if (only.empty() || line.starts_with("ops ") || line.starts_with(only + ":"))
      text += line + "\n";
  std::string small = std::regex_replace(text, std::regex("at-least\\(4194304\\)"), "at-least(64)");
  EXPECT_NE(small, text);
  return parse_rule_file(small, "splitting.rules").rewrites;
}

// Cost: (product of the operands' elements)^1.5 per op, data movement 1 (arguments free), so
// two halves of an op cost less than the whole and the split forms are extracted.
PerOpCost superlinear_cost(const TensorEGraph& teg) {
  return PerOpCost([&teg](OpKind kind, const egraph::ENode& node) {
    if (kind == OpKind::Slice || kind == OpKind::Concat) return 1.0;
    double product = 1;
    for (egraph::Id ch : node.children)
      product *= static_cast<double>(teg.facts_of(ch).type.shape.numel());
    return std::pow(product, 1.5);
  });
}

Graph split(const Graph& g, const std::string& only) {
  TensorEGraph teg = to_egraph(g);
  egraph::Runner().run(teg.egraph, small_splitting_rules(only));
  return to_graph(teg, select_cheapest(teg, superlinear_cost(teg)));
}

void expect_split(const BuildFn& build, OpKind joined_by, const std::string& only = "") {
  Graph g("main");
  Builder b(g);
  build(b);
  SCOPED_TRACE(op_list(g) + " with " + (only.empty() ? "every splitting rule" : only));
  Graph s = split(g, only);
  size_t joins = 0;
  for (NodeId n : s.topological_order()) joins += s.node(n).kind == joined_by ? 1 : 0;
  EXPECT_GE(joins, 1u) << op_list(s);
  EXPECT_TRUE(same_values(g, s));
}

// Each rule alone: together, at this small threshold, halves of halves fill the e-graph.
TEST(Splitting, MatmulByRowsColumnsAndInnerDim) {
  auto mm = [](int64_t m, int64_t k, int64_t n) {
    return [=](Builder& b) { b.output(b.matmul(b.input("a", {m, k}), b.input("w", {k, n}))); };
  };
  expect_split(mm(128, 64, 96), OpKind::Concat, "split-matmul-rows");
  expect_split(mm(8, 256, 64), OpKind::Concat, "split-matmul-cols");
  expect_split(mm(8, 256, 8), OpKind::Add, "split-matmul-inner"); // partial products added
}

TEST(Splitting, LinearConv2dSoftmaxAndNorms) {
  auto linear = [](Builder& b) {
    b.output(b.linear(b.input("a", {64, 32}), b.input("w", {32, 64}), b.input("c", {64})));
  };
  expect_split(linear, OpKind::Concat, "split-linear-rows");
  expect_split(linear, OpKind::Concat, "split-linear-cols");
  expect_split(
      [](Builder& b) {
        b.output(b.conv2d(b.input("x", {4, 3, 6, 6}), b.input("w", {8, 3, 3, 3}), Conv2dOptions{}));
      },
      OpKind::Concat, "split-conv2d-batch");
  expect_split(
      [](Builder& b) {
        b.output(b.softmax(b.input("x", {64, 16}), -1));
      },
      OpKind::Concat, "split-softmax-rows");
  expect_split(
      [](Builder& b) {
        Value s = b.input("s", {16}), t = b.input("t", {16});
        b.output(b.layer_norm(b.input("x", {64, 16}), &s, &t, -1, 1e-5));
      },
      OpKind::Concat, "split-layer-norm-rows");
  expect_split(
      [](Builder& b) {
        Value w = b.input("w", {16});
        b.output(b.rms_norm(b.input("x", {64, 16}), &w));
      },
      OpKind::Concat, "split-rms-norm-rows");
}

TEST(Splitting, NotAmongTheDefaultRuleSets) {
  EXPECT_THAT(rule_set_names(), ::testing::Contains("splitting"));
  EXPECT_THAT(default_rule_set_names(), ::testing::Not(::testing::Contains("splitting")));
}

} // namespace
} // namespace tilesat::rewrites::testing
