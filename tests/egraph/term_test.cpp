#include "tilesat/egraph/error.h"
#include "tilesat/egraph/term.h"

#include <gtest/gtest.h>

namespace tilesat::egraph {

TEST(RecExpr, ParsePrintRoundTrip) {
  for (const char* text :
       {"(* (+ a b) 2)", "x", "-1/2", "2.5", "(f \"s\" true)", "(transpose[dim0=1, dim1=0] x)",
        "(reshape[shape=[2, 3]] x)", "(matmul[transpose_b=true] a b)", "leaf[k=1]"}) {
    EXPECT_EQ(RecExpr::parse(text).to_string(), text);
  }
  auto t = RecExpr::parse("(* (+ a b) 2)");
  EXPECT_EQ(t.size(), 5u);
  EXPECT_EQ(t[t.root()].op, Symbol::intern("*"));
}

TEST(RecExpr, LiteralsAreConstNodes) {
  auto t = RecExpr::parse("3");
  EXPECT_EQ(t[0].op, Symbol::constant());
  EXPECT_EQ(t[0].attrs.literal_value()->as_int(), 3);
  EXPECT_TRUE(RecExpr::parse("6/2").same_term(RecExpr::parse("3")));
  EXPECT_TRUE(RecExpr::parse("(const[value=3])").same_term(t));
  // Bare words in attribute values are strings; [flag] means flag=true.
  EXPECT_EQ(RecExpr::parse("(to_layout[layout=tile] x)").to_string(),
            "(to_layout[layout=\"tile\"] x)");
  EXPECT_EQ(RecExpr::parse("(matmul[transpose_b] a b)").to_string(),
            "(matmul[transpose_b=true] a b)");
}

TEST(RecExpr, SameTermIgnoresSharing) {
  RecExpr a;
  auto x = a.add(Symbol::intern("x"));
  a.add(Symbol::intern("+"), {x, x});
  EXPECT_TRUE(a.same_term(RecExpr::parse("(+ x x)")));
  EXPECT_FALSE(a.same_term(RecExpr::parse("(+ x y)")));
}

TEST(RecExpr, VariablesAreNotTerms) {
  try {
    RecExpr::parse("(+ ?a b)");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(), "1:4: expected a term, got variable '?a'");
  }
}

} // namespace tilesat::egraph
