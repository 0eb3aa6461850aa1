// Helpers for e-graph tests: a one-line "rules prove start = goals" check, as egg's test_fn!.
//
//   EGRAPH_TEST_FN(distribute, math::rules(), "(* (+ a b) 2)", "(+ (* a 2) (* b 2))");
//
// The run checks invariants after every rebuild and stops as soon as every goal is in the
// start term's class. TILESAT_EGRAPH_NODE_LIMIT and TILESAT_EGRAPH_TIME_LIMIT override the
// limits. On failure it prints Input / Output (best extracted term) / Expected.
#pragma once

#include "math_language.h"
#include "tilesat/egraph/all.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tilesat::egraph::testing {

struct ProveResult {
  bool proved = false;
  Report report;
};

/// Adds `start` and the goals to a fresh e-graph with constant folding, runs `rules` until
/// every goal is in the start's class, and reports.
ProveResult prove(const std::vector<Rewrite>& rules, const std::string& start,
                  const std::vector<std::string>& goals, RunnerConfig config = {});

} // namespace tilesat::egraph::testing

#define EGRAPH_TEST_FN(name, rules, start, ...)                                                    \
  TEST(EGraphTestFn, name) {                                                                       \
    auto result = ::tilesat::egraph::testing::prove(rules, start, {__VA_ARGS__});                  \
    EXPECT_TRUE(result.proved) << result.report.to_table();                                        \
  }
