// MaxPool's Indices output and MaxUnpool (onnx/src/unpool.cpp): values worked by hand from the
// ONNX operator spec, both of MaxUnpool's placements, and errors naming what is wrong. ONNX's
// own node tests (ctest onnx_conformance) check the rest.
#include "test_util.h"

#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// [2, 1, 4, 4]: plane 0 counts 0..15, plane 1 is plane 0 reversed.
Tensor two_planes() {
  std::vector<float> v(32);
  for (int i = 0; i < 16; ++i) {
    v[static_cast<size_t>(i)] = static_cast<float>(i);
    v[static_cast<size_t>(16 + i)] = static_cast<float>(15 - i);
  }
  return T({2, 1, 4, 4}, v);
}

OnnxModel pool_and_unpool(int64_t storage_order) {
  OnnxModel m;
  m.input("x", {2, 1, 4, 4});
  ::onnx::NodeProto* p = m.node("MaxPool", {"x"}, {"y", "i"});
  OnnxModel::attr(p, "kernel_shape", std::vector<int64_t>{2, 2});
  OnnxModel::attr(p, "strides", std::vector<int64_t>{2, 2});
  if (storage_order) OnnxModel::attr(p, "storage_order", storage_order);
  ::onnx::NodeProto* u = m.node("MaxUnpool", {"y", "i"}, {"u"});
  OnnxModel::attr(u, "kernel_shape", std::vector<int64_t>{2, 2});
  OnnxModel::attr(u, "strides", std::vector<int64_t>{2, 2});
  m.output("i", ::onnx::TensorProto::INT64);
  m.output("u");
  return m;
}

TEST(Unpool, MaxPoolIndicesAreFlatOverTheWholeTensor) {
  // Plane 0's maxima are each window's bottom right (5, 7, 13, 15), plane 1's its top left
  // (16 + 0, 2, 8, 10).
  ImportedModel im = import(pool_and_unpool(0));
  EXPECT_THAT(run(im, {{"x", two_planes()}}, 0).data(), ElementsAre(5, 7, 13, 15, 16, 18, 24, 26));
  // Column major: row r, column c of plane p at p * 16 + c * 4 + r.
  ImportedModel cm = import(pool_and_unpool(1));
  EXPECT_THAT(run(cm, {{"x", two_planes()}}, 0).data(), ElementsAre(5, 13, 7, 15, 16, 24, 18, 26));
}

TEST(Unpool, UnpoolPutsEachMaximumBack) {
  // The windows tile the input: each tap compares the index with its place, no one-hot.
  ImportedModel im = import(pool_and_unpool(0));
  EXPECT_EQ(count_ops(im.graph, OpKind::Sum), 0u);
  Tensor u = run(im, {{"x", two_planes()}}, 1);
  EXPECT_THAT(u.data(), ElementsAre(0, 0, 0, 0, 0, 5, 0, 7, 0, 0, 0, 0, 0, 13, 0, 15,   //
                                    15, 0, 13, 0, 0, 0, 0, 0, 7, 0, 5, 0, 0, 0, 0, 0)); //
}

TEST(Unpool, FirstTapHoldingTheMaximumWins) {
  // All equal under a 3x3 window, stride 1, padding 1: the first tap inside the input.
  OnnxModel m;
  m.input("x", {1, 1, 2, 2});
  ::onnx::NodeProto* p = m.node("MaxPool", {"x"}, {"y", "i"});
  OnnxModel::attr(p, "kernel_shape", std::vector<int64_t>{3, 3});
  OnnxModel::attr(p, "pads", std::vector<int64_t>{1, 1, 1, 1});
  m.output("y");
  m.output("i", ::onnx::TensorProto::INT64);
  Tensor i = run(import(m), {{"x", T({1, 1, 2, 2}, {1, 1, 1, 1})}}, 1);
  EXPECT_THAT(i.data(), ElementsAre(0, 0, 0, 0));
}

TEST(Unpool, RuntimeIndicesScatterPerPlane) {
  // Indices as a graph input (any places): [1, 2, 2, 2] values into [1, 2, 3, 3]; plane 1's
  // indices start at 9. Two values landing on one place (equal, as max pooling's are) once.
  OnnxModel m;
  m.input("x", {1, 2, 2, 2});
  m.input("i", {1, 2, 2, 2}, ::onnx::TensorProto::INT64);
  m.int_initializer("shape", {4}, {1, 2, 3, 3});
  ::onnx::NodeProto* u = m.node("MaxUnpool", {"x", "i", "shape"}, {"u"});
  OnnxModel::attr(u, "kernel_shape", std::vector<int64_t>{2, 2});
  m.output("u", std::vector<int64_t>{1, 2, 3, 3});
  Tensor y = run(import(m), {{"x", T({1, 2, 2, 2}, {1, 2, 3, 3, 4, 5, 6, 7})},
                             {"i", T({1, 2, 2, 2}, {0, 4, 8, 8, 9, 10, 11, 17}, DType::I32)}});
  EXPECT_THAT(y.data(), ElementsAre(1, 0, 0, 0, 2, 0, 0, 0, 3,   //
                                    4, 5, 6, 0, 0, 0, 0, 0, 7)); //
}

TEST(Unpool, ErrorsNameWhatIsWrong) {
  OnnxModel m;
  m.input("x", {1, 1, 2, 2});
  m.input("i", {1, 1, 2, 1}, ::onnx::TensorProto::INT64);
  ::onnx::NodeProto* u = m.node("MaxUnpool", {"x", "i"}, {"u"});
  OnnxModel::attr(u, "kernel_shape", std::vector<int64_t>{2, 2});
  m.output("u", std::vector<int64_t>{1, 1, 3, 3});
  EXPECT_THAT(import_error(m), HasSubstr("expected indices of the input's shape"));
}

} // namespace
} // namespace tilesat::onnx::testing
