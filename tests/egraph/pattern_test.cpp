#include "tilesat/egraph/egraph.h"
#include "tilesat/egraph/error.h"
#include "tilesat/egraph/pattern.h"

#include <gtest/gtest.h>

namespace tilesat::egraph {
namespace {

std::string parse_error(std::string_view text) {
  try {
    Pattern::parse(text);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST(Pattern, ParseErrorsSayWhereAndWhatWasExpected) {
  EXPECT_EQ(parse_error("(+ ?a"), "1:6: expected ')', got end of input");
  EXPECT_EQ(parse_error(""), "1:1: expected an expression, got end of input");
  EXPECT_EQ(parse_error("(+ ?a ?b))"), "1:10: expected end of input, got ')'");
  EXPECT_EQ(parse_error("()"), "1:2: expected an operator, got ')'");
  EXPECT_EQ(parse_error("(3 ?a)"), "1:2: expected an operator, got '3'");
  EXPECT_EQ(parse_error("(?f ?a)"), "1:2: expected an operator, got '?f'");
  EXPECT_EQ(parse_error("(transpose[dim0=] ?x)"), "1:17: expected an attribute value, got ']'");
  EXPECT_EQ(parse_error("(f[a=1 b=2] ?x)"), "1:8: expected ',' or ']', got 'b=2'");
  EXPECT_EQ(parse_error("(f[=1] ?x)"), "1:4: expected an attribute name, got '='");
  EXPECT_EQ(parse_error("(+ ?a\n   (* ?b"), "2:9: expected ')', got end of input");
  EXPECT_EQ(parse_error("?"), "1:1: expected a variable name after '?', got '?'");
  EXPECT_EQ(parse_error("(f 99999999999999999999)"),
            "1:4: expected an integer in the int64 range, got '99999999999999999999'");
  EXPECT_EQ(parse_error("(f[k=?x] ?x)"),
            "1:10: expected a class variable, got '?x', already used as an attribute variable");
  EXPECT_EQ(parse_error("(f \"abc)"), "1:4: expected a closing '\"', got end of input");
}

TEST(Pattern, ErrorCarriesPosition) {
  try {
    Pattern::parse("(+ ?a");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.col(), 6);
    EXPECT_EQ(e.expected(), "')'");
  }
}

TEST(Pattern, VariablesAreNumberedClassVarsFirst) {
  auto p = Pattern::parse("(transpose[dim0=?d0, dim1=?d1] (f ?x ?y ?x))");
  ASSERT_EQ(p.var_names().size(), 4u);
  EXPECT_EQ(p.num_class_vars(), 2u);
  EXPECT_EQ(p.num_attr_vars(), 2u);
  EXPECT_EQ(p.var("?x").index, 0u);
  EXPECT_EQ(p.var("?y").index, 1u);
  EXPECT_TRUE(p.is_attr_var(p.var("?d0")));
  EXPECT_FALSE(p.find_var("?z"));
  EXPECT_THROW(p.var("?z"), std::out_of_range);
  EXPECT_EQ(p.to_string(), "(transpose[dim0=?d0, dim1=?d1] (f ?x ?y ?x))");
}

TEST(Pattern, PrintsWhatItParsed) {
  for (const char* text : {"(+ ?a (* ?b 0))", "?a", "-1", "(matmul[transpose_b=true] ?a ?b)",
                           "(d x (ln ?x))", "(f \"s\" 2.5 1/3)"})
    EXPECT_EQ(Pattern::parse(text).to_string(), text);
  // Comments and line breaks are blanks.
  EXPECT_EQ(Pattern::parse("; a rule\n(+ ?a ; first\n   ?b)").to_string(), "(+ ?a ?b)");
}

TEST(Pattern, InstantiateBuildsTheRightSide) {
  EGraph eg;
  Id x = eg.add(Symbol::intern("x"));
  auto lhs = Pattern::parse("(f ?a)");
  eg.add(Symbol::intern("f"), {x});
  eg.rebuild();
  Matches m;
  lhs.search(eg, m);
  ASSERT_EQ(m.size(), 1u);
  auto rhs = Pattern::parse("(g[k=1] ?a 0)");
  std::vector<Var> map{lhs.var("?a")};
  Id out = rhs.instantiate(eg, m.subst(0, eg), map);
  EXPECT_EQ(eg.find(out), eg.lookup_term(RecExpr::parse("(g[k=1] x 0)")));
}

TEST(Pattern, FindInstanceLooksUpWithoutAdding) {
  EGraph eg;
  Id x = eg.add(Symbol::intern("x"));
  eg.add(Symbol::intern("f"), {x});
  Id hx = eg.add_term(RecExpr::parse("(h (k x))"));
  eg.rebuild();
  auto lhs = Pattern::parse("(f ?a)");
  Matches m;
  lhs.search(eg, m);
  ASSERT_EQ(m.size(), 1u);
  std::vector<Var> map{lhs.var("?a")};
  const std::size_t nodes = eg.num_nodes(), ids = eg.num_ids();
  // Present: the class of its root. A variable: that class.
  EXPECT_EQ(Pattern::parse("(h (k ?a))").find_instance(eg, m.subst(0, eg), map), eg.find(hx));
  EXPECT_EQ(Pattern::parse("?a").find_instance(eg, m.subst(0, eg), map), eg.find(x));
  // Missing below the root, or at the root: kNoId, and nothing was added.
  EXPECT_EQ(Pattern::parse("(h (g ?a))").find_instance(eg, m.subst(0, eg), map), kNoId);
  EXPECT_EQ(Pattern::parse("(g (k ?a))").find_instance(eg, m.subst(0, eg), map), kNoId);
  EXPECT_EQ(Pattern::parse("(k[n=2] ?a)").find_instance(eg, m.subst(0, eg), map), kNoId);
  EXPECT_EQ(eg.num_nodes(), nodes);
  EXPECT_EQ(eg.num_ids(), ids);
  EXPECT_TRUE(eg.is_clean());
}

} // namespace tilesat::egraph
