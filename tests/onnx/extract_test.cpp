// ImportOptions::outputs (the part of a model computing chosen values) and values computed
// from constants that a converter needs at import time.
#include "test_util.h"

#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A detector's shape: scores = Sigmoid(x · w), then NonZero(scores > 0.5) picks the boxes
// (a value-dependent shape); a second input `unused` only the tail reads.
OnnxModel detector() {
  OnnxModel m;
  m.input("x", {2, 3});
  m.input("unused", {2});
  m.initializer("w", {3, 2}, {1, 0, 0, 1, 1, 1});
  m.node("MatMul", {"x", "w"}, {"logits"});
  m.node("Sigmoid", {"logits"}, {"scores"});
  m.constant("half", {}, {0.5F});
  m.node("Greater", {"scores", "half"}, {"keep"});
  m.node("NonZero", {"keep"}, {"picked"});
  m.node("Shape", {"unused"}, {"n"});
  m.node("Concat", {"picked", "n"}, {"out"})->set_name("tail");
  OnnxModel::attr(m.graph().mutable_node(m.graph().node_size() - 1), "axis", 0);
  m.output("out", ::onnx::TensorProto::INT64);
  return m;
}

ImportOptions selecting(std::vector<std::string> outputs) {
  ImportOptions o;
  o.outputs = std::move(outputs);
  return o;
}

ImportedModel import_outputs(const OnnxModel& m, std::vector<std::string> outputs) {
  return import(m, selecting(std::move(outputs)));
}

std::string import_outputs_error(const OnnxModel& m, std::vector<std::string> outputs) {
  return import_error(m, selecting(std::move(outputs)));
}

TEST(SelectOutputs, AValueDependentTailIsAnErrorThatSaysHowToCutIt) {
  std::string e = import_error(detector());
  EXPECT_THAT(e, HasSubstr("unsupported ONNX ops: NonZero (1)"));
  EXPECT_THAT(e, HasSubstr("NonZero (node 'NonZero_4' reads 'keep') depend on input values"));
  EXPECT_THAT(e, HasSubstr("--outputs"));
}

TEST(SelectOutputs, ImportsOnlyWhatComputesTheChosenValues) {
  ImportedModel im = import_outputs(detector(), {"scores", "logits"});
  ASSERT_EQ(im.graph.results().size(), 2u);
  EXPECT_EQ(im.graph.results()[0].name, "scores");
  EXPECT_EQ(im.graph.results()[1].name, "logits");
  // `unused` fed only the tail: it is no argument now.
  ASSERT_EQ(im.graph.arguments().size(), 2u);
  EXPECT_EQ(im.graph.node(im.graph.arguments()[0]).name, "x");
  Tensor logits = run(im, {{"x", T({2, 3}, {1, 2, 3, -1, 0, -2})}}, 1);
  EXPECT_THAT(logits.data(), ElementsAre(4, 5, -3, -2));
  Tensor scores = run(im, {{"x", T({2, 3}, {0, 0, 0, 0, 0, 0})}}, 0);
  EXPECT_THAT(scores.data(), ElementsAre(0.5, 0.5, 0.5, 0.5));
}

TEST(SelectOutputs, NamesAndTypesAreChecked) {
  EXPECT_THAT(import_outputs_error(detector(), {"score"}),
              HasSubstr("expected each selected output to be a value of the main graph (a "
                        "node's output, an input or an initializer), got 'score'"));
  // A value the tail computes is still out of reach.
  EXPECT_THAT(import_outputs_error(detector(), {"picked"}),
              HasSubstr("unsupported ONNX ops: NonZero (1)"));
  // An input or an initializer may be chosen, and a name twice counts once.
  ImportedModel im = import_outputs(detector(), {"w", "w", "x"});
  ASSERT_EQ(im.graph.results().size(), 2u);
  EXPECT_THAT(run(im, {{"x", T({2, 3}, {1, 2, 3, 4, 5, 6})}}, 1).data(),
              ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(SelectOutputs, AnOutputTheModelDeclaresKeepsItsShape) {
  OnnxModel m = detector();
  m.graph().add_value_info()->set_name("other");
  ::onnx::ValueInfoProto* v = m.graph().add_value_info();
  v->set_name("logits");
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(::onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_value(2);
  t->mutable_shape()->add_dim()->set_dim_value(3); // wrong: the cross-check names it
  EXPECT_THAT(import_outputs_error(m, {"logits"}), HasSubstr("ONNX shape inference"));
}

// Pad's pads computed in floats from constants, as torchvision's detection transform does:
// Ceil([1.5, 0, 0.2, 0]) = [2, 0, 1, 0], cast to int64.
TEST(ComputedData, AValueComputedFromConstantsIsKnownAtImport) {
  OnnxModel m;
  m.input("x", {2, 3});
  m.constant("raw", {4}, {1.5F, 0, 0.2F, 0});
  m.node("Ceil", {"raw"}, {"up"});
  OnnxModel::attr(m.node("Cast", {"up"}, {"pads"}), "to", int64_t{::onnx::TensorProto::INT64});
  m.node("Pad", {"x", "pads"}, {"y"});
  m.output("y", {5, 3});
  ImportedModel im = import(m);
  Tensor y = run(im, {{"x", T({2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(y.shape(), Shape({5, 3}));
  EXPECT_THAT(y.data(), ElementsAre(0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 0, 0, 0));
  // Computed from an input, the pads are still a runtime value.
  OnnxModel r;
  r.input("x", {2, 3});
  r.input("raw", {4});
  r.node("Ceil", {"raw"}, {"up"});
  OnnxModel::attr(r.node("Cast", {"up"}, {"pads"}), "to", int64_t{::onnx::TensorProto::INT64});
  r.node("Pad", {"x", "pads"}, {"y"});
  r.output("y", {5, 3});
  EXPECT_THAT(import_error(r), HasSubstr("to be known at import time, got a runtime value"));
}

} // namespace
} // namespace tilesat::onnx::testing
