// E-matching: the compiled matcher, attribute matching and binding, and the operator index.
#include "tilesat/egraph/egraph.h"
#include "tilesat/egraph/machine.h"
#include "tilesat/egraph/pattern.h"

#include <gtest/gtest.h>
#include <set>

namespace tilesat::egraph {
namespace {

std::multiset<std::string> matches_of(EGraph& eg, const char* pattern) {
  eg.rebuild();
  auto p = Pattern::parse(pattern);
  Matches m;
  p.search(eg, m);
  std::multiset<std::string> out;
  for (std::size_t i = 0; i < m.size(); ++i) {
    std::string s = std::to_string(m.root(i)) + ":";
    Subst sub = m.subst(i, eg);
    for (std::uint32_t v = 0; v < p.var_names().size(); ++v) {
      s += " " + p.var_names()[v] + "=";
      s += p.is_attr_var(Var{v}) ? sub.attr(Var{v}).to_string() : std::to_string(sub[Var{v}]);
    }
    out.insert(s);
  }
  return out;
}

} // namespace

TEST(Machine, MatchesNestedPatternsAndRepeatedVariables) {
  EGraph eg;
  Id a = eg.add_term(RecExpr::parse("a"));
  Id b = eg.add_term(RecExpr::parse("b"));
  Id aa = eg.add_term(RecExpr::parse("(+ a a)"));
  Id ab = eg.add_term(RecExpr::parse("(+ a b)"));
  Id nested = eg.add_term(RecExpr::parse("(* (+ a b) 2)"));
  auto twice = matches_of(eg, "(+ ?x ?x)");
  EXPECT_EQ(twice, (std::multiset<std::string>{std::to_string(aa) + ": ?x=" + std::to_string(a)}));
  auto any_sum = matches_of(eg, "(+ ?x ?y)");
  EXPECT_EQ(any_sum.size(), 2u);
  auto with_literal = matches_of(eg, "(* (+ ?x ?y) 2)");
  EXPECT_EQ(with_literal,
            (std::multiset<std::string>{std::to_string(nested) + ": ?x=" + std::to_string(a) +
                                        " ?y=" + std::to_string(b)}));
  EXPECT_TRUE(matches_of(eg, "(* (+ ?x ?y) 3)").empty()); // literal 3 is not in the graph
  EXPECT_EQ(matches_of(eg, "?z").size(), eg.num_classes());
  EXPECT_EQ(matches_of(eg, "2").size(), 1u);
  (void)ab;
}

TEST(Machine, MatchesAcrossMergedClasses) {
  EGraph eg;
  Id sum = eg.add_term(RecExpr::parse("(+ a b)"));
  Id prod = eg.add_term(RecExpr::parse("(* c d)"));
  Id top = eg.add_term(RecExpr::parse("(f (+ a b))"));
  eg.merge(sum, prod);
  auto m = matches_of(eg, "(f (* ?x ?y))");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m.begin()->substr(0, m.begin()->find(':')), std::to_string(eg.find(top)));
}

TEST(Machine, BindsAndRequiresAttributes) {
  EGraph eg;
  eg.add_term(RecExpr::parse("(transpose[dim0=1, dim1=0] x)"));
  eg.add_term(RecExpr::parse("(transpose[dim0=2, dim1=3, layout=tile] y)"));
  eg.add_term(RecExpr::parse("(matmul[transpose_b=true] x y)"));
  eg.add_term(RecExpr::parse("(matmul[transpose_b=false] y x)"));
  eg.add_term(RecExpr::parse("(matmul x x)"));
  auto t = matches_of(eg, "(transpose[dim0=?d0, dim1=?d1] ?x)");
  ASSERT_EQ(t.size(), 2u);
  std::string all;
  for (const auto& s : t) all += s + ";";
  EXPECT_NE(all.find("?d0=1 ?d1=0"), std::string::npos);
  EXPECT_NE(all.find("?d0=2 ?d1=3"), std::string::npos); // layout is unconstrained
  EXPECT_EQ(matches_of(eg, "(matmul[transpose_b=true] ?a ?b)").size(), 1u);
  EXPECT_EQ(matches_of(eg, "(matmul[transpose_b] ?a ?b)").size(), 1u);
  EXPECT_EQ(matches_of(eg, "(matmul ?a ?b)").size(), 3u); // no constraint at all
  EXPECT_EQ(matches_of(eg, "(transpose[layout=tile] ?x)").size(), 1u);
  EXPECT_EQ(matches_of(eg, "(transpose[dim0=?d, dim1=?d] ?x)").size(), 0u);
  EXPECT_EQ(matches_of(eg, "(transpose[missing=?m] ?x)").size(), 0u);
}

TEST(Machine, RepeatedAttributeVariablesMustAgree) {
  EGraph eg;
  eg.add_term(RecExpr::parse("(pair (t[d=1] a) (t[d=1] b))"));
  eg.add_term(RecExpr::parse("(pair (t[d=1] a) (t[d=2] b))"));
  EXPECT_EQ(matches_of(eg, "(pair (t[d=?k] ?x) (t[d=?k] ?y))").size(), 1u);
}

TEST(Machine, SearchLimitStopsEarly) {
  EGraph eg;
  for (int i = 0; i < 50; ++i) eg.add_term(RecExpr::parse("(+ a " + std::to_string(i) + ")"));
  eg.rebuild();
  auto p = Pattern::parse("(+ ?x ?y)");
  Matches m;
  p.search(eg, m, 10);
  EXPECT_EQ(m.size(), 10u);
  p.search(eg, m);
  EXPECT_EQ(m.size(), 50u);
}

TEST(Machine, OperatorIndexLimitsTheRootsVisited) {
  EGraph eg;
  eg.add_term(RecExpr::parse("(+ (* a b) (* c d))"));
  eg.rebuild();
  // Only the class holding a '+' node is a candidate root for (+ ...).
  EXPECT_EQ(eg.classes_with_op(Symbol::intern("+")).size(), 1u);
  EXPECT_EQ(eg.classes_with_op(Symbol::intern("*")).size(), 2u);
  Matches m;
  Pattern::parse("(+ ?x ?y)")
      .search_class(eg, eg.lookup_term(RecExpr::parse("(* a b)")).value(), m);
  EXPECT_TRUE(m.empty());
}

} // namespace tilesat::egraph
