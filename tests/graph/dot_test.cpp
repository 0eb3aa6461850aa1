// Tests of dot.cpp: the DOT text of a small graph.
#include "tilesat/graph/builder.h"
#include "tilesat/graph/dot.h"

#include <gtest/gtest.h>

namespace tilesat {
namespace {

TEST(Dot, HeaderExample) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {32, 128});
  b.output(b.transpose(x, 1, 0));
  std::string dot = to_dot(g);
  EXPECT_EQ(dot,
            "digraph G {\n"
            "0[label=\"%x\\narg\\ntensor<32x128xf32>\" shape=box];\n"
            "1[label=\"%1\\ntranspose\\n{dim0=1, dim1=0}\\ntensor<128x32xf32>\" peripheries=2];\n"
            "0->1 ;\n"
            "}\n");
}

TEST(Dot, EdgesAndEscaping) {
  Graph g;
  Builder b(g);
  Value x = b.input("x\"q", {4});
  Value n = b.neg(x);
  b.output(b.add(n, x));
  std::string dot = to_dot(g);
  EXPECT_NE(dot.find("0->1"), std::string::npos);
  EXPECT_NE(dot.find("0->2"), std::string::npos);
  EXPECT_NE(dot.find("1->2"), std::string::npos);
  EXPECT_NE(dot.find("%x\\\"q"), std::string::npos);
}

} // namespace
} // namespace tilesat
