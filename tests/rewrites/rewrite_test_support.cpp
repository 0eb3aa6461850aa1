// rewrite_test_support.cpp: see rewrite_test_support.h.
#include "rewrite_test_support.h"

#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/graph/printer.h"
#include "tilesat/rewrites/optimize.h"
#include "tilesat/rewrites/payload.h"
#include "tilesat/rewrites/rule_file.h"
#include "tilesat/rewrites/rule_sets.h"

#include <cmath>
#include <fmt/format.h>
#include <sstream>

namespace tilesat::rewrites::testing {

std::vector<egraph::Rewrite> rules_from(const std::string& spec) {
  if (spec.find(':') != std::string::npos) return parse_rule_file(spec, "test.rules").rewrites;
  std::vector<std::string> names;
  std::stringstream ss(spec);
  for (std::string n; std::getline(ss, n, ',');) names.push_back(n);
  return load_rule_sets(names);
}

std::string op_list(const Graph& g) {
  std::string out;
  for (NodeId n : g.topological_order()) {
    if (g.node(n).kind == OpKind::Argument) continue;
    out += (out.empty() ? "" : " ") + std::string(op_name(g.node(n).kind));
  }
  return out;
}

Graph optimize_with(const Graph& g, const std::string& rules) {
  std::vector<egraph::Rewrite> rs = rules_from(rules);
  OptimizeOptions options;
  options.runner.with_invariant_checks();
  return optimize(g, rs, options).graph;
}

::testing::AssertionResult same_values(const Graph& a, const Graph& b, double rel_tol) {
  for (uint64_t seed : {1, 2, 3}) {
    std::vector<Tensor> args = random_arguments(a, seed);
    std::vector<Tensor> va = evaluate(a, args), vb = evaluate(b, args);
    if (va.size() != vb.size()) return ::testing::AssertionFailure() << "result counts differ";
    for (size_t r = 0; r < va.size(); ++r) {
      if (va[r].type().shape != vb[r].type().shape) {
        return ::testing::AssertionFailure() << "result " << r << " shapes differ";
      }
      for (int64_t i = 0; i < va[r].numel(); ++i) {
        double x = va[r][i], y = vb[r][i];
        if (std::isnan(x) && std::isnan(y)) continue;
        if (std::fabs(x - y) > rel_tol * std::max(1.0, std::fabs(x))) {
          return ::testing::AssertionFailure()
                 << fmt::format("seed {} result {} element {}: {} vs {}", seed, r, i, x, y);
        }
      }
    }
  }
  return ::testing::AssertionSuccess();
}

void check_rewrite(const std::string& rules, const BuildFn& build, const std::string& expected) {
  Graph g;
  Builder b(g);
  build(b);
  Graph out = optimize_with(g, rules);
  std::string got = op_list(out);
  EXPECT_EQ(got, expected) << "Input:\n"
                           << print_graph(g) << "Output:\n"
                           << print_graph(out) << "Expected ops: " << expected;
  EXPECT_TRUE(same_values(g, out)) << "Input:\n"
                                   << print_graph(g) << "Output:\n"
                                   << print_graph(out);
}

std::string rule_file_error(const std::string& text) {
  try {
    parse_rule_file(text, "bad.rules");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

double PerOpCost::cost(const egraph::EGraph&, const egraph::ENode& node,
                       std::span<const double> child_costs) const {
  double c = 0;
  for (double x : child_costs) c += x;
  std::optional<OpKind> kind = op_of(node.op);
  if (!kind || *kind == OpKind::Argument) return c;
  return c + op_cost_(*kind, node);
}

} // namespace tilesat::rewrites::testing
