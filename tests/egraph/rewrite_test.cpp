#include "math_language.h"
#include "tilesat/egraph/all.h"
#include "tilesat/egraph/rewrite.h"

#include <gtest/gtest.h>

namespace tilesat::egraph {
namespace {

std::string rule_error(std::string_view name, std::string_view text) {
  try {
    Rewrite::parse(name, text);
  } catch (const RuleError& e) {
    return e.what();
  } catch (const ParseError& e) {
    return std::string("parse: ") + e.what();
  }
  return "no error";
}

} // namespace

TEST(Rewrite, RejectsUnboundRightSideVariables) {
  EXPECT_EQ(rule_error("bad", "(+ ?a ?b) => (+ ?a ?c)"),
            "rule 'bad': right side uses ?c, which the left side does not bind");
  // The reverse of a bidirectional rule is checked too.
  EXPECT_EQ(rule_error("zero", "(* ?a 0) <=> 0"),
            "rule 'zero-rev': right side uses ?a, which the left side does not bind");
  EXPECT_EQ(rule_error("kinds", "(f[k=?d] ?x) => (g ?d)"),
            "rule 'kinds': ?d is a class variable on the right side but an attribute variable "
            "on the left side");
  EXPECT_EQ(rule_error("arrow", "(+ ?a ?b) -> (+ ?b ?a)"),
            "parse: 1:11: expected '=>' or '<=>', got '->'");
  EXPECT_THROW(Rewrite("g", Pattern::parse("(f ?x)"), Pattern::parse("?x"), {math::not_zero("?y")}),
               RuleError);
  try {
    Rewrite("g", Pattern::parse("(f ?x)"), Pattern::parse("?x"), {math::not_zero("?y")});
  } catch (const RuleError& e) {
    EXPECT_STREQ(e.what(), "rule 'g': guard 'not-zero' uses ?y, which the left side does not bind");
  }
}

TEST(Rewrite, BidirectionalGivesTwoNamedRules) {
  auto rules = Rewrite::parse("assoc-add", "(+ ?a (+ ?b ?c)) <=> (+ (+ ?a ?b) ?c)");
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].name(), "assoc-add");
  EXPECT_EQ(rules[1].name(), "assoc-add-rev");
  EXPECT_EQ(rules[1].lhs()->to_string(), "(+ (+ ?a ?b) ?c)");
  EXPECT_EQ(rules[0].to_string(), "assoc-add: (+ ?a (+ ?b ?c)) => (+ (+ ?a ?b) ?c)");
}

TEST(Rewrite, GuardsDeclineWithAReason) {
  EGraph eg;
  eg.add_analysis<math::ConstantFold>();
  eg.add_term(RecExpr::parse("(/ a 0)"));
  Id ok = eg.add_term(RecExpr::parse("(/ a b)"));
  eg.rebuild();
  Rewrite rule = rewrite("div-canon", "(/ ?a ?b)", "(* ?a (pow ?b -1))", {math::not_zero("?b")});
  Matches m;
  rule.search(eg, m, 100);
  ASSERT_EQ(m.size(), 2u);
  std::vector<std::string> reasons;
  DeclineHook hook = [&](const Rewrite& r, const Condition& c, std::string_view why) {
    reasons.push_back(r.name() + " " + c.name() + ": " + std::string(why));
  };
  ApplyResult res = rule.apply(eg, m, &hook);
  EXPECT_EQ(res.applied, 1u);
  EXPECT_EQ(res.declined, 1u);
  EXPECT_EQ(reasons, (std::vector<std::string>{"div-canon not-zero: is the constant 0"}));
  eg.rebuild();
  EXPECT_EQ(eg.find(ok), eg.lookup_term(RecExpr::parse("(* a (pow b -1))")));
}

TEST(Rewrite, ApplyStopsAtTheNodeLimit) {
  EGraph eg;
  for (const char* t : {"(+ a b)", "(+ c d)", "(+ e f)", "(+ g h)"}) eg.add_term(RecExpr::parse(t));
  eg.rebuild();
  Rewrite rule = rewrite("wrap", "(+ ?a ?b)", "(f (+ ?b ?a))");
  Matches m;
  rule.search(eg, m, 100);
  ASSERT_EQ(m.size(), 4u);
  const std::size_t before = eg.num_nodes();
  // Each application adds two nodes: after the first the e-graph is over before + 1.
  ApplyResult res = rule.apply(eg, m, nullptr, before + 1);
  EXPECT_EQ(res.applied, 1u);
  EXPECT_EQ(eg.num_nodes(), before + 2);
  res = rule.apply(eg, m);
  EXPECT_EQ(res.applied, 3u); // without a limit every match applies; the first changes nothing
  eg.rebuild();
  eg.check_invariants();
}

