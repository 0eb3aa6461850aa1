// DFT, STFT and the window ops (onnx/src/spectral.cpp): values worked by hand from the ONNX
// operator spec, STFT's two framings checked against a direct sum, the power spectrum computed
// without the [..., bins, 2] tensor, and errors naming what is wrong. ONNX's own node tests
// (ctest onnx_conformance) and tests/models/spectrogram_test.py check the rest.
#include "test_util.h"

#include <cmath>
#include <complex>
#include <gmock/gmock.h>
#include <numbers>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

// Every value of `t` within 1e-4 of `want`.
void expect_near(const Tensor& t, const std::vector<float>& want) {
  EXPECT_THAT(t.data(), Pointwise(FloatNear(1e-4f), want));
}

TEST(Spectral, DftOfARealSignal) {
  // fft([1, 2, 3, 4]) = [10, -2 + 2i, -2, -2 - 2i].
  OnnxModel m;
  m.input("x", {1, 4, 1});
  m.node("DFT", {"x"}, {"y"});
  m.output("y", {1, 4, 2});
  Tensor y = run(import(m), {{"x", T({1, 4, 1}, {1, 2, 3, 4})}});
  EXPECT_EQ(y.type().shape, Shape({1, 4, 2}));
  expect_near(y, {10, 0, -2, 2, -2, 0, -2, -2});
}

TEST(Spectral, DftOnesidedWithAPaddedLength) {
  // dft_length 6 pads [1, 2, 3, 4] with two zeros; onesided keeps bins 0..3:
  // X_k = sum_n x_n e^{-i pi k n / 3}: X_1 = -1.5 - 6.0622i (1 + 2w + 3w^2 + 4w^3, w = e^{-i
  // pi/3}), X_2 = 1.5 + 0.8660i, X_3 = 1 - 2 + 3 - 4 = -2.
  OnnxModel m;
  m.input("x", {1, 4, 1});
  m.int_initializer("n", {}, {6});
  ::onnx::NodeProto* n = m.node("DFT", {"x", "n"}, {"y"});
  OnnxModel::attr(n, "onesided", int64_t{1});
  m.output("y", {1, 4, 2});
  Tensor y = run(import(m), {{"x", T({1, 4, 1}, {1, 2, 3, 4})}});
  expect_near(y, {10, 0, -3.5f, -4.3301270f, 2.5f, 0.8660254f, -2, 0});
}

TEST(Spectral, InverseDftOfAComplexSignal) {
  // ifft([10, -2 + 2i, -2, -2 - 2i]) = [1, 2, 3, 4].
  OnnxModel m;
  m.input("x", {1, 4, 2});
  ::onnx::NodeProto* n = m.node("DFT", {"x"}, {"y"});
  OnnxModel::attr(n, "inverse", int64_t{1});
  m.output("y", {1, 4, 2});
  Tensor y = run(import(m), {{"x", T({1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2})}});
  expect_near(y, {1, 0, 2, 0, 3, 0, 4, 0});
}

TEST(Spectral, DftAlongAnEarlierAxis) {
  // Along axis 0 of [[a, b, c], [d, e, f]]: X_0 = row 0 + row 1, X_1 = row 0 - row 1.
  OnnxModel m;
  m.input("x", {2, 3, 1});
  ::onnx::NodeProto* n = m.node("DFT", {"x"}, {"y"});
  OnnxModel::attr(n, "axis", int64_t{0});
  m.output("y", {2, 3, 2});
  Tensor y = run(import(m), {{"x", T({2, 3, 1}, {1, 2, 3, 10, 20, 30})}});
  expect_near(y, {11, 0, 22, 0, 33, 0, -9, 0, -18, 0, -27, 0});
}

