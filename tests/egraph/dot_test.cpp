#include "tilesat/egraph/dot.h"
#include "tilesat/egraph/egraph.h"

#include <gtest/gtest.h>

namespace tilesat::egraph {

TEST(Dot, OneClusterPerClassOneEdgePerChild) {
  EGraph eg;
  Id sum = eg.add_term(RecExpr::parse("(+ a (transpose[dim0=1] b))"));
  eg.merge(sum, eg.add_term(RecExpr::parse("c")));
  eg.rebuild();
  std::string dot = to_dot(eg);
  EXPECT_EQ(dot.rfind("digraph egraph {", 0), 0u);
  std::size_t clusters = 0, edges = 0;
  for (std::size_t p = dot.find("subgraph cluster_"); p != std::string::npos;
       p = dot.find("subgraph cluster_", p + 1))
    ++clusters;
  for (std::size_t p = dot.find(" -> "); p != std::string::npos; p = dot.find(" -> ", p + 1))
    ++edges;
  EXPECT_EQ(clusters, eg.num_classes());
  EXPECT_EQ(edges, 3u); // + has two children, transpose one
  EXPECT_NE(dot.find("label=\"transpose[dim0=1]\""), std::string::npos) << dot;
}

} // namespace tilesat::egraph
