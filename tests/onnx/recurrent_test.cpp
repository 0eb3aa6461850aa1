// LSTM, GRU and RNN (onnx/src/recurrent.cpp): values worked by hand from the ONNX operator
// spec's equations (ONNX's own node tests, run by ctest onnx_conformance, check the rest), the
// unrolled ops, and errors naming the attribute or input that is wrong.
#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

float sigmoid(float x) {
  return 1.0f / (1.0f + std::exp(-x));
}

// RNN with one input and one hidden unit: h_t = relu(x_t + 0.5 h_{t-1}), batch of two with
// sequence lengths 3 and 2.
OnnxModel relu_rnn(const std::string& direction) {
  OnnxModel m;
  m.input("x", {3, 2, 1});
  m.initializer("w", {1, 1, 1}, {1});
  m.initializer("r", {1, 1, 1}, {0.5});
  // sequence_lens is int32.
  ::onnx::TensorProto* lens = m.graph().add_initializer();
  lens->set_name("lens");
  lens->set_data_type(::onnx::TensorProto::INT32);
  lens->add_dims(2);
  lens->add_int32_data(3);
  lens->add_int32_data(2);
  ::onnx::NodeProto* n = m.node("RNN", {"x", "w", "r", "", "lens"}, {"y", "y_h"});
  OnnxModel::attr(n, "hidden_size", int64_t{1});
  OnnxModel::attr_s(n, "direction", direction);
  ::onnx::AttributeProto* a = n->add_attribute();
  a->set_name("activations");
  a->set_type(::onnx::AttributeProto::STRINGS);
  a->add_strings("Relu");
  m.output("y");
  m.output("y_h");
  return m;
}

TEST(Rnn, SequenceLengthsKeepTheStateAndZeroTheOutput) {
  // x[t][b]: t0 = (1, 2), t1 = (3, 4), t2 = (5, 6).
  Tensor x = T({3, 2, 1}, {1, 2, 3, 4, 5, 6});
  ImportedModel im = import(relu_rnn("forward"));
  Tensor y = run(im, {{"x", x}}, 0);
  Tensor y_h = run(im, {{"x", x}}, 1);
  // b0: 1, 3 + 0.5 = 3.5, 5 + 1.75 = 6.75; b1: 2, 4 + 1 = 5, then past its length.
  EXPECT_EQ(y.shape(), Shape({3, 1, 2, 1}));
  EXPECT_THAT(y.data(), ElementsAre(1, 2, 3.5, 5, 6.75, 0));
  EXPECT_THAT(y_h.data(), ElementsAre(6.75, 5));

  // Reverse: each item runs from its last step down; b1 starts at t1.
  ImportedModel rev = import(relu_rnn("reverse"));
  Tensor ry = run(rev, {{"x", x}}, 0);
  // b0: t2 = 5, t1 = 3 + 2.5 = 5.5, t0 = 1 + 2.75 = 3.75; b1: t2 skipped, t1 = 4, t0 = 2 + 2 = 4.
  EXPECT_THAT(ry.data(), ElementsAre(3.75, 4, 5.5, 4, 5, 0));
  EXPECT_THAT(run(rev, {{"x", x}}, 1).data(), ElementsAre(3.75, 4));
}

// One step of an LSTM with one unit into `m`: gate weights W = [2, -1, 7, 0.25] (i, o, f, c),
// no recurrence, h0 = 0, c0 = 2, and peepholes P when given; outputs y, y_h, y_c.
::onnx::NodeProto* one_step_lstm(OnnxModel& m, std::optional<std::vector<float>> peepholes) {
  m.input("x", {1, 1, 1});
  m.initializer("w", {1, 4, 1}, {2, -1, 7, 0.25});
  m.initializer("r", {1, 4, 1}, {0, 0, 0, 0});
  m.initializer("h0", {1, 1, 1}, {0});
  m.initializer("c0", {1, 1, 1}, {2});
  std::vector<std::string> inputs{"x", "w", "r", "", "", "h0", "c0"};
  if (peepholes) {
    m.initializer("p", {1, 3}, *peepholes);
    inputs.push_back("p");
  }
  ::onnx::NodeProto* n = m.node("LSTM", inputs, {"y", "y_h", "y_c"});
  m.output("y");
  m.output("y_h");
  m.output("y_c");
  return n;
}

TEST(Lstm, ClipInputForgetAndTheCellOutput) {
  // One step, one unit: gates i, o, f, c = x * W (x = 1); clip 0.5 bounds the input of every
  // activation (the gates, and the cell state h reads, which itself stays unclipped);
  // input_forget makes f = 1 - i.
  OnnxModel m;
  ::onnx::NodeProto* n = one_step_lstm(m, std::nullopt);
  OnnxModel::attr_f(n, "clip", 0.5f);
  OnnxModel::attr(n, "input_forget", int64_t{1});
  ImportedModel im = import(m);
  Tensor x = T({1, 1, 1}, {1});
  float i = sigmoid(0.5f), o = sigmoid(-0.5f), f = 1 - i, cand = std::tanh(0.25f);
  float c = f * 2 + i * cand;
  EXPECT_THAT(run(im, {{"x", x}}, 2).data(), Pointwise(FloatNear(1e-6), std::vector<float>{c}));
  EXPECT_THAT(run(im, {{"x", x}}, 1).data(),
              Pointwise(FloatNear(1e-6), std::vector<float>{o * std::tanh(std::min(c, 0.5f))}));
  // One input product for the whole sequence and one recurrent product per step.
  EXPECT_EQ(count_ops(im.graph, OpKind::Matmul), 2u);
}

