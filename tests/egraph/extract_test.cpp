#include "math_language.h"
#include "tilesat/egraph/all.h"
#include "tilesat/egraph/extract.h"

#include <gtest/gtest.h>

namespace tilesat::egraph {

TEST(Extract, AstSizePicksTheSmallestTerm) {
  EGraph eg;
  eg.add_analysis<math::ConstantFold>();
  Id root = eg.add_term(RecExpr::parse("(+ (* x 1) (* 0 y))"));
  auto rules = math::rules();
  Runner(RunnerConfig().with_scheduler(SimpleScheduler()).with_iter_limit(3)).run(eg, rules);
  Extractor ex(eg, AstSize());
  EXPECT_EQ(ex.extract(root).to_string(), "x");
  EXPECT_EQ(ex.best_cost(root), 1);
}

TEST(Extract, AstDepthAndCyclesTerminate) {
  EGraph eg;
  Id x = eg.add_term(RecExpr::parse("x"));
  Id fx = eg.add_term(RecExpr::parse("(f (f (f x)))"));
  Id gfx = eg.add_term(RecExpr::parse("(g x x)"));
  eg.merge(fx, gfx);
  eg.merge(x, eg.add_term(RecExpr::parse("(h x)"))); // a cycle: x = h(x)
  eg.rebuild();
  Extractor depth(eg, AstDepth());
  EXPECT_EQ(depth.extract(fx).to_string(), "(g x x)");
  EXPECT_EQ(depth.best_cost(fx), 2);
  EXPECT_EQ(depth.extract(x).to_string(), "x");
  EXPECT_NE(depth.best_node(x), kNoId);
}

// A tree cost over a DAG whose nodes share operands doubles per level and overflows a double
// within about 1,100 levels; every class still has a selection (a residual model is such a DAG).
TEST(Extract, TreeCostsThatOverflowStaySelectable) {
  EGraph eg;
  Id prev = eg.add_term(RecExpr::parse("x"));
  for (int i = 0; i < 2000; ++i) prev = eg.add(Symbol::intern("+"), {prev, prev});
  eg.rebuild();
  Extractor ex(eg, AstSize());
  EXPECT_NE(ex.best_node(prev), kNoId);
  EXPECT_EQ(ex.best_cost(prev), std::numeric_limits<double>::max());
}

// Two ops of equal cost in one class: the op whose name sorts first wins, whichever of the two
// names the process interned first (the symbol ids that order a class's nodes).
TEST(Extract, TiesGoToTheFirstOpNameWhateverTheInterningOrder) {
  Symbol::intern("tie_zeta_op"); // interned before tie_alpha_op: the smaller id
  EGraph eg;
  Id z = eg.add_term(RecExpr::parse("(tie_zeta_op x)"));
  Id a = eg.add_term(RecExpr::parse("(tie_alpha_op x)"));
  eg.merge(z, a);
  eg.rebuild();
  Extractor ex(eg, AstSize());
  EXPECT_EQ(ex.extract(z).to_string(), "(tie_alpha_op x)");
}

TEST(Extract, ClassesWithoutFiniteTermsThrow) {
  EGraph eg;
  Id a = eg.add_term(RecExpr::parse("a"));
  Id fa = eg.add_term(RecExpr::parse("(f a)"));
  eg.rebuild();
  eg.retain_nodes(a, [](const ENode&) { return false; });
  eg.rebuild();
  Extractor ex(eg, AstSize());
  EXPECT_THROW(ex.extract(fa), std::invalid_argument);
}

} // namespace tilesat::egraph
