// Sharing-aware refinement of an extraction: the dynamic program again, with each value's cost
// split among the readers the current plan gives it.
//
// A tree cost (the dynamic program's) counts a value once per reader, so a value read twice
// in each of k residual blocks weighs 2^k times at the end of the chain: a conversion early in
// a deep network looks far dearer than it is. Given an assignment, each class's readers in it
// are counted; a dynamic program over the problem's configurations then charges a reader only
// its share of an operand (its cost divided by the class's readers), so that for the
// assignment itself each op is paid once in all, as in its DAG objective. The cheapest
// assignment under those shares is taken when its real objective (extract_problem.h) is
// lower, and the round repeats until one brings nothing. A round uses only configurations
// whose operands come earlier in an order (so the result is acyclic), in two orders: the
// problem's operands-first one and a post-order from the results following the current
// assignment (a value and its layout round trip are one cycle in the e-graph; this one lets the
// plan take it in the direction it uses); and in each, with three sets of shares: the
// assignment's readers, those with the classes the assignment does not read shared by every
// class that could read them (a merged product its slices would share), and every class
// shared by all its possible readers (a start that does not depend on the assignment). When
// no share set helps, single classes are switched to their other e-nodes and each switch is
// kept when the whole objective falls (what newly reached classes need filled from the
// shared tables): a decomposition whose operands other readers already pay for, which no
// share set prices right. Each round only reads the recorded problem (no cost model calls),
// and the objective never rises.
//
//   SharedRefinement r = refine_shared(problem, dp_assignment);
//   r.objective;   // <= objective(problem, dp_assignment)
#pragma once

#include "tilesat/cost/extract_problem.h"

#include <limits>

namespace tilesat::cost {

/// The refined assignment, its objective, and the rounds that lowered it.
struct SharedRefinement {
  Assignment assignment;
  double objective = std::numeric_limits<double>::infinity();
  size_t rounds = 0;
};

/// Refines `seed` (an assignment of `problem` with a finite objective; otherwise it is
/// returned as it is, objective infinite) for at most `max_rounds` rounds.
SharedRefinement refine_shared(const ExtractionProblem& problem, const Assignment& seed,
                               size_t max_rounds = 32);

} // namespace tilesat::cost
