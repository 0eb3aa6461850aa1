// Tests of TTNN-dialect input (graph/src/text/ttnn_import.cpp).
#include "text_test_support.h"
#include "tilesat/graph/parser.h"
#include "tilesat/graph/printer.h"

#include <gtest/gtest.h>

namespace tilesat {
namespace {

/// `ops` (lines defining %0, %1, ...) in a function of two 64x128 / 128x256 bf16 arguments.
std::string matmul_fn(const std::string& ops, const std::string& result = "%1") {
  return "module {\n  func.func @f(%arg0: tensor<64x128xbf16>, %arg1: tensor<128x256xbf16>) -> "
         "tensor<64x256xbf16> {\n" +
         ops + "    return " + result + " : tensor<64x256xbf16>\n  }\n}\n";
}

constexpr const char* kMatmul =
    "    %0 = \"ttnn.matmul\"(%arg0, %arg1) <{transpose_a = false, transpose_b = false}> : "
    "(tensor<64x128xbf16>, tensor<128x256xbf16>) -> tensor<64x256xbf16>\n";

TEST(TextTtnn, OpsReadAsTheirTtirNamesakes) {
  SourceFile f = parse_text(matmul_fn(std::string(kMatmul) +
                                      "    %1 = \"ttnn.silu\"(%0) : (tensor<64x256xbf16>) -> "
                                      "tensor<64x256xbf16>\n"),
                            "t.mlir");
  ASSERT_EQ(f.modules.size(), 1u);
  EXPECT_TRUE(f.modules[0].device_tensors);
  const Graph& g = f.modules[0].functions[0];
  ASSERT_EQ(g.num_ops(), 2u);
  EXPECT_EQ(g.node(2).kind, OpKind::Matmul);
  EXPECT_FALSE(g.node(2).attrs.get_or<bool>("transpose_b", true));
  EXPECT_EQ(g.node(3).kind, OpKind::Silu);
}

TEST(TextTtnn, MatmulWithActivationIsABiaslessLinear) {
  const Graph g = parse_text(matmul_fn("    %1 = \"ttnn.matmul\"(%arg0, %arg1) <{activation = "
                                       "\"sigmoid\", transpose_a = false, transpose_b = false}> : "
                                       "(tensor<64x128xbf16>, tensor<128x256xbf16>) -> "
                                       "tensor<64x256xbf16>\n"),
                             "t.mlir")
                      .modules[0]
                      .functions[0];
  const Node& n = g.node(2);
  EXPECT_EQ(n.kind, OpKind::Linear);
  EXPECT_EQ(n.operands.size(), 2u);
  EXPECT_EQ(n.attrs.get<std::string>("activation"), "sigmoid");
}

TEST(TextTtnn, LinearTakesABias) {
  const Graph g =
      parse_text("func.func @f(%a: tensor<4x8xf32>, %w: tensor<8x6xf32>, %b: tensor<6xf32>) -> "
                 "tensor<4x6xf32> {\n  %0 = \"ttnn.linear\"(%a, %w, %b) <{activation = \"relu\", "
                 "transpose_a = false, transpose_b = false}> : (tensor<4x8xf32>, tensor<8x6xf32>, "
                 "tensor<6xf32>) -> tensor<4x6xf32>\n  return %0 : tensor<4x6xf32>\n}\n",
                 "t.mlir")
          .modules[0]
          .functions[0];
  EXPECT_EQ(g.node(3).kind, OpKind::Linear);
  EXPECT_EQ(g.node(3).operands.size(), 3u);
  EXPECT_EQ(g.node(3).attrs.get<std::string>("activation"), "relu");
}

// Layout changes are the value itself; placement attributes and layout encodings are dropped.
TEST(TextTtnn, LayoutChangesAndPlacementsAreNotOps) {
  const char* text = R"(#dram = #ttnn.buffer_type<dram>
#ttnn_layout = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
module {
  func.func @f(%arg0: tensor<32x32xf32, #ttnn_layout>) -> tensor<32x32xbf16, #ttnn_layout> {
    %0 = "ttnn.to_memory_config"(%arg0) <{memory_config = #ttnn.memory_config<#dram, <interleaved>>}> : (tensor<32x32xf32, #ttnn_layout>) -> tensor<32x32xf32, #ttnn_layout>
    %1 = "ttnn.relu"(%0) <{memory_config = #ttnn.memory_config<#dram, <interleaved>>}> : (tensor<32x32xf32, #ttnn_layout>) -> tensor<32x32xf32, #ttnn_layout>
    %2 = "ttnn.to_layout"(%1) <{dtype = #ttcore.supportedDataTypes<bf16>, layout = #ttnn.layout<tile>}> : (tensor<32x32xf32, #ttnn_layout>) -> tensor<32x32xbf16, #ttnn_layout>
    return %2 : tensor<32x32xbf16, #ttnn_layout>
  }
}
)";
  const Graph g = parse_text(text, "t.mlir").modules[0].functions[0];
  ASSERT_EQ(g.num_ops(), 2u);
  EXPECT_EQ(g.node(1).kind, OpKind::Relu);
  EXPECT_EQ(g.node(1).operands, std::vector<NodeId>{0});
  EXPECT_FALSE(g.node(1).attrs.has("memory_config"));
  EXPECT_EQ(g.node(2).kind, OpKind::Typecast);
  EXPECT_EQ(g.node(2).attrs.get<DType>("dtype"), DType::BF16);
  EXPECT_EQ(g.node(0).type.str(), "tensor<32x32xf32>");
  EXPECT_EQ(g.node(2).type.str(), "tensor<32x32xbf16>");
}

TEST(TextTtnn, EveryModuleIsRead) {
  SourceFile f = parse_text(matmul_fn(kMatmul, "%0") + matmul_fn(kMatmul, "%0"), "t.mlir");
  EXPECT_EQ(f.modules.size(), 2u);
  EXPECT_TRUE(f.modules[1].device_tensors);
}

TEST(TextTtnn, TtirModulesAreHostData) {
  SourceFile f = parse_text("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = "
                            "\"ttir.relu\"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : "
                            "tensor<4xf32>\n}\n",
                            "t.mlir");
  EXPECT_FALSE(f.modules[0].device_tensors);
}

TEST(TextTtnn, Errors) {
  EXPECT_EQ(parse_error(matmul_fn("    %1 = \"ttnn.frobnicate\"(%arg0) : (tensor<64x128xbf16>) "
                                  "-> tensor<64x256xbf16>\n")),
            "t.mlir:3:10: error: unknown op 'ttnn.frobnicate'");
  EXPECT_EQ(parse_error(matmul_fn("    %1 = \"ttnn.matmul\"(%arg0, %arg1) <{activation = 1 : "
                                  "i32}> : (tensor<64x128xbf16>, tensor<128x256xbf16>) -> "
                                  "tensor<64x256xbf16>\n")),
            "t.mlir:3:53: error: attribute 'activation' of 'ttnn.matmul': expected a string, got "
            "1 : i32");
  EXPECT_EQ(parse_error(matmul_fn("    %1 = \"ttnn.matmul\"(%arg0, %arg1) <{bias = true}> : "
                                  "(tensor<64x128xbf16>, tensor<128x256xbf16>) -> "
                                  "tensor<64x256xbf16>\n")),
            "t.mlir:3:47: error: unknown attribute 'bias' of 'ttnn.matmul'");
  EXPECT_EQ(parse_error(matmul_fn("    %1 = \"ttnn.matmul\"(%arg0, %arg1) <{activation = "
                                  "\"softmax\"}> : (tensor<64x128xbf16>, tensor<128x256xbf16>) -> "
                                  "tensor<64x256xbf16>\n")),
            "t.mlir:3:5: error: 'ttir.linear' %1: expected 'activation' to be empty or an "
            "elementwise unary op, got \"softmax\"");
  EXPECT_EQ(parse_error(matmul_fn("    %1 = \"ttnn.to_layout\"(%arg0) : (tensor<64x128xbf16>) -> "
                                  "tensor<64x256xbf16>\n")),
            "t.mlir:3:5: error: 'ttnn.to_layout' keeps the shape: expected result type with shape "
            "64x128, got tensor<64x256xbf16>");
}

} // namespace
} // namespace tilesat
