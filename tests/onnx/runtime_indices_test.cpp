// TopK (onnx/src/composite.cpp) and GatherElements / ScatterElements with runtime indices
// (onnx/src/runtime_indices.cpp): the ONNX spec's examples and ties worked by hand.
#include "test_util.h"

#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

OnnxModel top_k(int64_t k, int64_t largest) {
  OnnxModel m;
  m.input("x", {2, 4});
  m.int_initializer("k", {1}, {k});
  ::onnx::NodeProto* n = m.node("TopK", {"x", "k"}, {"v", "i"});
  OnnxModel::attr(n, "largest", largest);
  m.output("v", std::vector<int64_t>{2, k});
  m.output("i", std::vector<int64_t>{2, k});
  m.graph().mutable_output(1)->mutable_type()->mutable_tensor_type()->set_elem_type(
      ::onnx::TensorProto::INT64);
  return m;
}

TEST(TopK, EqualValuesComeInIndexOrder) {
  Tensor x = T({2, 4}, {3, 1, 3, 2, -1, -5, 0, -5});
  ImportedModel big = import(top_k(3, 1));
  EXPECT_THAT(run(big, {{"x", x}}, 0).data(), ElementsAre(3, 3, 2, 0, -1, -5));
  EXPECT_THAT(run(big, {{"x", x}}, 1).data(), ElementsAre(0, 2, 3, 2, 0, 1));
  ImportedModel small = import(top_k(2, 0));
  EXPECT_THAT(run(small, {{"x", x}}, 0).data(), ElementsAre(1, 2, -5, -5));
  EXPECT_THAT(run(small, {{"x", x}}, 1).data(), ElementsAre(1, 3, 1, 3));
  EXPECT_THAT(import_error(top_k(5, 1)),
              HasSubstr("expected 'K' in [0, 4] (the axis' extent), got 5"));
}

TEST(RuntimeIndices, GatherElements) {
  // The spec's example with a negative index: data [[1, 2], [3, 4]], indices [[0, 0], [1, 0]]
  // along axis 1 -> [[1, 1], [4, 3]]; -1 picks the last.
  OnnxModel m;
  m.input("data", {2, 2});
  m.input("idx", {2, 2}, ::onnx::TensorProto::INT64);
  OnnxModel::attr(m.node("GatherElements", {"data", "idx"}, {"y"}), "axis", int64_t{1});
  m.output("y");
  ImportedModel im = import(m);
  Tensor data = T({2, 2}, {1, 2, 3, 4});
  EXPECT_THAT(run(im, {{"data", data}, {"idx", T({2, 2}, {0, 0, 1, 0}, DType::I32)}}).data(),
              ElementsAre(1, 1, 4, 3));
  EXPECT_THAT(run(im, {{"data", data}, {"idx", T({2, 2}, {-1, 0, 0, -1}, DType::I32)}}).data(),
              ElementsAre(2, 1, 3, 4));
}

OnnxModel scatter(const std::vector<int64_t>& data, const std::vector<int64_t>& idx, int64_t axis,
                  const std::string& reduction) {
  OnnxModel m;
  m.input("data", data);
  m.input("idx", idx, ::onnx::TensorProto::INT64);
  m.input("upd", idx);
  ::onnx::NodeProto* n = m.node("ScatterElements", {"data", "idx", "upd"}, {"y"});
  OnnxModel::attr(n, "axis", axis);
  OnnxModel::attr_s(n, "reduction", reduction);
  m.output("y");
  return m;
}

TEST(RuntimeIndices, ScatterElements) {
  // The spec's example: zeros 3x3, indices [[1, 0, 2], [0, 2, 1]] along axis 0.
  ImportedModel none = import(scatter({3, 3}, {2, 3}, 0, "none"));
  Tensor y = run(none, {{"data", T({3, 3}, std::vector<float>(9, 0.0f))},
                        {"idx", T({2, 3}, {1, 0, 2, 0, 2, 1}, DType::I32)},
                        {"upd", T({2, 3}, {1, 1.1f, 1.2f, 2, 2.1f, 2.2f})}});
  EXPECT_THAT(y.data(),
              Pointwise(FloatNear(1e-6), {2.0f, 1.1f, 0.0f, 1.0f, 0.0f, 2.2f, 0.0f, 2.1f, 1.2f}));
  // reduction add, a repeated index along axis 1: [[1, 2, 3, 4, 5]] + 1.1 + 2.1 at 1.
  ImportedModel add = import(scatter({1, 5}, {1, 2}, 1, "add"));
  y = run(add, {{"data", T({1, 5}, {1, 2, 3, 4, 5})},
                {"idx", T({1, 2}, {1, 1}, DType::I32)},
                {"upd", T({1, 2}, {1.1f, 2.1f})}});
  EXPECT_THAT(y.data(), Pointwise(FloatNear(1e-6), {1.0f, 5.2f, 3.0f, 4.0f, 5.0f}));
  EXPECT_THAT(import_error(scatter({3, 3}, {2, 2}, 0, "none")),
              HasSubstr("expected runtime indices to match the data's dim 1 (3), got 2"));
  EXPECT_THAT(import_error(scatter({3, 3}, {2, 3}, 0, "mul")),
              HasSubstr("expected reduction 'none' or 'add' with runtime indices, got 'mul'"));
}

TEST(RuntimeIndices, ReverseSequence) {
  // Batch-major [3, 4, 2] (time_axis 1), runtime lengths 4, 2, 1: entry 0 reversed whole,
  // entry 1 its first two steps, entry 2 unchanged; the trailing dim moves with its step.
  OnnxModel m;
  m.input("x", {3, 4, 2});
  m.input("lens", {3}, ::onnx::TensorProto::INT64);
  ::onnx::NodeProto* n = m.node("ReverseSequence", {"x", "lens"}, {"y"});
  OnnxModel::attr(n, "time_axis", int64_t{1});
  OnnxModel::attr(n, "batch_axis", int64_t{0});
  m.output("y", std::vector<int64_t>{3, 4, 2});
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  Tensor y = run(import(m), {{"x", T({3, 4, 2}, x)}, {"lens", T({3}, {4, 2, 1}, DType::I32)}});
  EXPECT_THAT(y.data(), ElementsAre(6, 7, 4, 5, 2, 3, 0, 1,           // 0..3 reversed
                                    10, 11, 8, 9, 12, 13, 14, 15,     // 0..1 reversed
                                    16, 17, 18, 19, 20, 21, 22, 23)); // as it was

  OnnxModel bad = m;
  bad.graph().mutable_node(0)->mutable_attribute(0)->set_i(2); // time_axis
  EXPECT_THAT(import_error(bad), HasSubstr("expected time_axis and batch_axis 0 and 1"));
}

} // namespace
} // namespace tilesat::onnx::testing
