// Tests of the Conv, BatchNormalization and pooling converters against hand-computed values.
#include "test_util.h"

#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;

Tensor image3x3() {
  return T({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
}

TEST(Conv, PadsAndStrides) {
  OnnxModel m;
  m.input("x", {1, 1, 3, 3});
  m.initializer("w", {1, 1, 2, 2}, {1, 0, 0, 1});
  ::onnx::NodeProto* n = m.node("Conv", {"x", "w"}, {"y"});
  OnnxModel::attr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
  OnnxModel::attr(n, "strides", std::vector<int64_t>{2, 2});
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_EQ(count_ops(im.graph, OpKind::Conv2d), 1u);
  // Windows at (-1, -1), (-1, 1), (1, -1), (1, 1) of the diagonal kernel.
  EXPECT_THAT(run(im, {{"x", image3x3()}}).data(), ElementsAre(1, 3, 7, 14));
}

TEST(Conv, GroupsAndSameUpper) {
  OnnxModel m;
  m.input("x", {1, 2, 1, 1});
  m.initializer("w", {2, 1, 1, 1}, {3, 4});
  m.initializer("b", {2}, {1, 1});
  ::onnx::NodeProto* n = m.node("Conv", {"x", "w", "b"}, {"y"});
  OnnxModel::attr(n, "group", 2);
  OnnxModel::attr_s(n, "auto_pad", "SAME_UPPER");
  m.output("y");
  EXPECT_THAT(run(import(m), {{"x", T({1, 2, 1, 1}, {1, 2})}}).data(), ElementsAre(4, 9));
}

TEST(Conv, BatchNormIsFoldedIntoTheConv) {
  // BN with scale 2, B 1, mean 3, var 3, epsilon 1: (conv - 3) * 2 / sqrt(4) + 1 = conv - 2.
  OnnxModel m;
  m.input("x", {1, 1, 3, 3});
  m.initializer("w", {1, 1, 2, 2}, {1, 0, 0, 1});
  m.initializer("s", {1}, {2});
  m.initializer("b", {1}, {1});
  m.initializer("mean", {1}, {3});
  m.initializer("var", {1}, {3});
  m.node("Conv", {"x", "w"}, {"c"});
  OnnxModel::attr_f(m.node("BatchNormalization", {"c", "s", "b", "mean", "var"}, {"y"}), "epsilon",
                    1.0f);
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_EQ(im.graph.num_ops(), 1u);
  EXPECT_EQ(count_ops(im.graph, OpKind::Conv2d), 1u);
  EXPECT_EQ(im.weights.count("w.bn_folded"), 1u);
  EXPECT_EQ(im.weights.count("w"), 0u);
  EXPECT_THAT(run(im, {{"x", image3x3()}}).data(), ElementsAre(4, 6, 10, 12));
}

TEST(Conv, StandaloneBatchNorm) {
  // a = scale / sqrt(var + 1) = [1, 1]; y = (x - mean) * a + B = [(1 - 1) + 0, (2 - 0) + 1].
  OnnxModel m;
  m.input("x", {1, 2, 1, 1});
  m.initializer("s", {2}, {1, 2});
  m.initializer("b", {2}, {0, 1});
  m.initializer("mean", {2}, {1, 0});
  m.initializer("var", {2}, {0, 3});
  OnnxModel::attr_f(m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"}), "epsilon",
                    1.0f);
  m.output("y");
  EXPECT_THAT(run(import(m), {{"x", T({1, 2, 1, 1}, {1, 2})}}).data(), ElementsAre(0, 3));
}

TEST(Pool, MaxPoolCeilModeAndAveragePoolWithPadding) {
  OnnxModel m;
  m.input("x", {1, 1, 3, 3});
  ::onnx::NodeProto* mp = m.node("MaxPool", {"x"}, {"y"});
  OnnxModel::attr(mp, "kernel_shape", std::vector<int64_t>{2, 2});
  OnnxModel::attr(mp, "strides", std::vector<int64_t>{2, 2});
  OnnxModel::attr(mp, "ceil_mode", 1);
  m.output("y");
  EXPECT_THAT(run(import(m), {{"x", image3x3()}}).data(), ElementsAre(5, 6, 8, 9));
  OnnxModel a;
  a.input("x", {1, 1, 3, 3});
  ::onnx::NodeProto* ap = a.node("AveragePool", {"x"}, {"y"});
  OnnxModel::attr(ap, "kernel_shape", std::vector<int64_t>{2, 2});
  OnnxModel::attr(ap, "strides", std::vector<int64_t>{2, 2});
  OnnxModel::attr(ap, "pads", std::vector<int64_t>{1, 1, 1, 1});
  OnnxModel::attr(ap, "count_include_pad", 1);
  a.output("y");
  EXPECT_THAT(run(import(a), {{"x", image3x3()}}).data(),
              Pointwise(FloatNear(1e-6), {0.25f, 1.25f, 2.75f, 7.0f}));
}

TEST(Conv, OneDimensionalConvBatchNormAndPools) {
  // x = 1..6 over one channel; kernel (1, 2) with pads 1 and stride 2: windows (0, 1), (2, 3),
  // (4, 5), (6, 0) -> 2, 3 + 4, 5 + 6 ... = [2, 7, 11, 6]... with weights 1 and 2:
  // 0 + 2 = 2, 2 + 6 = 8, 4 + 10 = 14, 6 + 0 = 6; then BN (scale 1, B 1, mean 0, var 0,
  // epsilon 1) adds 1 and folds into the conv; then a max pool of 2 and an average pool of 2.
  OnnxModel m;
  m.input("x", {1, 1, 6});
  m.initializer("w", {1, 1, 2}, {1, 2});
  m.initializer("s", {1}, {1});
  m.initializer("b", {1}, {1});
  m.initializer("mean", {1}, {0});
  m.initializer("var", {1}, {0});
  ::onnx::NodeProto* n = m.node("Conv", {"x", "w"}, {"c"});
  OnnxModel::attr(n, "pads", std::vector<int64_t>{1, 1});
  OnnxModel::attr(n, "strides", std::vector<int64_t>{2});
  OnnxModel::attr_f(m.node("BatchNormalization", {"c", "s", "b", "mean", "var"}, {"y"}), "epsilon",
                    1.0f);
  ::onnx::NodeProto* mp = m.node("MaxPool", {"y"}, {"p"});
  OnnxModel::attr(mp, "kernel_shape", std::vector<int64_t>{2});
  ::onnx::NodeProto* ap = m.node("AveragePool", {"y"}, {"a"});
  OnnxModel::attr(ap, "kernel_shape", std::vector<int64_t>{2});
  OnnxModel::attr(ap, "strides", std::vector<int64_t>{2});
  m.output("y");
  m.output("p");
  m.output("a");
  ImportedModel im = import(m);
  EXPECT_EQ(im.weights.count("w.bn_folded"), 1u);
  Tensor x = T({1, 1, 6}, {1, 2, 3, 4, 5, 6});
  Tensor y = run(im, {{"x", x}}, 0);
  EXPECT_EQ(y.shape(), Shape({1, 1, 4}));
  EXPECT_THAT(y.data(), ElementsAre(3, 9, 15, 7));
  EXPECT_THAT(run(im, {{"x", x}}, 1).data(), ElementsAre(9, 15, 15));
  EXPECT_THAT(run(im, {{"x", x}}, 2).data(), ElementsAre(6, 11));
}

TEST(Conv, OneDimensionalWindowAttributesMustBeOneDimensional) {
  OnnxModel m;
  m.input("x", {1, 1, 6});
  m.initializer("w", {1, 1, 2}, {1, 2});
  ::onnx::NodeProto* n = m.node("Conv", {"x", "w"}, {"y"});
  OnnxModel::attr(n, "strides", std::vector<int64_t>{1, 1});
  m.output("y", std::vector<int64_t>{1, 1, 5});
  EXPECT_THAT(
      import_error(m),
      ::testing::HasSubstr("expected a 1-D window (1 kernel dims, strides and dilations, 2 pads)"));
}

// Frames 1..4, 5..8, 9..12 of one channel, 2x2 each.
Tensor video() {
  std::vector<float> v(12);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i + 1);
  return T({1, 1, 3, 2, 2}, v);
}

TEST(Conv, ThreeDimensionalConvSumsItsDepthTaps) {
  // Depth kernel [1, 10] with one frame of padding before: y_t = x_{t-1} + 10 x_t + 0.5.
  OnnxModel m;
  m.input("x", {1, 1, 3, 2, 2});
  m.initializer("w", {1, 1, 2, 1, 1}, {1, 10});
  m.initializer("b", {1}, {0.5f});
  ::onnx::NodeProto* n = m.node("Conv", {"x", "w", "b"}, {"y"});
  OnnxModel::attr(n, "pads", std::vector<int64_t>{1, 0, 0, 0, 0, 0});
  m.output("y");
  Tensor y = run(import(m), {{"x", video()}});
  EXPECT_EQ(y.shape(), Shape({1, 1, 3, 2, 2}));
  EXPECT_THAT(y.data(), ElementsAre(10.5, 20.5, 30.5, 40.5, 51.5, 62.5, 73.5, 84.5, 95.5, 106.5,
                                    117.5, 128.5));
}

TEST(Pool, ThreeDimensionalMaxAndAveragePools) {
  OnnxModel m;
  m.input("x", {1, 1, 3, 2, 2});
  ::onnx::NodeProto* mp = m.node("MaxPool", {"x"}, {"max"});
  OnnxModel::attr(mp, "kernel_shape", std::vector<int64_t>{2, 2, 2});
  for (int64_t include : {0, 1}) {
    // Depth windows of two frames with one frame of padding before.
    ::onnx::NodeProto* ap = m.node("AveragePool", {"x"}, {include ? "avg_pad" : "avg"});
    OnnxModel::attr(ap, "kernel_shape", std::vector<int64_t>{2, 1, 1});
    OnnxModel::attr(ap, "pads", std::vector<int64_t>{1, 0, 0, 0, 0, 0});
    OnnxModel::attr(ap, "count_include_pad", include);
  }
  m.output("max");
  m.output("avg");
  m.output("avg_pad");
  ImportedModel im = import(m);
  EXPECT_THAT(run(im, {{"x", video()}}, 0).data(), ElementsAre(8, 12));
  // Pixel (0, 0) is 1, 5, 9 over the frames: the first window holds only frame 0.
  Tensor avg = run(im, {{"x", video()}}, 1);
  EXPECT_EQ(avg.shape(), Shape({1, 1, 3, 2, 2}));
  EXPECT_THAT(avg.data()[0], 1);
  EXPECT_THAT(avg.data()[4], 3);
  EXPECT_THAT(avg.data()[8], 7);
  EXPECT_THAT(run(im, {{"x", video()}}, 2).data()[0], 0.5);
}

TEST(Lrn, SumsSquaresOverNeighbouringChannels) {
  // size 2: each channel's window is itself and the next (floor(1 / 2) = 0 before, 1 after);
  // alpha 2 (alpha / size = 1), beta 1, bias 1: y = x / (1 + x_c^2 + x_{c+1}^2).
  OnnxModel m;
  m.input("x", {1, 3, 1, 1});
  ::onnx::NodeProto* n = m.node("LRN", {"x"}, {"y"});
  OnnxModel::attr(n, "size", int64_t{2});
  OnnxModel::attr_f(n, "alpha", 2.0f);
  OnnxModel::attr_f(n, "beta", 1.0f);
  m.output("y");
  // x = 1, 2, 3: 1 / (1 + 1 + 4), 2 / (1 + 4 + 9), 3 / (1 + 9).
  EXPECT_THAT(run(import(m), {{"x", T({1, 3, 1, 1}, {1, 2, 3})}}).data(),
              Pointwise(FloatNear(1e-6), {1.0f / 6, 2.0f / 14, 3.0f / 10}));
}

TEST(Conv, ZeroStrideIsAnErrorBeforeOnnxShapeInference) {
  // libonnx 1.12's shape inference divides by the stride unchecked (found by fuzz_onnx_import).
  OnnxModel m;
  m.input("x", {1, 1, 3, 3});
  m.initializer("w", {1, 1, 2, 2}, {1, 0, 0, 1});
  OnnxModel::attr(m.node("Conv", {"x", "w"}, {"y"}), "strides", std::vector<int64_t>{0, 2});
  m.output("y", std::vector<int64_t>{1, 1, 2, 2});
  EXPECT_EQ(import_error(m), "error: test.onnx: node 0 'Conv_0' (Conv): expected 'strides' to be "
                             "a list of ints in [1, 2^20], got [0, 2]");
}

} // namespace
} // namespace tilesat::onnx::testing
