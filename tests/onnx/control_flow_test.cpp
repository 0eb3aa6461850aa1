// If with a condition known at import and Loop with a trip count known at import
// (onnx/src/control_flow.cpp): the branch taken is converted in place, the other never read; a
// loop is unrolled; a runtime condition and a fault inside a branch are errors that name them.
#include "test_util.h"

#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// If(cond) then y = relu(x) + w else y = -x, with `cond` a Constant (or the graph input "c").
OnnxModel if_model(std::optional<bool> cond, const std::string& else_op = "Neg") {
  OnnxModel m;
  m.input("x", {3});
  m.initializer("w", {3}, {10, 20, 30});
  if (cond) {
    ::onnx::AttributeProto* v = m.node("Constant", {}, {"c"})->add_attribute();
    v->set_name("value");
    v->set_type(::onnx::AttributeProto::TENSOR);
    v->mutable_t()->set_data_type(::onnx::TensorProto::BOOL);
    v->mutable_t()->add_int32_data(*cond ? 1 : 0);
  } else {
    m.input("c", {}, ::onnx::TensorProto::BOOL);
  }
  ::onnx::GraphProto then_g, else_g;
  then_g.set_name("then");
  *then_g.add_node() = *m.node("Relu", {"x"}, {"r"});
  *then_g.add_node() = *m.node("Add", {"r", "w"}, {"t"});
  else_g.set_name("else");
  *else_g.add_node() = *m.node(else_op, {"x"}, {"e"});
  // The nodes were added to the main graph by node(); they belong to the branches only.
  m.graph().mutable_node()->DeleteSubrange(m.graph().node_size() - 3, 3);
  for (auto [g, out] : {std::pair{&then_g, "t"}, std::pair{&else_g, "e"}}) {
    ::onnx::ValueInfoProto* o = g->add_output();
    o->set_name(out);
    o->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
    o->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(3);
  }
  ::onnx::NodeProto* n = m.node("If", {"c"}, {"y"});
  for (auto [name, g] : {std::pair{"then_branch", &then_g}, std::pair{"else_branch", &else_g}}) {
    ::onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::GRAPH);
    *a->mutable_g() = *g;
  }
  m.output("y", std::vector<int64_t>{3});
  return m;
}

TEST(If, TheBranchTakenIsConvertedInPlace) {
  Tensor x = T({3}, {-1, 2, -3});
  ImportedModel then_im = import(if_model(true));
  EXPECT_THAT(run(then_im, {{"x", x}}).data(), ElementsAre(10, 22, 30));
  ImportedModel else_im = import(if_model(false));
  EXPECT_THAT(run(else_im, {{"x", x}}).data(), ElementsAre(1, -2, 3));
  // The branch not taken is not read: an op without a converter there is no error.
  EXPECT_THAT(run(import(if_model(false, "Neg")), {{"x", x}}).data(), ElementsAre(1, -2, 3));
  EXPECT_EQ(import_error(if_model(true, "Unique")), "no error");
}

TEST(If, ErrorsNameTheConditionAndTheBranch) {
  EXPECT_THAT(import_error(if_model(std::nullopt)),
              HasSubstr("(If): expected input 0 ('cond') to be known at import time"));
  EXPECT_THAT(import_error(if_model(false, "Unique")),
              HasSubstr("(If): else_branch: unsupported ONNX ops: Unique (1)"));
}

// Loop(M = 3) carrying v: v += float(iteration), scanning v after each step.
OnnxModel loop_model() {
  OnnxModel m;
  m.input("x", {2});
  m.int_initializer("M", {}, {3});
  ::onnx::GraphProto body;
  body.set_name("body");
  auto input = [&](const std::string& name, int32_t type, bool vector) {
    ::onnx::ValueInfoProto* v = body.add_input();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    auto* shape = v->mutable_type()->mutable_tensor_type()->mutable_shape();
    if (vector) shape->add_dim()->set_dim_value(2);
  };
  input("i", ::onnx::TensorProto::INT64, false);
  input("cond_in", ::onnx::TensorProto::BOOL, false);
  input("v_in", ::onnx::TensorProto::FLOAT, true);
  ::onnx::NodeProto* cast = m.node("Cast", {"i"}, {"i_f"});
  OnnxModel::attr(cast, "to", int64_t{::onnx::TensorProto::FLOAT});
  *body.add_node() = *cast;
  *body.add_node() = *m.node("Add", {"v_in", "i_f"}, {"v_out"});
  *body.add_node() = *m.node("Identity", {"cond_in"}, {"cond_out"});
  *body.add_node() = *m.node("Identity", {"v_out"}, {"scan"});
  m.graph().mutable_node()->DeleteSubrange(0, 4);
  for (auto [name, type] : {std::pair{"cond_out", ::onnx::TensorProto::BOOL},
                            std::pair{"v_out", ::onnx::TensorProto::FLOAT},
                            std::pair{"scan", ::onnx::TensorProto::FLOAT}}) {
    ::onnx::ValueInfoProto* o = body.add_output();
    o->set_name(name);
    o->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    auto* shape = o->mutable_type()->mutable_tensor_type()->mutable_shape();
    if (std::string(name) != "cond_out") shape->add_dim()->set_dim_value(2);
  }
  ::onnx::NodeProto* loop = m.node("Loop", {"M", "", "x"}, {"v", "all"});
  ::onnx::AttributeProto* a = loop->add_attribute();
  a->set_name("body");
  a->set_type(::onnx::AttributeProto::GRAPH);
  *a->mutable_g() = body;
  m.output("v", std::vector<int64_t>{2});
  m.output("all", std::vector<int64_t>{3, 2});
  return m;
}

