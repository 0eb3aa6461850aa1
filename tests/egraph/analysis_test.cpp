#include "math_language.h"
#include "tilesat/egraph/analysis.h"

#include <gtest/gtest.h>

namespace tilesat::egraph {

// The example from analysis.h.
struct Depth : AnalysisOf<int> {
  int make(const EGraph&, const ENode& n) const override { return n.is_leaf() ? 0 : 1; }
  DidMerge merge(int& a, int b) const override { return merge_max(a, b); }
};

TEST(Analysis, HeaderExample) {
  EGraph eg;
  auto& depth = eg.add_analysis<Depth>();
  Id id = eg.add_term(RecExpr::parse("(f x)"));
  EXPECT_EQ(depth[eg.find(id)], 1);
  EXPECT_EQ(eg.find_analysis<Depth>(), &depth);
  EXPECT_EQ(eg.find_analysis<math::ConstantFold>(), nullptr);
}

TEST(Analysis, ConstantFoldingUnionsWithTheConstantAndPrunes) {
  EGraph eg;
  auto& fold = eg.add_analysis<math::ConstantFold>();
  Id sum = eg.add_term(RecExpr::parse("(+ 1 (* 2 3))"));
  eg.rebuild();
  eg.check_invariants();
  ASSERT_TRUE(fold.value(eg.find(sum)));
  EXPECT_EQ(fold.value(eg.find(sum))->num, 7);
  EXPECT_EQ(eg.find(sum), eg.lookup_term(RecExpr::parse("7")));
  EXPECT_EQ(eg.eclass(sum).size(), 1u); // only the leaf 7 is kept
  Id half = eg.add_term(RecExpr::parse("(/ 1 2)"));
  EXPECT_EQ(eg.find(half), eg.lookup_term(RecExpr::parse("1/2")));
  Id by_zero = eg.add_term(RecExpr::parse("(/ 1 0)"));
  EXPECT_FALSE(fold.value(eg.find(by_zero))); // no folding by a zero divisor
}

TEST(Analysis, AddIntoFoldsTheJoiningNode) {
  // (* 2 3) joins the class of x: the class is now the constant 6, which modify adds and keeps.
  EGraph eg;
  auto& fold = eg.add_analysis<math::ConstantFold>();
  Id x = eg.add_term(RecExpr::parse("(+ y z)"));
  Id parent = eg.add_term(RecExpr::parse("(- (+ y z) 1)"));
  eg.rebuild();
  Id two = eg.add_term(RecExpr::parse("2")), three = eg.add_term(RecExpr::parse("3"));
  EXPECT_TRUE(eg.add_into(x, Symbol::intern("*"), std::vector<Id>{two, three}));
  eg.rebuild();
  eg.check_invariants();
  ASSERT_TRUE(fold.value(eg.find(x)));
  EXPECT_EQ(fold.value(eg.find(x))->num, 6);
  EXPECT_EQ(eg.find(x), eg.lookup_term(RecExpr::parse("6")));
  // The parent was re-analysed: (- 6 1) is 5.
  ASSERT_TRUE(fold.value(eg.find(parent)));
  EXPECT_EQ(fold.value(eg.find(parent))->num, 5);
}

TEST(Analysis, MergeReanalysesParents) {
  EGraph eg;
  auto& fold = eg.add_analysis<math::ConstantFold>();
  Id x = eg.add_term(RecExpr::parse("x"));
  Id e = eg.add_term(RecExpr::parse("(* (+ x 1) 3)"));
  EXPECT_FALSE(fold.value(eg.find(e)));
  eg.merge(x, eg.add_literal(AttrValue(4)));
  eg.rebuild();
  eg.check_invariants();
  ASSERT_TRUE(fold.value(eg.find(e)));
  EXPECT_EQ(fold.value(eg.find(e))->num, 15);
  EXPECT_EQ(eg.find(e), eg.lookup_term(RecExpr::parse("15")));
}

TEST(Analysis, FoldingDeclinesOnOverflow) {
  EGraph eg;
  auto& fold = eg.add_analysis<math::ConstantFold>();
  Id big = eg.add_term(RecExpr::parse("(* 9223372036854775807 2)"));
  EXPECT_FALSE(fold.value(eg.find(big)));
  Id ok = eg.add_term(RecExpr::parse("(- 9223372036854775807 7)"));
  EXPECT_EQ(fold.value(eg.find(ok))->num, 9223372036854775800);
}

} // namespace tilesat::egraph
