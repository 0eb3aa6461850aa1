// Tests of parser.h: the seed listings verbatim, tt-mlir's spellings, and exact diagnostics.
#include "text_seed_listings.h"
#include "text_test_support.h"
#include "tilesat/graph/parser.h"
#include "tilesat/graph/printer.h"
#include "tilesat/graph/stablehlo.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <string>

namespace tilesat {
namespace {

/// `body` inside `func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {` on line 1.
std::string in_main(const std::string& body) {
  return "func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n" + body + "\n}\n";
}

TEST(TextParser, OtherElementTypesReadAsTheNearest) {
  const SourceFile f = parse_text(
      "func.func @main(%a: tensor<2xf16>, %b: tensor<2xf64>, %c: tensor<2xi1>, %d: tensor<2xsi64>, "
      "%e: tensor<2xui32>, %f: tensor<2xi8>) -> tensor<2xf16> {\n  return %a : tensor<2xf16>\n}\n",
      "t.mlir");
  const Graph& g = only(f);
  std::vector<DType> got;
  for (NodeId id : g.arguments()) got.push_back(g.node(id).type.dtype);
  EXPECT_EQ(got, (std::vector<DType>{DType::F32, DType::F32, DType::I32, DType::I32, DType::I32,
                                     DType::I32}));
}

TEST(TextParser, HeaderExamples) {
  // parser.h
  SourceFile f = parse_text(R"(module { func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "ttir.relu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32> } })",
                            "relu.mlir");
  EXPECT_EQ(f.modules[0].functions[0].num_ops(), 1u);
  // module.h
  SourceFile seed = parse_text(test::kSeed000TtirInitial, "seed.mlir");
  EXPECT_EQ(select_function(seed, "").name(), "main");
  ASSERT_EQ(seed.modules[0].attributes.size(), 1u);
  EXPECT_EQ(seed.modules[0].attributes[0].first, "tt.system_desc");
  EXPECT_EQ(seed.modules[0].attributes[0].second, "#tt.system_desc<...>");
  // printer.h
  std::string text = print_text(seed);
  std::string one = print_graph(seed.modules[0].functions[0]);
  EXPECT_TRUE(one.starts_with("module {\n  func.func @main("));
  EXPECT_NE(text.find("#any_device = #tt.operand_constraint<any_device>"), std::string::npos);
  // stablehlo.h
  EXPECT_EQ(find_stablehlo_op("stablehlo.dot_general")->ttir, "ttir.matmul");
  EXPECT_FALSE(stablehlo_op_mappings().empty());
}

TEST(TextParser, Seed000TtirInitial) {
  SourceFile f = parse_text(test::kSeed000TtirInitial, "seed.mlir");
  ASSERT_EQ(f.aliases.size(), 1u);
  EXPECT_EQ(f.aliases[0].first, "#any_device");
  EXPECT_EQ(f.modules[0].name, "simple_mlp");
  const Graph& g = only(f);
  EXPECT_EQ(g.arguments().size(), 5u);
  EXPECT_EQ(g.num_ops(), 9u);
  const Node& t = g.node(5);
  EXPECT_EQ(t.kind, OpKind::Transpose);
  EXPECT_EQ(t.attrs.get<int64_t>("dim0"), 1);
  EXPECT_EQ(t.loc.str(), "seed.mlir:15:5");
  const Node& mm = g.node(6);
  EXPECT_EQ(mm.kind, OpKind::Matmul);
  EXPECT_EQ(mm.attrs.get<OpaqueAttr>("operand_constraints").text,
            "[#any_device, #any_device, #any_device]");
  const Node& b = g.node(7);
  EXPECT_EQ(b.attrs.get<std::vector<int64_t>>("shape"), (std::vector<int64_t>{32, 256}));
  EXPECT_EQ(b.attrs.get<std::vector<int64_t>>("dims"), (std::vector<int64_t>{1}));
}

TEST(TextParser, Seed000TtirOptimized) {
  const Graph g = only(parse_text(test::kSeed000TtirOptimized, "seed.mlir"));
  EXPECT_EQ(g.num_ops(), 4u);
  EXPECT_EQ(g.node(5).kind, OpKind::Matmul);
  EXPECT_TRUE(g.node(5).attrs.get<bool>("transpose_b"));
  EXPECT_EQ(g.node(6).kind, OpKind::AddRelu);
  EXPECT_EQ(g.node(6).attrs.get<std::vector<int64_t>>("broadcast_dims"), (std::vector<int64_t>{1}));
}

