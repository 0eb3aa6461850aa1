// Tests of the importer's frame: weights and inputs, symbolic dims, the unsupported-op list,
// and malformed input (garbage, every truncation, random byte flips) giving clear errors.
#include "test_util.h"

#include <gmock/gmock.h>
#include <random>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// y = relu(x @ w + b) with x: 1x2, w: 2x2, b: 2.
OnnxModel mlp() {
  OnnxModel m;
  m.input("x", {1, 2});
  m.initializer("w", {2, 2}, {1, 2, 3, 4});
  m.initializer("b", {2}, {-10, 1});
  m.node("MatMul", {"x", "w"}, {"h"});
  m.node("Add", {"h", "b"}, {"a"});
  m.node("Relu", {"a"}, {"y"});
  m.output("y");
  return m;
}

TEST(Import, MlpWeightsAndValues) {
  ImportedModel im = import(mlp());
  EXPECT_EQ(im.opset, 17);
  EXPECT_EQ(im.producer, "tilesat-tests");
  EXPECT_EQ(im.graph.name(), "main");
  ASSERT_EQ(im.graph.arguments().size(), 3u);
  const Node& x = im.graph.node(im.graph.arguments()[0]);
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.role, ArgRole::Input);
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(im.graph.node(im.graph.arguments()[i]).role, ArgRole::Weight);
  }
  ASSERT_EQ(im.weights.count("w"), 1u);
  EXPECT_THAT(im.weights.at("w").data(), ElementsAre(1, 2, 3, 4));
  EXPECT_EQ(im.graph.num_ops(), 3u);
  ASSERT_EQ(im.graph.results().size(), 1u);
  EXPECT_EQ(im.graph.results()[0].name, "y");
  // [1, 1] @ [[1, 2], [3, 4]] = [4, 6]; + [-10, 1] = [-6, 7]; relu: [0, 7].
  EXPECT_THAT(run(im, {{"x", T({1, 2}, {1, 1})}}).data(), ElementsAre(0, 7));
  // arguments(): the model's weights, inputs drawn at random.
  std::vector<Tensor> args = arguments(im, 1);
  EXPECT_THAT(args[1].data(), ElementsAre(1, 2, 3, 4));
}

TEST(Import, NamesAreSanitizedAndUnique) {
  OnnxModel m;
  m.input("input:0", {2});
  m.input("input/0", {2});
  m.node("Add", {"input:0", "input/0"}, {"y"});
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_EQ(im.graph.node(im.graph.arguments()[0]).name, "input_0");
  EXPECT_EQ(im.graph.node(im.graph.arguments()[1]).name, "input_0_1");
}

// Dims each within range whose product overflows int64 (2^32 x 2^32 x 2) are an error naming
// them, not a tensor with a wrapped-around size.
TEST(Import, InputWithTooManyElements) {
  OnnxModel m;
  m.input("x", {int64_t{1} << 32, int64_t{1} << 32, 2});
  m.node("Relu", {"x"}, {"y"});
  m.output("y");
  EXPECT_EQ(import_error(m), "error: test.onnx: graph input 'x': expected dims in [0, 2^40] with "
                             "at most 2^40 elements, got [4294967296, 4294967296, 2]");
}

TEST(Import, SymbolicDims) {
  OnnxModel m;
  m.symbolic_input("x", "batch", 3);
  m.node("Relu", {"x"}, {"y"});
  m.output("y");
  EXPECT_EQ(import_error(m),
            "error: test.onnx: graph input 'x': dim 0 is symbolic ('batch'); give its size "
            "(tilesat --dim batch=SIZE, or ImportOptions::dim_values)");
  ImportOptions o;
  o.dim_values["batch"] = 4;
  ImportedModel im = import_bytes(m.bytes(), "test.onnx", o);
  EXPECT_EQ(im.graph.node(im.graph.arguments()[0]).type.shape, (Shape{4, 3}));
  o.dim_values["btach"] = 4;
  EXPECT_EQ(import_error(m, o), "error: test.onnx: a size is given for dim 'btach', which no graph "
                                "input names");
}

// A value given for one input sizes its named dims for every input naming them (an attention
// mask takes the batch and sequence of the token ids given).
TEST(Import, SymbolicDimsTakeTheSizeOfAGivenValue) {
  OnnxModel m;
  m.symbolic_input("x", "batch", 3);
  m.symbolic_input("y", "batch", 3);
  m.node("Add", {"x", "y"}, {"z"});
  m.output("z");
  ImportOptions o;
  o.static_inputs.emplace("x", Tensor(TensorType{DType::F32, Shape{5, 3}, {}}));
  ImportedModel im = import_bytes(m.bytes(), "test.onnx", o);
  ASSERT_EQ(im.graph.arguments().size(), 2u);
  EXPECT_EQ(im.graph.node(im.graph.arguments()[1]).type.shape, (Shape{5, 3}));
  o.dim_values["batch"] = 4;
  EXPECT_EQ(import_error(m, o), "error: test.onnx: graph input 'x': dim 0 ('batch') is 5 in the "
                                "value given for it, but 4 in dim_values (tilesat --dim)");
}

TEST(Import, UnsupportedOpsAreListedWithCounts) {
  OnnxModel m;
  m.input("x", {2, 2});
  m.node("Det", {"x"}, {"a"});
  m.node("Det", {"a"}, {"b"});
  m.node("Unique", {"b"}, {"y"});
  m.output("y");
  EXPECT_EQ(import_error(m).substr(0, 61),
            "error: test.onnx: unsupported ONNX ops: Det (2), Unique (1); ");
}

