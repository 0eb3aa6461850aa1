// Pad, Trilu, HardSigmoid, HardSwish, Mod, Not, ScatterND and identity Dropout (onnx/src/
// padding_masks.cpp): values as the ONNX operator spec gives them, and the ops they become.
#include "test_util.h"

#include <cmath>
#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

size_t count_ops(const Graph& g, OpKind kind) {
  size_t n = 0;
  for (NodeId id = 0; id < g.num_nodes(); ++id) n += g.node(id).kind == kind;
  return n;
}

Tensor pad(const std::string& mode, std::vector<int64_t> pads, float value = 0) {
  OnnxModel m;
  m.input("x", {2, 3});
  m.int_initializer("pads", {4}, pads);
  m.constant("v", {}, {value});
  ::onnx::NodeProto* n = m.node("Pad", {"x", "pads", "v"}, {"y"});
  OnnxModel::attr_s(n, "mode", mode);
  m.output("y");
  return run(import(m), {{"x", T({2, 3}, {1, 2, 3, 4, 5, 6})}});
}

TEST(Pad, ConstantEdgeReflect) {
  // pads = [begin dim0, begin dim1, end dim0, end dim1].
  Tensor c = pad("constant", {0, 1, 1, 0}, 9);
  EXPECT_EQ(c.shape(), Shape({3, 4}));
  EXPECT_THAT(c.data(), ElementsAre(9, 1, 2, 3, 9, 4, 5, 6, 9, 9, 9, 9));
  Tensor e = pad("edge", {0, 2, 0, 1});
  EXPECT_THAT(e.data(), ElementsAre(1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6));
  // reflect: [3, 2, | 1, 2, 3, | 2] for row 1 2 3.
  Tensor r = pad("reflect", {0, 2, 0, 1});
  EXPECT_THAT(r.data(), ElementsAre(3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5));
  // Negative pads crop.
  Tensor crop = pad("constant", {0, -1, 0, 0});
  EXPECT_THAT(crop.data(), ElementsAre(2, 3, 5, 6));
}

TEST(Pad, BecomesDeviceOpsAndRejectsBadInput) {
  OnnxModel m;
  m.input("x", {2, 3});
  m.int_initializer("pads", {4}, {0, 1, 0, 1});
  ::onnx::NodeProto* n = m.node("Pad", {"x", "pads"}, {"y"});
  OnnxModel::attr_s(n, "mode", "edge");
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_EQ(count_ops(im.graph, OpKind::Take), 1u);
  OnnxModel bad;
  bad.input("x", {2, 3});
  bad.int_initializer("pads", {4}, {0, 3, 0, 0});
  ::onnx::NodeProto* b = bad.node("Pad", {"x", "pads"}, {"y"});
  OnnxModel::attr_s(b, "mode", "reflect");
  bad.output("y");
  EXPECT_THAT(import_error(bad), HasSubstr("reflect pads of dim 1 must be smaller than its "
                                           "extent 3, got 3 and 0"));
}

TEST(Trilu, UpperAndLowerWithK) {
  for (int64_t upper : {1, 0}) {
    OnnxModel m;
    m.input("x", {3, 3});
    m.int_initializer("k", {}, {upper ? 1 : 0});
    ::onnx::NodeProto* n = m.node("Trilu", {"x", "k"}, {"y"});
    OnnxModel::attr(n, "upper", upper);
    m.output("y");
    Tensor y = run(import(m), {{"x", T({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})}});
    if (upper)
      EXPECT_THAT(y.data(), ElementsAre(0, 2, 3, 0, 0, 6, 0, 0, 0));
    else
      EXPECT_THAT(y.data(), ElementsAre(1, 0, 0, 4, 5, 0, 7, 8, 9));
  }
}

TEST(Trilu, KeepsInfinityOutOfTheZeroedPart) {
  // A causal mask: triu(full(-inf), 1) is -inf above the diagonal and exactly 0 elsewhere.
  OnnxModel m;
  m.input("x", {2, 2});
  m.int_initializer("k", {}, {1});
  m.node("Trilu", {"x", "k"}, {"y"});
  m.output("y");
  float inf = std::numeric_limits<float>::infinity();
  Tensor y = run(import(m), {{"x", T({2, 2}, {-inf, -inf, -inf, -inf})}});
  EXPECT_EQ(y.data()[0], 0);
  EXPECT_EQ(y.data()[1], -inf);
  EXPECT_EQ(y.data()[2], 0);
  EXPECT_EQ(y.data()[3], 0);
}