TEST(Rewrite, InstantiateIntoAddsTheRightSideToTheMatchedClass) {
  EGraph eg;
  Id sum = eg.add_term(RecExpr::parse("(+ a b)"));
  eg.rebuild();
  auto rules = Rewrite::parse("comm-add", "(+ ?x ?y) => (+ ?y ?x)");
  Matches m;
  rules[0].search(eg, m, 100);
  ASSERT_EQ(m.size(), 1u);
  const std::size_t classes = eg.num_classes();
  ApplyResult r = rules[0].apply(eg, m);
  EXPECT_EQ(r.applied, 1u);
  EXPECT_EQ(eg.num_classes(), classes); // (+ b a) joined the class of (+ a b)
  eg.rebuild();
  eg.check_invariants();
  EXPECT_EQ(eg.lookup_term(RecExpr::parse("(+ b a)")), eg.find(sum));
  // A right side that is a variable merges the class with it.
  auto left = Rewrite::parse("left", "(+ ?x ?y) => ?x");
  left[0].search(eg, m, 100);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(left[0].apply(eg, m).applied, 2u); // (+ a b) = a, then (+ b a) = b
  eg.rebuild();
  eg.check_invariants();
  EXPECT_EQ(eg.find(sum), eg.lookup_term(RecExpr::parse("a")));
  EXPECT_EQ(eg.find(sum), eg.lookup_term(RecExpr::parse("b")));
}

TEST(Rewrite, ApplyUnionsMergesExistingRightSidesAndKeepsTheRest) {
  EGraph eg;
  Id ab = eg.add_term(RecExpr::parse("(+ a b)"));
  Id ba = eg.add_term(RecExpr::parse("(+ b a)"));
  Id cd = eg.add_term(RecExpr::parse("(+ c d)"));
  eg.rebuild();
  auto comm = Rewrite::parse("comm-add", "(+ ?x ?y) => (+ ?y ?x)");
  Matches m;
  comm[0].search(eg, m, 100);
  ASSERT_EQ(m.size(), 3u);
  const std::size_t nodes = eg.num_nodes();
  // (+ b a) and (+ a b) exist: one merge (the second match then changes nothing); (+ d c)
  // does not, so its match stays, and no node is added.
  ApplyResult res = comm[0].apply_unions(eg, m);
  EXPECT_EQ(res.applied, 1u);
  EXPECT_EQ(eg.num_nodes(), nodes);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(eg.find(m.root(0)), eg.find(cd));
  EXPECT_EQ(eg.find(ab), eg.find(ba));
  eg.rebuild();
  eg.check_invariants();
  EXPECT_EQ(comm[0].apply(eg, m).applied, 1u);
  eg.rebuild();
  EXPECT_EQ(eg.lookup_term(RecExpr::parse("(+ d c)")), eg.find(cd));

  // A right side that is a variable is always a merge; nested right sides are looked up
  // from the leaves.
  auto left = Rewrite::parse("left", "(+ ?x ?y) => ?x");
  left[0].search(eg, m, 100);
  ASSERT_EQ(m.size(), 4u); // one per node: (+ a b), (+ b a), (+ c d), (+ d c)
  EXPECT_EQ(left[0].apply_unions(eg, m).applied, 4u);
  EXPECT_TRUE(m.empty());
  auto nest = Rewrite::parse("nest", "(f ?x) => (g (h ?x))");
  Id fa = eg.add_term(RecExpr::parse("(f a)"));
  Id fb = eg.add_term(RecExpr::parse("(f b)"));
  Id gha = eg.add_term(RecExpr::parse("(g (h a))"));
  eg.add_term(RecExpr::parse("(h b)"));
  eg.rebuild();
  nest[0].search(eg, m, 100);
  ASSERT_EQ(m.size(), 1u); // a = b now: (f a) = (f b) is one class
  EXPECT_EQ(eg.find(fa), eg.find(fb));
  EXPECT_EQ(nest[0].apply_unions(eg, m).applied, 1u);
  EXPECT_EQ(eg.find(fa), eg.find(gha));

  // Rules with guards or a C++ applier keep every match for apply().
  Rewrite guarded = rewrite("g", "(f ?x)", "(g (h ?x))", {math::not_zero("?x")});
  eg.rebuild();
  guarded.search(eg, m, 100);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(guarded.apply_unions(eg, m).applied, 0u);
  EXPECT_EQ(m.size(), 1u);
}

TEST(Rewrite, MatchesRetainKeepsOrder) {
  EGraph eg;
  for (const char* t : {"(f a)", "(f b)", "(f c)", "(f d)"}) eg.add_term(RecExpr::parse(t));
  eg.rebuild();
  Pattern p = Pattern::parse("(f ?x)");
  Matches m;
  p.search(eg, m);
  ASSERT_EQ(m.size(), 4u);
  std::vector<Id> roots, kept;
  for (std::size_t i = 0; i < m.size(); ++i) roots.push_back(m.root(i));
  std::vector<std::size_t> asked;
  m.retain([&](std::size_t i) {
    asked.push_back(i);
    return i % 2 == 1;
  });
  EXPECT_EQ(asked, (std::vector<std::size_t>{0, 1, 2, 3}));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m.root(0), roots[1]);
  EXPECT_EQ(m.root(1), roots[3]);
  EXPECT_EQ(m.subst(1, eg)[p.var("?x")], eg.lookup_term(RecExpr::parse("d")));
}

