// Tests of soundness/: sound rules are proved, unsound ones refuted with a counterexample,
// rules without small firing instances reported as not checkable.
#include "tilesat/rewrites/soundness.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat::rewrites {
namespace {

std::vector<RuleCheck> check(const std::string& text) {
  return check_rule_file(parse_rule_file(text, "t.rules"));
}

TEST(Soundness, SoundRulesAreProved) {
  std::vector<RuleCheck> c = check(R"(neg-neg: (neg (neg ?x)) => ?x
fold-b: (matmul[transpose_b=false] ?a (transpose[dim0=?i, dim1=?j] ?b)) => (matmul[transpose_b=true] ?a ?b) if last-two-dims(?b, ?i, ?j)
relu: (maximum ?x ?z) => (relu ?x) if splat-equals(?z, 0)
exp-transpose: (transpose[dim0=?i, dim1=?j] (exp ?x)) => (exp (transpose[dim0=?i, dim1=?j] ?x))
fuse: ?x => @fuse-eltwise(?x))");
  ASSERT_EQ(c.size(), 5u);
  for (const RuleCheck& r : c) EXPECT_EQ(r.status, Soundness::Proved) << r.to_string();
  EXPECT_EQ(c[0].origin.line, 1);
}

TEST(Soundness, UnsoundRulesAreRefutedWithACounterexample) {
  std::vector<RuleCheck> c = check(R"(sub-comm: (subtract ?a ?b) => (subtract ?b ?a)
no-guard: (matmul[transpose_b=false] ?a (transpose[dim0=?i, dim1=?j] ?b)) => (matmul[transpose_b=true] ?a ?b)
exp-neg: (exp (neg ?x)) => (neg (exp ?x))
max-one: (maximum ?x ?z) => (relu ?x) if splat-equals(?z, 1))");
  ASSERT_EQ(c.size(), 4u);
  for (const RuleCheck& r : c) {
    EXPECT_EQ(r.status, Soundness::Refuted) << r.to_string();
    EXPECT_THAT(r.to_string(), ::testing::HasSubstr(": REFUTED: with ?"));
  }
}

TEST(Soundness, RulesThatNeverFireAreNotCheckable) {
  // A 5-d transpose does not fit the small shapes (rank <= 4).
  std::vector<RuleCheck> c =
      check("t: (transpose[dim0=4, dim1=2] (transpose[dim0=4, dim1=2] ?x)) => ?x");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].status, Soundness::NotCheckable);
  EXPECT_THAT(c[0].to_string(), ::testing::HasSubstr("not checkable: no small instance"));
}

} // namespace
} // namespace tilesat::rewrites
