// The projection of the extraction DP's per-placement choices to one e-node per class
// (cost/src/projection.h), on small e-graphs whose classes read each other.
#include "projection.h"
#include "tilesat/graph/diagnostic.h"

#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <string>

namespace tilesat::cost {
namespace {

using egraph::Id;
using egraph::NodeId;
using egraph::Symbol;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The e-node of class `c` whose operator is `op`.
NodeId node_of(const egraph::EGraph& eg, Id c, const std::string& op) {
  auto nodes = eg.nodes_with_op(eg.find(c), Symbol::intern(op));
  EXPECT_EQ(nodes.size(), 1u) << op;
  return nodes.empty() ? egraph::kNoId : nodes[0];
}

// A DP's choices written out: per class, its placements' costs and choices.
class Table final : public ChoiceTable {
public:
  explicit Table(const egraph::EGraph& eg) : eg_(eg) {}
  // Placement `k` of class `c` computed by the e-node `op` of the class at `cost`, reading
  // its operands at `reads`.
  void set(Id c, uint32_t k, const std::string& op, double cost, std::vector<uint32_t> reads) {
    auto& ps = classes_[eg_.find(c)];
    if (ps.size() <= k) ps.resize(k + 1, {kInf, Choice{}});
    ps[k] = {cost, Choice{node_of(eg_, c, op), std::move(reads)}};
  }
  uint32_t placements(Id c) const override { return static_cast<uint32_t>(classes_.at(c).size()); }
  double cost(Id c, uint32_t k) const override { return classes_.at(c)[k].first; }
  const Choice& choice(Id c, uint32_t k) const override { return classes_.at(c)[k].second; }
  std::optional<uint32_t> cheapest(Id c) const override {
    std::optional<uint32_t> best;
    for (uint32_t k = 0; k < placements(c); ++k)
      if (cost(c, k) < kInf && (!best || cost(c, k) < cost(c, *best))) best = k;
    return best;
  }
  bool computes(NodeId n) const override { return eg_.node(n).op != Symbol::intern("arg"); }

private:
  const egraph::EGraph& eg_;
  std::map<Id, std::vector<std::pair<double, Choice>>> classes_;
};

// a = {f(b), g(x)} and b = {h(a)} (with `k_in_b`, also k(x)): a reshape merged back into its
// operand's class makes such pairs. The DP's choices: x at 0 is a leaf; a at 0 is f(b at 0),
// cost 3, depth 3 (h, then g, then x); a at 1 is g(x at 0), cost 4, depth 1; b at 0 is h(a at 1).
struct Pair {
  egraph::EGraph eg;
  Id x, a, b;
  Table t{eg};
  explicit Pair(bool k_in_b) {
    x = eg.add(Symbol::intern("x"));
    Id gx = eg.add(Symbol::intern("g"), {x});
    b = eg.add(Symbol::intern("h"), {gx});
    a = eg.add(Symbol::intern("f"), {b});
    eg.merge(a, gx);
    if (k_in_b) eg.merge(b, eg.add(Symbol::intern("k"), {x}));
    eg.rebuild();
    a = eg.find(a);
    b = eg.find(b);
    x = eg.find(x);
    t.set(x, 0, "x", 0, {});
    t.set(a, 0, "f", 3, {0});
    t.set(a, 1, "g", 4, {0});
    t.set(b, 0, "h", 2, {1});
  }
  Projection project(std::vector<std::pair<Id, uint32_t>> demands) {
    return project_choices(eg, t, demands);
  }
  NodeId op(Id c, const std::string& name) const { return node_of(eg, c, name); }
};

TEST(Projection, TheFirstDemandOfAClassFixesItsENode) {
  egraph::EGraph eg;
  Id x = eg.add(Symbol::intern("x"));
  Id a = eg.add(Symbol::intern("f"), {x});
  eg.merge(a, eg.add(Symbol::intern("g"), {x}));
  eg.rebuild();
  a = eg.find(a);
  Table t(eg);
  t.set(x, 0, "x", 0, {});
  t.set(a, 0, "f", 2, {0});
  t.set(a, 1, "g", 1, {0});
  // The walk takes the last demand first.
  std::vector<std::pair<Id, uint32_t>> demands{{a, 0}, {a, 1}};
  Projection p = project_choices(eg, t, demands);
  EXPECT_EQ(p.chosen.at(a), std::make_pair(node_of(eg, a, "g"), 1u));
  EXPECT_EQ(p.chosen.at(x), std::make_pair(node_of(eg, x, "x"), 0u));
  EXPECT_EQ(p.chosen.size(), 2u);
  EXPECT_EQ(p.detours, 0u);
  EXPECT_FALSE(p.by_depth);
}

TEST(Projection, AClassThatWouldReadAnOpenClassTakesAnotherPlacementsChoice) {
  Pair g(true);
  g.t.set(g.b, 1, "k", 5, {0});
  // a at 0 reads b at 0, whose choice reads a.
  Projection p = g.project({{g.a, 0}});
  EXPECT_EQ(p.chosen.at(g.a), std::make_pair(g.op(g.a, "f"), 0u));
  EXPECT_EQ(p.chosen.at(g.b), std::make_pair(g.op(g.b, "k"), 1u));
  EXPECT_EQ(p.detours, 1u);
  EXPECT_FALSE(p.by_depth);
}

TEST(Projection, ElseAnotherENodeOfTheClassReadingItsOperandsCheapest) {
  Pair g(true); // k(x) is in b but no choice of the DP
  g.t.set(g.x, 0, "x", 4, {});
  g.t.set(g.x, 1, "x", 1, {}); // x's cheapest placement
  Projection p = g.project({{g.a, 0}});
  EXPECT_EQ(p.chosen.at(g.b), std::make_pair(g.op(g.b, "k"), 0u));
  EXPECT_EQ(p.chosen.at(g.x).second, 1u);
  EXPECT_EQ(p.detours, 1u);
  EXPECT_FALSE(p.by_depth);
}

TEST(Projection, ElseEveryClassTakesItsShallowestChoice) {
  Pair g(false);
  Projection p = g.project({{g.a, 0}});
  EXPECT_TRUE(p.by_depth);
  // a at 1 is dearer than a at 0 but shallower.
  EXPECT_EQ(p.chosen.at(g.a), std::make_pair(g.op(g.a, "g"), 1u));
  EXPECT_EQ(p.chosen.count(g.b), 0u); // no longer read
  EXPECT_EQ(p.chosen.size(), 2u);
  EXPECT_EQ(p.detours, 0u);
}

TEST(Projection, ShallowestChoicesReadOnlyShallowerClasses) {
  // Both classes demanded: by depth, b's choice reads a, which reads x only.
  Pair g(false);
  Projection p = g.project({{g.b, 0}, {g.a, 0}});
  EXPECT_TRUE(p.by_depth);
  EXPECT_EQ(p.chosen.at(g.a).first, g.op(g.a, "g"));
  EXPECT_EQ(p.chosen.at(g.b).first, g.op(g.b, "h"));
}

TEST(Projection, CyclicChoicesAreAnInternalError) {
  // A DP that chose a at 0 from b at 0 and b at 0 from a at 0 broke its own invariant.
  Pair g(false);
  g.t.set(g.b, 0, "h", 2, {0});
  EXPECT_THROW(g.project({{g.a, 0}}), InternalError);
}

TEST(Projection, ADeepChainNeedsNoRecursion) {
  // 200,000 unary ops in a chain: the walk holds its path in a vector, not on the stack.
  egraph::EGraph eg;
  Id leaf = eg.add(Symbol::intern("x"));
  std::vector<Id> chain{leaf};
  for (int i = 0; i < 200000; ++i) chain.push_back(eg.add(Symbol::intern("u"), {chain.back()}));
  eg.rebuild();
  Table t(eg);
  t.set(leaf, 0, "x", 0, {});
  for (size_t i = 1; i < chain.size(); ++i) t.set(chain[i], 0, "u", double(i), {0});
  std::vector<std::pair<Id, uint32_t>> demands{{chain.back(), 0}};
  Projection p = project_choices(eg, t, demands);
  EXPECT_EQ(p.chosen.size(), chain.size());
  EXPECT_FALSE(p.by_depth);
}

} // namespace
} // namespace tilesat::cost