TEST(Rewrite, CxxApplierComputesTheRightSide) {
  // (repeat[times=?n] ?x) => (seq x x ... x), n computed from the attribute.
  auto expand = applier({"?x", "?n"}, [](EGraph& eg, Id, const Subst& s, std::span<const Var> v) {
    std::int64_t n = s.attr(v[1]).as_int();
    Id acc = s[v[0]];
    for (std::int64_t i = 1; i < n; ++i) acc = eg.add(Symbol::intern("seq"), {acc, s[v[0]]});
    return acc;
  });
  Rewrite rule("unroll", Pattern::parse("(repeat[times=?n] ?x)"), expand);
  EXPECT_EQ(rule.rhs(), nullptr);
  EGraph eg;
  Id r = eg.add_term(RecExpr::parse("(repeat[times=3] y)"));
  eg.rebuild();
  Matches m;
  rule.search(eg, m, 10);
  EXPECT_EQ(rule.apply(eg, m).applied, 1u);
  eg.rebuild();
  EXPECT_EQ(eg.find(r), eg.lookup_term(RecExpr::parse("(seq (seq y y) y)")));
  EXPECT_THROW(Rewrite("bad", Pattern::parse("(f ?x)"),
                       applier({"?q"}, [](EGraph&, Id, const Subst&,
                                          std::span<const Var>) { return kNoId; })),
               RuleError);
}

TEST(Rewrite, AttributeVariablesFlowToTheRightSide) {
  EGraph eg;
  Id t = eg.add_term(RecExpr::parse("(transpose[dim0=0, dim1=1] (transpose[dim0=1, dim1=0] x))"));
  eg.rebuild();
  Rewrite swap =
      rewrite("swap", "(transpose[dim0=?a, dim1=?b] ?x)", "(transpose[dim0=?b, dim1=?a] ?x)");
  Matches m;
  swap.search(eg, m, 10);
  EXPECT_EQ(m.size(), 2u);
  swap.apply(eg, m);
  eg.rebuild();
  eg.check_invariants();
  EXPECT_EQ(eg.find(t), eg.lookup_term(RecExpr::parse(
                            "(transpose[dim0=1, dim1=0] (transpose[dim0=1, dim1=0] x))")));
}

TEST(Rewrite, MultiPatternJoinsOnSharedVariables) {
  EGraph eg;
  Id fa = eg.add_term(RecExpr::parse("(f a)"));
  Id ga = eg.add_term(RecExpr::parse("(g a)"));
  Id gb = eg.add_term(RecExpr::parse("(g b)"));
  eg.rebuild();
  auto mp = std::make_shared<MultiPattern>(MultiPattern::parse("?p = (f ?x), ?q = (g ?x)"));
  EXPECT_EQ(mp->to_string(), "?p = (f ?x), ?q = (g ?x)");
  Matches m;
  mp->search(eg, m, 100);
  ASSERT_EQ(m.size(), 1u);
  auto unite = applier({"?p", "?q"}, [](EGraph& g, Id, const Subst& s, std::span<const Var> v) {
    g.merge(s[v[0]], s[v[1]]);
    return kNoId;
  });
  Rewrite rule("fg", mp, unite);
  Matches m2;
  rule.search(eg, m2, 100);
  rule.apply(eg, m2);
  eg.rebuild();
  EXPECT_EQ(eg.find(fa), eg.find(ga));
  EXPECT_NE(eg.find(fa), eg.find(gb));
  EXPECT_THROW(MultiPattern::parse("(f ?x) = ?p"), ParseError);
}

TEST(Rewrite, MultiPatternJoinsAttributeVariablesOnEqualValues) {
  EGraph eg;
  Id f1 = eg.add_term(RecExpr::parse("(f[k=1] a)"));
  eg.add_term(RecExpr::parse("(g[k=1, j=2] a)"));
  eg.add_term(RecExpr::parse("(g[k=2] a)"));
  eg.add_term(RecExpr::parse("(g[k=1] b)"));
  eg.rebuild();
  MultiPattern mp = MultiPattern::parse("?p = (f[k=?t] ?x), ?q = (g[k=?t] ?x)");
  EXPECT_EQ(mp.var_names(), (std::vector<std::string>{"?p", "?x", "?q", "?t"}));
  EXPECT_EQ(mp.num_class_vars(), 3u);
  EXPECT_TRUE(mp.is_attr_var(*mp.find_var("?t")));
  Matches m;
  mp.search(eg, m, 100);
  ASSERT_EQ(m.size(), 1u); // g[k=2] a differs in ?t, g[k=1] b in ?x
  Subst s = m.subst(0, eg);
  EXPECT_EQ(m.root(0), eg.find(f1));
  EXPECT_EQ(s.attr(*mp.find_var("?t")), AttrValue(1));
  // The parts' payloads differ (g's has j); the joined entries are equal.
  EXPECT_EQ(s[*mp.find_var("?q")], eg.lookup_term(RecExpr::parse("(g[k=1, j=2] a)")));
  // A name cannot be both kinds of variable.
  EXPECT_THROW(MultiPattern::parse("?p = (f[k=?x] ?y), ?q = (g ?x)"), RuleError);
}

} // namespace tilesat::egraph
