// If with a condition known at import (onnx/src/control_flow.cpp): the branch taken is
// converted in place, the other never read; a runtime condition and a fault inside a branch
// are errors that name them.
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

} // namespace
} // namespace tilesat::onnx::testing
