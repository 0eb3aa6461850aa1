// Each public header starts with a short usage example; this file compiles and runs them.
#include "math_language.h"
#include "tilesat/egraph/all.h"
#include "tilesat/egraph/hash.h"

#include <cassert>
#include <gtest/gtest.h>
#include <sstream>

namespace tilesat::egraph {

TEST(HeaderExamples, IdUnionFindIdVecSymbolHash) {
  EGraph eg;
  Id a = eg.add(Symbol::intern("x"));
  Id b = eg.add(Symbol::intern("y"));
  eg.merge(a, b);
  EXPECT_EQ(eg.find(a), eg.find(b));

  UnionFind uf;
  auto u = uf.make_set(), w = uf.make_set();
  uf.union_roots(u, w);
  EXPECT_EQ(uf.find(w), u);

  IdVec v;
  v.push_back(3);
  v.push_back(7);
  std::vector<Id> seen(v.begin(), v.end());
  EXPECT_EQ(seen, (std::vector<Id>{3, 7}));

  Symbol add = Symbol::intern("+");
  EXPECT_TRUE(add == Symbol::intern("+") && add.str() == "+");

  std::uint64_t h = detail::hash_mix(0, 42);
  EXPECT_NE(detail::hash_mix(h, 7), h);

  detail::IdHashTable t;
  t.insert(1234u, 5);
  EXPECT_EQ(t.find(1234u, [](Id cand) { return cand == 5; }), 5u);
  EXPECT_EQ(t.find(99u, [](Id) { return true; }), kNoId);
  EXPECT_TRUE(t.erase(1234u, 5));
  EXPECT_EQ(t.size(), 0u);
}

TEST(HeaderExamples, AttrTermErrorEnodeEclass) {
  AttrTable table;
  Attrs t{{Symbol::intern("dim0"), AttrValue(1)}, {Symbol::intern("dim1"), AttrValue(0)}};
  AttrId id = table.intern(t);
  EXPECT_TRUE(table.get(id).to_string() == "[dim0=1, dim1=0]" && table.intern(t) == id);

  auto term = RecExpr::parse("(* (+ a b) 2)");
  EXPECT_TRUE(term.to_string() == "(* (+ a b) 2)" && term.size() == 5);

  try {
    Pattern::parse("(+ ?a");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_TRUE(e.line() == 1 && e.col() == 6);
  }

  EGraph eg;
  Id root = eg.add_term(term);
  eg.rebuild();
  Symbol plus = Symbol::intern("+");
  std::size_t plus_nodes = 0;
  for (Id c : eg.classes())
    for (NodeId n : eg.eclass(c).nodes) {
      ENode node = eg.node(n);
      if (node.op == plus && node.arity() == 2) plus_nodes += eg.find(node.children[0]) != kNoId;
    }
  EXPECT_EQ(plus_nodes, 1u);
  EXPECT_EQ(eg.eclass(root).size(), 1u);
}

TEST(HeaderExamples, EGraphCongruence) {
  EGraph eg;
  Id x = eg.add(Symbol::intern("x")), y = eg.add(Symbol::intern("y"));
  Id fx = eg.add(Symbol::intern("f"), {x}), fy = eg.add(Symbol::intern("f"), {y});
  eg.merge(x, y);
  eg.rebuild();
  EXPECT_EQ(eg.find(fx), eg.find(fy));
}

TEST(HeaderExamples, PatternSubstMachineSearcher) {
  EGraph eg;
  eg.add_term(RecExpr::parse("(transpose[dim0=1, dim1=0] w)"));
  eg.rebuild();
  auto p = Pattern::parse("(transpose[dim0=?d0, dim1=?d1] ?x)");
  Matches m;
  p.search(eg, m);
  auto x = p.var("?x"), d0 = p.var("?d0");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m.subst(0, eg)[x], eg.lookup_term(RecExpr::parse("w")));
  EXPECT_EQ(m.subst(0, eg).attr(d0), AttrValue(1));

  detail::Program prog = detail::compile(p);
  Matches m2;
  m2.reset(p.num_class_vars(), p.num_attr_vars());
  prog.search(eg, 10, m2);
  EXPECT_EQ(m2.size(), 1u);

