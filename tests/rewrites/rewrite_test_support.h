// rewrite_test_support.h: helpers for rewrite tests: run rules on a built graph, list the
// ops of the result, compare both graphs with the reference interpreter.
//
// Each rewrite test is one line (STYLE item 12):
//   REWRITE_TEST(AddRelu, "eltwise-fusion", mlp_layer, "matmul add_relu");
// builds the graph with `mlp_layer(Builder&)`, saturates with the named rule sets (or a rule
// text starting with a rule name and ':'), extracts, checks the ops of the result in order,
// and checks that the result evaluates like the source on random inputs (1e-5 relative).
#pragma once

#include "tilesat/egraph/extract.h"
#include "tilesat/egraph/rewrite.h"
#include "tilesat/graph/builder.h"

#include <functional>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tilesat::rewrites::testing {

using BuildFn = std::function<void(Builder&)>;

/// Rule sets by name (comma separated), or a rule text when it contains ':'.
std::vector<egraph::Rewrite> rules_from(const std::string& spec);
/// The ops of `g` reachable from its results, in topological order, space separated.
std::string op_list(const Graph& g);
/// Saturates and extracts with tilesat's default extractor.
Graph optimize_with(const Graph& g, const std::string& rules);
/// A gtest failure naming the result and element when `a` and `b` differ by more than
/// `rel_tol` (relative to max(1, |a|)) on three random argument seeds.
::testing::AssertionResult same_values(const Graph& a, const Graph& b, double rel_tol = 1e-5);
/// The whole check of REWRITE_TEST; prints Input/Output/Expected on failure.
void check_rewrite(const std::string& rules, const BuildFn& build, const std::string& expected);
/// What parsing rule text `text` (as file "bad.rules") throws, or "no error".
std::string rule_file_error(const std::string& text);

/// A tree cost for extraction tests: arguments are free, any other e-node costs
/// `op_cost(kind, node)` plus its children's costs.
///   select_cheapest(teg, PerOpCost([](OpKind k, const egraph::ENode&) { return 1.0; }));
class PerOpCost final : public egraph::CostFunction {
public:
  using OpCost = std::function<double(OpKind, const egraph::ENode&)>;
  explicit PerOpCost(OpCost op_cost) : op_cost_(std::move(op_cost)) {}
  double cost(const egraph::EGraph& eg, const egraph::ENode& node,
              std::span<const double> child_costs) const override;

private:
  OpCost op_cost_;
};

} // namespace tilesat::rewrites::testing

#define REWRITE_TEST(Suite, Name, rules, build, expected)                                          \
  TEST(Suite, Name) {                                                                              \
    ::tilesat::rewrites::testing::check_rewrite(rules, build, expected);                           \
  }
