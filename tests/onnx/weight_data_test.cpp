// Weights as the importer keeps them: f32 values decoded once, moved into the imported model
// when they become arguments, and still readable by converters that fold them afterwards.
#include "test_util.h"

#include <cstring>
#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;

// A float initializer given as raw little-endian bytes, as exporters write them.
::onnx::TensorProto raw_float(const std::string& name, const std::vector<int64_t>& dims,
                              const std::vector<float>& values) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(::onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  t.set_raw_data(bytes);
  return t;
}

TEST(WeightData, RawAndFloat16WeightsKeepEveryBit) {
  // Values that do not survive a careless conversion: a subnormal, a tiny and a huge one.
  const std::vector<float> w = {0.1f, 1e-40f, -3.4e38f, 7.0f};
  OnnxModel m;
  m.input("x", {1, 2});
  *m.graph().add_initializer() = raw_float("w", {2, 2}, w);
  ::onnx::TensorProto* h = m.graph().add_initializer();
  h->set_name("h");
  h->set_data_type(::onnx::TensorProto::FLOAT16);
  h->add_dims(2);
  h->add_dims(1);
  h->add_int32_data(0x3c00); // 1
  h->add_int32_data(0xc100); // -2.5
  m.input("x2", {1, 2});
  m.node("MatMul", {"x", "w"}, {"y"});
  OnnxModel::attr(m.node("Cast", {"h"}, {"hf"}), "to", int64_t{::onnx::TensorProto::FLOAT});
  m.node("MatMul", {"x2", "hf"}, {"z"});
  m.output("y");
  m.output("z");
  ImportedModel im = import(m);
  ASSERT_EQ(im.weights.count("w"), 1u);
  EXPECT_EQ(std::memcmp(im.weights.at("w").data().data(), w.data(), w.size() * sizeof(float)), 0);
  EXPECT_THAT(run(im, {{"x", T({1, 2}, {0, 0})}, {"x2", T({1, 2}, {1, 2})}}, 1).data(),
              ElementsAre(1 - 2 * 2.5f));
}

TEST(WeightData, AWeightIsFoldedAfterItBecameAnArgument) {
  // w is first a conv's weight argument (its values move into the model), then read again by
  // the BatchNormalization fold of a second conv: y1 = conv, y2 = conv - 2 (as in
  // Conv.BatchNormIsFoldedIntoTheConv).
  OnnxModel m;
  m.input("x", {1, 1, 3, 3});
  *m.graph().add_initializer() = raw_float("w", {1, 1, 2, 2}, {1, 0, 0, 1});
  m.initializer("s", {1}, {2});
  m.initializer("b", {1}, {1});
  m.initializer("mean", {1}, {3});
  m.initializer("var", {1}, {3});
  m.node("Conv", {"x", "w"}, {"y1"});
  m.node("Conv", {"x", "w"}, {"c"});
  OnnxModel::attr_f(m.node("BatchNormalization", {"c", "s", "b", "mean", "var"}, {"y2"}), "epsilon",
                    1.0f);
  m.output("y1");
  m.output("y2");
  ImportedModel im = import(m);
  EXPECT_THAT(im.weights.at("w").data(), ElementsAre(1, 0, 0, 1));
  EXPECT_THAT(im.weights.at("w.bn_folded").data(), ElementsAre(1, 0, 0, 1));
  const Tensor x = T({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_THAT(run(im, {{"x", x}}, 0).data(), ElementsAre(6, 8, 12, 14));
  EXPECT_THAT(run(im, {{"x", x}}, 1).data(), ElementsAre(4, 6, 10, 12));
}

TEST(WeightData, AnInt8WeightIsDequantizedToF32) {
  // DequantizeLinear of an int8 initializer is computed at import into an f32 weight.
  OnnxModel m;
  m.input("x", {1, 2});
  ::onnx::TensorProto* q = m.graph().add_initializer();
  q->set_name("q");
  q->set_data_type(::onnx::TensorProto::INT8);
  q->add_dims(2);
  q->add_dims(1);
  q->add_int32_data(-128);
  q->add_int32_data(5);
  m.initializer("scale", {}, {0.5f});
  m.node("DequantizeLinear", {"q", "scale"}, {"w"});
  m.node("MatMul", {"x", "w"}, {"y"});
  m.output("y");
  EXPECT_THAT(run(import(m), {{"x", T({1, 2}, {1, 2})}}).data(), ElementsAre(-64 + 5));
}

} // namespace
} // namespace tilesat::onnx::testing
