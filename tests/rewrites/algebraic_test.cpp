// Tests of rules/algebraic.rules.
#include "rewrite_test_support.h"

namespace tilesat::rewrites {
namespace {

constexpr const char* kAlgebraicRules = "algebraic";

REWRITE_TEST(
    Algebraic, AddZeroVanishes, kAlgebraicRules,
    [](Builder& b) {
      b.output(b.relu(b.add(b.input("x", {4, 8}), b.full({4, 8}, 0.0))));
    },
    "relu")

REWRITE_TEST(
    Algebraic, AddScalarZeroVanishes, kAlgebraicRules,
    [](Builder& b) {
      b.output(b.relu(b.add(b.scalar(0.0), b.input("x", {4, 8}))));
    },
    "relu")

REWRITE_TEST(
    Algebraic, AddOneStays, kAlgebraicRules,
    [](Builder& b) {
      b.output(b.add(b.input("x", {4, 8}), b.full({4, 8}, 1.0)));
    },
    "full add")

REWRITE_TEST(
    Algebraic, MultiplyByOneVanishes, kAlgebraicRules,
    [](Builder& b) {
      b.output(b.exp(b.multiply(b.input("x", {4, 8}), b.scalar(1.0))));
    },
    "exp")

REWRITE_TEST(
    Algebraic, NegNegVanishes, kAlgebraicRules,
    [](Builder& b) {
      b.output(b.exp(b.neg(b.neg(b.input("x", {4, 8})))));
    },
    "exp")

TEST(Algebraic, MatmulReassociatesToTheCheaperOrder) {
  Graph g;
  Builder b(g);
  Value a = b.input("a", {2, 64}), w1 = b.weight("w1", {64, 32}), w2 = b.weight("w2", {32, 64});
  b.output(b.matmul(a, b.matmul(w1, w2)));
  Graph out = testing::optimize_with(g, kAlgebraicRules);
  ASSERT_EQ(testing::op_list(out), "matmul matmul");
  // (a w1) w2 computes a 2x32 product first instead of the 64x64 one.
  for (NodeId n : out.topological_order()) {
    if (out.node(n).kind != OpKind::Matmul) continue;
    EXPECT_EQ(out.node(n).type.shape, (Shape{2, 32}));
    break;
  }
  EXPECT_TRUE(testing::same_values(g, out));
}

REWRITE_TEST(
    Algebraic, MultiplyByOneFirstVanishes, kAlgebraicRules,
    [](Builder& b) {
      b.output(b.exp(b.multiply(b.full({4, 8}, 1.0), b.input("x", {4, 8}))));
    },
    "exp")

REWRITE_TEST(
    Algebraic, SubtractZeroVanishes, kAlgebraicRules,
    [](Builder& b) {
      b.output(b.exp(b.subtract(b.input("x", {4, 8}), b.scalar(0.0))));
    },
    "exp")

REWRITE_TEST(
    Algebraic, ZeroMinusXStays, kAlgebraicRules,
    [](Builder& b) {
      b.output(b.exp(b.subtract(b.scalar(0.0), b.input("x", {4, 8}))));
    },
    "constant subtract exp")

REWRITE_TEST(
    Algebraic, DivideByOneVanishes, kAlgebraicRules,
    [](Builder& b) {
      b.output(b.exp(b.divide(b.input("x", {4, 8}), b.full({4, 8}, 1.0))));
    },
    "exp")

REWRITE_TEST(
    Algebraic, OneDividedByXStays, kAlgebraicRules,
    [](Builder& b) {
      b.output(b.divide(b.full({4, 8}, 1.0), b.input("x", {4, 8})));
    },
    "full divide")

REWRITE_TEST(
    Algebraic, ReluOfReluIsOneRelu, kAlgebraicRules,
    [](Builder& b) {
      b.output(b.relu(b.relu(b.input("x", {4, 8}))));
    },
    "relu")

REWRITE_TEST(
    Algebraic, NegOfAbsStays, kAlgebraicRules,
    [](Builder& b) {
      b.output(b.neg(b.abs(b.input("x", {4, 8}))));
    },
    "abs neg")

} // namespace
} // namespace tilesat::rewrites
