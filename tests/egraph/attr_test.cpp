#include "tilesat/egraph/attr.h"

#include <climits>
#include <gtest/gtest.h>

namespace tilesat::egraph {

TEST(Rational, ReducesAndChecksOverflow) {
  auto r = Rational::make(6, -4);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->num, -3);
  EXPECT_EQ(r->den, 2);
  EXPECT_FALSE(Rational::make(1, 0));
  EXPECT_EQ(*checked_add({1, 2}, {1, 3}), (Rational{5, 6}));
  EXPECT_EQ(*checked_div({1, 2}, {-1, 4}), (Rational{-2, 1}));
  EXPECT_FALSE(checked_div({1, 1}, {0, 1}));
  EXPECT_FALSE(checked_mul({INT64_MAX, 1}, {2, 1}));
  EXPECT_FALSE(checked_add({INT64_MAX, 1}, {1, 1}));
}

TEST(AttrValue, IntegralRationalsAreIntegers) {
  EXPECT_EQ(AttrValue(Rational{4, 1}), AttrValue(4));
  EXPECT_TRUE(AttrValue(Rational{4, 1}).is_int());
  EXPECT_EQ(AttrValue(Rational{-1, 2}).to_string(), "-1/2");
  EXPECT_EQ(AttrValue(2.0).to_string(), "2.0");
  EXPECT_EQ(AttrValue(true).to_string(), "true");
  EXPECT_EQ(AttrValue("a\"b").to_string(), "\"a\\\"b\"");
  EXPECT_EQ(AttrValue(AttrValue::IntList{1, 0}).to_string(), "[1, 0]");
  EXPECT_NE(AttrValue(1), AttrValue(1.0));
}

TEST(Attrs, SortedByKeyLastDuplicateWins) {
  Symbol a = Symbol::intern("alpha"), b = Symbol::intern("beta");
  Attrs x{{b, AttrValue(1)}, {a, AttrValue(2)}, {b, AttrValue(3)}};
  ASSERT_EQ(x.size(), 2u);
  EXPECT_EQ(*x.find(b), AttrValue(3));
  EXPECT_EQ(x.find(Symbol::intern("gamma")), nullptr);
  Attrs y{{a, AttrValue(2)}, {b, AttrValue(3)}};
  EXPECT_EQ(x, y);
  EXPECT_EQ(x.hash(), y.hash());
  EXPECT_EQ(Attrs::literal(AttrValue(5)).literal_value()->as_int(), 5);
  EXPECT_EQ(y.literal_value(), nullptr);
}

TEST(AttrTable, InternsEqualPayloadsOnce) {
  AttrTable t;
  EXPECT_EQ(t.intern(Attrs{}), kNoAttrs);
  std::vector<AttrId> ids;
  for (int i = 0; i < 1000; ++i) ids.push_back(t.intern(Attrs::literal(AttrValue(i))));
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(t.intern(Attrs::literal(AttrValue(i))), ids[static_cast<std::size_t>(i)]);
    EXPECT_EQ(t.get(ids[static_cast<std::size_t>(i)]).literal_value()->as_int(), i);
  }
  EXPECT_EQ(t.size(), 1001u);
  EXPECT_FALSE(t.find(Attrs::literal(AttrValue(5000))));
}

TEST(Symbol, InternsOnce) {
  Symbol s = Symbol::intern("transpose");
  EXPECT_EQ(s, Symbol::intern("transpose"));
  EXPECT_NE(s, Symbol::intern("matmul"));
  EXPECT_EQ(s.str(), "transpose");
  EXPECT_TRUE(Symbol().empty());
  EXPECT_EQ(Symbol::constant().str(), "const");
  EXPECT_EQ(Symbol::intern("const"), Symbol::constant());
}

} // namespace tilesat::egraph
