// The math language end to end: classic proofs (as egg's tests/math.rs) and the workload.
#include "math_language.h"
#include "test_support.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <set>

namespace tilesat::egraph {
namespace {

std::vector<Rewrite> R() {
  return math::rules();
}

} // namespace

EGRAPH_TEST_FN(associate_adds, R(), "(+ 1 (+ 2 (+ 3 (+ 4 (+ 5 (+ 6 7))))))",
               "(+ 7 (+ 6 (+ 5 (+ 4 (+ 3 (+ 2 1))))))")
EGRAPH_TEST_FN(simplify_add, R(), "(+ x (+ x (+ x x)))", "(* 4 x)")
EGRAPH_TEST_FN(powers, R(), "(* (pow 2 x) (pow 2 y))", "(pow 2 (+ x y))")
EGRAPH_TEST_FN(simplify_const, R(), "(+ 1 (- a (* (- 2 1) a)))", "1")
EGRAPH_TEST_FN(simplify_factor, R(), "(* (+ x 3) (+ x 1))", "(+ (+ (* x x) (* 4 x)) 3)")
EGRAPH_TEST_FN(distribute_proof, R(), "(* (+ a b) 2)", "(+ (* a 2) (* b 2))")
EGRAPH_TEST_FN(diff_same, R(), "(d x x)", "1")
EGRAPH_TEST_FN(diff_different, R(), "(d x y)", "0")
EGRAPH_TEST_FN(diff_simple1, R(), "(d x (+ 1 (* 2 x)))", "2")
EGRAPH_TEST_FN(diff_simple2, R(), "(d x (+ 1 (* y x)))", "y")
EGRAPH_TEST_FN(diff_ln, R(), "(d x (ln x))", "(/ 1 x)")
EGRAPH_TEST_FN(diff_power_simple, R(), "(d x (pow x 3))", "(* 3 (pow x 2))")
EGRAPH_TEST_FN(integ_one, R(), "(i 1 x)", "x")
EGRAPH_TEST_FN(integ_sin, R(), "(i (cos x) x)", "(sin x)")
EGRAPH_TEST_FN(integ_x, R(), "(i (pow x 1) x)", "(/ (pow x 2) 2)")
EGRAPH_TEST_FN(integ_part1, R(), "(i (* x (cos x)) x)", "(+ (* x (sin x)) (cos x))")
EGRAPH_TEST_FN(integ_part2, R(), "(i (* (cos x) x) x)", "(+ (* x (sin x)) (cos x))")
EGRAPH_TEST_FN(integ_part3, R(), "(i (ln x) x)", "(- (* x (ln x)) x)")

TEST(EGraphTestFn, AFalseGoalIsNotProved) {
  // The helper must be able to fail: x + x is not 3x.
  static testing::ProveResult r;
  EXPECT_NONFATAL_FAILURE(
      r = testing::prove(R(), "(+ x x)", {"(* 3 x)"}, RunnerConfig().with_iter_limit(4)),
      "Expected: (* 3 x)");
  EXPECT_FALSE(r.proved);
}

TEST(MathWorkload, SevenIterationsProveTheClassicGoals) {
  EGraph eg;
  eg.add_analysis<math::ConstantFold>();
  for (const auto& t : math::workload_terms()) eg.add_term(RecExpr::parse(t));
  auto rules = R();
  Report r = Runner(RunnerConfig()
                        .with_scheduler(SimpleScheduler())
                        .with_iter_limit(7)
                        .with_node_limit(10'000'000)
                        .with_time_limit(std::chrono::seconds(60))
                        .with_invariant_checks())
                 .run(eg, rules);
  EXPECT_EQ(r.stop.reason, StopReason::kIterationLimit);
  EXPECT_EQ(r.iterations.size(), 7u);
  // The size is in egg's neighbourhood for the same workload (about 52k e-nodes, 20k classes).
  EXPECT_GT(eg.num_nodes(), 40'000u);
  EXPECT_LT(eg.num_nodes(), 65'000u);
  EXPECT_GT(eg.num_classes(), 15'000u);
  EXPECT_LT(eg.num_classes(), 25'000u);
  for (const auto& g : math::workload_goals()) {
    auto a = eg.lookup_term(RecExpr::parse(g.start));
    auto b = eg.lookup_term(RecExpr::parse(g.goal));
    ASSERT_TRUE(a && b) << g.goal;
    EXPECT_EQ(eg.find(*a), eg.find(*b)) << g.start << " = " << g.goal;
  }
}

TEST(MathWorkload, StagedApplyReachesTheSameEGraphWithFewerNodesMade) {
  // Staging changes the order in which an iteration applies its matches and when congruence is
  // restored, not what the matches add: after every iteration the e-graph is the one a single
  // pass reaches.
  auto run = [](EGraph& eg, bool staged) {
    eg.add_analysis<math::ConstantFold>();
    for (const auto& t : math::workload_terms()) eg.add_term(RecExpr::parse(t));
    auto rules = R();
    return Runner(RunnerConfig()
                      .with_scheduler(SimpleScheduler())
                      .with_iter_limit(6)
                      .with_node_limit(10'000'000)
                      .with_time_limit(std::chrono::seconds(60))
                      .with_staged_apply(staged)
                      .with_invariant_checks())
        .run(eg, rules);
  };
  EGraph one, two;
  Report r1 = run(one, false);
  Report r2 = run(two, true);
  ASSERT_EQ(r1.iterations.size(), r2.iterations.size());
  std::size_t early = 0;
  for (std::size_t i = 0; i < r1.iterations.size(); ++i) {
    const Iteration &a = r1.iterations[i], &b = r2.iterations[i];
    EXPECT_EQ(a.egraph_nodes, b.egraph_nodes) << "iteration " << i;
    EXPECT_EQ(a.egraph_classes, b.egraph_classes) << "iteration " << i;
    EXPECT_EQ(a.matches, b.matches) << "iteration " << i;
    EXPECT_EQ(a.union_pass_applied, 0u);
    EXPECT_EQ(a.congruence_restores, 0u);
    std::size_t per_rule = 0;
    for (const auto& rule : b.rules) per_rule += rule.applied;
    EXPECT_EQ(per_rule, b.applied);
    early += b.union_pass_applied;
  }
  EXPECT_GT(early, 0u);
  EXPECT_GT(r2.iterations.back().congruence_restores, 1u);
  // Fewer e-nodes made and dropped as congruent on the way (ids count every node made).
  EXPECT_LT(two.num_ids(), one.num_ids());
  // The same classes: each class's smallest term in `two` names a class of `one`, a
  // different one each time.
  Extractor ex(two, AstSize());
  std::set<Id> seen;
  for (Id c : two.classes()) {
    RecExpr t = ex.extract(c);
    auto in_one = one.lookup_term(t);
    ASSERT_TRUE(in_one) << t.to_string();
    EXPECT_TRUE(seen.insert(one.find(*in_one)).second) << t.to_string();
  }
  EXPECT_EQ(seen.size(), one.num_classes());
}

} // namespace tilesat::egraph
