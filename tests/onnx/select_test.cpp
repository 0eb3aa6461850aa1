// Tests of the Equal, Less, Greater and Where converters: runtime comparisons, masks folded at
// import time, and values checked against results written out by hand.
#include "test_util.h"

#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;

// y = Cast<float>(op(x, c)) for x = [1, 2, 3] and a constant c = 2.
Tensor compare(const std::string& op) {
  OnnxModel m;
  m.input("x", {3});
  m.constant("c", {}, {2});
  m.node(op, {"x", "c"}, {"b"});
  auto* cast = m.node("Cast", {"b"}, {"y"});
  OnnxModel::attr(cast, "to", int64_t{::onnx::TensorProto::FLOAT});
  m.output("y");
  ImportedModel im = import(m);
  return run(im, {{"x", T({3}, {1, 2, 3})}});
}

TEST(Select, RuntimeComparisons) {
  EXPECT_THAT(compare("Equal").data(), ElementsAre(0, 1, 0));
  EXPECT_THAT(compare("Less").data(), ElementsAre(1, 0, 0));
  EXPECT_THAT(compare("Greater").data(), ElementsAre(0, 0, 1));
}

TEST(Select, WhereOnRuntimeCondition) {
  // y = Where(x > 0, x, -x * 0 - 1): a runtime mask and a scalar constant branch.
  OnnxModel m;
  m.input("x", {2, 2});
  m.constant("zero", {}, {0});
  m.constant("fill", {}, {-1});
  m.node("Greater", {"x", "zero"}, {"pos"});
  m.node("Where", {"pos", "x", "fill"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_THAT(run(im, {{"x", T({2, 2}, {3, -2, 0, 5})}}).data(), ElementsAre(3, -1, -1, 5));
  EXPECT_EQ(count_ops(im.graph, OpKind::Greater), 1u);
  EXPECT_EQ(count_ops(im.graph, OpKind::Where), 1u);
}

TEST(Select, OneElementBranchOfHigherRankKeepsTheRank) {
  // A [1, 1, 1] fill is not a scalar here: the result is [1, 1, 2].
  OnnxModel m;
  m.input("x", {2});
  m.constant("zero", {}, {0});
  m.constant("fill", {1, 1, 1}, {7});
  m.node("Greater", {"x", "zero"}, {"pos"});
  m.node("Where", {"pos", "x", "fill"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  Tensor y = run(im, {{"x", T({2}, {-1, 4})}});
  EXPECT_EQ(y.shape(), (Shape{1, 1, 2}));
  EXPECT_THAT(y.data(), ElementsAre(7, 4));
}

TEST(Select, CausalMaskFoldsAtImport) {
  // mask[i][j] = j <= i, built from constants as exporters do (Less of a row and a column
  // index), then Where(mask, scores, -10000): the comparison folds, one where remains.
  OnnxModel m;
  m.input("s", {2, 2});
  m.int_constant("row", {2, 1}, {0, 1});
  m.int_constant("col", {1, 2}, {0, 1});
  m.constant("neg", {}, {-10000});
  m.node("Greater", {"col", "row"}, {"future"});
  m.node("Where", {"future", "neg", "s"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_THAT(run(im, {{"s", T({2, 2}, {1, 2, 3, 4})}}).data(), ElementsAre(1, -10000, 3, 4));
  EXPECT_EQ(count_ops(im.graph, OpKind::Greater), 0u);
  EXPECT_EQ(count_ops(im.graph, OpKind::Where), 1u);
}

TEST(Select, WhereFoldsWhenAllStatic) {
  // Where on static int64 data (shape arithmetic) folds into the Reshape target.
  OnnxModel m;
  m.input("x", {2, 3});
  m.int_constant("shape", {2}, {3, 0});
  m.int_constant("zero", {}, {0});
  m.int_constant("two", {2}, {2, 2});
  m.node("Equal", {"shape", "zero"}, {"is0"});
  m.node("Where", {"is0", "two", "shape"}, {"target"});
  m.node("Reshape", {"x", "target"}, {"y"});
  m.output("y", std::vector<int64_t>{3, 2});
  ImportedModel im = import(m);
  EXPECT_EQ(im.graph.node(im.graph.results()[0].value).type.shape, (Shape{3, 2}));
  EXPECT_EQ(count_ops(im.graph, OpKind::Where), 0u);
  EXPECT_EQ(count_ops(im.graph, OpKind::Equal), 0u);
}

} // namespace
} // namespace tilesat::onnx::testing