// STFT of [1, 2, 3, 4, 5, 6], frames of 4 every 2 samples under a runtime window [1, 0, 1, 0]:
// frame 0 reads [1, 0, 3, 0] (X = 4, 1 - 3, 4), frame 1 [3, 0, 5, 0] (X = 8, -2, 8).
OnnxModel windowed_stft(const std::string& then) {
  OnnxModel m;
  m.input("x", {1, 6, 1});
  m.input("w", {4});
  m.int_initializer("step", {}, {2});
  m.node("STFT", {"x", "step", "w"}, {"s"});
  if (then == "ReduceSumSquare") {
    ::onnx::NodeProto* r = m.node("ReduceSumSquare", {"s"}, {"y"});
    OnnxModel::attr(r, "axes", std::vector<int64_t>{-1});
    OnnxModel::attr(r, "keepdims", int64_t{0});
  } else if (then == "Pow") {
    m.initializer("two", {}, {2.0f});
    m.int_initializer("last", {1}, {3});
    m.node("Pow", {"s", "two"}, {"p"});
    m.node("ReduceSum", {"p", "last"}, {"y"});
  } else {
    m.node("Identity", {"s"}, {"y"});
  }
  // Declared: libonnx 1.12's shape inference gets STFT's wrong.
  m.output("y", then == "ReduceSumSquare" ? std::vector<int64_t>{1, 2, 3}
                : then == "Pow"           ? std::vector<int64_t>{1, 2, 3, 1}
                                          : std::vector<int64_t>{1, 2, 3, 2});
  return m;
}

TEST(Spectral, StftWithARuntimeWindow) {
  Tensor y = run(import(windowed_stft("")),
                 {{"x", T({1, 6, 1}, {1, 2, 3, 4, 5, 6})}, {"w", T({4}, {1, 0, 1, 0})}});
  EXPECT_EQ(y.type().shape, Shape({1, 2, 3, 2}));
  expect_near(y, {4, 0, -2, 0, 4, 0, 8, 0, -2, 0, 8, 0});
}

TEST(Spectral, PowerSpectrumSkipsTheComplexLayout) {
  // |X|^2 over the last axis, as ReduceSumSquare or as Pow(., 2) then ReduceSum (keepdims):
  // computed from the planar product, so no transpose to [..., bins, 2] remains.
  for (const char* then : {"ReduceSumSquare", "Pow"}) {
    SCOPED_TRACE(then);
    ImportedModel im = import(windowed_stft(then));
    EXPECT_EQ(count_ops(im.graph, OpKind::Transpose), 0u);
    Tensor y = run(im, {{"x", T({1, 6, 1}, {1, 2, 3, 4, 5, 6})}, {"w", T({4}, {1, 0, 1, 0})}});
    EXPECT_EQ(y.type().shape.numel(), 6);
    expect_near(y, {16, 4, 16, 64, 4, 64});
  }
}

// The STFT of `x` (real) by a direct sum: [frames, length / 2 + 1, 2].
std::vector<float> direct_stft(const std::vector<float>& x, int64_t length, int64_t step) {
  std::vector<float> out;
  for (int64_t f = 0; f * step + length <= static_cast<int64_t>(x.size()); ++f)
    for (int64_t k = 0; k <= length / 2; ++k) {
      std::complex<double> sum = 0;
      for (int64_t n = 0; n < length; ++n)
        sum += static_cast<double>(x[static_cast<size_t>(f * step + n)]) *
               std::polar(1.0, -2.0 * std::numbers::pi * static_cast<double>(k * n) /
                                   static_cast<double>(length));
      out.push_back(static_cast<float>(sum.real()));
      out.push_back(static_cast<float>(sum.imag()));
    }
  return out;
}

