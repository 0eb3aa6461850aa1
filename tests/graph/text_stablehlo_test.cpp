// Tests of StableHLO import (stablehlo.h): seed 000's listing and each conversion rule.
#include "text_seed_listings.h"
#include "text_test_support.h"
#include "tilesat/graph/parser.h"
#include "tilesat/graph/stablehlo.h"

#include <gtest/gtest.h>

namespace tilesat {
namespace {

/// A one-op function `%0 = <op>` over arguments `args`, returning `%0 : result`.
std::string one_op(const std::string& args, const std::string& op, const std::string& result) {
  return "func.func @main(" + args + ") -> " + result + " {\n  %0 = " + op +
         "\n  return %0 : " + result + "\n}\n";
}

TEST(TextStableHlo, Seed000BecomesTheTtirOfSection33) {
  const Graph shlo = only(parse_text(test::kSeed000StableHlo, "shlo.mlir"));
  const Graph ttir = only(parse_text(test::kSeed000TtirInitial, "ttir.mlir"));
  // §3.3 computes relu(x) where §3.2 computes maximum(x, 0); otherwise op for op the same.
  std::vector<OpKind> kinds;
  for (NodeId id = 5; id < shlo.num_nodes(); ++id) kinds.push_back(shlo.node(id).kind);
  std::vector<OpKind> expected = {
      OpKind::Transpose, OpKind::Matmul,    OpKind::Broadcast, OpKind::Add,       OpKind::Constant,
      OpKind::Maximum,   OpKind::Transpose, OpKind::Matmul,    OpKind::Broadcast, OpKind::Add};
  EXPECT_EQ(kinds, expected);
  const Node& t = shlo.node(5);
  ASSERT_EQ(t.kind, OpKind::Transpose);
  EXPECT_EQ(t.attrs.get<int64_t>("dim0"), ttir.node(5).attrs.get<int64_t>("dim0"));
  EXPECT_EQ(t.attrs.get<int64_t>("dim1"), ttir.node(5).attrs.get<int64_t>("dim1"));
  EXPECT_EQ(shlo.node(7).attrs.get<std::vector<int64_t>>("dims"),
            ttir.node(7).attrs.get<std::vector<int64_t>>("dims"));
  EXPECT_EQ(shlo.node(7).attrs.get<std::vector<int64_t>>("shape"),
            ttir.node(7).attrs.get<std::vector<int64_t>>("shape"));
  EXPECT_EQ(shlo.node(9).attrs.get<std::vector<double>>("value"), (std::vector<double>{0.0}));
}

TEST(TextStableHlo, DotGeneralTransposeFlags) {
  struct Case {
    std::string lhs, rhs, dims;
    bool ta, tb;
  };
  for (const Case& c :
       {Case{"4x8", "8x2", "[1] x [0]", false, false}, Case{"8x4", "8x2", "[0] x [0]", true, false},
        Case{"4x8", "2x8", "[1] x [1]", false, true},
        Case{"8x4", "2x8", "[0] x [1]", true, true}}) {
    SCOPED_TRACE(c.dims);
    std::string args = "%a: tensor<" + c.lhs + "xf32>, %b: tensor<" + c.rhs + "xf32>";
    std::string op = "stablehlo.dot_general %a, %b, contracting_dims = " + c.dims + " : (tensor<" +
                     c.lhs + "xf32>, tensor<" + c.rhs + "xf32>) -> tensor<4x2xf32>";
    const Graph g = only(parse_text(one_op(args, op, "tensor<4x2xf32>"), "t.mlir"));
    const Node& mm = g.node(2);
    EXPECT_EQ(mm.kind, OpKind::Matmul);
    EXPECT_EQ(mm.attrs.get<bool>("transpose_a"), c.ta);
    EXPECT_EQ(mm.attrs.get<bool>("transpose_b"), c.tb);
  }
}

TEST(TextStableHlo, BatchedDotGeneral) {
  std::string op = "stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = "
                   "[2] x [1] : (tensor<3x4x8xf32>, tensor<3x8x2xf32>) -> tensor<3x4x2xf32>";
  const Graph g = only(parse_text(
      one_op("%a: tensor<3x4x8xf32>, %b: tensor<3x8x2xf32>", op, "tensor<3x4x2xf32>"), "t.mlir"));
  EXPECT_EQ(g.node(2).kind, OpKind::Matmul);
}

TEST(TextStableHlo, OtherOps) {
  const char* text = R"(
func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x3x4xf32>) -> tensor<24xbf16> {
  %0 = stablehlo.transpose %a, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = stablehlo.reshape %0 : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  %2 = stablehlo.multiply %1, %b : tensor<2x3x4xf32>
  %3 = stablehlo.subtract %2, %b : tensor<2x3x4xf32>
  %4 = stablehlo.divide %3, %b : tensor<2x3x4xf32>
  %5 = stablehlo.exponential %4 : tensor<2x3x4xf32>
  %6 = stablehlo.negate %5 : tensor<2x3x4xf32>
  %7 = stablehlo.logistic %6 : tensor<2x3x4xf32>
  %8 = stablehlo.concatenate %7, %b, dim = 0 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<4x3x4xf32>
  %9 = stablehlo.reshape %8 : (tensor<4x3x4xf32>) -> tensor<48xf32>
  %10 = "stablehlo.transpose"(%a) {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %11 = stablehlo.reshape %10 : (tensor<2x4x3xf32>) -> tensor<24xf32>
  %12 = stablehlo.convert %11 : (tensor<24xf32>) -> tensor<24xbf16>
  return %12 : tensor<24xbf16>
})";
  const Graph g = only(parse_text(text, "t.mlir"));
  EXPECT_EQ(g.node(2).kind, OpKind::Permute);
  EXPECT_EQ(g.node(2).attrs.get<std::vector<int64_t>>("permutation"),
            (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(g.node(3).attrs.get<std::vector<int64_t>>("shape"), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(g.node(4).kind, OpKind::Multiply);
  EXPECT_EQ(g.node(7).kind, OpKind::Exp);
  EXPECT_EQ(g.node(8).kind, OpKind::Neg);
  EXPECT_EQ(g.node(9).kind, OpKind::Sigmoid);
  EXPECT_EQ(g.node(10).kind, OpKind::Concat);
  EXPECT_EQ(g.node(12).kind, OpKind::Transpose);
  EXPECT_EQ(g.node(12).attrs.get<int64_t>("dim0"), 2);
  EXPECT_EQ(g.node(12).attrs.get<int64_t>("dim1"), 1);
  EXPECT_EQ(g.node(14).kind, OpKind::Typecast);
  EXPECT_EQ(g.node(14).attrs.get<DType>("dtype"), DType::BF16);
}

TEST(TextStableHlo, Errors) {
  EXPECT_EQ(parse_error(one_op("%a: tensor<4xf32>",
                               "stablehlo.reduce %a : (tensor<4xf32>) -> tensor<4xf32>",
                               "tensor<4xf32>")),
            "t.mlir:2:3: error: unsupported StableHLO op 'stablehlo.reduce'");
  EXPECT_EQ(parse_error(one_op("%a: tensor<4x4xf32>",
                               "stablehlo.transpose %a, dims = [0, 0] : (tensor<4x4xf32>) -> "
                               "tensor<4x4xf32>",
                               "tensor<4x4xf32>")),
            "t.mlir:2:39: error: attribute 'dims' of 'stablehlo.transpose': expected a "
            "permutation of 0..1, got [0, 0]");
  EXPECT_EQ(parse_error(one_op("%a: tensor<4x4xf32>",
                               "stablehlo.dot_general %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) "
                               "-> tensor<4x4xf32>",
                               "tensor<4x4xf32>")),
            "t.mlir:2:3: error: 'stablehlo.dot_general' needs attribute 'contracting_dims'");
}

TEST(TextStableHlo, MappingTable) {
  for (const StableHloOpMapping& m : stablehlo_op_mappings()) {
    EXPECT_TRUE(m.stablehlo.starts_with("stablehlo.")) << m.stablehlo;
    EXPECT_TRUE(op_by_name(m.ttir.substr(5)).has_value()) << m.ttir;
    EXPECT_EQ(find_stablehlo_op(m.stablehlo), &m);
  }
  EXPECT_EQ(find_stablehlo_op("stablehlo.reduce"), nullptr);
}

} // namespace
} // namespace tilesat
