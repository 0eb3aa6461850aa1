// Models of opsets 18 to 21, newer than libonnx 1.12 knows (onnx/src/load.cpp checks their
// unchanged ops against opset 17's schemas and leaves the changed ones to their converters):
// the changed forms (axes as inputs, Split's num_outputs, Resize's axes, DFT's axis input) and
// the new ops (GroupNormalization, Mish, Gelu), values worked by hand.
#include "test_util.h"

#include <cmath>
#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

TEST(LaterOpsets, ReduceMeanAxesAndSplitNumOutputs) {
  OnnxModel m(18);
  m.input("x", {2, 4});
  m.int_initializer("axes", {1}, {1});
  m.node("ReduceMean", {"x", "axes"}, {"mean"});
  ::onnx::NodeProto* split = m.node("Split", {"x"}, {"a", "b"});
  OnnxModel::attr(split, "axis", int64_t{1});
  OnnxModel::attr(split, "num_outputs", int64_t{2});
  m.output("mean", std::vector<int64_t>{2, 1});
  m.output("b", std::vector<int64_t>{2, 2});
  ImportedModel im = import(m);
  Tensor x = T({2, 4}, {1, 2, 3, 6, 0, 0, 4, 4});
  EXPECT_THAT(run(im, {{"x", x}}, 0).data(), ElementsAre(3, 2));
  EXPECT_THAT(run(im, {{"x", x}}, 1).data(), ElementsAre(3, 6, 4, 4));
}

TEST(LaterOpsets, GroupNormalizationPerGroupThenPerChannel) {
  // Channels [1, 3], [5, 7] form group 0 (mean 4, variance 5), [0, 0], [2, 2] group 1 (mean 1,
  // variance 1).
  std::vector<float> x = {1, 3, 5, 7, 0, 0, 2, 2};
  const float r5 = 1.0f / std::sqrt(5.0f + 1e-5f), r1 = 1.0f / std::sqrt(1.0f + 1e-5f);
  for (int64_t opset : {18, 21}) {
    SCOPED_TRACE(opset);
    OnnxModel m(opset);
    m.input("x", {1, 4, 2});
    // Opset 18: scale 2 and 1, bias 1 and 0 per group; 21: the same per channel.
    if (opset == 18) {
      m.initializer("scale", {2}, {2, 1});
      m.initializer("bias", {2}, {1, 0});
    } else {
      m.initializer("scale", {4}, {2, 2, 1, 1});
      m.initializer("bias", {4}, {1, 1, 0, 0});
    }
    ::onnx::NodeProto* n = m.node("GroupNormalization", {"x", "scale", "bias"}, {"y"});
    OnnxModel::attr(n, "num_groups", int64_t{2});
    m.output("y", std::vector<int64_t>{1, 4, 2});
    EXPECT_THAT(run(import(m), {{"x", T({1, 4, 2}, x)}}).data(),
                Pointwise(FloatNear(1e-5f),
                          {-6 * r5 + 1, -2 * r5 + 1, 2 * r5 + 1, 6 * r5 + 1, -r1, -r1, r1, r1}));
  }
}

TEST(LaterOpsets, MishAndGelu) {
  OnnxModel m(20);
  m.input("x", {3});
  m.node("Mish", {"x"}, {"mish"});
  ::onnx::NodeProto* g = m.node("Gelu", {"x"}, {"gelu"});
  OnnxModel::attr_s(g, "approximate", "tanh");
  m.output("mish", std::vector<int64_t>{3});
  m.output("gelu", std::vector<int64_t>{3});
  ImportedModel im = import(m);
  Tensor x = T({3}, {0, 1, -2});
  auto mish = [](double v) { return static_cast<float>(v * std::tanh(std::log1p(std::exp(v)))); };
  auto gelu = [](double v) {
    return static_cast<float>(0.5 * v *
                              (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
  };
  EXPECT_THAT(run(im, {{"x", x}}, 0).data(),
              Pointwise(FloatNear(1e-5f), {0.0f, mish(1), mish(-2)}));
  EXPECT_THAT(run(im, {{"x", x}}, 1).data(),
              Pointwise(FloatNear(1e-5f), {0.0f, gelu(1), gelu(-2)}));
}

TEST(LaterOpsets, ResizeAxesAndDftAxisInput) {
  OnnxModel m(20);
  m.input("x", {1, 1, 1, 2});
  m.initializer("scales", {2}, {2, 2});
  ::onnx::NodeProto* r = m.node("Resize", {"x", "", "scales"}, {"up"});
  OnnxModel::attr(r, "axes", std::vector<int64_t>{2, 3});
  m.input("s", {1, 2, 1});
  m.int_initializer("axis", {}, {1});
  m.node("DFT", {"s", "", "axis"}, {"spectrum"});
  m.output("up", std::vector<int64_t>{1, 1, 2, 4});
  m.output("spectrum", std::vector<int64_t>{1, 2, 2});
  ImportedModel im = import(m);
  std::map<std::string, Tensor> in{{"x", T({1, 1, 1, 2}, {1, 2})}, {"s", T({1, 2, 1}, {3, 1})}};
  EXPECT_THAT(run(im, in, 0).data(), ElementsAre(1, 1, 2, 2, 1, 1, 2, 2));
  // fft([3, 1]) = [4, 2].
  EXPECT_THAT(run(im, in, 1).data(), Pointwise(FloatNear(1e-6f), {4.0f, 0.0f, 2.0f, 0.0f}));
}

TEST(LaterOpsets, UnchangedOpsAreStillCheckedAndNewerOpsetsRejected) {
  OnnxModel relu(18);
  relu.input("x", {2});
  relu.node("Relu", {"x", "x"}, {"y"});
  relu.output("y", std::vector<int64_t>{2});
  EXPECT_THAT(import_error(relu), HasSubstr("Relu): Node (Relu_0) has input size 2 not in range"));
  OnnxModel newer(22);
  newer.input("x", {2});
  newer.node("Relu", {"x"}, {"y"});
  newer.output("y", std::vector<int64_t>{2});
  EXPECT_THAT(import_error(newer), HasSubstr("expected ai.onnx opset 1 to 21, got 22"));
  OnnxModel antialias(18);
  antialias.input("x", {1, 1, 4, 4});
  antialias.initializer("scales", {4}, {1, 1, 0.5f, 0.5f});
  ::onnx::NodeProto* r = antialias.node("Resize", {"x", "", "scales"}, {"y"});
  OnnxModel::attr_s(r, "mode", "linear");
  OnnxModel::attr(r, "antialias", int64_t{1});
  antialias.output("y", std::vector<int64_t>{1, 1, 2, 2});
  EXPECT_THAT(import_error(antialias), HasSubstr("expected 'antialias' 0"));
}

} // namespace
} // namespace tilesat::onnx::testing
