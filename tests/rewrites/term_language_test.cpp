// Tests of term_language.cpp and tensor_analysis.cpp: Graph <-> e-graph and the facts.
#include "rewrite_test_support.h"
#include "tilesat/rewrites/extract.h"
#include "tilesat/rewrites/payload.h"
#include "tilesat/rewrites/term_language.h"

namespace tilesat::rewrites {
namespace {

Graph mlp() {
  Graph g("mlp");
  Builder b(g);
  Value x = b.input("x", {4, 8}), w = b.weight("w", {6, 8}), bias = b.weight("bias", {6});
  Value h = b.relu(b.add(b.matmul(x, b.transpose(w, 0, 1)), bias));
  b.output(h, "hidden");
  b.output(b.exp(h), "out");
  return g;
}

TEST(TermLanguage, RoundTripKeepsOpsArgumentsAndResults) {
  Graph g = mlp();
  TensorEGraph teg = to_egraph(g);
  Graph back = extract_fewest_ops(teg);
  EXPECT_EQ(testing::op_list(back), testing::op_list(g));
  ASSERT_EQ(back.arguments().size(), 3u);
  EXPECT_EQ(back.node(back.arguments()[1]).name, "w");
  EXPECT_EQ(back.node(back.arguments()[1]).role, ArgRole::Weight);
  ASSERT_EQ(back.results().size(), 2u);
  EXPECT_EQ(back.results()[1].name, "out");
  EXPECT_TRUE(testing::same_values(g, back));
}

TEST(TermLanguage, EqualOpsShareAClass) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {4});
  Value a = b.exp(x), c = b.exp(x);
  b.output(b.add(a, c));
  TensorEGraph teg = to_egraph(g);
  EXPECT_EQ(teg.class_of_node[a.id], teg.class_of_node[c.id]);
  // One value now, used by both operands of the add.
  EXPECT_EQ(teg.facts_of(teg.class_of_node[a.id]).users, 2u);
}

TEST(TensorAnalysis, KnowsTypesUsersSplatsAndArguments) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {4, 8}, DType::BF16);
  Value z = b.reshape(b.full({32}, 0.0, DType::BF16), {4, 8});
  Value m = b.maximum(x, z);
  b.output(b.add(m, m));
  TensorEGraph teg = to_egraph(g);
  const TensorFacts& fx = teg.facts_of(teg.class_of_node[x.id]);
  EXPECT_TRUE(fx.is_argument);
  EXPECT_EQ(fx.type.dtype, DType::BF16);
  EXPECT_EQ(teg.facts_of(teg.class_of_node[z.id]).splat, 0.0);
  EXPECT_EQ(teg.facts_of(teg.class_of_node[m.id]).users, 2u);
  EXPECT_EQ(teg.facts_of(teg.class_of_node[m.id]).type.shape, (Shape{4, 8}));
}

// A value's users seen through data movement: the most source users of a class that its
// reshapes, permutes and transposes reach within `depth` moves.
TEST(TensorAnalysis, SharedUsersLookThroughDataMovement) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {4, 8});
  Value e = b.exp(x);             // one user: the reshape
  Value r = b.reshape(e, {8, 4}); // one user: the transpose
  Value t = b.transpose(r, 0, 1); // three: both operands of an add, and a reshape
  Value p = b.permute(b.reshape(t, {2, 16}), {1, 0});
  Value s = b.reshape(p, {4, 8}); // four moves above e, read five times
  b.output(b.add(t, t));
  b.output(b.add(b.add(s, s), b.add(s, b.add(s, s))));
  TensorEGraph teg = to_egraph(g);
  auto cls = [&](Value v) { return teg.class_of_node[v.id]; };
  auto users = [&](Value v, int depth) {
    return shared_users(teg.egraph, *teg.facts, cls(v), depth);
  };
  ASSERT_EQ(teg.facts_of(cls(e)).users, 1u);
  ASSERT_EQ(teg.facts_of(cls(t)).users, 3u);
  ASSERT_EQ(teg.facts_of(cls(s)).users, 5u);
  EXPECT_EQ(users(e, 0), 1u);
  EXPECT_EQ(users(e, 1), 1u); // r
  EXPECT_EQ(users(e, 2), 3u); // r, t
  EXPECT_EQ(users(e, 3), 3u); // the reshape of t has one user
  EXPECT_EQ(users(e, 5), 5u); // s, five moves up
  EXPECT_EQ(users(t, 3), 5u);
}

TEST(TensorAnalysis, MergingDifferentTypesIsAnInternalError) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {4, 8}), y = b.input("y", {8, 4});
  b.output(b.add(x, x));
  b.output(y);
  TensorEGraph teg = to_egraph(g);
  EXPECT_THROW(
      {
        teg.egraph.merge(teg.class_of_node[x.id], teg.class_of_node[y.id]);
        teg.egraph.rebuild();
      },
      InternalError);
}

TEST(Extract, ArgumentsAreFreeAndOpsCountOne) {
  Graph g;
  Builder b(g);
  b.output(b.neg(b.input("x", {2})));
  TensorEGraph teg = to_egraph(g);
  egraph::Extractor ex(teg.egraph, OpCount());
  EXPECT_NEAR(ex.best_cost(teg.results[0]), 1.0, 1e-9);
}

} // namespace
} // namespace tilesat::rewrites