TEST(Import, OpsetRange) {
  OnnxModel m(22);
  m.input("x", {2});
  m.node("Relu", {"x"}, {"y"});
  m.output("y", std::vector<int64_t>{2});
  EXPECT_EQ(import_error(m), "error: test.onnx: expected ai.onnx opset 1 to 21, got 22");
}

TEST(Import, OldOpsetsAreConverted) {
  // An opset 9 model imports after the ONNX version converter (in a child process) brings it
  // to opset 11: here Upsample-free, with a Clip whose bounds were attributes before 11.
  OnnxModel m(9);
  m.input("x", {3});
  ::onnx::NodeProto* clip = m.node("Clip", {"x"}, {"y"});
  OnnxModel::attr_f(clip, "min", -0.5F);
  OnnxModel::attr_f(clip, "max", 1.0F);
  m.output("y");
  ImportedModel im = import(m);
  EXPECT_EQ(im.opset, 11);
  EXPECT_THAT(run(im, {{"x", T({3}, {-1, 0.25, 2})}}).data(), ElementsAre(-0.5, 0.25, 1));
}

TEST(Import, CheckerAndShapeInferenceErrors) {
  OnnxModel undefined;
  undefined.input("x", {2});
  undefined.node("Relu", {"nowhere"}, {"y"});
  undefined.output("y", std::vector<int64_t>{2});
  EXPECT_THAT(import_error(undefined), HasSubstr("error: test.onnx: ONNX checker: "));
  // An output without a shape (which the checker wants) is named.
  OnnxModel shapeless;
  shapeless.input("x", {2});
  shapeless.node("Relu", {"nowhere"}, {"y"});
  shapeless.output("y");
  EXPECT_THAT(import_error(shapeless),
              HasSubstr("error: test.onnx: graph output 'y' declares no shape"));
  // A declared output shape that contradicts the model: ONNX's strict shape inference, which
  // runs after tilesat's own import, reports it.
  OnnxModel bad_shapes;
  bad_shapes.input("x", {2});
  bad_shapes.node("Relu", {"x"}, {"y"});
  bad_shapes.output("y", std::vector<int64_t>{3});
  EXPECT_THAT(import_error(bad_shapes), HasSubstr("error: test.onnx: ONNX shape inference: "));
}

TEST(Import, ErrorsNameTheNode) {
  OnnxModel m;
  m.input("x", {3});
  m.int_constant("starts", {1}, {0});
  m.int_constant("ends", {1}, {2});
  m.int_constant("axes", {1}, {1});
  m.node("Slice", {"x", "starts", "ends", "axes"}, {"y"});
  m.output("y", std::vector<int64_t>{2});
  EXPECT_EQ(import_error(m),
            "error: test.onnx: node 3 'Slice_3' (Slice): expected axes in [-1, 1), got 1");
}

TEST(Import, NegativeSliceStepsOnARuntimeValue) {
  // x[::-1, 3:0:-2] of a 2x5 runtime value: rows reversed, columns 3 and 1.
  OnnxModel m;
  m.input("x", {2, 5});
  m.int_constant("starts", {2}, {-1, 3});
  m.int_constant("ends", {2}, {-100, 0});
  m.int_constant("axes", {2}, {0, 1});
  m.int_constant("steps", {2}, {-1, -2});
  m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  m.output("y");
  Tensor y = run(import(m), {{"x", T({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})}});
  EXPECT_EQ(y.shape(), Shape({2, 2}));
  EXPECT_THAT(y.data(), ElementsAre(8, 6, 3, 1));
}

TEST(Import, MalformedBytes) {
  try {
    import_bytes("this is not a protobuf \xff\xff\xff", "junk.onnx");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "error: junk.onnx: expected a serialized ONNX ModelProto, got bytes "
                           "that do not parse");
  }
  try {
    import_bytes("", "empty.onnx");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "error: empty.onnx: expected a model with a graph, got none");
  }
  try {
    import_file("/nonexistent/model.onnx");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/model.onnx: cannot open the ONNX model"));
  }
}

TEST(Import, EveryTruncationIsAnErrorOrAModel) {
  std::string bytes = mlp().bytes();
  for (size_t n = 0; n < bytes.size(); ++n) {
    try {
      import_bytes(std::string_view(bytes).substr(0, n), "cut.onnx");
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("cut.onnx")) << n;
    }
  }
}

TEST(Import, RandomByteFlipsNeverCrash) {
  std::string bytes = mlp().bytes();
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string b = bytes;
    for (int k = 0; k < 3; ++k) {
      b[rng() % b.size()] = static_cast<char>(rng() & 0xff);
    }
    try {
      import_bytes(b, "flip.onnx");
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("flip.onnx"));
    }
  }
}

TEST(Import, InitializerDataErrors) {
  OnnxModel m = mlp();
  m.graph().mutable_initializer(0)->add_float_data(5);
  EXPECT_EQ(import_error(m), "error: test.onnx: initializer 'w': expected 4 elements for dims [2, "
                             "2], got 5");
  OnnxModel raw = mlp();
  ::onnx::TensorProto* t = raw.graph().mutable_initializer(0);
  t->clear_float_data();
  t->set_raw_data(std::string(15, '\0'));
  EXPECT_THAT(import_error(raw), HasSubstr("initializer 'w': expected 16 bytes of raw data"));
}

} // namespace
} // namespace tilesat::onnx::testing
