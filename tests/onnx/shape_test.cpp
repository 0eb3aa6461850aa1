// Tests of the data movement and shape converters: Reshape from a folded shape subgraph,
// Flatten, Squeeze/Unsqueeze (attribute and input forms), Transpose, Concat, Split, Slice,
// Gather (embedding and constant indices), Expand and Cast.
#include "test_util.h"

#include <gmock/gmock.h>
#include <limits>
#include <numeric>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;

Tensor iota(Shape s, float start = 0) {
  std::vector<float> v(static_cast<size_t>(s.numel()));
  std::iota(v.begin(), v.end(), start);
  return T(std::move(s), std::move(v));
}

TEST(Shape, ReshapeFromFoldedShapeSubgraph) {
  // reshape(x, concat(unsqueeze(shape(x)[0]), [-1])): x 2x3x4 -> 2x12.
  OnnxModel m;
  m.input("x", {2, 3, 4});
  m.node("Shape", {"x"}, {"s"});
  m.int_constant("zero", {}, {0});
  m.node("Gather", {"s", "zero"}, {"n"});
  m.int_constant("axes", {1}, {0});
  m.node("Unsqueeze", {"n", "axes"}, {"n1"});
  m.int_constant("minus1", {1}, {-1});
  ::onnx::NodeProto* cat = m.node("Concat", {"n1", "minus1"}, {"shape"});
  OnnxModel::attr(cat, "axis", 0);
  m.node("Reshape", {"x", "shape"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_EQ(im.graph.num_ops(), 1u);
  Tensor y = run(im, {{"x", iota({2, 3, 4})}});
  EXPECT_EQ(y.shape(), (Shape{2, 12}));
  EXPECT_EQ(y.data(), iota({2, 12}).data());
}

TEST(Shape, FlattenSqueezeUnsqueeze) {
  OnnxModel m(13);
  m.input("x", {2, 1, 3});
  m.int_constant("ax1", {1}, {1});
  m.node("Squeeze", {"x", "ax1"}, {"s"});
  m.int_constant("ax0", {1}, {0});
  m.node("Unsqueeze", {"s", "ax0"}, {"u"});
  m.node("Flatten", {"u"}, {"y"});
  m.output("y");
  Tensor y = run(import(m), {{"x", iota({2, 1, 3})}});
  EXPECT_EQ(y.shape(), (Shape{1, 6}));
  // Opset 11: axes are attributes.
  OnnxModel old(11);
  old.input("x", {2, 1, 3});
  OnnxModel::attr(old.node("Squeeze", {"x"}, {"s"}), "axes", std::vector<int64_t>{-2});
  OnnxModel::attr(old.node("Unsqueeze", {"s"}, {"y"}), "axes", std::vector<int64_t>{2});
  old.output("y");
  EXPECT_EQ(run(import(old), {{"x", iota({2, 1, 3})}}).shape(), (Shape{2, 3, 1}));
}

TEST(Shape, TransposeSwapAndPermutation) {
  OnnxModel m;
  m.input("x", {2, 3});
  m.node("Transpose", {"x"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_EQ(count_ops(im.graph, OpKind::Transpose), 1u);
  EXPECT_THAT(run(im, {{"x", iota({2, 3})}}).data(), ElementsAre(0, 3, 1, 4, 2, 5));
  OnnxModel p;
  p.input("x", {1, 2, 3});
  OnnxModel::attr(p.node("Transpose", {"x"}, {"y"}), "perm", std::vector<int64_t>{2, 0, 1});
  p.output("y");
  ImportedModel ip = import(p);
  EXPECT_EQ(count_ops(ip.graph, OpKind::Permute), 1u);
  Tensor y = run(ip, {{"x", iota({1, 2, 3})}});
  EXPECT_EQ(y.shape(), (Shape{3, 1, 2}));
  EXPECT_THAT(y.data(), ElementsAre(0, 3, 1, 4, 2, 5));
}

TEST(Shape, ConcatWithConstantAndSplit) {
  OnnxModel m;
  m.input("x", {2, 1});
  m.constant("c", {2, 2}, {7, 8, 9, 10});
  OnnxModel::attr(m.node("Concat", {"x", "c"}, {"cat"}), "axis", 1);
  m.int_constant("sizes", {2}, {1, 2});
  OnnxModel::attr(m.node("Split", {"cat", "sizes"}, {"a", "b"}), "axis", 1);
  m.output("a");
  m.output("b");
  ImportedModel im = import(m);
  Tensor x = T({2, 1}, {1, 2});
  EXPECT_THAT(run(im, {{"x", x}}, 0).data(), ElementsAre(1, 2));
  Tensor b = run(im, {{"x", x}}, 1);
  EXPECT_EQ(b.shape(), (Shape{2, 2}));
  EXPECT_THAT(b.data(), ElementsAre(7, 8, 9, 10));
}

TEST(Shape, SliceRuntimeAndStaticNegativeStep) {
  OnnxModel m;
  m.input("x", {3, 4});
  m.int_constant("starts", {2}, {1, 0});
  m.int_constant("ends", {2}, {3, std::numeric_limits<int64_t>::max()});
  m.int_constant("axes", {2}, {0, 1});
  m.int_constant("steps", {2}, {1, 2});
  m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  m.output("y");
  Tensor y = run(import(m), {{"x", iota({3, 4})}});
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_THAT(y.data(), ElementsAre(4, 6, 8, 10));
  // Reversing a constant is folded at import time.
  OnnxModel r;
  r.input("x", {3});
  r.constant("c", {3}, {1, 2, 3});
  r.int_constant("s", {1}, {-1});
  r.int_constant("e", {1}, {std::numeric_limits<int64_t>::min()});
  r.int_constant("a", {1}, {0});
  r.int_constant("st", {1}, {-1});
  r.node("Slice", {"c", "s", "e", "a", "st"}, {"rev"});
  r.node("Mul", {"x", "rev"}, {"y"});
  r.output("y");
  EXPECT_THAT(run(import(r), {{"x", T({3}, {1, 10, 100})}}).data(), ElementsAre(3, 20, 100));
}

TEST(Shape, GatherEmbeddingAndConstantIndices) {
  OnnxModel m;
  m.input("ids", {2}, ::onnx::TensorProto::INT64);
  m.initializer("table", {4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  m.node("Gather", {"table", "ids"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_EQ(count_ops(im.graph, OpKind::Take), 1u);
  Tensor y = run(im, {{"ids", T({2}, {3, 1}, DType::I32)}});
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_THAT(y.data(), ElementsAre(30, 31, 10, 11));
  // A constant scalar index along axis 1 drops that dim.
  OnnxModel c;
  c.input("x", {2, 3});
  c.int_constant("i", {}, {-1});
  OnnxModel::attr(c.node("Gather", {"x", "i"}, {"y"}), "axis", 1);
  c.output("y");
  EXPECT_THAT(run(import(c), {{"x", iota({2, 3})}}).data(), ElementsAre(2, 5));
  OnnxModel bad;
  bad.input("x", {2, 3});
  bad.int_constant("i", {}, {3});
  OnnxModel::attr(bad.node("Gather", {"x", "i"}, {"y"}), "axis", 1);
  bad.output("y");
  EXPECT_EQ(import_error(bad),
            "error: test.onnx: node 1 'Gather_1' (Gather): expected indices in [-3, 3), got 3");
}

TEST(Shape, ExpandAndCast) {
  OnnxModel m;
  m.input("x", {2, 1});
  m.int_constant("shape", {2}, {2, 3});
  m.node("Expand", {"x", "shape"}, {"e"});
  OnnxModel::attr(m.node("Cast", {"e"}, {"y"}), "to", ::onnx::TensorProto::INT64);
  m.output("y", ::onnx::TensorProto::INT64);
  Tensor y = run(import(m), {{"x", T({2, 1}, {1.7f, -1.7f})}});
  EXPECT_EQ(y.dtype(), DType::I32);
  EXPECT_THAT(y.data(), ElementsAre(1, 1, 1, -1, -1, -1));
}

} // namespace
} // namespace tilesat::onnx::testing
