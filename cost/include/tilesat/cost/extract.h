// Extraction of the best plan from a saturated tensor e-graph.
//
// `select_by_cost` is a dynamic program over (e-class, placement): the cost of a class in a
// placement is the cheapest of its e-nodes computing it there under the cost model, plus the
// cost of its children in their best placements, plus a `to_layout` enforcer wherever the node
// needs a child placed otherwise (row-major host data becomes tiles); results pay their way
// back to DRAM. Costs are iterated to a fixed point, so cyclic classes are handled; shared
// sub-terms are counted once per use (a tree cost, as in egg's extractor). `extract_plan`
// refines that selection with each shared value's cost split among its readers
// (extract_share.h), turns it into a graph and places it (planner.h), then checks the plan's
// legality with Z3 (legality.h); with a time limit, exact extraction (extract_exact.h)
// searches the same objective with shared values paid once, and its plan replaces the DP's
// when it is planned faster. The plan's `extraction_cost` is its selection's objective
// (extract_problem.h) and `optimality_gap` the relative distance to the best lower bound
// proven on that objective.
//
//   TensorEGraph teg = rewrites::to_egraph(graph);
//   egraph::Runner().run(teg.egraph, rules);
//   Plan plan = extract_plan(teg, CostModel(load_device("wormhole_b0")), {});
#pragma once

#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/plan.h"
#include "tilesat/egraph/runner.h"
#include "tilesat/rewrites/term_language.h"

#include <limits>
#include <span>
#include <string>

namespace tilesat::cost {

struct ExtractOptions {
  /// Seconds for the exact Z3 extraction after the DP; 0 runs the DP only.
  double exact_time_limit_s = 0;
  /// Refine the DP's tree-cost selection with shared values' costs split among their readers
  /// (extract_share.h); off, the DP's selection is the tree cost's (a baseline to compare).
  bool share_refinement = true;
  /// A second start with every reshape priced as a copy (CostOptions::reshape_views off),
  /// planned under the real model and kept when faster: reshapes that are free views let the
  /// tree cost trade one early layout change for later ones that only look cheaper (ResNet-18
  /// keeps its first stages NCHW without it, 6% slower). Costs a second DP, whose op
  /// estimates but the reshapes' are shared with the first.
  bool copy_start = true;
};

/// The DP selection (one e-node per class) and its predicted cost in microseconds.
struct CostSelection {
  rewrites::Selection select;
  double cost_us = 0;
};

/// The dynamic program over (e-class, placement); `teg` must be rebuilt and outlive the result.
CostSelection select_by_cost(const rewrites::TensorEGraph& teg, const CostModel& model);

/// Without exact extraction, e-graphs of more classes than this get no lower bound (gap 1,
/// cost the planned time): recording the problem costs a fifth more time and half more memory.
inline constexpr size_t kMaxBoundedClasses = 50'000;

/// What extraction found beside the plan, in the extraction objective (extract_problem.h:
/// op costs of the recorded configurations plus distinct conversions, microseconds) and in
/// planned time (plan_graph's predicted_total_us).
///   ExtractionReport r;
///   extract_plan(teg, model, {.exact_time_limit_s = 2}, &r);
///   r.status;   // "optimal": r.exact_objective == r.lower_bound up to rounding
struct ExtractionReport {
  /// The dynamic program's selection, after the sharing-aware refinement (extract_share.h).
  double dp_objective = 0;
  double dp_planned_us = 0;
  /// The tree-cost selection's objective before the refinement, and the refinement's rounds
  /// that lowered it.
  double tree_objective = std::numeric_limits<double>::quiet_NaN();
  size_t shared_rounds = 0;
  /// Seconds the refinement took (planning its selection is in plan_seconds).
  double shared_seconds = 0;
  /// The second start (every reshape priced as a copy) planned faster and was kept.
  bool copy_start_taken = false;
  /// Exact extraction's best assignment; NaN when it found none (or did not run).
  double exact_objective = std::numeric_limits<double>::quiet_NaN();
  double exact_planned_us = std::numeric_limits<double>::quiet_NaN();
  /// The best lower bound on the objective, and where it comes from: "path"
  /// (path_lower_bound), "lp" (the encoding's linear relaxation) or "z3" (the exact optimum).
  double lower_bound = 0;
  std::string bound;
  /// The returned plan's optimality_gap.
  double gap = 1;
  /// "optimal", "timeout" (best found so far), "no time" (the limit passed before solving), or
  /// empty when exact extraction did not run.
  std::string status;
  double exact_seconds = 0;
  /// Seconds in the dynamic program (both starts), in planning the candidate selections (the
  /// DP's, the refined, the second start's, exact extraction's: placement and Z3's matmul
  /// blockings) and in the Z3 legality check of the plan.
  double dp_seconds = 0;
  double plan_seconds = 0;
  double legality_seconds = 0;
};

/// Selects, rebuilds the graph, plans it and checks it; throws tilesat::Error when no legal
/// plan exists (an op that fits nowhere, or violated constraints by name). `report`, when
/// given, receives both extractors' figures.
Plan extract_plan(const rewrites::TensorEGraph& teg, const CostModel& model,
                  const ExtractOptions& options, ExtractionReport* report = nullptr);

/// What `tilesat opt --device` runs: load, saturate, extract a plan.
struct DevicePlanResult {
  Plan plan;
  egraph::Report report;
  ExtractionReport extraction;
};
DevicePlanResult optimize_for_device(const Graph& g, std::span<const egraph::Rewrite> rules,
                                     const egraph::RunnerConfig& runner, const CostModel& model,
                                     const ExtractOptions& options);

} // namespace tilesat::cost