TEST(TextParser, Seed001CoshCustomForm) {
  const Graph g = only(parse_text(test::kSeed001Cosh, "cosh.mlir"));
  EXPECT_EQ(g.name(), "cosh");
  EXPECT_EQ(g.node(0).type.encoding, "#ttnn_layout");
  EXPECT_EQ(g.node(0).type.dtype, DType::BF16);
  // `ttir.multiply %3, 0.5 : ..., f32 -> ...`: the scalar is a rank-0 f32 constant.
  const Node& mul = g.node(g.results()[0].value);
  ASSERT_EQ(mul.kind, OpKind::Multiply);
  const Node& half = g.node(mul.operands[1]);
  EXPECT_EQ(half.kind, OpKind::Constant);
  EXPECT_EQ(half.type.shape.rank(), 0);
  EXPECT_EQ(half.type.dtype, DType::F32);
  EXPECT_EQ(half.attrs.get<std::vector<double>>("value"), (std::vector<double>{0.5}));
}

TEST(TextParser, TtMlirSpellings) {
  const char* text = R"(
module {
  func.func @f(%arg0: tensor<1x4xbf16>, %arg1: tensor<4x4xbf16>) -> tensor<4x4xbf16> {
    %0 = "ttir.zeros"() <{shape = array<i32: 4, 4>}> : () -> tensor<4x4xbf16>
    %1 = "ttir.full"() <{shape = array<i32: 4, 4>, fill_value = 1 : i32}> : () -> tensor<4x4xbf16>
    %2 = "ttir.broadcast"(%arg0) <{broadcast_dimensions = array<i64: 4, 1>}> : (tensor<1x4xbf16>) -> tensor<4x4xbf16>
    %3 = "ttir.permute"(%2) <{permutation = array<i64: 1, 0>}> : (tensor<4x4xbf16>) -> tensor<4x4xbf16>
    %4 = "ttir.reshape"(%3) <{shape = [16:i32]}> : (tensor<4x4xbf16>) -> tensor<16xbf16>
    %5 = "ttir.reshape"(%4) <{shape = [4 : i32, 4 : i32]}> : (tensor<16xbf16>) -> tensor<4x4xbf16>
    %6 = "ttir.maximum"(%5, %0) : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xbf16>
    %7 = "ttir.softmax"(%6) <{dimension = 1 : si32, numericStable = false}> : (tensor<4x4xbf16>) -> tensor<4x4xbf16>
    %8 = "ttir.constant"() <{value = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xbf16>}> : () -> tensor<4x4xbf16>
    %9 = "ttir.div"(%7, %8) : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xbf16>
    %10 = "ttir.sum"(%9) {dim_arg = [1 : i32], keep_dim = true} : (tensor<4x4xbf16>) -> tensor<4x1xbf16>
    %11 = "ttir.add"(%9, %1) : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xbf16>
    return %11 : tensor<4x4xbf16>
  }
})";
  const Graph g = only(parse_text(text, "t.mlir"));
  EXPECT_EQ(g.node(2).kind, OpKind::Full);
  EXPECT_EQ(g.node(2).attrs.get<double>("fill_value"), 0.0);
  EXPECT_EQ(g.node(2).attrs.get<DType>("dtype"), DType::BF16);
  EXPECT_EQ(g.node(3).attrs.get<double>("fill_value"), 1.0);
  EXPECT_EQ(g.node(4).attrs.get<std::vector<int64_t>>("shape"), (std::vector<int64_t>{4, 4}));
  EXPECT_FALSE(g.node(4).attrs.has("broadcast_dimensions"));
  EXPECT_EQ(g.node(5).attrs.get<std::vector<int64_t>>("permutation"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(g.node(6).attrs.get<std::vector<int64_t>>("shape"), (std::vector<int64_t>{16}));
  EXPECT_EQ(g.node(9).attrs.get<OpaqueAttr>("numericStable").text, "false");
  EXPECT_EQ(g.node(10).attrs.get<std::vector<double>>("value").size(), 16u);
  EXPECT_EQ(g.node(11).kind, OpKind::Divide);
  EXPECT_TRUE(g.node(12).attrs.get<bool>("keep_dim"));
}

TEST(TextParser, LegacyDestinationOperandsAreDropped) {
  const char* text = R"(
module {
  func.func @softmax(%arg0: tensor<32x32xf32>) -> tensor<32x32xf32> {
    %0 = ttir.empty() : tensor<32x32xf32>
    %1 = "ttir.exp"(%arg0, %0) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
    %2 = ttir.empty() : tensor<32x1xf32>
    %3 = "ttir.sum"(%1, %2) {dim_arg = [1 : i32], keep_dim = true} : (tensor<32x32xf32>, tensor<32x1xf32>) -> tensor<32x1xf32>
    %4 = ttir.empty() : tensor<32x32xf32>
    %5 = "ttir.broadcast"(%3, %4) {broadcast_dimensions = array<i64: 1, 32>} : (tensor<32x1xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
    %6 = ttir.empty() : tensor<32x32xf32>
    %7 = "ttir.div"(%1, %5, %6) : (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
    return %7 : tensor<32x32xf32>
  }
})";
  const Graph g = only(parse_text(text, "t.mlir"));
  EXPECT_EQ(g.num_ops(), 4u);
  EXPECT_EQ(g.node(2).operands.size(), 1u);                   // sum
  EXPECT_EQ(g.node(4).operands, (std::vector<NodeId>{1, 3})); // div
  EXPECT_EQ(g.node(3).attrs.get<std::vector<int64_t>>("shape"), (std::vector<int64_t>{32, 32}));
}

TEST(TextParser, SeveralModulesAndWeights) {
  const char* text = R"(
module {
  func.func @a(%x: tensor<2xf32> {ttcore.argument_type = #ttcore.argument_type<parameter>}) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
module @second attributes {foo, bar = 3 : i64} {
  func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = "ttir.abs"(%arg0) : (tensor<2xf32>) -> tensor<2xf32> loc(#loc1)
    return %0, %arg0 : tensor<2xf32>, tensor<2xf32>
  }
})";
  SourceFile f = parse_text(text, "t.mlir");
  ASSERT_EQ(f.modules.size(), 2u);
  EXPECT_EQ(f.modules[0].functions[0].node(0).role, ArgRole::Weight);
  EXPECT_EQ(f.modules[1].attributes[0], (std::pair<std::string, std::string>{"foo", "unit"}));
  EXPECT_EQ(select_function(f, "").name(), "main");
  EXPECT_EQ(select_function(f, "main").results().size(), 2u);
  EXPECT_THROW(select_function(f, "zzz"), Error);
}

// tt-mlir's `ttcore.meshes` module attribute (and the older `tt.meshes`) names the mesh a
// module runs on; the file's modules must agree on it.
TEST(TextParser, DeclaredMesh) {
  auto file = [](std::string_view attrs) {
    return parse_text(fmt::format("module @m{} {{\n  func.func @main(%arg0: tensor<2xf32>) -> "
                                  "tensor<2xf32> {{\n    return %arg0 : tensor<2xf32>\n  }}\n}}",
                                  attrs),
                      "t.mlir");
  };
  EXPECT_EQ(declared_mesh(file("")), std::nullopt);
  EXPECT_EQ(
      declared_mesh(file(R"( attributes {ttcore.meshes = #ttcore.meshes<[<"mesh" = 2x4>]>})")),
      (MeshShape{2, 4}));
  EXPECT_EQ(declared_mesh(file(R"( attributes {tt.meshes = #tt.meshes<[<"m" = 1x8>]>})")),
            (MeshShape{1, 8}));
  auto error_of = [&](std::string_view attrs) {
    try {
      declared_mesh(file(attrs));
    } catch (const Error& e) {
      return e.diagnostic().message;
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(R"( attributes {ttcore.meshes = #ttcore.meshes<[<"a" = 1x2>, <"b" = 2x4>]>})"),
            "module @m: attribute ttcore.meshes declares 2 meshes; tilesat plans for one");
  EXPECT_EQ(error_of(R"( attributes {ttcore.meshes = #ttcore.meshes<[<"a" = 0x2>]>})"),
            "module @m: attribute ttcore.meshes: expected a chip count >= 1 at offset 23 of "
            "'#ttcore.meshes<[<\"a\" = 0x2>]>'");
  SourceFile two = file(R"( attributes {ttcore.meshes = #ttcore.meshes<[<"a" = 1x2>]>})");
  two.modules.push_back(two.modules[0]);
  two.modules[1].name = "n";
  two.modules[1].attributes[0].second = R"(#ttcore.meshes<[<"a" = 1x8>]>)";
  EXPECT_THROW(declared_mesh(two), Error);
  EXPECT_EQ(declared_mesh(two.modules[1]), (MeshShape{1, 8}));
}

TEST(TextParser, ErrorMessages) {
  EXPECT_EQ(parse_error(in_main(R"(  %0 = "ttir.relu"(%arg0 : (tensor<4xf32>) -> tensor<4xf32>)")),
            "t.mlir:2:26: error: expected ')', got ':'");
  EXPECT_EQ(parse_error(
                in_main(R"(  %0 = "ttir.add"(%arg0, %arg0,) : (tensor<4xf32>) -> tensor<4xf32>)")),
            "t.mlir:2:32: error: expected an operand such as '%0', got ')'");
  EXPECT_EQ(parse_error(in_main(R"(  %0 = "ttir.frob"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>)")),
            "t.mlir:2:8: error: unknown op 'ttir.frob'");
  EXPECT_EQ(parse_error(in_main(R"(  %0 = "foo.bar"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>)")),
            "t.mlir:2:8: error: unknown op 'foo.bar'");
  EXPECT_EQ(parse_error("func.func @main(%arg0: tensor<4xf8>) -> tensor<4xf8> {}"),
            "t.mlir:1:33: error: unknown element type 'f8' (expected f32, bf16, f16, f64, bfp_bf8, "
            "or an integer type from i1 to i64)");
  EXPECT_EQ(
      parse_error(in_main(
          R"(  %0 = "ttir.relu"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>)")),
      "t.mlir:2:3: error: 'ttir.relu' %0: expected 1 operand, got 2");
  EXPECT_EQ(parse_error(R"(func.func @main(%arg0: tensor<4xf32>) -> tensor<5xf32> {
  %0 = "ttir.relu"(%arg0) : (tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
})"),
            "t.mlir:2:3: error: 'ttir.relu' %0: expected result type tensor<4xf32>, got "
            "tensor<5xf32>");
  EXPECT_EQ(parse_error(in_main(R"(  %0 = "ttir.relu"(%7) : (tensor<4xf32>) -> tensor<4xf32>)")),
            "t.mlir:2:20: error: use of undefined value %7");
  EXPECT_EQ(parse_error(in_main(R"(  %0 = "ttir.relu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  %0 = "ttir.relu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>)")),
            "t.mlir:3:3: error: redefinition of %0 (first defined at t.mlir:2:3)");
  EXPECT_EQ(parse_error("#a = #tt.layout<x, <y>\n"), "t.mlir:1:16: error: unterminated '<'");
  EXPECT_EQ(parse_error(in_main("  return %arg0 : tensor<4xf32>\n  return")),
            "t.mlir:3:3: error: expected '}' after 'return', got 'return'");
  EXPECT_EQ(
      parse_error(in_main(
          R"(  %0 = "ttir.transpose"(%arg0) <{dim0 = [1], dim1 = 0 : si32}> : (tensor<4xf32>) -> tensor<4xf32>)")),
      "t.mlir:2:41: error: attribute 'dim0' of 'ttir.transpose': expected an integer, got "
      "[1]");
  EXPECT_EQ(
      parse_error(in_main(
          R"(  %0 = "ttir.transpose"(%arg0) <{dim0 = 1e999, dim1 = 0 : si32}> : (tensor<4xf32>) -> tensor<4xf32>)")),
      "t.mlir:2:41: error: floating-point number '1e999' is out of range");
  EXPECT_EQ(parse_error("func.func @main(%arg0: tensor<99999999999x99999999999xf32>) {}"),
            "t.mlir:1:24: error: tensor type has more than 2^40 elements");
  EXPECT_EQ(parse_error("func.func @main(%arg0: tensor<?x4xf32>) {}"),
            "t.mlir:1:31: error: dynamic dimension '?' is not supported");
  EXPECT_EQ(parse_error("module {"),
            "t.mlir:1:9: error: expected 'func.func' or '}', got end of file");
  EXPECT_EQ(parse_error("\x01"), "t.mlir:1:1: error: unexpected character byte 0x01");
}

TEST(TextParser, ArgumentNameMustBeAString) {
  EXPECT_EQ(parse_error("func.func @f(%a: tensor<4xf32> {ttir.name = 3}) -> tensor<4xf32> {\n"
                        "  return %a : tensor<4xf32>\n}"),
            "t.mlir:1:45: error: attribute 'ttir.name' of argument %a: expected a non-empty "
            "string, got 3");
}

TEST(TextParser, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "#a = " + std::string(100000, '[') + "\n";
  EXPECT_EQ(parse_error(deep), "t.mlir:1:70: error: nesting deeper than 64 levels");
}

TEST(TextParser, ParseFileNamesMissingFile) {
  try {
    parse_file("/nonexistent/dir/x.mlir");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "error: /nonexistent/dir/x.mlir: cannot open the text file: No such file or "
              "directory");
  }
}

} // namespace
} // namespace tilesat
