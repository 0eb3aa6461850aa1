// Tests of the elementwise, matmul and reduction converters: each op in a small model,
// evaluated against values computed by hand.
#include "test_util.h"

#include <cmath>
#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;

// y = op(x) for an input of the given values.
Tensor unary(const std::string& op, std::vector<float> x) {
  OnnxModel m;
  auto n = static_cast<int64_t>(x.size());
  m.input("x", {n});
  m.node(op, {"x"}, {"y"});
  m.output("y");
  return run(import(m), {{"x", T({n}, std::move(x))}});
}

TEST(Elementwise, Unary) {
  EXPECT_THAT(unary("Relu", {-1, 0, 2}).data(), ElementsAre(0, 0, 2));
  EXPECT_THAT(unary("Sqrt", {4, 9}).data(), ElementsAre(2, 3));
  EXPECT_THAT(unary("Exp", {0, 1}).data(), Pointwise(FloatNear(1e-6), {1.0f, 2.7182817f}));
  EXPECT_THAT(unary("Log", {1, 2.7182817f}).data(), Pointwise(FloatNear(1e-6), {0.0f, 1.0f}));
  EXPECT_THAT(unary("Sigmoid", {0}).data(), ElementsAre(0.5f));
  EXPECT_THAT(unary("Tanh", {0, 0.5f}).data(), Pointwise(FloatNear(1e-6), {0.0f, 0.46211716f}));
  EXPECT_THAT(unary("Erf", {1}).data(), Pointwise(FloatNear(1e-6), {0.8427008f}));
  EXPECT_THAT(unary("Neg", {2}).data(), ElementsAre(-2));
  EXPECT_THAT(unary("Abs", {-2}).data(), ElementsAre(2));
  EXPECT_THAT(unary("Reciprocal", {4}).data(), ElementsAre(0.25f));
}

// y = op(x, c) with x: 2x2 = [1, 2, 3, 4] and a constant c = [2, 4] broadcast over rows.
Tensor binary(const std::string& op) {
  OnnxModel m;
  m.input("x", {2, 2});
  m.constant("c", {2}, {2, 4});
  m.node(op, {"x", "c"}, {"y"});
  m.output("y");
  return run(import(m), {{"x", T({2, 2}, {1, 2, 3, 4})}});
}

TEST(Elementwise, BinaryWithBroadcastConstant) {
  EXPECT_THAT(binary("Add").data(), ElementsAre(3, 6, 5, 8));
  EXPECT_THAT(binary("Sub").data(), ElementsAre(-1, -2, 1, 0));
  EXPECT_THAT(binary("Mul").data(), ElementsAre(2, 8, 6, 16));
  EXPECT_THAT(binary("Div").data(), ElementsAre(0.5f, 0.5f, 1.5f, 1));
  EXPECT_THAT(binary("Pow").data(), ElementsAre(1, 16, 9, 256));
}

