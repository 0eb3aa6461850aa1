// QLinearConv, QLinearMatMul, MatMulInteger, ConvInteger and the com.microsoft QOperator ops
// (onnx/src/qlinear.cpp): values worked by hand from the ONNX and ONNX Runtime operator specs
// (zero points, per-channel and per-column scales, bias, rounding half to even, saturation),
// the int8 weight folded into an f32 one, and errors naming what is wrong. ONNX's own node
// tests (ctest onnx_conformance) and tests/models/qoperator_test.py check the rest.
#include "test_util.h"

#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using TP = ::onnx::TensorProto;

// An integer initializer (int8, uint8 or int32) with the given values.
void int_init(OnnxModel& m, const std::string& name, int32_t type, const std::vector<int64_t>& dims,
              const std::vector<int32_t>& values) {
  ::onnx::TensorProto* t = m.graph().add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  for (int32_t v : values) t->add_int32_data(v);
}

// Output `name` of an element type with its shape (ONNX's shape inference does not know the
// com.microsoft ops, so the model declares it).
void typed_output(OnnxModel& m, const std::string& name, int32_t type,
                  const std::vector<int64_t>& dims) {
  m.output(name, dims);
  m.graph()
      .mutable_output(m.graph().output_size() - 1)
      ->mutable_type()
      ->mutable_tensor_type()
      ->set_elem_type(type);
}

// A com.microsoft node.
::onnx::NodeProto* microsoft_node(OnnxModel& m, const std::string& op,
                                  const std::vector<std::string>& inputs, const std::string& out) {
  return m.microsoft_node(op, inputs, {out});
}

Tensor I(Shape s, std::vector<float> v) {
  return T(std::move(s), std::move(v), DType::I32);
}

// QLinearConv with a 1x1 kernel: x uint8 (scale 0.5, zero point 10), w int8 per output channel
// (scales 0.25 and 1, zero points 0 and -1), an int32 bias, y uint8 (scale 0.5, zero point 100).
OnnxModel qlinear_conv_model() {
  OnnxModel m;
  m.input("x", {1, 1, 2, 2}, TP::UINT8);
  m.initializer("xs", {}, {0.5f});
  int_init(m, "xzp", TP::UINT8, {}, {10});
  int_init(m, "w", TP::INT8, {2, 1, 1, 1}, {2, -3});
  m.initializer("ws", {2}, {0.25f, 1.0f});
  int_init(m, "wzp", TP::INT8, {2}, {0, -1});
  m.initializer("ys", {}, {0.5f});
  int_init(m, "yzp", TP::UINT8, {}, {100});
  int_init(m, "B", TP::INT32, {2}, {600, -90});
  m.node("QLinearConv", {"x", "xs", "xzp", "w", "ws", "wzp", "ys", "yzp", "B"}, {"y"});
  typed_output(m, "y", TP::UINT8, {1, 2, 2, 2});
  return m;
}

TEST(QLinear, ConvPerChannelWithBiasRoundsHalvesToEvenAndSaturates) {
  ImportedModel im = import(qlinear_conv_model());
  EXPECT_EQ(count_ops(im.graph, OpKind::Conv2d), 1u);
  // The int8 weight less its zero points, and the bias, as f32 weights.
  EXPECT_THAT(im.weights.at("w.zero_shifted").data(), ElementsAre(2, -2));
  EXPECT_THAT(im.weights.at("B").data(), ElementsAre(600, -90));
  Tensor y = run(im, {{"x", I({1, 1, 2, 2}, {10, 13, 15, 30})}});
  EXPECT_EQ(y.type().dtype, DType::I32);
  // x - 10 = 0, 3, 5, 20. Channel 0: acc = 2 * (x - 10) + 600 = 600, 606, 610, 640, times
  // 0.5 * 0.25 / 0.5 = 0.25: 150, 151.5 -> 152, 152.5 -> 152 (halves to even), 160; + 100,
  // 260 saturating at 255. Channel 1: acc = -2 * (x - 10) - 90, times 1: -90, -96, -100, -130;
  // + 100, -30 saturating at 0.
  EXPECT_THAT(y.data(), ElementsAre(250, 252, 252, 255, 10, 4, 0, 0));
}

