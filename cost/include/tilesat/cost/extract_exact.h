// Exact extraction: the dynamic program's objective with shared values paid once, solved by
// Z3 under a deadline, with a proven lower bound.
//
// One Boolean per recorded configuration (extract_problem.h: an e-node, its output placement
// and the placement each operand is read in) and per conversion (class, from, to): a class
// takes at most one configuration; a chosen configuration needs each operand available where
// it reads it, computed there or converted there from where it is computed; the results reach
// DRAM; an integer level per class, decreasing from reader to operand, keeps the choice acyclic
// (only inside strongly connected groups of classes, the only place a cycle can form). The
// objective, each configuration's op cost plus each conversion once, is minimised as weighted
// MaxSAT (soft constraints, Z3's core-guided MaxRes), whose lower bound rises as it proves
// cores: at a timeout it is still a valid bound. (The encoding's linear relaxation would bound
// it too, but Z3's simplex did not finish it within a minute on the BERT layer fixture.)
//
//   ExactResult r = solve_exact(problem, dp_assignment, std::chrono::steady_clock::now() + 2s);
//   if (r.assignment) selection_of(problem, *r.assignment);   // r.objective <= the DP's
#pragma once

#include "tilesat/cost/extract_problem.h"

#include <chrono>
#include <limits>
#include <optional>
#include <string>

namespace tilesat::cost {

/// Exact extraction's answer: its best assignment (nullopt when it found none as good as the
/// seed), that assignment's objective, a lower bound on every assignment's objective ("z3"
/// when Z3 proved one, else empty), and how it ended.
struct ExactResult {
  std::optional<Assignment> assignment;
  double objective = std::numeric_limits<double>::infinity();
  double lower_bound = 0;
  std::string bound;
  /// "optimal", "timeout" (the best found so far), "no time" (the deadline passed while
  /// encoding) or "infeasible" (Z3 found no assignment: the seed stands).
  std::string status;
  double seconds = 0;
};

/// Minimises `problem`'s objective until `deadline` (encoding included); `seed` (the dynamic
/// program's assignment) is returned when nothing better is found. Never throws on a solver
/// failure: it reports what it proved.
ExactResult solve_exact(const ExtractionProblem& problem, const Assignment& seed,
                        std::chrono::steady_clock::time_point deadline);

} // namespace tilesat::cost