TEST(Elementwise, ConstantFirstOperandAndScalar) {
  OnnxModel m;
  m.input("x", {2});
  m.constant("two", {}, {2});
  m.node("Sub", {"two", "x"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_THAT(run(im, {{"x", T({2}, {5, 1})}}).data(), ElementsAre(-3, 1));
  // The one-element constant is a rank-0 scalar operand.
  NodeId sub = im.graph.results()[0].value;
  EXPECT_EQ(im.graph.node(im.graph.node(sub).operands[0]).type.shape.rank(), 0);
}

TEST(Elementwise, ClipAsRelu6) {
  OnnxModel m;
  m.input("x", {3});
  m.constant("lo", {}, {0});
  m.constant("hi", {}, {6});
  m.node("Clip", {"x", "lo", "hi"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_THAT(run(im, {{"x", T({3}, {-1, 3, 7})}}).data(), ElementsAre(0, 3, 6));
  EXPECT_EQ(count_ops(im.graph, OpKind::Relu), 1u);
  EXPECT_EQ(count_ops(im.graph, OpKind::Minimum), 1u);
}

TEST(Elementwise, GeluErfFormAndPowScalar) {
  // 0.5 * x * (1 + erf(x / sqrt(2))), as exporters write GELU; at x = 1: 0.8413447.
  OnnxModel m;
  m.input("x", {2});
  m.constant("sqrt2", {}, {1.4142135f});
  m.constant("one", {}, {1});
  m.constant("half", {}, {0.5f});
  m.node("Div", {"x", "sqrt2"}, {"d"});
  m.node("Erf", {"d"}, {"e"});
  m.node("Add", {"e", "one"}, {"p"});
  m.node("Mul", {"x", "p"}, {"q"});
  m.node("Mul", {"q", "half"}, {"g"});
  m.constant("two", {}, {2});
  m.node("Pow", {"g", "two"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  float g1 = 0.8413447f, gm1 = -0.15865526f;
  EXPECT_THAT(run(im, {{"x", T({2}, {1, -1})}}).data(),
              Pointwise(FloatNear(1e-6), {g1 * g1, gm1 * gm1}));
  EXPECT_EQ(count_ops(im.graph, OpKind::Erf), 1u);
  EXPECT_EQ(count_ops(im.graph, OpKind::Pow), 1u);
}

TEST(Matmul, Batched) {
  OnnxModel m;
  m.input("a", {2, 1, 2});
  m.input("b", {2, 2, 1});
  m.node("MatMul", {"a", "b"}, {"y"});
  m.output("y");
  Tensor y = run(import(m), {{"a", T({2, 1, 2}, {1, 2, 3, 4})}, {"b", T({2, 2, 1}, {1, 1, 2, 0})}});
  EXPECT_EQ(y.shape(), (Shape{2, 1, 1}));
  EXPECT_THAT(y.data(), ElementsAre(3, 6));
}

// Gemm of A = [1, 2] with B = [[1, 0], [0, 1], [1, 1]] (transB) and C = [10, 20, 30].
ImportedModel gemm(float alpha, float beta) {
  OnnxModel m;
  m.input("a", {1, 2});
  m.initializer("b", {3, 2}, {1, 0, 0, 1, 1, 1});
  m.initializer("c", {3}, {10, 20, 30});
  ::onnx::NodeProto* n = m.node("Gemm", {"a", "b", "c"}, {"y"});
  OnnxModel::attr(n, "transB", 1);
  OnnxModel::attr_f(n, "alpha", alpha);
  OnnxModel::attr_f(n, "beta", beta);
  m.output("y");
  return import(m);
}

TEST(Matmul, Gemm) {
  ImportedModel plain = gemm(1, 1);
  EXPECT_EQ(count_ops(plain.graph, OpKind::Linear), 1u);
  EXPECT_THAT(run(plain, {{"a", T({1, 2}, {1, 2})}}).data(), ElementsAre(11, 22, 33));
  // 2 * [1, 2, 3] + 0.5 * [10, 20, 30].
  ImportedModel scaled = gemm(2, 0.5f);
  EXPECT_THAT(run(scaled, {{"a", T({1, 2}, {1, 2})}}).data(), ElementsAre(7, 14, 21));
}

TEST(Reduction, SoftmaxAndLegacyAxis) {
  OnnxModel m;
  m.input("x", {1, 2});
  m.node("Softmax", {"x"}, {"y"});
  m.output("y");
  EXPECT_THAT(run(import(m), {{"x", T({1, 2}, {0, std::log(3.0f)})}}).data(),
              Pointwise(FloatNear(1e-6), {0.25f, 0.75f}));
  // Opset 11, axis 1 of a 1x2x2 input: the last four elements are normalized together.
  OnnxModel legacy(11);
  legacy.input("x", {1, 2, 2});
  legacy.node("Softmax", {"x"}, {"y"});
  legacy.output("y");
  EXPECT_THAT(run(import(legacy), {{"x", T({1, 2, 2}, {0, 0, 0, std::log(5.0f)})}}).data(),
              Pointwise(FloatNear(1e-6), {0.125f, 0.125f, 0.125f, 0.625f}));
}

TEST(Reduction, ReduceMeanAndGlobalAveragePool) {
  OnnxModel m;
  m.input("x", {2, 2});
  ::onnx::NodeProto* n = m.node("ReduceMean", {"x"}, {"y"});
  OnnxModel::attr(n, "axes", std::vector<int64_t>{1});
  OnnxModel::attr(n, "keepdims", 0);
  m.output("y");
  EXPECT_THAT(run(import(m), {{"x", T({2, 2}, {1, 2, 3, 5})}}).data(), ElementsAre(1.5f, 4));
  OnnxModel g;
  g.input("x", {1, 2, 2, 2});
  g.node("GlobalAveragePool", {"x"}, {"y"});
  g.output("y");
  Tensor y = run(import(g), {{"x", T({1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40})}});
  EXPECT_EQ(y.shape(), (Shape{1, 2, 1, 1}));
  EXPECT_THAT(y.data(), ElementsAre(2.5f, 25));
}

TEST(Normalization, LayerNormalization) {
  OnnxModel m;
  m.input("x", {1, 4});
  m.initializer("s", {4}, {1, 2, 1, 1});
  m.initializer("b", {4}, {0, 0, 0, 1});
  m.node("LayerNormalization", {"x", "s", "b"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_EQ(count_ops(im.graph, OpKind::LayerNorm), 1u);
  // Mean 2.5, variance 1.25 (+ epsilon 1e-5).
  EXPECT_THAT(run(im, {{"x", T({1, 4}, {1, 2, 3, 4})}}).data(),
              Pointwise(FloatNear(1e-5), {-1.3416408f, -0.8944272f, 0.4472136f, 2.3416408f}));
}

TEST(Elementwise, InverseTrigonometricFunctions) {
  // Built from sqrt, division and a series: exact angles, the ends and far past them.
  OnnxModel m;
  m.input("x", {4});
  m.input("u", {4});
  m.node("Atan", {"x"}, {"at"});
  m.node("Asin", {"u"}, {"as"});
  m.node("Acos", {"u"}, {"ac"});
  m.output("at");
  m.output("as");
  m.output("ac");
  ImportedModel im = import(m);
  const float pi = 3.14159265f;
  std::map<std::string, Tensor> in{{"x", T({4}, {1, -1e30f, 0, 0.5773503f})},
                                   {"u", T({4}, {1, -1, 0.5f, 0})}};
  EXPECT_THAT(run(im, in, 0).data(), Pointwise(FloatNear(1e-6), {pi / 4, -pi / 2, 0.0f, pi / 6}));
  EXPECT_THAT(run(im, in, 1).data(), Pointwise(FloatNear(1e-6), {pi / 2, -pi / 2, pi / 6, 0.0f}));
  EXPECT_THAT(run(im, in, 2).data(), Pointwise(FloatNear(1e-6), {0.0f, pi, pi / 3, pi / 2}));
}

} // namespace
} // namespace tilesat::onnx::testing
