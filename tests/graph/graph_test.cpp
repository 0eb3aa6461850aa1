// Tests of graph.cpp: building a graph, operand edges, users, topological order, names.
#include "op_test_support.h"
#include "tilesat/graph/graph.h"

#include <gtest/gtest.h>

namespace tilesat {
namespace {

using op_testing::f32;

TEST(Graph, HeaderExample) {
  Graph g("main");
  NodeId x = g.add_argument("x", {DType::F32, Shape{32, 128}});
  NodeId r = g.add_op(OpKind::Relu, {x});
  g.add_result(r);
  EXPECT_TRUE(g.verify().empty());
}

TEST(Graph, NodesArgumentsResults) {
  Graph g("mlp");
  EXPECT_EQ(g.name(), "mlp");
  NodeId x = g.add_argument("x", f32({2, 3}));
  NodeId w = g.add_argument("w", f32({3, 4}), ArgRole::Weight, SourceLoc{"m.mlir", 2, 3});
  NodeId mm = g.add_op(OpKind::Matmul, {x, w}, {}, SourceLoc{"m.mlir", 4, 5});
  NodeId r = g.add_op(OpKind::Relu, {mm});
  g.add_result(r, "out");
  EXPECT_EQ(g.num_nodes(), 4u);
  ASSERT_EQ(g.arguments().size(), 2u);
  EXPECT_EQ(g.arguments()[1], w);
  EXPECT_EQ(g.node(w).role, ArgRole::Weight);
  EXPECT_EQ(g.node(w).loc.str(), "m.mlir:2:3");
  EXPECT_EQ(g.node(mm).type, f32({2, 4}));
  EXPECT_EQ(g.node(mm).loc.line, 4);
  ASSERT_EQ(g.results().size(), 1u);
  EXPECT_EQ(g.results()[0].value, r);
  EXPECT_EQ(g.results()[0].name, "out");
  EXPECT_EQ(g.num_ops(), 2u);
}

TEST(Graph, UsersAndUseCount) {
  Graph g;
  NodeId x = g.add_argument("x", f32({4}));
  NodeId sq = g.add_op(OpKind::Multiply, {x, x});
  NodeId n = g.add_op(OpKind::Neg, {x});
  NodeId s = g.add_op(OpKind::Add, {sq, n});
  g.add_result(s);
  g.add_result(sq);
  EXPECT_EQ(g.users(x), (std::vector<NodeId>{sq, n}));
  EXPECT_EQ(g.use_count(x), 3u);  // twice by multiply, once by neg
  EXPECT_EQ(g.use_count(sq), 2u); // add and a result
  EXPECT_EQ(g.users(s), std::vector<NodeId>{});
  EXPECT_EQ(g.users(99), std::vector<NodeId>{});
}

TEST(Graph, TopologicalOrderIsReachableProducersFirst) {
  Graph g;
  NodeId x = g.add_argument("x", f32({4}));
  NodeId unused = g.add_op(OpKind::Exp, {x});
  NodeId a = g.add_op(OpKind::Neg, {x});
  NodeId b = g.add_op(OpKind::Abs, {a});
  NodeId c = g.add_op(OpKind::Add, {b, a});
  g.add_result(c);
  std::vector<NodeId> order = g.topological_order();
  EXPECT_EQ(order, (std::vector<NodeId>{x, a, b, c}));
  EXPECT_EQ(std::find(order.begin(), order.end(), unused), order.end());
  EXPECT_EQ(g.num_ops(), 3u);
}

TEST(Graph, SetOperandRewiresEdges) {
  Graph g;
  NodeId x = g.add_argument("x", f32({4}));
  NodeId y = g.add_argument("y", f32({4}));
  NodeId m = g.add_op(OpKind::Multiply, {x, x});
  g.add_result(m);
  g.set_operand(m, 1, y);
  EXPECT_EQ(g.node(m).operands, (std::vector<NodeId>{x, y}));
  EXPECT_EQ(g.users(x), std::vector<NodeId>{m}); // one use of x remains
  EXPECT_EQ(g.users(y), std::vector<NodeId>{m});
  g.set_operand(m, 0, y);
  EXPECT_EQ(g.users(x), std::vector<NodeId>{});
  EXPECT_THROW(g.set_operand(m, 2, x), InternalError);
}

TEST(Graph, CycleIsReportedByTopologicalOrder) {
  Graph g;
  NodeId x = g.add_argument("x", f32({4}));
  NodeId a = g.add_op(OpKind::Neg, {x}, {}, SourceLoc{"c.mlir", 3, 5});
  NodeId b = g.add_op(OpKind::Abs, {a});
  g.add_result(b);
  g.set_operand(a, 0, b); // a -> b -> a
  try {
    (void)g.topological_order();
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    // The walk from the result %2 reaches %1 and then %2 again.
    EXPECT_STREQ(e.what(), "error: 'ttir.abs' %2: expected an acyclic graph, got a cycle through "
                           "%2");
  }
  // A self-loop.
  Graph h;
  NodeId y = h.add_argument("y", f32({4}));
  NodeId n = h.add_op(OpKind::Neg, {y}, {}, SourceLoc{"s.mlir", 7, 3});
  h.add_result(n);
  h.set_operand(n, 0, n);
  try {
    (void)h.topological_order();
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "s.mlir:7:3: error: 'ttir.neg' %1: expected an acyclic graph, got a "
                           "cycle through %1");
  }
}

TEST(Graph, TypedOpsMayNameLaterValues) {
  // Text can be read in any order; edges to not-yet-added nodes appear once they exist.
  Graph g;
  NodeId x = g.add_argument("x", f32({4}));
  NodeId a = g.add_op_typed(OpKind::Neg, {2}, {}, f32({4}));
  NodeId b = g.add_op_typed(OpKind::Abs, {x}, {}, f32({4}));
  EXPECT_EQ(b, 2u);
  g.add_result(a);
  EXPECT_EQ(g.users(b), std::vector<NodeId>{a});
  EXPECT_EQ(g.topological_order(), (std::vector<NodeId>{x, b, a}));
}

TEST(Graph, DanglingOperandsAndResults) {
  Graph g;
  NodeId x = g.add_argument("x", f32({4}));
  NodeId a = g.add_op_typed(OpKind::Neg, {7}, {}, f32({4}), SourceLoc{"d.mlir", 2, 1});
  g.add_result(a);
  try {
    (void)g.topological_order();
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "d.mlir:2:1: error: 'ttir.neg' %1: expected operand 0 to be a defined "
                           "value, got %7");
  }
  Graph h;
  h.add_argument("x", f32({4}));
  h.add_result(x + 5);
  try {
    (void)h.topological_order();
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "error: expected result 0 to be a defined value, got %5");
  }
}