TEST(Lstm, InputForgetWithPeepholesLeavesTheForgetPeepholeUnread) {
  // One step, one unit, c0 = 2, P = [p_i, p_o, p_f] = [1, 0.5, 100]: i = sigmoid(2 + 1 * 2),
  // f = 1 - i (p_f unread), the cell c = 2 f + i tanh(0.25), o = sigmoid(-1 + 0.5 c).
  OnnxModel m;
  ::onnx::NodeProto* n = one_step_lstm(m, std::vector<float>{1, 0.5, 100});
  OnnxModel::attr(n, "input_forget", int64_t{1});
  ImportedModel im = import(m);
  Tensor x = T({1, 1, 1}, {1});
  float i = sigmoid(4.0f), c = (1 - i) * 2 + i * std::tanh(0.25f), o = sigmoid(-1 + 0.5f * c);
  EXPECT_THAT(run(im, {{"x", x}}, 2).data(), Pointwise(FloatNear(1e-6), std::vector<float>{c}));
  EXPECT_THAT(run(im, {{"x", x}}, 1).data(),
              Pointwise(FloatNear(1e-6), std::vector<float>{o * std::tanh(c)}));
}

TEST(Gru, LinearBeforeResetMovesTheResetGate) {
  // One step, one unit, h0 = 1: z = sigmoid(x wz + h rz), r = sigmoid(x wr + h rr), and the
  // candidate tanh(x wh + r * (h rh + rbh)) with linear_before_reset, else
  // tanh(x wh + (r h) rh + rbh).
  for (int64_t lbr : {0, 1}) {
    OnnxModel m;
    m.input("x", {1, 1, 1});
    m.initializer("w", {1, 3, 1}, {0.5, -0.25, 1});
    m.initializer("r", {1, 3, 1}, {0.1, 0.2, 0.3});
    m.initializer("b", {1, 6}, {0, 0, 0, 0, 0, 0.4});
    m.initializer("h0", {1, 1, 1}, {1});
    ::onnx::NodeProto* n = m.node("GRU", {"x", "w", "r", "b", "", "h0"}, {"", "y_h"});
    OnnxModel::attr(n, "linear_before_reset", lbr);
    m.output("y_h");
    Tensor x = T({1, 1, 1}, {2});
    float z = sigmoid(2 * 0.5f + 0.1f), r = sigmoid(2 * -0.25f + 0.2f);
    float cand =
        lbr ? std::tanh(2 * 1.0f + r * (0.3f + 0.4f)) : std::tanh(2 * 1.0f + r * 0.3f + 0.4f);
    float h = (1 - z) * cand + z * 1;
    EXPECT_THAT(run(import(m), {{"x", x}}).data(),
                Pointwise(FloatNear(1e-6), std::vector<float>{h}))
        << "linear_before_reset " << lbr;
  }
}

TEST(Recurrent, BadAttributesAndInputsAreNamed) {
  auto with = [](auto edit) {
    OnnxModel m = relu_rnn("forward");
    edit(m);
    return import_error(m);
  };
  EXPECT_THAT(with([](OnnxModel& m) {
                OnnxModel::attr_s(m.graph().mutable_node(0), "direction", "sideways");
              }),
              HasSubstr("'direction'"));
  EXPECT_THAT(with([](OnnxModel& m) { m.graph().mutable_node(0)->mutable_attribute(0)->set_i(4); }),
              HasSubstr("'hidden_size' 4 does not match R's last dim 1"));
  EXPECT_THAT(with([](OnnxModel& m) {
                m.graph().mutable_node(0)->mutable_attribute(2)->set_strings(0, "Cube");
              }),
              HasSubstr("unsupported activation \"Cube\""));
  EXPECT_THAT(with([](OnnxModel& m) { m.graph().mutable_initializer(2)->set_int32_data(1, 4); }),
              HasSubstr("'sequence_lens' entry in [1, 3], got 4"));
  // Lengths only known when the model runs cannot be unrolled.
  OnnxModel runtime;
  runtime.input("x", {3, 2, 1});
  runtime.input("lens", {2}, ::onnx::TensorProto::INT32);
  runtime.initializer("w", {1, 1, 1}, {1});
  runtime.initializer("r", {1, 1, 1}, {0.5});
  OnnxModel::attr(runtime.node("RNN", {"x", "w", "r", "", "lens"}, {"y"}), "hidden_size",
                  int64_t{1});
  runtime.output("y");
  EXPECT_THAT(import_error(runtime), HasSubstr("'sequence_lens') to be known at import time"));
}

} // namespace
} // namespace tilesat::onnx::testing
