// Tests of printer.h: canonical spellings and the round trip print -> parse -> print.
#include "text_seed_listings.h"
#include "tilesat/graph/parser.h"
#include "tilesat/graph/printer.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

namespace tilesat {
namespace {

/// Same ops, operands, attributes and types, node for node.
void expect_same_graph(const Graph& a, const Graph& b) {
  ASSERT_EQ(a.num_nodes(), b.num_nodes());
  EXPECT_EQ(a.name(), b.name());
  for (NodeId i = 0; i < a.num_nodes(); ++i) {
    SCOPED_TRACE(value_name(a, i));
    EXPECT_EQ(a.node(i).kind, b.node(i).kind);
    EXPECT_EQ(a.node(i).operands, b.node(i).operands);
    EXPECT_EQ(a.node(i).attrs, b.node(i).attrs);
    EXPECT_EQ(a.node(i).type, b.node(i).type);
  }
  ASSERT_EQ(a.results().size(), b.results().size());
  for (size_t i = 0; i < a.results().size(); ++i) {
    EXPECT_EQ(a.results()[i].value, b.results()[i].value);
  }
}

void expect_round_trip(const char* text) {
  SourceFile first = parse_text(text, "in.mlir");
  std::string printed = print_text(first);
  SourceFile second = parse_text(printed, "printed.mlir");
  EXPECT_EQ(print_text(second), printed);
  ASSERT_EQ(first.modules.size(), second.modules.size());
  for (size_t m = 0; m < first.modules.size(); ++m) {
    ASSERT_EQ(first.modules[m].functions.size(), second.modules[m].functions.size());
    for (size_t f = 0; f < first.modules[m].functions.size(); ++f) {
      expect_same_graph(first.modules[m].functions[f], second.modules[m].functions[f]);
    }
  }
}

TEST(TextPrinter, SeedListingsRoundTrip) {
  expect_round_trip(test::kSeed000StableHlo);
  expect_round_trip(test::kSeed000TtirInitial);
  expect_round_trip(test::kSeed000TtirOptimized);
  expect_round_trip(test::kSeed001Cosh);
}

TEST(TextPrinter, CanonicalGenericForm) {
  std::string out = print_text(parse_text(test::kSeed000TtirOptimized, "seed.mlir"));
  EXPECT_NE(
      out.find(
          R"(    %0 = "ttir.matmul"(%arg0, %arg1) <{operand_constraints = [#any_device, #any_device, #any_device], transpose_a = false, transpose_b = true}> : (tensor<32x128xf32>, tensor<256x128xf32>) -> tensor<32x256xf32>
)"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("    return %3 : tensor<32x10xf32>\n  }\n}\n"), std::string::npos) << out;
  EXPECT_TRUE(
      out.starts_with("#any_device = #tt.operand_constraint<any_device>\n\nmodule "
                      "@simple_mlp attributes {tt.system_desc = #tt.system_desc<...>} {\n"));
}

TEST(TextPrinter, AttributeSpellings) {
  Graph g("f");
  NodeId x = g.add_argument("x", {DType::BF16, Shape{2, 3}}, ArgRole::Weight);
  Attrs perm;
  perm.set("permutation", std::vector<int64_t>{1, 0});
  NodeId p = g.add_op(OpKind::Permute, {x}, perm);
  Attrs full;
  full.set("shape", std::vector<int64_t>{3, 2});
  full.set("fill_value", 0.1);
  full.set("dtype", DType::BF16);
  NodeId c = g.add_op(OpKind::Full, {}, full);
  Attrs soft;
  soft.set("dimension", int64_t{-1});
  NodeId s = g.add_op(OpKind::Softmax, {g.add_op(OpKind::Add, {p, c})}, soft);
  g.add_result(s);
  std::string out = print_graph(g);
  EXPECT_NE(out.find("func.func @f(%arg0: tensor<2x3xbf16> {ttcore.argument_type = "
                     "#ttcore.argument_type<parameter>, ttir.name = \"x\"}) -> tensor<3x2xbf16> {"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("<{permutation = array<i64: 1, 0>}>"), std::string::npos) << out;
  EXPECT_NE(out.find("<{dtype = bf16, fill_value = 1.000000e-01 : f32, shape = array<i32: 3, 2>}>"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("<{dimension = -1 : si32}>"), std::string::npos) << out;
  SourceFile back = parse_text(out, "printed.mlir");
  expect_same_graph(g, back.modules[0].functions[0]);
  EXPECT_EQ(print_text(back), out);
}

TEST(TextPrinter, ArgumentsAreNumberedAndKeepTheirNames) {
  SourceFile f = parse_text(
      R"(func.func @g(%x: tensor<4xf32>, %arg1: tensor<4xf32>, %w: tensor<4xf32> {ttir.name = "fc.bias"}) -> tensor<4xf32> {
  %0 = "ttir.add"(%x, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "ttir.add"(%0, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
})",
      "in.mlir");
  const Graph& g = f.modules[0].functions[0];
  EXPECT_EQ(g.node(g.arguments()[0]).name, "x");
  EXPECT_EQ(g.node(g.arguments()[2]).name, "fc.bias");
  std::string out = print_text(f);
  EXPECT_NE(
      out.find(R"(func.func @g(%arg0: tensor<4xf32> {ttir.name = "x"}, %arg1: tensor<4xf32>, )"
               R"(%arg2: tensor<4xf32> {ttir.name = "fc.bias"}))"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find(R"("ttir.add"(%arg0, %arg1))"), std::string::npos) << out;
  SourceFile back = parse_text(out, "printed.mlir");
  EXPECT_EQ(back.modules[0].functions[0].node(g.arguments()[2]).name, "fc.bias");
  EXPECT_EQ(print_text(back), out);
}

TEST(TextPrinter, LegacyDestinationPassingIsPrintedBack) {
  const char* legacy = R"(module {
  func.func @f(%arg0: tensor<4xbf16>) -> tensor<4xbf16> {
    %0 = "ttir.zeros"() <{shape = array<i32: 4>}> : () -> tensor<4xbf16>
    %1 = ttir.empty() : tensor<4xbf16>
    %2 = "ttir.maximum"(%arg0, %0, %1) : (tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
    return %2 : tensor<4xbf16>
  }
})";
  SourceFile f = parse_text(legacy, "in.mlir");
  EXPECT_TRUE(f.modules[0].destination_passing);
  EXPECT_EQ(f.modules[0].functions[0].num_ops(), 2u);
  std::string out = print_text(f);
  EXPECT_NE(out.find("%1 = ttir.empty() : tensor<4xbf16>\n"
                     "    %2 = \"ttir.maximum\"(%arg0, %0, %1) : (tensor<4xbf16>, tensor<4xbf16>, "
                     "tensor<4xbf16>) -> tensor<4xbf16>"),
            std::string::npos)
      << out;
  EXPECT_EQ(print_text(parse_text(out, "printed.mlir")), out);
  // Without destinations in the input, none are printed.
  SourceFile plain = parse_text(R"(func.func @g(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ttir.relu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
})",
                                "plain.mlir");
  EXPECT_FALSE(plain.modules[0].destination_passing);
  EXPECT_EQ(print_text(plain).find("ttir.empty"), std::string::npos);
}

TEST(TextPrinter, FloatsRoundTripExactly) {
  Graph g("c");
  Attrs a;
  a.set("value",
        std::vector<double>{0.1, 1.0 / 3.0, -2.5e-30, std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(), 7.0});
  a.set("shape", std::vector<int64_t>{2, 3});
  a.set("dtype", DType::F32);
  g.add_result(g.add_op(OpKind::Constant, {}, a));
  std::string out = print_graph(g);
  EXPECT_NE(out.find("dense<[[1.000000e-01, 3.333333333333333e-01, -2.500000e-30], "
                     "[0x7F800000, 0xFF800000, 7.000000e+00]]> : tensor<2x3xf32>"),
            std::string::npos)
      << out;
  SourceFile back = parse_text(out, "printed.mlir");
  expect_same_graph(g, back.modules[0].functions[0]);
}

TEST(TextPrinter, DeadOpsAreKept) {
  const char* text = R"(
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ttir.exp"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "ttir.relu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
})";
  std::string out = print_text(parse_text(text, "t.mlir"));
  EXPECT_NE(out.find("%0 = \"ttir.exp\""), std::string::npos) << out;
  expect_round_trip(text);
}

TEST(TextPrinter, UnitAttributesRoundTrip) {
  // Found by fuzz_text_parser: `{flag}` printed as `flag = ` and did not parse back.
  const char* text = R"(
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ttir.relu"(%arg0) {flag, other = 1} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
})";
  std::string out = print_text(parse_text(text, "t.mlir"));
  EXPECT_NE(out.find("<{flag = unit, other = 1}>"), std::string::npos) << out;
  expect_round_trip(text);
}

} // namespace
} // namespace tilesat
