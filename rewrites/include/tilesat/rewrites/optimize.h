// optimize: a graph through the e-graph and back: load, saturate with rules, extract.
//
// This is what `tilesat opt` runs. The runner's limits come in `OptimizeOptions::runner`; the
// result carries the runner's report and, when asked, an explanation: for each result the
// chain of rewrites from the source term to the extracted one, and the matches that guards
// declined with their reasons.
//
//   std::vector<egraph::Rewrite> rules = load_rule_sets(rule_set_names());
//   OptimizeResult r = optimize(graph, rules, OptimizeOptions{});
//   fmt::print("{}", print_graph(r.graph));
//   fmt::print("{}", r.report.to_table());
#pragma once

#include "tilesat/egraph/runner.h"
#include "tilesat/graph/graph.h"

#include <span>
#include <string>

namespace tilesat::rewrites {

struct OptimizeOptions {
  /// Limits and scheduler of the saturation. Default: the egraph defaults.
  egraph::RunnerConfig runner;
  /// Record and print why each result is equal to its source. Default: off.
  bool explain = false;
};

struct OptimizeResult {
  Graph graph;
  egraph::Report report;
  /// Empty unless OptimizeOptions::explain.
  std::string explanation;
};

/// Saturates `g` with `rules` and extracts the program with the fewest ops.
OptimizeResult optimize(const Graph& g, std::span<const egraph::Rewrite> rules,
                        const OptimizeOptions& options);

} // namespace tilesat::rewrites
