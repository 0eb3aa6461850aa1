// Exact extraction: Z3 Optimize over e-node choices, seeded with the DP's plan.
//
// One Boolean per e-node and per e-class: each result class is chosen, a chosen class
// chooses one of its e-nodes, a chosen e-node chooses its children's classes, and an
// integer level per class that strictly decreases from parent to child keeps the choice
// acyclic. Each e-node costs its cheapest legal placement under the cost model (e-nodes whose
// footprint exceeds L1 in every placement are excluded); shared sub-terms are paid once (DAG
// cost, which the DP's tree cost over-counts). Z3 runs under a time limit; its choice is
// planned (planner.h) and kept when its plan is cheaper than the seed.
//
//   std::optional<Plan> better = extract_exact(teg, model, dp.select, dp_plan, 2.0);
//   if (better) better->extraction_method;   // "z3", with optimality_gap
#pragma once

#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/plan.h"
#include "tilesat/rewrites/term_language.h"

#include <optional>

namespace tilesat::cost {

/// A better plan than `seed`, or nullopt (seed kept: then seed's method stays "dp" and its gap
/// is updated with Z3's lower bound when Z3 found one).
/// `seed_selection` is the DP's choice that produced `seed`; its DAG cost bounds the search.
std::optional<Plan> extract_exact(const rewrites::TensorEGraph& teg, const CostModel& model,
                                  const rewrites::Selection& seed_selection, Plan& seed,
                                  double time_limit_s);

} // namespace tilesat::cost
