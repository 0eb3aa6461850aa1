// Round, QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (onnx/src/quantize.cpp):
// values worked by hand from the ONNX operator spec, the folding of an int8 weight into a float
// one, and errors naming what is wrong. ONNX's own node tests (ctest onnx_conformance) check
// the rest.
#include "test_util.h"

#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// An 8-bit initializer (int8 or uint8) with the given values.
void int8_initializer(OnnxModel& m, const std::string& name, const std::vector<int64_t>& dims,
                      const std::vector<int32_t>& values, bool is_unsigned = false) {
  ::onnx::TensorProto* t = m.graph().add_initializer();
  t->set_name(name);
  t->set_data_type(is_unsigned ? ::onnx::TensorProto::UINT8 : ::onnx::TensorProto::INT8);
  for (int64_t d : dims) t->add_dims(d);
  for (int32_t v : values) t->add_int32_data(v);
}

TEST(Quantize, RoundTakesHalvesToEven) {
  OnnxModel m;
  m.input("x", {10});
  m.node("Round", {"x"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  Tensor y =
      run(im, {{"x", T({10}, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 0.4f, -0.6f, 2.51f, -7.0f})}});
  EXPECT_THAT(y.data(), ElementsAre(-2, -2, 0, 0, 2, 2, 0, -1, 3, -7));
}

TEST(Quantize, QuantizeLinearPerAxisSaturatesToInt8) {
  // Scales 0.5 and 2 along axis 1, zero points 1 and -3: y = clamp(round(x / s) + zp).
  OnnxModel m;
  m.input("x", {2, 2});
  m.initializer("s", {2}, {0.5f, 2.0f});
  int8_initializer(m, "zp", {2}, {1, -3});
  ::onnx::NodeProto* n = m.node("QuantizeLinear", {"x", "s", "zp"}, {"y"});
  OnnxModel::attr(n, "axis", int64_t{1});
  m.output("y", ::onnx::TensorProto::INT8);
  ImportedModel im = import(m);
  Tensor y = run(im, {{"x", T({2, 2}, {1.25f, 5.0f, 100.0f, -300.0f})}});
  EXPECT_EQ(y.type().dtype, DType::I32);
  // 1.25 / 0.5 = 2.5 -> 2 (even) + 1 = 3; 5 / 2 = 2.5 -> 2 - 3 = -1; 200 + 1 saturates at 127;
  // -150 - 3 saturates at -128.
  EXPECT_THAT(y.data(), ElementsAre(3, -1, 127, -128));
}

TEST(Quantize, QuantizeLinearDefaultsToUint8) {
  OnnxModel m;
  m.input("x", {3});
  m.initializer("s", {}, {0.1f});
  m.node("QuantizeLinear", {"x", "s"}, {"y"});
  m.output("y", ::onnx::TensorProto::UINT8);
  Tensor y = run(import(m), {{"x", T({3}, {-1.0f, 0.26f, 30.0f})}});
  EXPECT_THAT(y.data(), ElementsAre(0, 3, 255));
}

TEST(Quantize, DequantizedInt8WeightIsAFloatWeight) {
  // W (int8, per output channel scales) dequantized at import: the graph reads one f32 weight
  // holding (q - zp) * scale, with no quantization ops left.
  OnnxModel m;
  m.input("x", {1, 2});
  int8_initializer(m, "wq", {2, 2}, {10, -20, 30, 127});
  m.initializer("ws", {2}, {0.5f, 0.25f});
  int8_initializer(m, "wzp", {2}, {0, 1});
  ::onnx::NodeProto* n = m.node("DequantizeLinear", {"wq", "ws", "wzp"}, {"w"});
  OnnxModel::attr(n, "axis", int64_t{1});
  m.node("MatMul", {"x", "w"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_EQ(count_ops(im.graph, OpKind::Typecast), 0u);
  ASSERT_EQ(im.weights.size(), 1u);
  // Columns: scale 0.5 zp 0, scale 0.25 zp 1.
  EXPECT_THAT(im.weights.begin()->second.data(), ElementsAre(5, -5.25, 15, 31.5));
  EXPECT_THAT(run(im, {{"x", T({1, 2}, {1, 2})}}).data(), ElementsAre(35, 57.75));
}

TEST(Quantize, QuantizeDequantizePairOnAnActivation) {
  // uint8 with scale 0.25 and zero point 4: representable values are (q - 4) / 4 in [-1, 62.75].
  OnnxModel m;
  m.input("x", {4});
  m.initializer("s", {}, {0.25f});
  int8_initializer(m, "zp", {}, {4}, /*is_unsigned=*/true);
  m.node("QuantizeLinear", {"x", "s", "zp"}, {"q"});
  m.node("DequantizeLinear", {"q", "s", "zp"}, {"y"});
  m.output("y");
  Tensor y = run(import(m), {{"x", T({4}, {0.3f, -5.0f, 0.125f, 70.0f})}});
  // 0.3 -> 1.2 -> 1 -> 0.25; -5 saturates at -1; 0.125 -> 0.5 -> 0 (even) -> 0; 70 saturates.
  EXPECT_THAT(y.data(), ElementsAre(0.25, -1, 0, 62.75));
}

TEST(Quantize, DynamicQuantizeLinearWidensTheRangeToZero) {
  OnnxModel m;
  m.input("x", {3});
  m.node("DynamicQuantizeLinear", {"x"}, {"y", "scale", "zp"});
  m.output("y", ::onnx::TensorProto::UINT8);
  m.output("scale");
  m.output("zp", ::onnx::TensorProto::UINT8);
  ImportedModel im = import(m);
  std::map<std::string, Tensor> in{{"x", T({3}, {0.0f, 2.55f, 5.1f})}};
  // min widens to 0: scale 5.1 / 255 = 0.02, zero point 0.
  EXPECT_NEAR(run(im, in, 1).data()[0], 0.02, 1e-7);
  EXPECT_THAT(run(im, in, 2).data(), ElementsAre(0));
  EXPECT_THAT(run(im, in, 0).data(), ElementsAre(0, 128, 255));
}

TEST(Quantize, ErrorsNameWhatIsWrong) {
  OnnxModel wrong_len;
  wrong_len.input("x", {2, 3});
  wrong_len.initializer("s", {2}, {1, 2});
  wrong_len.node("DequantizeLinear", {"x", "s"}, {"y"});
  wrong_len.output("y");
  EXPECT_THAT(import_error(wrong_len),
              HasSubstr("expected 'x_scale' to have one element or 3 (input dim 1), got shape 2"));

  OnnxModel float_zp;
  float_zp.input("x", {2});
  float_zp.initializer("s", {}, {1});
  float_zp.initializer("zp", {}, {0});
  float_zp.node("QuantizeLinear", {"x", "s", "zp"}, {"y"});
  float_zp.output("y");
  EXPECT_THAT(import_error(float_zp), HasSubstr("expected an integer quantized type"));
}

} // namespace
} // namespace tilesat::onnx::testing
