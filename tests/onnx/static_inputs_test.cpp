// ImportOptions::static_inputs: a model specialized to the values of its integer inputs.
#include "test_util.h"

#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// y = Reshape(x, shape) with `shape` a graph input: its value is needed at import time.
OnnxModel reshape_model() {
  OnnxModel m;
  m.input("x", {2, 3});
  m.input("shape", {2}, ::onnx::TensorProto::INT64);
  m.node("Reshape", {"x", "shape"}, {"y"});
  m.output("y");
  ::onnx::TensorShapeProto* s =
      m.graph().mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  s->add_dim()->set_dim_value(3);
  s->add_dim()->set_dim_value(2);
  return m;
}

TEST(StaticInputs, AnIntegerInputBecomesDataKnownAtImport) {
  EXPECT_THAT(import_error(reshape_model()), HasSubstr("to be known at import time"));
  ImportOptions o;
  o.static_inputs.emplace("shape", T({2}, {3, 2}, DType::I32));
  ImportedModel im = import_bytes(reshape_model().bytes(), "test.onnx", o);
  ASSERT_EQ(im.graph.arguments().size(), 1u); // x only
  Tensor y = run(im, {{"x", T({2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(y.shape(), Shape({3, 2}));
  EXPECT_THAT(y.data(), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(StaticInputs, FloatInputsStayArgumentsAndUnknownNamesAreErrors) {
  ImportOptions o;
  o.static_inputs.emplace("shape", T({2}, {3, 2}, DType::I32));
  o.static_inputs.emplace("x", T({2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(import_bytes(reshape_model().bytes(), "test.onnx", o).graph.arguments().size(), 1u);
  ImportOptions typo;
  typo.static_inputs.emplace("shapes", T({2}, {3, 2}, DType::I32));
  try {
    import_bytes(reshape_model().bytes(), "test.onnx", typo);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("input 'shapes', which the model does not have"));
  }
  ImportOptions shape;
  shape.static_inputs.emplace("shape", T({3}, {3, 2, 1}, DType::I32));
  try {
    import_bytes(reshape_model().bytes(), "test.onnx", shape);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("has shape 3"));
  }
}

} // namespace
} // namespace tilesat::onnx::testing