TEST(Loop, IsUnrolledWithItsScanOutputsStacked) {
  ImportedModel im = import(loop_model());
  Tensor x = T({2}, {1, -1});
  // v: 1 + 0, + 1, + 2.
  EXPECT_THAT(run(im, {{"x", x}}, 0).data(), ElementsAre(4, 2));
  Tensor all = run(im, {{"x", x}}, 1);
  EXPECT_EQ(all.shape(), Shape({3, 2}));
  EXPECT_THAT(all.data(), ElementsAre(1, -1, 2, 0, 4, 2));
}

// Scan carrying a running sum s [2] over x [2, 3] along axis 1, read backwards
// (scan_input_directions 1): s += column; each step's sum stacked along scan_output_axes 1.
OnnxModel scan_model() {
  OnnxModel m;
  m.input("s0", {2});
  m.input("x", {2, 3});
  ::onnx::GraphProto body;
  body.set_name("body");
  auto value = [](::onnx::ValueInfoProto* v, const std::string& name) {
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  };
  value(body.add_input(), "s_in");
  value(body.add_input(), "column");
  *body.add_node() = *m.node("Add", {"s_in", "column"}, {"s_out"});
  *body.add_node() = *m.node("Identity", {"s_out"}, {"each"});
  m.graph().mutable_node()->DeleteSubrange(0, 2);
  value(body.add_output(), "s_out");
  value(body.add_output(), "each");
  ::onnx::NodeProto* scan = m.node("Scan", {"s0", "x"}, {"s", "all"});
  OnnxModel::attr(scan, "num_scan_inputs", int64_t{1});
  OnnxModel::attr(scan, "scan_input_axes", std::vector<int64_t>{1});
  OnnxModel::attr(scan, "scan_input_directions", std::vector<int64_t>{1});
  OnnxModel::attr(scan, "scan_output_axes", std::vector<int64_t>{-1});
  ::onnx::AttributeProto* a = scan->add_attribute();
  a->set_name("body");
  a->set_type(::onnx::AttributeProto::GRAPH);
  *a->mutable_g() = body;
  m.output("s", std::vector<int64_t>{2});
  m.output("all", std::vector<int64_t>{2, 3});
  return m;
}

TEST(Scan, IsUnrolledOverItsScanInputs) {
  ImportedModel im = import(scan_model());
  std::map<std::string, Tensor> in{{"s0", T({2}, {0, 100})}, {"x", T({2, 3}, {1, 2, 3, 4, 5, 6})}};
  EXPECT_THAT(run(im, in, 0).data(), ElementsAre(6, 115));
  // Columns read 3, 2, 1 (and 6, 5, 4): sums 3, 5, 6 and 106, 111, 115, stacked as columns.
  Tensor all = run(im, in, 1);
  EXPECT_EQ(all.shape(), Shape({2, 3}));
  EXPECT_THAT(all.data(), ElementsAre(3, 5, 6, 106, 111, 115));
}

TEST(Scan, ErrorsNameWhatIsWrong) {
  OnnxModel m = scan_model();
  m.graph().mutable_node(0)->mutable_attribute(0)->set_i(3); // num_scan_inputs
  EXPECT_THAT(import_error(m),
              HasSubstr("expected 'num_scan_inputs' from 1 to the 2 inputs, got 3"));
}

TEST(Cast, ToBoolIsNonzero) {
  OnnxModel m;
  m.input("x", {3});
  OnnxModel::attr(m.node("Cast", {"x"}, {"y"}), "to", int64_t{::onnx::TensorProto::BOOL});
  m.output("y", ::onnx::TensorProto::BOOL);
  Tensor y = run(import(m), {{"x", T({3}, {0, -2, 0.5f})}});
  EXPECT_EQ(y.type().dtype, DType::I32);
  EXPECT_THAT(y.data(), ElementsAre(0, 1, 1));
}

} // namespace
} // namespace tilesat::onnx::testing