TEST(QLinear, MatMulPerColumnToInt8) {
  // a uint8 (scale 0.5, zero point 128), b int8 per column (scales 1 and 0.25, zero points 1
  // and 0), y int8 (scale 1, zero point -10).
  OnnxModel m;
  m.input("a", {2, 2}, TP::UINT8);
  m.initializer("as", {1}, {0.5f});
  int_init(m, "azp", TP::UINT8, {1}, {128});
  int_init(m, "b", TP::INT8, {2, 2}, {1, 2, 3, -4});
  m.initializer("bs", {2}, {1.0f, 0.25f});
  int_init(m, "bzp", TP::INT8, {2}, {1, 0});
  m.initializer("ys", {}, {1.0f});
  int_init(m, "yzp", TP::INT8, {}, {-10});
  m.node("QLinearMatMul", {"a", "as", "azp", "b", "bs", "bzp", "ys", "yzp"}, {"y"});
  typed_output(m, "y", TP::INT8, {2, 2});
  ImportedModel im = import(m);
  EXPECT_EQ(count_ops(im.graph, OpKind::Matmul), 1u);
  Tensor y = run(im, {{"a", I({2, 2}, {130, 126, 255, 0})}});
  // a - 128 = [[2, -2], [127, -128]]; b - zp = [[0, 2], [2, -4]]; acc = [[-4, 12], [-256, 766]];
  // times 0.5 * [1, 0.25] = [0.5, 0.125]: [[-2, 1.5 -> 2], [-128, 95.75 -> 96]]; - 10, -138
  // saturating at -128.
  EXPECT_THAT(y.data(), ElementsAre(-12, -8, -128, 86));
}

TEST(QLinear, MatMulIntegerPerRowZeroPoint) {
  OnnxModel m;
  m.input("A", {2, 2}, TP::UINT8);
  int_init(m, "B", TP::UINT8, {2, 2}, {1, 2, 3, 4});
  int_init(m, "azp", TP::UINT8, {2}, {1, 2});
  m.node("MatMulInteger", {"A", "B", "azp"}, {"Y"});
  typed_output(m, "Y", TP::INT32, {2, 2});
  // A - [1, 2] per row = [[2, 3], [3, 4]]; times [[1, 2], [3, 4]].
  EXPECT_THAT(run(import(m), {{"A", I({2, 2}, {3, 4, 5, 6})}}).data(), ElementsAre(11, 16, 15, 22));
}

TEST(QLinear, ConvIntegerPadsWithTheZeroPoint) {
  OnnxModel m;
  m.input("x", {1, 1, 2, 2}, TP::UINT8);
  int_init(m, "w", TP::UINT8, {1, 1, 2, 2}, {1, 1, 1, 1});
  int_init(m, "xzp", TP::UINT8, {}, {1});
  ::onnx::NodeProto* n = m.node("ConvInteger", {"x", "w", "xzp"}, {"y"});
  OnnxModel::attr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
  typed_output(m, "y", TP::INT32, {1, 1, 3, 3});
  // x - 1 = [[0, 1], [2, 3]], padded with 0 (x's zero point), summed over 2x2 windows.
  EXPECT_THAT(run(import(m), {{"x", I({1, 1, 2, 2}, {1, 2, 3, 4})}}).data(),
              ElementsAre(0, 1, 1, 2, 6, 4, 2, 5, 3));
}

TEST(QLinear, MicrosoftAddDequantizesAddsAndQuantizes) {
  // A (scale 0.5, zero point 4) + B (scale 0.25, zero point 0) to C (scale 1, zero point 10).
  OnnxModel m;
  m.input("a", {4}, TP::UINT8);
  m.input("b", {4}, TP::UINT8);
  m.initializer("as", {}, {0.5f});
  int_init(m, "azp", TP::UINT8, {}, {4});
  m.initializer("bs", {}, {0.25f});
  int_init(m, "bzp", TP::UINT8, {}, {0});
  m.initializer("cs", {}, {1.0f});
  int_init(m, "czp", TP::UINT8, {}, {10});
  microsoft_node(m, "QLinearAdd", {"a", "as", "azp", "b", "bs", "bzp", "cs", "czp"}, "c");
  typed_output(m, "c", TP::UINT8, {4});
  Tensor y = run(import(m), {{"a", I({4}, {4, 10, 255, 4})}, {"b", I({4}, {2, 6, 100, 3})}});
  // 0 + 0.5, 3 + 1.5, 125.5 + 25, 0 + 0.75 -> 0 (half to even), 4, 150, 1; + 10.
  EXPECT_THAT(y.data(), ElementsAre(10, 14, 160, 11));
}

