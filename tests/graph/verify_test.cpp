// Tests of verify.cpp: every problem Graph::verify reports, with exact messages.
#include "op_test_support.h"
#include "tilesat/graph/graph.h"

#include <gtest/gtest.h>

namespace tilesat {
namespace {

using op_testing::f32;

std::vector<std::string> messages(const Graph& g) {
  std::vector<std::string> out;
  for (const Diagnostic& d : g.verify()) out.push_back(d.str());
  return out;
}

TEST(Verify, DeclaredTypeMismatch) {
  Graph g;
  NodeId a = g.add_argument("arg0", f32({32, 256}));
  NodeId b = g.add_argument("arg1", f32({32, 256}));
  NodeId add =
      g.add_op_typed(OpKind::Add, {a, b}, {}, f32({32, 128}), SourceLoc{"model.mlir", 12, 5});
  g.mutable_node(add).name = std::string("3");
  g.add_result(add);
  EXPECT_EQ(messages(g),
            std::vector<std::string>{"model.mlir:12:5: error: 'ttir.add' %3: expected result type "
                                     "tensor<32x256xf32>, got tensor<32x128xf32>"});
  EXPECT_THROW(g.verify_or_throw(), Error);
}

TEST(Verify, EncodingIsNotPartOfTheValueType) {
  Graph g;
  NodeId a = g.add_argument("arg0", TensorType{DType::BF16, Shape{32, 32}, "#ttnn_layout"});
  NodeId e =
      g.add_op_typed(OpKind::Exp, {a}, {}, TensorType{DType::BF16, Shape{32, 32}, "#ttnn_layout"});
  g.add_result(e);
  EXPECT_TRUE(g.verify().empty());
  g.verify_or_throw();
}

TEST(Verify, DanglingOperandWrongCountAndBadAttributes) {
  Graph g;
  NodeId x = g.add_argument("x", f32({2, 3}));
  g.add_op_typed(OpKind::Neg, {9}, {}, f32({2, 3}), SourceLoc{"m.mlir", 2, 3});
  g.add_op_typed(OpKind::Add, {x}, {}, f32({2, 3}), SourceLoc{"m.mlir", 3, 3});
  Attrs bad;
  bad.set("dim0", int64_t{0});
  bad.set("dim1", int64_t{4});
  g.add_op_typed(OpKind::Transpose, {x}, bad, f32({3, 2}), SourceLoc{"m.mlir", 4, 3});
  Attrs missing;
  g.add_op_typed(OpKind::Permute, {x}, missing, f32({3, 2}), SourceLoc{"m.mlir", 5, 3});
  Attrs wrong_kind;
  wrong_kind.set("transpose_b", int64_t{1});
  g.add_op_typed(OpKind::Matmul, {x, x}, wrong_kind, f32({2, 2}), SourceLoc{"m.mlir", 6, 3});
  g.add_result(17);
  EXPECT_EQ(
      messages(g),
      (std::vector<std::string>{
          "m.mlir:2:3: error: 'ttir.neg' %1: expected operand 0 to be a defined value, got %9",
          "m.mlir:3:3: error: 'ttir.add' %2: expected 2 operands, got 1",
          "m.mlir:4:3: error: 'ttir.transpose' %3: expected 'dim1' in [-2, 2), got 4",
          "m.mlir:5:3: error: 'ttir.permute' %4: expected attribute 'permutation' (int "
          "list), got none",
          "m.mlir:6:3: error: 'ttir.matmul' %5: expected attribute 'transpose_b' to be bool, "
          "got int 1",
          "error: expected result 0 to be a defined value, got %17",
      }));
}

TEST(Verify, InferenceErrorsNameTheOp) {
  Graph g;
  NodeId x = g.add_argument("x", f32({32, 128}));
  NodeId w = g.add_argument("w", f32({256, 10}));
  NodeId mm = g.add_op_typed(OpKind::Matmul, {x, w}, {}, f32({32, 10}), SourceLoc{"m.mlir", 9, 10});
  g.add_result(mm);
  EXPECT_EQ(messages(g), std::vector<std::string>{
                             "m.mlir:9:10: error: 'ttir.matmul' %2: expected contracting dims to "
                             "match, got 128 and 256"});
}

TEST(Verify, Cycles) {
  Graph g;
  NodeId x = g.add_argument("x", f32({4}));
  NodeId a = g.add_op(OpKind::Neg, {x}, {}, SourceLoc{"c.mlir", 3, 5});
  NodeId b = g.add_op(OpKind::Abs, {a}, {}, SourceLoc{"c.mlir", 4, 5});
  g.add_result(b);
  g.set_operand(a, 0, b);
  EXPECT_EQ(messages(g), std::vector<std::string>{
                             "c.mlir:3:5: error: 'ttir.neg' %1: expected an acyclic graph, got a "
                             "cycle through %1"});
  // A cycle the results do not reach is still reported.
  Graph h;
  NodeId y = h.add_argument("y", f32({4}));
  NodeId n = h.add_op(OpKind::Neg, {y});
  h.add_result(y);
  h.set_operand(n, 0, n);
  EXPECT_EQ(messages(h),
            std::vector<std::string>{"error: 'ttir.neg' %1: expected an acyclic graph, got a cycle "
                                     "through %1"});
}

TEST(Verify, ArgumentsWithOperands) {
  Graph g;
  NodeId x = g.add_argument("x", f32({4}));
  g.mutable_node(x).operands.push_back(x);
  EXPECT_EQ(messages(g),
            std::vector<std::string>{"error: 'ttir.arg' %x: expected no operands, got 1"});
}

} // namespace
} // namespace tilesat