TEST(Graph, CopiesAreIndependent) {
  Graph g;
  NodeId x = g.add_argument("x", f32({4}));
  g.add_result(g.add_op(OpKind::Neg, {x}));
  Graph copy = g;
  NodeId extra = copy.add_op(OpKind::Abs, {x});
  EXPECT_EQ(copy.users(x).size(), 2u);
  EXPECT_EQ(g.users(x).size(), 1u);
  EXPECT_EQ(g.num_nodes(), 2u);
  Graph moved = std::move(copy);
  EXPECT_EQ(moved.users(x), (std::vector<NodeId>{1, extra}));
  Graph assigned;
  assigned = moved;
  EXPECT_EQ(assigned.num_nodes(), 3u);
  EXPECT_EQ(assigned.users(x).size(), 2u);
}

TEST(Graph, ValueNames) {
  Graph g;
  NodeId a0 = g.add_argument("", f32({4}));
  NodeId x = g.add_argument("x", f32({4}));
  NodeId a2 = g.add_argument("", f32({4}));
  NodeId op = g.add_op(OpKind::Add, {a0, x});
  EXPECT_EQ(value_name(g, a0), "%arg0");
  EXPECT_EQ(value_name(g, x), "%x");
  EXPECT_EQ(value_name(g, a2), "%arg2");
  EXPECT_EQ(value_name(g, op), "%3");
  g.mutable_node(op).name = "sum"; // a name hint from text
  EXPECT_EQ(value_name(g, op), "%sum");
  EXPECT_EQ(value_name(g, 42), "%42");
}

} // namespace
} // namespace tilesat