TEST(QLinear, MicrosoftMulSigmoidAndConcat) {
  OnnxModel mul;
  mul.input("a", {2}, TP::UINT8);
  mul.input("b", {2}, TP::UINT8);
  mul.initializer("as", {}, {0.5f});
  int_init(mul, "azp", TP::UINT8, {}, {10});
  mul.initializer("bs", {}, {0.25f});
  int_init(mul, "bzp", TP::UINT8, {}, {1});
  mul.initializer("cs", {}, {1.0f});
  int_init(mul, "czp", TP::UINT8, {}, {5});
  microsoft_node(mul, "QLinearMul", {"a", "as", "azp", "b", "bs", "bzp", "cs", "czp"}, "c");
  typed_output(mul, "c", TP::UINT8, {2});
  // (a - 10) * (b - 1) = 0, 10 * 6 = 60, times 0.5 * 0.25 / 1: 0, 7.5 -> 8; + 5.
  EXPECT_THAT(run(import(mul), {{"a", I({2}, {10, 20})}, {"b", I({2}, {3, 7})}}).data(),
              ElementsAre(5, 13));

  OnnxModel sigmoid;
  sigmoid.input("x", {3}, TP::UINT8);
  sigmoid.initializer("xs", {}, {1.0f});
  int_init(sigmoid, "xzp", TP::UINT8, {}, {128});
  sigmoid.initializer("ys", {}, {1.0f / 256});
  int_init(sigmoid, "yzp", TP::UINT8, {}, {0});
  microsoft_node(sigmoid, "QLinearSigmoid", {"x", "xs", "xzp", "ys", "yzp"}, "y");
  typed_output(sigmoid, "y", TP::UINT8, {3});
  // sigmoid(0, 127, -128) = 0.5, ~1, ~0; times 256: 128, 256 saturating at 255, 0.
  EXPECT_THAT(run(import(sigmoid), {{"x", I({3}, {128, 255, 0})}}).data(),
              ElementsAre(128, 255, 0));

  OnnxModel concat;
  concat.input("x0", {1, 2}, TP::UINT8);
  concat.input("x1", {1, 1}, TP::UINT8);
  concat.initializer("ys", {}, {0.5f});
  int_init(concat, "yzp", TP::UINT8, {}, {0});
  concat.initializer("s0", {}, {0.5f});
  int_init(concat, "zp0", TP::UINT8, {}, {2});
  concat.initializer("s1", {}, {0.25f});
  int_init(concat, "zp1", TP::UINT8, {}, {1});
  ::onnx::NodeProto* n = microsoft_node(concat, "QLinearConcat",
                                        {"ys", "yzp", "x0", "s0", "zp0", "x1", "s1", "zp1"}, "y");
  OnnxModel::attr(n, "axis", int64_t{-1});
  typed_output(concat, "y", TP::UINT8, {1, 3});
  // Real values 1, 2 and 2, at Y's scale 0.5.
  EXPECT_THAT(run(import(concat), {{"x0", I({1, 2}, {4, 6})}, {"x1", I({1, 1}, {9})}}).data(),
              ElementsAre(2, 4, 4));
}

TEST(QLinear, MicrosoftLeakyReluSaturatesToInt8) {
  OnnxModel m;
  m.input("x", {3}, TP::INT8);
  m.initializer("xs", {}, {1.0f});
  m.initializer("ys", {}, {0.25f});
  ::onnx::NodeProto* n = microsoft_node(m, "QLinearLeakyRelu", {"x", "xs", "", "ys"}, "y");
  OnnxModel::attr_f(n, "alpha", 0.5f);
  typed_output(m, "y", TP::INT8, {3});
  // No zero points (0 of x's type, int8): -10 -> -5, 3, 127; / 0.25 -> -20, 12, 508 -> 127.
  EXPECT_THAT(run(import(m), {{"x", I({3}, {-10, 3, 127})}}).data(), ElementsAre(-20, 12, 127));
}