TEST(Spectral, StftFramingsAgreeWithADirectSum) {
  // Frames of 12 every 8 (4-sample blocks, 3 strided slices) and of 67 every 2 (gcd 1: 67
  // slices, past the limit, so a strided conv).
  std::vector<float> x(200);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(0.3f * static_cast<float>(i)) + 0.01f * static_cast<float>(i % 7);
  for (auto [length, step] : {std::pair<int64_t, int64_t>{12, 8}, {67, 2}}) {
    SCOPED_TRACE(length);
    OnnxModel m;
    m.input("x", {1, 200, 1});
    m.int_initializer("step", {}, {step});
    m.int_initializer("length", {}, {length});
    m.node("STFT", {"x", "step", "", "length"}, {"y"});
    m.output("y", {1, (200 - length) / step + 1, length / 2 + 1, 2});
    ImportedModel im = import(m);
    EXPECT_EQ(count_ops(im.graph, OpKind::Conv2d), length == 67 ? 1u : 0u);
    Tensor y = run(im, {{"x", T({1, 200, 1}, x)}});
    std::vector<float> want = direct_stft(x, length, step);
    ASSERT_EQ(y.data().size(), want.size());
    EXPECT_THAT(y.data(), Pointwise(FloatNear(2e-3f), want));
  }
}

TEST(Spectral, WindowsArePeriodicOrSymmetric) {
  OnnxModel m;
  m.int_initializer("four", {}, {4});
  m.int_initializer("five", {}, {5});
  m.node("HannWindow", {"four"}, {"hann"});
  ::onnx::NodeProto* n = m.node("HannWindow", {"five"}, {"symmetric"});
  OnnxModel::attr(n, "periodic", int64_t{0});
  m.node("BlackmanWindow", {"four"}, {"blackman"});
  m.output("hann", std::vector<int64_t>{4});
  m.output("symmetric", std::vector<int64_t>{5});
  m.output("blackman", std::vector<int64_t>{4});
  ImportedModel im = import(m);
  expect_near(run(im, {}, 0), {0, 0.5f, 1, 0.5f});
  expect_near(run(im, {}, 1), {0, 0.5f, 1, 0.5f, 0});
  // 0.42 - 0.5 cos(pi n / 2) + 0.08 cos(pi n).
  expect_near(run(im, {}, 2), {0, 0.34f, 1, 0.34f});
}

TEST(Spectral, ErrorsNameWhatIsWrong) {
  OnnxModel complex_onesided;
  complex_onesided.input("x", {1, 4, 2});
  ::onnx::NodeProto* n = complex_onesided.node("DFT", {"x"}, {"y"});
  OnnxModel::attr(n, "onesided", int64_t{1});
  complex_onesided.output("y", std::vector<int64_t>{1, 3, 2});
  EXPECT_THAT(import_error(complex_onesided), HasSubstr("expected a real signal"));

  OnnxModel last_axis;
  last_axis.input("x", {1, 4, 1});
  n = last_axis.node("DFT", {"x"}, {"y"});
  OnnxModel::attr(n, "axis", int64_t{2});
  last_axis.output("y", std::vector<int64_t>{1, 4, 2});
  EXPECT_THAT(import_error(last_axis), HasSubstr("not the last (real/imaginary) one"));

  OnnxModel mismatch;
  mismatch.input("x", {1, 16, 1});
  mismatch.initializer("w", {4}, {1, 1, 1, 1});
  mismatch.int_initializer("step", {}, {2});
  mismatch.int_initializer("length", {}, {8});
  mismatch.node("STFT", {"x", "step", "w", "length"}, {"y"});
  mismatch.output("y", std::vector<int64_t>{1, 7, 3, 2});
  EXPECT_THAT(import_error(mismatch), HasSubstr("'frame_length' 8 to equal the window's length 4"));

  OnnxModel too_long;
  too_long.input("x", {1, 6, 1});
  too_long.int_initializer("step", {}, {1});
  too_long.int_initializer("length", {}, {8});
  too_long.node("STFT", {"x", "step", "", "length"}, {"y"});
  too_long.output("y", std::vector<int64_t>{1, 1, 5, 2});
  EXPECT_THAT(import_error(too_long), HasSubstr("frame length from 1 to the signal's 6, got 8"));
}

} // namespace
} // namespace tilesat::onnx::testing
