// Property test: random small graphs, saturated with every shipped rule set and extracted,
// evaluate like the source under the reference interpreter.
#include "rewrite_test_support.h"
#include "tilesat/graph/printer.h"
#include "tilesat/rewrites/optimize.h"
#include "tilesat/rewrites/rule_sets.h"

#include <random>

namespace tilesat::rewrites {
namespace {

// Square 4x4 values keep every op applicable; vectors of 4 exercise broadcasting.
Graph random_graph(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  Graph g;
  Builder b(g);
  std::vector<Value> mats = {b.input("x", {4, 4}), b.weight("w", {4, 4})};
  Value vec = b.weight("v", {4});
  int ops = 3 + static_cast<int>(pick(8));
  for (int i = 0; i < ops; ++i) {
    Value a = mats[pick(mats.size())], c = mats[pick(mats.size())];
    Value r;
    switch (pick(14)) {
    case 0:
      r = b.matmul(a, c, {.transpose_b = pick(2) == 1});
      break;
    case 1:
      r = b.transpose(a, 0, 1);
      break;
    case 2:
      r = b.permute(a, {1, 0});
      break;
    case 3:
      r = b.add(a, c);
      break;
    case 4:
      r = b.relu(a);
      break;
    case 5:
      r = b.maximum(a, b.full({4, 4}, 0.0));
      break;
    case 6:
      r = b.add(a, b.broadcast(vec, {4, 4}, {1}));
      break;
    case 7:
      r = b.neg(b.neg(a));
      break;
    case 8:
      r = b.multiply(a, b.scalar(0.5));
      break;
    case 9:
      r = b.tanh(a);
      break;
    case 10:
      r = b.reshape(b.reshape(a, {16}), {4, 4});
      break;
    case 11:
      r = b.add(b.matmul(a, c), vec);
      break;
    case 12:
      r = b.subtract(b.transpose(a, 0, 1), b.transpose(c, 1, 0));
      break;
    default:
      r = b.exp(b.multiply(a, b.scalar(0.25)));
      break;
    }
    mats.push_back(r);
  }
  b.output(mats.back());
  if (pick(2) == 1) b.output(mats[mats.size() - 2]);
  return g;
}

TEST(Property, SaturatedAndExtractedGraphsEvaluateTheSame) {
  std::vector<egraph::Rewrite> rules = load_rule_sets(rule_set_names());
  OptimizeOptions options;
  options.runner.with_invariant_checks().with_iter_limit(12).with_node_limit(5000);
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    Graph g = random_graph(seed);
    Graph out = optimize(g, rules, options).graph;
    EXPECT_TRUE(testing::same_values(g, out)) << "seed " << seed << "\nInput:\n"
                                              << print_graph(g) << "Output:\n"
                                              << print_graph(out);
    EXPECT_LE(out.num_ops(), g.num_ops()) << "seed " << seed;
  }
}

} // namespace
} // namespace tilesat::rewrites