TEST(QLinear, MicrosoftGlobalAveragePoolChannelsLast) {
  OnnxModel m;
  m.input("x", {1, 2, 1, 2}, TP::UINT8); // N, H, W, C
  m.initializer("xs", {}, {1.0f});
  int_init(m, "xzp", TP::UINT8, {}, {0});
  m.initializer("ys", {}, {0.5f});
  int_init(m, "yzp", TP::UINT8, {}, {1});
  ::onnx::NodeProto* n =
      microsoft_node(m, "QLinearGlobalAveragePool", {"x", "xs", "xzp", "ys", "yzp"}, "y");
  OnnxModel::attr(n, "channels_last", int64_t{1});
  typed_output(m, "y", TP::UINT8, {1, 1, 1, 2});
  // Channel means (1 + 3) / 2 = 2 and (2 + 6) / 2 = 4; / 0.5 + 1.
  EXPECT_THAT(run(import(m), {{"x", I({1, 2, 1, 2}, {1, 2, 3, 6})}}).data(), ElementsAre(5, 9));
}

// QGemm: A uint8 [1, 2] = [130, 120] (scale 0.5, zero point 128: [2, -8]) by B int8 [2, 2]
// read transposed ([[3, 1], [-2, 4]], per-column scales 0.1 and 0.2), plus C int32 [10, -5]:
// A' B'^T = [2 * 3 - 8 * 1, 2 * -2 - 8 * 4] = [-2, -36], + C = [8, -41], real values
// 0.5 * [0.1 * 8, 0.2 * -41] = [0.4, -4.1].
OnnxModel qgemm(bool quantized_output) {
  OnnxModel m;
  m.input("a", {1, 2}, TP::UINT8);
  m.initializer("as", {}, {0.5f});
  int_init(m, "az", TP::UINT8, {}, {128});
  int_init(m, "b", TP::INT8, {2, 2}, {3, 1, -2, 4});
  m.initializer("bs", {2}, {0.1f, 0.2f});
  int_init(m, "bz", TP::INT8, {2}, {0, 0});
  int_init(m, "c", TP::INT32, {2}, {10, -5});
  std::vector<std::string> in = {"a", "as", "az", "b", "bs", "bz", "c"};
  if (quantized_output) {
    m.initializer("ys", {}, {0.25f});
    int_init(m, "yz", TP::INT8, {}, {0});
    in.insert(in.end(), {"ys", "yz"});
  }
  ::onnx::NodeProto* n = microsoft_node(m, "QGemm", in, "y");
  OnnxModel::attr(n, "transB", int64_t{1});
  typed_output(m, "y", quantized_output ? TP::INT8 : TP::FLOAT, {1, 2});
  return m;
}

TEST(QLinear, MicrosoftGemmPerColumnWithBias) {
  // Requantized at 0.25: 1.6 -> 2, -16.4 -> -16 (int8).
  EXPECT_THAT(run(import(qgemm(true)), {{"a", I({1, 2}, {130, 120})}}).data(), ElementsAre(2, -16));
  // Without y_scale, the real values.
  Tensor y = run(import(qgemm(false)), {{"a", I({1, 2}, {130, 120})}});
  EXPECT_EQ(y.type().dtype, DType::F32);
  EXPECT_NEAR(y.data()[0], 0.4f, 1e-6f);
  EXPECT_NEAR(y.data()[1], -4.1f, 1e-6f);
}

TEST(QLinear, MicrosoftSoftmax) {
  // [130, 128, 126] less 128 at scale 1: softmax([2, 0, -2]) = [0.86681, 0.11731, 0.01588],
  // at scale 1/256: 221.9, 30.03, 4.06 -> [222, 30, 4].
  OnnxModel m;
  m.input("x", {1, 3}, TP::UINT8);
  m.initializer("xs", {}, {1.0f});
  m.initializer("ys", {}, {1.0f / 256});
  int_init(m, "xz", TP::UINT8, {}, {128});
  int_init(m, "yz", TP::UINT8, {}, {0});
  microsoft_node(m, "QLinearSoftmax", {"x", "xs", "xz", "ys", "yz"}, "y");
  typed_output(m, "y", TP::UINT8, {1, 3});
  EXPECT_THAT(run(import(m), {{"x", I({1, 3}, {130, 128, 126})}}).data(), ElementsAre(222, 30, 4));
}