TEST(HardSigmoid, AndHardSwish) {
  OnnxModel m;
  m.input("x", {4});
  m.node("HardSigmoid", {"x"}, {"h"});
  m.node("HardSwish", {"x"}, {"s"});
  m.output("h");
  m.output("s");
  ImportedModel im = import(m);
  Tensor x = T({4}, {-4, -1, 0.5f, 4});
  // HardSigmoid: max(0, min(1, 0.2 x + 0.5)); HardSwish: x * max(0, min(1, x / 6 + 0.5)).
  EXPECT_THAT(run(im, {{"x", x}}, 0).data(), Pointwise(FloatNear(1e-6), {0.0f, 0.3f, 0.6f, 1.0f}));
  EXPECT_THAT(run(im, {{"x", x}}, 1).data(),
              Pointwise(FloatNear(1e-6), {0.0f, -1.0f / 3, 0.5f * (0.5f / 6 + 0.5f), 4.0f}));
}

TEST(IndexOps, ModNotScatterNdFoldAtImport) {
  OnnxModel m;
  m.input("x", {4});
  m.int_initializer("a", {4}, {-7, 7, -7, 7});
  m.int_initializer("b", {4}, {3, 3, -3, -3});
  m.node("Mod", {"a", "b"}, {"r"}); // fmod 0: the divisor's sign, as Python's %
  m.node("Cast", {"r"}, {"rf"})->add_attribute()->CopyFrom([] {
    ::onnx::AttributeProto a;
    a.set_name("to");
    a.set_type(::onnx::AttributeProto::INT);
    a.set_i(::onnx::TensorProto::FLOAT);
    return a;
  }());
  m.constant("data", {2, 2}, {0, 0, 0, 0});
  m.int_initializer("idx", {1, 1}, {1});
  m.constant("upd", {1, 2}, {5, 6});
  m.node("ScatterND", {"data", "idx", "upd"}, {"s"});
  m.node("Reshape", {"s", "shape"}, {"sf"});
  m.int_initializer("shape", {1}, {4});
  m.node("Add", {"x", "rf"}, {"y0"});
  m.node("Add", {"y0", "sf"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  // -7 % 3 = 2, 7 % 3 = 1, -7 % -3 = -1, 7 % -3 = -2; the scatter writes row 1.
  EXPECT_THAT(run(im, {{"x", T({4}, {0, 0, 0, 0})}}).data(), ElementsAre(2, 1, 4, 4));
  // Mod of runtime values: fmod=1 for floats (C's fmod), and float fmod=0 is refused.
  OnnxModel runtime;
  runtime.input("x", {4});
  runtime.constant("d", {4}, {3, 3, -3, -3});
  ::onnx::NodeProto* mod = runtime.node("Mod", {"x", "d"}, {"y"});
  OnnxModel::attr(mod, "fmod", int64_t{1});
  runtime.output("y");
  EXPECT_THAT(run(import(runtime), {{"x", T({4}, {-7, 7.5, -7, 7})}}).data(),
              ElementsAre(-1, 1.5, -1, 1));
  OnnxModel floor_mod;
  floor_mod.input("x", {2});
  floor_mod.constant("d", {2}, {2, 2});
  floor_mod.node("Mod", {"x", "d"}, {"y"});
  floor_mod.output("y");
  EXPECT_THAT(import_error(floor_mod), HasSubstr("expected fmod=1 for floating-point inputs"));
}

TEST(Dropout, RatioZeroInTrainingModeIsTheIdentity) {
  OnnxModel m;
  m.input("x", {3});
  m.constant("ratio", {}, {0});
  ::onnx::NodeProto* t = m.node("Constant", {}, {"training"});
  ::onnx::AttributeProto* a = t->add_attribute();
  a->set_name("value");
  a->set_type(::onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(::onnx::TensorProto::BOOL);
  a->mutable_t()->add_int32_data(1);
  m.node("Dropout", {"x", "ratio", "training"}, {"y", "mask"});
  m.output("y");
  EXPECT_THAT(run(import(m), {{"x", T({3}, {1, 2, 3})}}).data(), ElementsAreArray({1, 2, 3}));
}

} // namespace
} // namespace tilesat::onnx::testing
