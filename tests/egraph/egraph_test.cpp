#include "tilesat/egraph/egraph.h"

#include <gtest/gtest.h>
#include <random>

namespace tilesat::egraph {
namespace {

Symbol sym(const char* s) {
  return Symbol::intern(s);
}

} // namespace

TEST(EGraph, HashConsingReturnsTheSameClass) {
  EGraph eg;
  Id x = eg.add(sym("x"));
  Id fx = eg.add(sym("f"), {x});
  EXPECT_EQ(eg.add(sym("f"), {x}), fx);
  EXPECT_EQ(eg.num_nodes(), 2u);
  EXPECT_EQ(eg.num_classes(), 2u);
  AttrId a = eg.intern_attrs(Attrs{{sym("dim0"), AttrValue(1)}});
  Id fx_attr = eg.add(sym("f"), {x}, a);
  EXPECT_NE(fx_attr, fx); // the payload is part of the node
  EXPECT_EQ(eg.add(sym("f"), {x}, a), fx_attr);
  EXPECT_EQ(eg.lookup(sym("f"), std::vector<Id>{x}), fx);
  EXPECT_FALSE(eg.lookup(sym("g"), std::vector<Id>{x}));
  eg.rebuild();
  eg.check_invariants();
}

TEST(EGraph, RebuildRestoresCongruence) {
  EGraph eg;
  Id x = eg.add(sym("x")), y = eg.add(sym("y"));
  Id fx = eg.add(sym("f"), {x}), fy = eg.add(sym("f"), {y});
  Id gfx = eg.add(sym("g"), {fx}), gfy = eg.add(sym("g"), {fy});
  EXPECT_TRUE(eg.merge(x, y));
  EXPECT_FALSE(eg.merge(y, x));
  EXPECT_THROW(eg.check_invariants(), std::logic_error); // not rebuilt yet
  EXPECT_NE(eg.find(fx), eg.find(fy));
  EXPECT_EQ(eg.rebuild(), 2u); // f(x)=f(y), then g(f x)=g(f y)
  EXPECT_EQ(eg.find(fx), eg.find(fy));
  EXPECT_EQ(eg.find(gfx), eg.find(gfy));
  EXPECT_EQ(eg.num_classes(), 3u);
  EXPECT_EQ(eg.num_nodes(), 4u); // x, y, f(x), g(f(x))
  eg.check_invariants();
}

TEST(EGraph, RestoreCongruenceRepairsButLeavesTheRebuild) {
  EGraph eg;
  Id x = eg.add(sym("x")), y = eg.add(sym("y"));
  Id fx = eg.add(sym("f"), {x}), fy = eg.add(sym("f"), {y});
  Id gfx = eg.add(sym("g"), {fx}), gfy = eg.add(sym("g"), {fy});
  eg.rebuild();
  EXPECT_FALSE(eg.needs_repair());
  EXPECT_TRUE(eg.merge(x, y));
  EXPECT_TRUE(eg.needs_repair());
  EXPECT_EQ(eg.restore_congruence(), 2u); // f(x)=f(y), then g(f x)=g(f y)
  EXPECT_FALSE(eg.needs_repair());
  EXPECT_EQ(eg.find(fx), eg.find(fy));
  EXPECT_EQ(eg.find(gfx), eg.find(gfy));
  EXPECT_EQ(eg.num_nodes(), 4u);
  // The class lists and the index wait for rebuild(): the e-graph is not clean.
  EXPECT_FALSE(eg.is_clean());
  EXPECT_THROW(eg.check_invariants(), std::logic_error);
  // A node added now has canonical children: h(f y) finds nothing to repair later.
  Id hfy = eg.add(sym("h"), {fy});
  EXPECT_EQ(eg.lookup(sym("h"), std::vector<Id>{fx}), eg.find(hfy));
  EXPECT_FALSE(eg.needs_repair());
  EXPECT_EQ(eg.rebuild(), 0u);
  eg.check_invariants();
  EXPECT_EQ(eg.num_classes(), 4u);
  EXPECT_EQ(eg.eclass(fx).nodes.size(), 1u); // f(y) was dropped as a duplicate
}

TEST(EGraph, ClassesNodesParentsAndOperatorIndex) {
  EGraph eg;
  Id a = eg.add(sym("a")), b = eg.add(sym("b"));
  Id plus = eg.add(sym("+"), {a, b});
  Id times = eg.add(sym("*"), {a, a});
  eg.merge(plus, times);
  eg.rebuild();
  eg.check_invariants();
  EClassRef cls = eg.eclass(plus);
  EXPECT_EQ(cls.size(), 2u);
  EXPECT_EQ(eg.eclass(a).parents.size(), 2u); // (+ a b) and (* a a), each once
  EXPECT_EQ(eg.classes_with_op(sym("+")).size(), 1u);
  EXPECT_EQ(eg.classes_with_op(sym("+"))[0], eg.find(plus));
  EXPECT_TRUE(eg.classes_with_op(sym("nope")).empty());
  auto stars = eg.nodes_with_op(eg.find(plus), sym("*"));
  ASSERT_EQ(stars.size(), 1u);
  EXPECT_EQ(eg.node(stars[0]).children[0], eg.find(a));
  EXPECT_EQ(eg.classes().size(), 3u);
}

TEST(EGraph, RetainNodesKeepsTheHashCons) {
  EGraph eg;
  Id x = eg.add(sym("x"));
  Id fx = eg.add(sym("f"), {x});
  Id c = eg.add_literal(AttrValue(1));
  eg.merge(fx, c);
  eg.rebuild();
  eg.retain_nodes(fx, [](const ENode& n) { return n.is_leaf(); });
  eg.rebuild();
  eg.check_invariants();
  EXPECT_EQ(eg.eclass(fx).size(), 1u);
  EXPECT_EQ(eg.add(sym("f"), {x}), eg.find(c)); // still found by hash-consing
}

TEST(EGraph, RandomUnionsKeepInvariants) {
  std::mt19937 rng(7);
  EGraph eg;
  std::vector<Id> ids;
  for (int i = 0; i < 20; ++i) ids.push_back(eg.add(Symbol::intern("v" + std::to_string(i))));
  for (int round = 0; round < 20; ++round) {
    for (int k = 0; k < 100; ++k) {
      Id a = ids[rng() % ids.size()], b = ids[rng() % ids.size()];
      ids.push_back(eg.add(rng() % 2 ? sym("f") : sym("g"), {a, b}));
    }
    for (int k = 0; k < 5; ++k) eg.merge(ids[rng() % ids.size()], ids[rng() % ids.size()]);
    eg.rebuild();
    ASSERT_NO_THROW(eg.check_invariants());
  }
  EXPECT_LT(eg.num_classes(), ids.size());
}

TEST(EGraph, ExplanationsMustBeEnabledFirst) {
  EGraph eg;
  eg.add(sym("x"));
  EXPECT_THROW(eg.enable_explanations(), std::logic_error);
  EXPECT_THROW(eg.explain_equivalence(RecExpr::parse("x"), RecExpr::parse("x")), std::logic_error);
}

TEST(EGraph, AddTermAndLookupTerm) {
  EGraph eg;
  Id t = eg.add_term(RecExpr::parse("(+ (* a 2) a)"));
  EXPECT_EQ(eg.lookup_term(RecExpr::parse("(+ (* a 2) a)")), t);
  EXPECT_FALSE(eg.lookup_term(RecExpr::parse("(+ (* a 3) a)")));
  EXPECT_EQ(eg.num_nodes(), 4u);
  EXPECT_GT(eg.memory_bytes(), 0u);
}

TEST(EGraph, AddIntoJoinsANewNodeToTheClass) {
  EGraph eg;
  Id a = eg.add(sym("a")), b = eg.add(sym("b"));
  Id sum = eg.add(sym("+"), {a, b});
  const std::size_t classes = eg.num_classes();
  // A new node joins the class without founding one.
  EXPECT_TRUE(eg.add_into(sum, sym("+"), std::vector<Id>{b, a}));
  EXPECT_EQ(eg.num_classes(), classes);
  EXPECT_EQ(eg.num_nodes(), 4u);
  // Adding it again changes nothing.
  EXPECT_FALSE(eg.add_into(sum, sym("+"), std::vector<Id>{b, a}));
  eg.rebuild();
  eg.check_invariants();
  EXPECT_EQ(eg.eclass(sum).size(), 2u);
  EXPECT_EQ(eg.lookup(sym("+"), std::vector<Id>{b, a}), eg.find(sum));
  // An existing node in another class merges the classes, as merge(cls, add(...)) does.
  Id fa = eg.add(sym("f"), {a});
  EXPECT_TRUE(eg.add_into(fa, sym("+"), std::vector<Id>{a, b}));
  EXPECT_EQ(eg.find(fa), eg.find(sum));
  eg.rebuild();
  eg.check_invariants();
}

TEST(EGraph, AddIntoKeepsCongruenceAfterMerges) {
  // (f a) joins the class of c; a and b merge; the rebuild finds (f b) congruent to (f a).
  EGraph eg;
  Id a = eg.add(sym("a")), b = eg.add(sym("b")), c = eg.add(sym("c"));
  Id fb = eg.add(sym("f"), {b});
  EXPECT_TRUE(eg.add_into(c, sym("f"), std::vector<Id>{a}));
  eg.merge(a, b);
  eg.rebuild();
  eg.check_invariants();
  EXPECT_EQ(eg.find(fb), eg.find(c));
}

} // namespace tilesat::egraph