TEST(QLinear, ErrorsNameWhatIsWrong) {
  OnnxModel zp_type;
  zp_type.input("a", {1, 2}, TP::UINT8);
  zp_type.initializer("s", {}, {1.0f});
  int_init(zp_type, "i8", TP::INT8, {}, {0});
  int_init(zp_type, "u8", TP::UINT8, {}, {0});
  int_init(zp_type, "b", TP::UINT8, {2, 1}, {1, 2});
  zp_type.node("QLinearMatMul", {"a", "s", "i8", "b", "s", "u8", "s", "u8"}, {"y"});
  typed_output(zp_type, "y", TP::UINT8, {1, 1});
  EXPECT_THAT(import_error(zp_type),
              HasSubstr("expected 'a_zero_point' to have the type of 'a' (UINT8), got INT8"));

  OnnxModel scale_len = qlinear_conv_model();
  scale_len.graph().mutable_initializer(3)->clear_float_data();
  scale_len.graph().mutable_initializer(3)->set_dims(0, 3);
  for (float v : {1.0f, 2.0f, 3.0f}) scale_len.graph().mutable_initializer(3)->add_float_data(v);
  EXPECT_THAT(import_error(scale_len),
              HasSubstr("expected 'w_scale' to have one element or 2 (input dim 0), got shape 3"));

  OnnxModel runtime_scale;
  runtime_scale.input("a", {1, 2}, TP::UINT8);
  runtime_scale.input("ys", {});
  runtime_scale.initializer("s", {}, {1.0f});
  int_init(runtime_scale, "u8", TP::UINT8, {}, {0});
  int_init(runtime_scale, "b", TP::UINT8, {2, 1}, {1, 2});
  runtime_scale.node("QLinearMatMul", {"a", "s", "u8", "b", "s", "u8", "ys", "u8"}, {"y"});
  typed_output(runtime_scale, "y", TP::UINT8, {1, 1});
  EXPECT_THAT(import_error(runtime_scale),
              HasSubstr("QLinearMatMul): expected input 6 ('y_scale') to be known at import time"));

  // Only the com.microsoft ops of the QOperator form; those names in ai.onnx are not ops.
  OnnxModel reduce;
  reduce.input("x", {2}, TP::UINT8);
  reduce.initializer("s", {}, {1.0f});
  int_init(reduce, "z", TP::UINT8, {}, {0});
  microsoft_node(reduce, "QLinearReduceMean", {"x", "s", "z", "s", "z"}, "y");
  typed_output(reduce, "y", TP::UINT8, {1});
  EXPECT_THAT(import_error(reduce),
              HasSubstr("unsupported ONNX ops: com.microsoft.QLinearReduceMean (1)"));
  OnnxModel wrong_domain;
  wrong_domain.input("x", {2}, TP::UINT8);
  wrong_domain.initializer("s", {}, {1.0f});
  wrong_domain.node("QLinearSigmoid", {"x", "s", "", "s"}, {"y"});
  typed_output(wrong_domain, "y", TP::UINT8, {2});
  EXPECT_THAT(import_error(wrong_domain), HasSubstr("unsupported ONNX ops: QLinearSigmoid (1)"));

  // ONNX's version converter (opset 10 to 11) takes only ai.onnx ops.
  OnnxModel old(10);
  old.input("x", {2}, TP::UINT8);
  old.initializer("s", {}, {1.0f});
  microsoft_node(old, "QLinearSigmoid", {"x", "s", "", "s"}, "y");
  typed_output(old, "y", TP::UINT8, {2});
  EXPECT_THAT(import_error(old), HasSubstr("(com.microsoft.QLinearSigmoid): ONNX's version "
                                           "converter cannot take a model with ops outside "
                                           "ai.onnx from opset 10 to 11"));
}

} // namespace
} // namespace tilesat::onnx::testing
