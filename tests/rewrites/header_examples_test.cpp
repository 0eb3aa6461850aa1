// The usage examples at the top of rewrites/'s public headers, compiled and run.
#include "tilesat/egraph/runner.h"
#include "tilesat/graph/builder.h"
#include "tilesat/rewrites/builtins.h"
#include "tilesat/rewrites/extract.h"
#include "tilesat/rewrites/optimize.h"
#include "tilesat/rewrites/payload.h"
#include "tilesat/rewrites/rule_file.h"
#include "tilesat/rewrites/rule_sets.h"
#include "tilesat/rewrites/soundness.h"
#include "tilesat/rewrites/term_language.h"

#include <gtest/gtest.h>

namespace tilesat::rewrites {
namespace {

Graph small_graph() {
  Graph g;
  Builder b(g);
  b.output(b.relu(b.add(b.input("x", {4, 8}), b.full({4, 8}, 0.0))));
  return g;
}

TEST(HeaderExamples, TermLanguageAndExtract) {
  Graph graph = small_graph();
  std::vector<egraph::Rewrite> rules = load_rule_sets({"algebraic"});
  TensorEGraph teg = to_egraph(graph);
  egraph::Runner().run(teg.egraph, rules);
  Graph best = to_graph(teg, select_cheapest(teg, OpCount()));
  EXPECT_EQ(best.num_ops(), 1u);
  EXPECT_EQ(extract_fewest_ops(teg).num_ops(), 1u);
}

TEST(HeaderExamples, Payload) {
  Attrs attrs;
  attrs.set("dim0", int64_t{1});
  attrs.set("dim1", int64_t{0});
  egraph::Attrs p = to_payload(OpKind::Transpose, attrs);
  EXPECT_EQ(p.to_string(), "[dim0=1, dim1=0]");
  EXPECT_EQ(from_payload(OpKind::Transpose, p), attrs);
  EXPECT_EQ(op_symbol(OpKind::Matmul).str(), "matmul");
}

TEST(HeaderExamples, TensorAnalysis) {
  TensorEGraph teg = to_egraph(small_graph());
  auto& facts = *teg.egraph.find_analysis<TensorAnalysis>();
  const TensorFacts& f = facts[teg.egraph.find(teg.results[0])];
  EXPECT_EQ(f.type.shape.rank(), 2);
  EXPECT_FALSE(f.splat.has_value());
  EXPECT_EQ(f.users, 1u);
  EXPECT_FALSE(f.is_argument);
}

TEST(HeaderExamples, Builtins) {
  ASSERT_NE(find_guard("splat-equals"), nullptr);
  EXPECT_EQ(find_guard("splat-equals")->params,
            (std::vector<ParamKind>{ParamKind::Tensor, ParamKind::Attr}));
  EXPECT_NE(find_applier("compose-permutations"), nullptr);
  for (const GuardDef& d : all_guards()) EXPECT_FALSE(d.doc.empty()) << d.name;
}

TEST(HeaderExamples, RuleFileAndRuleSets) {
  RuleFile f = parse_rule_file("transpose: (transpose[dim0=?i, dim1=?j] "
                               "(transpose[dim0=?i, dim1=?j] ?x)) => ?x",
                               "inline.rules");
  EXPECT_EQ(f.rewrites.size(), 1u);
  std::vector<std::string> names = rule_set_names();
  EXPECT_FALSE(load_rule_sets({"transpose-folding", "canonical"}).empty());
  EXPECT_GE(load_rule_sets(names).size(), 50u);
}

TEST(HeaderExamples, Optimize) {
  std::vector<egraph::Rewrite> rules = load_rule_sets(rule_set_names());
  OptimizeResult r = optimize(small_graph(), rules, OptimizeOptions{});
  EXPECT_EQ(r.graph.num_ops(), 1u);
  EXPECT_FALSE(r.report.to_table().empty());
}

TEST(HeaderExamples, Soundness) {
  for (const RuleCheck& c :
       check_rule_file(parse_rule_file("neg-neg: (neg (neg ?x)) => ?x", "n.rules"))) {
    EXPECT_EQ(c.to_string().substr(0, 16), "neg-neg: proved ");
  }
}

} // namespace
} // namespace tilesat::rewrites