  const Searcher& s = p;
  Matches m3;
  s.search(eg, m3, 1000);
  EXPECT_EQ(m3.size(), 1u);
}

TEST(HeaderExamples, RewriteSchedulerRunnerExtractDotExplain) {
  std::vector<Rewrite> rules;
  rules.push_back(Rewrite::parse("comm-add", "(+ ?a ?b) => (+ ?b ?a)").front());
  rules.push_back(Rewrite("div-canon", Pattern::parse("(/ ?a ?b)"),
                          Pattern::parse("(* ?a (pow ?b -1))"), {math::not_zero("?b")}));
  auto both = Rewrite::parse("assoc-add", "(+ ?a (+ ?b ?c)) <=> (+ (+ ?a ?b) ?c)");
  EXPECT_EQ(both.size(), 2u);

  RunnerConfig cfg = RunnerConfig().with_scheduler(
      BackoffScheduler().with_match_limit(500).with_ban_length(3).do_not_ban("comm-add"));
  EXPECT_EQ(cfg.scheduler().name(), "backoff");

  EGraph eg;
  Id root = eg.add_term(RecExpr::parse("(+ a (/ b c))"));
  Report r = Runner(RunnerConfig().with_iter_limit(10).with_node_limit(50'000)).run(eg, rules);
  EXPECT_FALSE(r.to_table().empty());
  EXPECT_FALSE(r.to_json().empty());

  Extractor ex(eg, AstSize());
  RecExpr best = ex.extract(root);
  double cost = ex.best_cost(root);
  EXPECT_EQ(cost, 5); // (+ a (/ b c)) is already the smallest
  EXPECT_EQ(best.size(), 5u);

  std::ostringstream dot;
  dot << to_dot(eg);
  EXPECT_FALSE(dot.str().empty());

  EGraph ex_eg;
  ex_eg.enable_explanations();
  ex_eg.add_term(RecExpr::parse("(+ x y)"));
  ex_eg.add_term(RecExpr::parse("(+ y x)"));
  Runner().run(ex_eg, rules);
  Explanation e = ex_eg.explain_equivalence(RecExpr::parse("(+ x y)"), RecExpr::parse("(+ y x)"));
  EXPECT_EQ(e.to_string(), "(+ x y)\n=> comm-add (+ y x)\n");
}

TEST(HeaderExamples, MultiPatternAndUmbrella) {
  auto unite_a_b = [](EGraph& g, Id, const Subst& s, std::span<const Var> v) {
    g.merge(s[v[0]], s[v[1]]);
    return kNoId;
  };
  auto mp =
      std::make_shared<MultiPattern>(MultiPattern::parse("?a = (f[k=?t] ?x), ?b = (g[k=?t] ?x)"));
  Rewrite r("fg", mp, applier({"?a", "?b"}, unite_a_b));
  EXPECT_EQ(r.lhs(), nullptr);
  EGraph fg;
  Id fa = fg.add_term(RecExpr::parse("(f[k=1] a)"));
  Id ga = fg.add_term(RecExpr::parse("(g[k=1] a)"));
  Id gb = fg.add_term(RecExpr::parse("(g[k=2] a)"));
  Runner().run(fg, std::vector<Rewrite>{r});
  EXPECT_EQ(fg.find(fa), fg.find(ga));
  EXPECT_NE(fg.find(fa), fg.find(gb));

  EGraph eg;
  Id root = eg.add_term(RecExpr::parse("(+ a b)"));
  Report rep = Runner().run(eg, Rewrite::parse("comm", "(+ ?x ?y) => (+ ?y ?x)"));
  RecExpr best = Extractor(eg, AstSize()).extract(root);
  EXPECT_EQ(rep.stop.reason, StopReason::kSaturated);
  EXPECT_EQ(best.size(), 3u);

  EGraph meg;
  meg.add_analysis<math::ConstantFold>();
  Id d = meg.add_term(RecExpr::parse("(d x (+ 1 (* 2 x)))"));
  Runner(RunnerConfig().with_scheduler(SimpleScheduler()).with_iter_limit(8))
      .run(meg, math::rules());
  EXPECT_EQ(meg.find(d), meg.lookup_term(RecExpr::parse("2")));
}

} // namespace tilesat::egraph
