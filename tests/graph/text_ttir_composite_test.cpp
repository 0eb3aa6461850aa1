// Tests of the tt-mlir ops read as compositions of table ops (ttir_composite.cpp): each op's
// values on small tensors written out by hand, and its errors.
#include "text_test_support.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/graph/op.h"
#include "tilesat/graph/ttir_composites.h"

#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <sstream>

namespace tilesat {
namespace {

/// A function of one op, `%0 = "ttir.<op>"(operands) <attrs> : (types) -> result`.
std::string one_op(const std::vector<std::string>& arg_types, const std::string& op,
                   const std::string& attrs, const std::string& result) {
  std::string args, names, types;
  for (size_t i = 0; i < arg_types.size(); ++i) {
    std::string sep = i == 0 ? "" : ", ";
    args += sep + "%a" + std::to_string(i) + ": " + arg_types[i];
    names += sep + "%a" + std::to_string(i);
    types += sep + arg_types[i];
  }
  return "func.func @main(" + args + ") -> " + result + " {\n  %0 = \"ttir." + op + "\"(" + names +
         ") " + attrs + " : (" + types + ") -> " + result + "\n  return %0 : " + result + "\n}\n";
}

const std::string k3 = "tensor<3xf32>", k4 = "tensor<4xf32>";

TEST(TtirComposite, Comparisons) {
  std::vector<std::vector<float>> in = {{1, 2, 3}, {2, 2, 2}};
  EXPECT_EQ(run(one_op({k3, k3}, "ge", "", k3), in), (std::vector<float>{0, 1, 1}));
  EXPECT_EQ(run(one_op({k3, k3}, "le", "", k3), in), (std::vector<float>{1, 1, 0}));
  EXPECT_EQ(run(one_op({k3, k3}, "ne", "", k3), in), (std::vector<float>{1, 0, 1}));
}

TEST(TtirComposite, LogicalOps) {
  std::vector<std::vector<float>> in = {{0, 2, 0, -1}, {0, 0, 3, 4}};
  EXPECT_EQ(run(one_op({k4}, "logical_not", "", k4), {in[0]}), (std::vector<float>{1, 0, 1, 0}));
  EXPECT_EQ(run(one_op({k4, k4}, "logical_and", "", k4), in), (std::vector<float>{0, 0, 0, 1}));
  EXPECT_EQ(run(one_op({k4, k4}, "logical_or", "", k4), in), (std::vector<float>{0, 1, 1, 1}));
  EXPECT_EQ(run(one_op({k4, k4}, "logical_xor", "", k4), in), (std::vector<float>{0, 1, 1, 0}));
}

TEST(TtirComposite, RoundingAndSign) {
  std::vector<std::vector<float>> in = {{-1.5f, -1, 0.25f, 2.75f}};
  EXPECT_EQ(run(one_op({k4}, "floor", "", k4), in), (std::vector<float>{-2, -1, 0, 2}));
  EXPECT_EQ(run(one_op({k4}, "ceil", "", k4), in), (std::vector<float>{-1, -1, 1, 3}));
  EXPECT_EQ(run(one_op({k4}, "sign", "", k4), {{-1.5f, 0, 0.25f, 2}}),
            (std::vector<float>{-1, 0, 1, 1}));
  // An integer tensor is its own floor.
  std::string i = "tensor<2xi32>";
  EXPECT_EQ(run(one_op({i}, "floor", "", i), {{-3, 4}}), (std::vector<float>{-3, 4}));
}

TEST(TtirComposite, ActivationsAndFunctions) {
  EXPECT_EQ(run(one_op({k3}, "clamp_scalar", "<{max = 5.0e-01 : f32, min = -5.0e-01 : f32}>", k3),
                {{-1, 0.25f, 3}}),
            (std::vector<float>{-0.5f, 0.25f, 0.5f}));
  EXPECT_EQ(
      run(one_op({k3, k3, k3}, "clamp_tensor", "", k3), {{-1, 0.25f, 3}, {0, 0, 0}, {1, 0.1f, 2}}),
      (std::vector<float>{0, 0.1f, 2}));
  EXPECT_EQ(run(one_op({k3}, "leaky_relu", "<{parameter = 1.0e-01 : f32}>", k3), {{-2, 0, 3}}),
            (std::vector<float>{-0.2f, 0, 3}));
  EXPECT_EQ(run(one_op({k3}, "relu6", "", k3), {{-1, 3, 7}}), (std::vector<float>{0, 3, 6}));
  EXPECT_EQ(run(one_op({k3}, "hardsigmoid", "", k3), {{-4, 0, 6}}),
            (std::vector<float>{0, 0.5f, 1}));
  float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  EXPECT_EQ(run(one_op({k3}, "isfinite", "", k3), {{1, inf, nan}}), (std::vector<float>{1, 0, 0}));
  EXPECT_EQ(run(one_op({k3}, "square", "", k3), {{-2, 0, 3}}), (std::vector<float>{4, 0, 9}));
  std::vector<float> zeros = {0, 0, 0};
  EXPECT_EQ(run(one_op({k3}, "erfc", "", k3), {zeros}), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(run(one_op({k3}, "log1p", "", k3), {zeros}), zeros);
  EXPECT_EQ(run(one_op({k3}, "expm1", "", k3), {zeros}), zeros);
  EXPECT_EQ(run(one_op({k3}, "tan", "", k3), {zeros}), zeros);
  std::vector<float> t = run(one_op({k3}, "tan", "", k3), {{0.5f, 1, -1}});
  EXPECT_NEAR(t[0], 0.5463025f, 1e-6);
  EXPECT_NEAR(t[2], -1.5574077f, 1e-6);
}

TEST(TtirComposite, SqueezeAndUnsqueeze) {
  std::string text =
      one_op({"tensor<2x1x3xf32>"}, "squeeze", "<{dim = 1 : si32}>", "tensor<2x3xf32>");
  const SourceFile file = parse_text(text, "t.mlir");
  const Graph& g = only(file);
  EXPECT_EQ(g.node(g.results()[0].value).kind, OpKind::Reshape);
  EXPECT_EQ(run(one_op({"tensor<2xf32>"}, "unsqueeze", "<{dim = -1 : si32}>", "tensor<2x1xf32>"),
                {{5, 6}}),
            (std::vector<float>{5, 6}));
  EXPECT_EQ(
      parse_error(one_op({"tensor<2x3xf32>"}, "squeeze", "<{dim = 1 : si32}>", "tensor<2xf32>")),
      "t.mlir:2:36: error: attribute 'dim' of 'ttir.squeeze': dim 1 has extent 3, expected 1");
}

TEST(TtirComposite, RepeatsPadAndReverse) {
  EXPECT_EQ(run(one_op({"tensor<1x2xf32>"}, "repeat", "<{repeat_dimensions = array<i64: 2, 2>}>",
                       "tensor<2x4xf32>"),
                {{1, 2}}),
            (std::vector<float>{1, 2, 1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(run(one_op({k3}, "repeat_interleave", "<{dim = 0 : si32, repeats = 2 : ui32}>",
                       "tensor<6xf32>"),
                {{1, 2, 3}}),
            (std::vector<float>{1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(run(one_op({"tensor<2xf32>"}, "pad",
                       "<{padding = array<i32: 1, 2>, value = 9.0 : f32}>", "tensor<5xf32>"),
                {{1, 2}}),
            (std::vector<float>{9, 1, 2, 9, 9}));
  EXPECT_EQ(run(one_op({"tensor<2x3xf32>"}, "reverse", "<{dimensions = array<i64: 1>}>",
                       "tensor<2x3xf32>"),
                {{1, 2, 3, 4, 5, 6}}),
            (std::vector<float>{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(run(one_op({k3}, "index",
                       "<{begin = -2 : i32, dim = 0 : i32, end = 3 : i32, step = 1 : i32}>",
                       "tensor<2xf32>"),
                {{10, 20, 30}}),
            (std::vector<float>{20, 30}));
}

TEST(TtirComposite, ArangeAndEmbedding) {
  EXPECT_EQ(
      run(one_op({}, "arange",
                 "<{arange_dimension = 1 : i64, dtype = f32, end = 8 : si64, start = 2 : si64, "
                 "step = 2 : si64}>",
                 "tensor<2x3xf32>"),
          {}),
      (std::vector<float>{2, 4, 6, 2, 4, 6}));
  EXPECT_EQ(
      parse_error(one_op({}, "arange", "<{end = 8 : si64, start = 2 : si64, step = 2 : si64}>",
                         "tensor<4xf32>")),
      "t.mlir:2:3: error: 'ttir.arange': 3 values from 2 to 8 by 2, but the result type "
      "tensor<4xf32> has 4 along dim 0");
  EXPECT_EQ(
      run(one_op({"tensor<1x2xi32>", "tensor<3x2xf32>"}, "embedding", "", "tensor<1x2x2xf32>"),
          {{2, 0}, {1, 2, 3, 4, 5, 6}}),
      (std::vector<float>{5, 6, 1, 2}));
}

TEST(TtirComposite, BatchNormAlongItsDimension) {
  std::string c = "tensor<2xf32>";
  std::string text = one_op({"tensor<1x2x1x2xf32>", c, c, c, c}, "batch_norm_inference",
                            "<{dimension = 1 : i32, epsilon = 0.0 : f32}>", "tensor<1x2x1x2xf32>");
  // Channel 0: (x - 0) * 2 / sqrt(4) + 1; channel 1: (x - 1) * 3 / sqrt(9) - 1.
  EXPECT_EQ(run(text, {{1, 3, 2, 4}, {2, 3}, {1, -1}, {0, 1}, {4, 9}}),
            (std::vector<float>{2, 4, 0, 2}));
  EXPECT_EQ(parse_error(one_op({"tensor<1x2xf32>", c, c, c, c}, "batch_norm", "<{training = true}>",
                               "tensor<1x2xf32>")),
            "t.mlir:2:64: error: attribute 'training' of 'ttir.batch_norm': only inference "
            "(false) is supported");
}

TEST(TtirComposite, Reductions) {
  std::string m = "tensor<2x2xf32>", v = "tensor<2xf32>";
  std::string dim1 = "<{dim_arg = [1 : i32], keep_dim = false}>";
  EXPECT_EQ(run(one_op({m}, "min", dim1, v), {{3, 1, 2, 5}}), (std::vector<float>{1, 2}));
  EXPECT_EQ(run(one_op({m}, "reduce_and", dim1, v), {{1, 0, 2, 3}}), (std::vector<float>{0, 1}));
  EXPECT_EQ(run(one_op({m}, "reduce_or", dim1, v), {{0, 0, 0, 2}}), (std::vector<float>{0, 1}));
  // The first index of a tied maximum.
  EXPECT_EQ(
      run(one_op({"tensor<2x3xbf16>"}, "argmax", dim1, "tensor<2xi32>"), {{1, 3, 3, 5, 0, 1}}),
      (std::vector<float>{1, 0}));
  EXPECT_EQ(run(one_op({"tensor<1x3xf32>"}, "cumsum", "<{dim = 1 : i64}>", "tensor<1x3xf32>"),
                {{1, 2, 3}}),
            (std::vector<float>{1, 3, 6}));
  EXPECT_EQ(run(one_op({m}, "cumsum", "<{dim = 0 : i64}>", m), {{1, 2, 3, 4}}),
            (std::vector<float>{1, 2, 4, 6}));
}

TEST(TtirComposite, ConstantsItComputesAreBounded) {
  EXPECT_EQ(parse_error(one_op({}, "arange", "<{end = 100000000 : si64, start = 0 : si64}>",
                               "tensor<100000000xf32>")),
            "t.mlir:2:3: error: 'ttir.arange': the result tensor<100000000xf32> has more than "
            "2^26 elements, too many to hold as a constant");
  EXPECT_EQ(parse_error(one_op({"tensor<1x10000xf32>"}, "cumsum", "<{dim = 1 : i64}>",
                               "tensor<1x10000xf32>")),
            "t.mlir:2:3: error: 'ttir.cumsum': a running sum over 10000 values takes a 10000 x "
            "10000 matrix, more than 2^26 elements");
}

TEST(TtirComposite, UpsampleNearest) {
  EXPECT_EQ(run(one_op({"tensor<1x2x1x1xf32>"}, "upsample2d", "<{scale_factor = 2 : si32}>",
                       "tensor<1x4x2x1xf32>"),
                {{1, 2}}),
            (std::vector<float>{1, 1, 1, 1, 2, 2, 2, 2}));
  EXPECT_EQ(parse_error(one_op({"tensor<1x2x1x1xf32>"}, "upsample2d",
                               "<{mode = \"bilinear\", scale_factor = 2 : si32}>",
                               "tensor<1x4x2x1xf32>")),
            "t.mlir:2:40: error: attribute 'mode' of 'ttir.upsample2d': only \"nearest\" is "
            "supported, got \"bilinear\"");
}

TEST(TtirComposite, LegacyDestinationOperand) {
  std::string text = "func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {\n"
                     "  %0 = ttir.empty() : tensor<3xf32>\n"
                     "  %1 = \"ttir.ge\"(%a, %b, %0) <{operand_constraints = [#any_device, "
                     "#any_device, #any_device]}> : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) "
                     "-> tensor<3xf32>\n"
                     "  return %1 : tensor<3xf32>\n}\n";
  EXPECT_EQ(run(text, {{1, 2, 3}, {2, 2, 2}}), (std::vector<float>{0, 1, 1}));
}

TEST(TtirComposite, ErrorsNameTheOp) {
  EXPECT_EQ(parse_error(one_op({k3}, "leaky_relu", "<{slope = 1.0 : f32}>", k3)),
            "t.mlir:2:41: error: unknown attribute 'slope' of 'ttir.leaky_relu' (it takes "
            "parameter (0.01))");
  EXPECT_EQ(parse_error(one_op({k3}, "ge", "", k3)),
            "t.mlir:2:3: error: 'ttir.ge' expects 2 operands, got 1");
  EXPECT_EQ(parse_error(one_op({k3}, "clamp_scalar", "<{max = 1.0 : f32}>", k3)),
            "t.mlir:2:3: error: 'ttir.clamp_scalar' needs attribute 'min'");
  EXPECT_EQ(parse_error(one_op({k3, k4}, "ge", "", k3)).substr(0, 48),
            "t.mlir:2:3: error: 'ttir.ge' (read as maximum(gt");
  EXPECT_EQ(parse_error(one_op({k3}, "relu6", "", k4)),
            "t.mlir:2:3: error: 'ttir.relu6': declared result type tensor<4xf32>, but the operands "
            "give tensor<3xf32>");
}

TEST(TtirComposite, TheListNamesNoTableOp) {
  EXPECT_GE(ttir_composite_ops().size(), 30u);
  for (const TtirComposite& c : ttir_composite_ops()) {
    EXPECT_FALSE(op_by_name(c.name).has_value()) << c.name << " is an op of the table";
    EXPECT_FALSE(c.reading.empty()) << c.name;
    EXPECT_EQ(find_ttir_composite(c.name), &c);
  }
  EXPECT_EQ(find_ttir_composite("add"), nullptr);
}

TEST(TtirComposite, TheTextFormatDocListsEachOp) {
  std::ifstream f(std::string(TILESAT_SOURCE_DIR) + "/docs/text-format.md");
  std::stringstream doc;
  doc << f.rdbuf();
  for (const TtirComposite& c : ttir_composite_ops()) {
    EXPECT_NE(doc.str().find(fmt::format("| `ttir.{}` | ", c.name)), std::string::npos) << c.name;
  }
}

} // namespace
} // namespace tilesat
