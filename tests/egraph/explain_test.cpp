#include "math_language.h"
#include "tilesat/egraph/all.h"
#include "tilesat/egraph/explain.h"

#include <gtest/gtest.h>

namespace tilesat::egraph {
namespace {

std::vector<Rewrite> arith() {
  std::vector<Rewrite> r;
  r.push_back(rewrite("comm-add", "(+ ?a ?b)", "(+ ?b ?a)"));
  r.push_back(rewrite("comm-mul", "(* ?a ?b)", "(* ?b ?a)"));
  r.push_back(rewrite("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)"));
  r.push_back(rewrite("distribute", "(* ?a (+ ?b ?c))", "(+ (* ?a ?b) (* ?a ?c))"));
  r.push_back(rewrite("zero-mul", "(* ?a 0)", "0"));
  return r;
}

Explanation prove_and_explain(EGraph& eg, const std::vector<Rewrite>& rules, const char* start,
                              const char* goal) {
  RecExpr s = RecExpr::parse(start), g = RecExpr::parse(goal);
  Id a = eg.add_term(s);
  Id b = eg.add_term(g);
  Runner(RunnerConfig()
             .with_scheduler(SimpleScheduler())
             .with_invariant_checks()
             .with_hook([&](const EGraph& e, const Iteration&) -> std::optional<std::string> {
               if (e.find(a) == e.find(b)) return std::string("proved");
               return std::nullopt;
             }))
      .run(eg, rules);
  EXPECT_EQ(eg.find(a), eg.find(b));
  return eg.explain_equivalence(s, g);
}

} // namespace

TEST(Explain, DistributionProofReplaysRuleByRule) {
  EGraph eg;
  eg.enable_explanations();
  auto rules = arith();
  Explanation e = prove_and_explain(eg, rules, "(* (+ a b) 2)", "(+ (* a 2) (* b 2))");
  EXPECT_TRUE(e.start.same_term(RecExpr::parse("(* (+ a b) 2)")));
  EXPECT_TRUE(e.goal().same_term(RecExpr::parse("(+ (* a 2) (* b 2))"))) << e.to_string();
  EXPECT_GE(e.steps.size(), 3u);
  EXPECT_EQ(check_explanation(e, rules), std::nullopt) << e.to_string();
  bool used_distribute = false;
  for (const auto& s : e.steps) used_distribute |= s.rule == Symbol::intern("distribute");
  EXPECT_TRUE(used_distribute) << e.to_string();
}

TEST(Explain, TamperedExplanationsFailTheCheck) {
  EGraph eg;
  eg.enable_explanations();
  auto rules = arith();
  Explanation e = prove_and_explain(eg, rules, "(* (+ a b) 2)", "(+ (* a 2) (* b 2))");
  ASSERT_FALSE(e.steps.empty());
  Explanation renamed = e;
  renamed.steps[0].rule = renamed.steps[0].rule == Symbol::intern("comm-add")
                              ? Symbol::intern("comm-mul")
                              : Symbol::intern("comm-add");
  EXPECT_NE(check_explanation(renamed, rules), std::nullopt);
  Explanation flipped = e;
  flipped.steps[0].direction = flipped.steps[0].direction == Direction::kForward
                                   ? Direction::kBackward
                                   : Direction::kForward;
  auto flipped_error = check_explanation(flipped, rules);
  // A commutativity step reads the same both ways; any other rule must fail when flipped.
  if (e.steps[0].rule != Symbol::intern("comm-add") &&
      e.steps[0].rule != Symbol::intern("comm-mul")) {
    EXPECT_NE(flipped_error, std::nullopt);
  }
  Explanation skipped = e;
  skipped.steps.erase(skipped.steps.begin());
  EXPECT_NE(check_explanation(skipped, rules), std::nullopt);
  Explanation unknown = e;
  unknown.steps[0].rule = Symbol::intern("no-such-rule");
  EXPECT_EQ(check_explanation(unknown, rules).value(), "step 1: no rule named 'no-such-rule'");
}

TEST(Explain, BackwardStepsAndTextForm) {
  EGraph eg;
  eg.enable_explanations();
  auto rules = arith();
  Explanation e = prove_and_explain(eg, rules, "(+ (* a 2) (* b 2))", "(* (+ a b) 2)");
  EXPECT_EQ(check_explanation(e, rules), std::nullopt) << e.to_string();
  bool backward = false;
  for (const auto& s : e.steps) backward |= s.direction == Direction::kBackward;
  EXPECT_TRUE(backward) << e.to_string();
  std::string text = e.to_string();
  EXPECT_EQ(text.rfind("(+ (* a 2) (* b 2))\n", 0), 0u) << text;
  EXPECT_NE(text.find("<= distribute "), std::string::npos) << text;
}

TEST(Explain, AnalysisUnionsAreNamedReasons) {
  EGraph eg;
  eg.enable_explanations();
  eg.add_analysis<math::ConstantFold>();
  auto rules = arith();
  Explanation e = prove_and_explain(eg, rules, "(+ x (* y 0))", "(+ x 0)");
  EXPECT_TRUE(e.goal().same_term(RecExpr::parse("(+ x 0)"))) << e.to_string();
  // zero-mul or constant folding proves (* y 0) = 0; a folding step cannot be re-checked.
  for (const auto& s : e.steps) {
    if (s.kind != Justification::Kind::kReason) continue;
    EXPECT_EQ(s.rule.str(), "constant-fold");
    EXPECT_NE(check_explanation(e, rules), std::nullopt);
  }
}

TEST(Explain, UnaddedOrUnequalTermsAreRejected) {
  EGraph eg;
  eg.enable_explanations();
  eg.add_term(RecExpr::parse("(+ a b)"));
  eg.add_term(RecExpr::parse("(+ b a)"));
  eg.rebuild();
  EXPECT_THROW(eg.explain_equivalence(RecExpr::parse("(+ a b)"), RecExpr::parse("(+ b a)")),
               std::invalid_argument);
  EXPECT_THROW(eg.explain_equivalence(RecExpr::parse("(+ a c)"), RecExpr::parse("(+ b a)")),
               std::invalid_argument);
  Explanation same = eg.explain_equivalence(RecExpr::parse("(+ a b)"), RecExpr::parse("(+ a b)"));
  EXPECT_TRUE(same.steps.empty());
}

TEST(Explain, OffByDefaultAndResultsMatchExplainMode) {
  // Explanations change bookkeeping, not results: both modes reach the same e-graph size.
  auto rules = arith();
  std::size_t nodes[2], classes[2];
  for (int mode = 0; mode < 2; ++mode) {
    EGraph eg;
    if (mode == 1) eg.enable_explanations();
    EXPECT_EQ(eg.explanations_enabled(), mode == 1);
    eg.add_term(RecExpr::parse("(* (+ a (+ b c)) (+ d 2))"));
    Runner(
        RunnerConfig().with_scheduler(SimpleScheduler()).with_iter_limit(4).with_invariant_checks())
        .run(eg, rules);
    nodes[mode] = eg.num_nodes();
    classes[mode] = eg.num_classes();
  }
  EXPECT_EQ(classes[0], classes[1]);
  EXPECT_EQ(nodes[0], nodes[1]);
}

} // namespace tilesat::egraph
