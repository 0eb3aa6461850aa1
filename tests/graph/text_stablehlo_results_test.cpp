// Ops with several results (`%r:2 = ...`, `%a, %b = ...`, uses `%r#1`): calls of functions
// returning several values, stablehlo.optimization_barrier; and JAX's sharding annotations
// (stablehlo.custom_call @Sharding), read as the values they annotate.
#include "text_test_support.h"

#include <gtest/gtest.h>

namespace tilesat {
namespace {

// jax.checkpoint writes a barrier over the values it keeps; a private function returns two.
const char* kBarrier =
    R"(func.func private @pair(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = stablehlo.add %a, %b : tensor<2xf32>
  %1 = stablehlo.multiply %a, %b : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %0:2 = stablehlo.optimization_barrier %x, %y : tensor<2xf32>, tensor<2xf32>
  %s, %p = "stablehlo.optimization_barrier"(%0#1, %0#0) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %1:2 = call @pair(%s, %p) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %2 = stablehlo.subtract %1#1, %1#0 : tensor<2xf32>
  return %2 : tensor<2xf32>
}
)";

// The error of `text` with `from` replaced by `to`.
std::string error_after(const char* text, const std::string& from, const std::string& to) {
  return parse_error(replaced(text, from, to));
}

TEST(TextStableHloResults, BarrierAndCallWithSeveralResults) {
  const SourceFile file = parse_text(kBarrier, "t.mlir");
  const Graph& main = select_function(file, "main");
  // pair(y, x) is (y+x, y*x); y*x - (y+x): the barriers add no node, the call its two ops.
  std::vector<Tensor> args{Tensor(main.node(0).type, {2, 3}), Tensor(main.node(1).type, {5, -1})};
  EXPECT_EQ(evaluate(main, args).at(0).data(), (std::vector<float>{3, -5}));
  EXPECT_EQ(main.num_ops(), 3u);
}

TEST(TextStableHloResults, Errors) {
  auto with = [](const std::string& from, const std::string& to) {
    return error_after(kBarrier, from, to);
  };
  EXPECT_EQ(with("%2 = stablehlo.subtract", "%2:2 = stablehlo.subtract"),
            "t.mlir:10:3: error: 'stablehlo.subtract' with 2 results is not supported (calls, "
            "composites, 'stablehlo.optimization_barrier', 'stablehlo.reduce' and "
            "'stablehlo.while' may have several)");
  EXPECT_EQ(with("%0:2", "%0:0"), "t.mlir:7:6: error: expected a result count from 1 to 4096, "
                                  "got 0");
  EXPECT_EQ(with("%1#1, %1#0", "%1#2, %1#0"), "t.mlir:10:27: error: use of undefined value %1#2");
  EXPECT_EQ(with("%1:2 = call", "%1:3 = call"),
            "t.mlir:9:10: error: expected 3 result types for 'call', got 2");
  EXPECT_EQ(with("%1:2 = call @pair(%s, %p) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, "
                 "tensor<2xf32>)",
                 "%1 = call @pair(%s, %p) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"),
            "t.mlir:9:8: error: 'call' of @pair with 2 operands and 1 result: @pair takes 2 "
            "arguments and has 2 results");
  EXPECT_EQ(
      with("-> (tensor<2xf32>, tensor<2xf32>)\n  %2", "-> (tensor<2xf32>, tensor<2xi32>)\n  %2"),
      "t.mlir:9:10: error: 'call': result %1#1 is declared tensor<2xi32>, but @pair returns "
      "tensor<2xf32>");
  EXPECT_EQ(with("%s, %p = \"stablehlo.optimization_barrier\"(%0#1, %0#0)",
                 "%s, %p = \"stablehlo.optimization_barrier\"(%0#1)"),
            "t.mlir:8:53: error: expected 1 operand types for 'stablehlo.optimization_barrier', "
            "got 2");
  EXPECT_EQ(with("%0:2 = stablehlo.optimization_barrier %x, %y : tensor<2xf32>, tensor<2xf32>",
                 "%0:2 = stablehlo.optimization_barrier %x : tensor<2xf32>, tensor<2xf32>"),
            "t.mlir:7:46: error: expected 1 operand types for "
            "'stablehlo.optimization_barrier', got 2");
  EXPECT_EQ(
      with("%0:2 = stablehlo.optimization_barrier", "%0:2, %t = stablehlo.optimization_barrier"),
      "t.mlir:7:7: error: expected '=', got ','");
  EXPECT_EQ(with("%0:2 = stablehlo.optimization_barrier %x, %y : tensor<2xf32>, tensor<2xf32>",
                 "%0 = stablehlo.optimization_barrier %x, %y : tensor<2xf32>"),
            "t.mlir:7:3: error: 'stablehlo.optimization_barrier' has 2 operands and 1 results: "
            "each result is one operand");
}

// JAX's sharding annotations around a value, as jax.export writes them for a sharded model.
const char* kSharding =
    R"(func.func @main(%x: tensor<4x8xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> tensor<4x8xf32> {
  %0 = stablehlo.custom_call @Sharding(%x) {backend_config = "", mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = stablehlo.negate %0 : tensor<4x8xf32>
  %2 = "stablehlo.custom_call"(%1) {call_target_name = "SPMDShardToFullShape", mhlo.sharding = "{replicated}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
)";

TEST(TextStableHloResults, ShardingAnnotationsAreTheirValues) {
  const SourceFile file = parse_text(kSharding, "t.mlir");
  const Graph& g = only(file);
  EXPECT_EQ(g.num_ops(), 1u);
  std::vector<float> x(32);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 4;
  std::vector<float> want(32);
  for (size_t i = 0; i < x.size(); ++i) want[i] = -x[i];
  EXPECT_EQ(run(kSharding, {x}), want);
}

TEST(TextStableHloResults, ShardingErrors) {
  auto with = [](const std::string& from, const std::string& to) {
    return error_after(kSharding, from, to);
  };
  EXPECT_EQ(with("@Sharding", "@cu_threefry2x32"),
            "t.mlir:2:30: error: 'stablehlo.custom_call' of target @cu_threefry2x32 is not "
            "supported (tilesat reads @Sharding, @SPMDFullToShardShape, @SPMDShardToFullShape "
            "as annotations of one value)");
  EXPECT_EQ(with("(tensor<4x8xf32>) -> tensor<4x8xf32>\n  %1",
                 "(tensor<4x8xf32>) -> tensor<2x8xf32>\n  %1"),
            "t.mlir:2:8: error: 'stablehlo.custom_call' @Sharding changes tensor<4x8xf32> to "
            "tensor<2x8xf32>: a shard's shape needs the partition it came from (export the "
            "model unsharded, or let tilesat partition it: --device t3k)");
  EXPECT_EQ(with("{call_target_name = \"SPMDShardToFullShape\", ", "{"),
            "t.mlir:4:3: error: 'stablehlo.custom_call' needs attribute 'call_target_name'");
}

// A composite (as jax.export and torch's StableHLO exports mark a pattern) is its
// decomposition, inlined; custom and generic forms, one and two results.
const char* kComposite = R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.composite "tilesat.scaled" %x {composite_attributes = {scale = 2.0 : f32}, decomposition = @tilesat.scaled.impl, version = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %1:2 = "stablehlo.composite"(%0, %x) <{decomposition = @split, name = "tilesat.split"}> : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %2 = stablehlo.subtract %1#0, %1#1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
func.func private @tilesat.scaled.impl(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @split(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.maximum %a, %b : tensor<4xf32>
  %1 = stablehlo.minimum %a, %b : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
)";

TEST(TextStableHloResults, CompositesAreTheirDecompositions) {
  // max(2x, x) - min(2x, x) = |x|
  EXPECT_EQ(run(kComposite, {{-2, 0.5f, 3, -0.25f}}), (std::vector<float>{2, 0.5f, 3, 0.25f}));
  auto with = [](const std::string& from, const std::string& to) {
    return error_after(kComposite, from, to);
  };
  EXPECT_EQ(with("decomposition = @split, ", ""),
            "t.mlir:3:3: error: 'stablehlo.composite' needs attribute 'decomposition'");
  EXPECT_EQ(with("decomposition = @split", "decomposition = \"split\""),
            "t.mlir:3:58: error: attribute 'decomposition' of 'stablehlo.composite': expected a "
            "function such as @f, got \"split\"");
  EXPECT_EQ(with("@tilesat.scaled.impl,", "@scaled,"),
            "t.mlir:2:109: error: call of unknown function @scaled");
}

TEST(TextStableHloResults, Dot) {
  std::string text =
      R"(func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %v: tensor<3xf32>) -> tensor<2xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %1 = "stablehlo.dot"(%0, %a) : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = stablehlo.dot %1, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
)";
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {1, 0, 0, 1, 1, 1}, v = {1, -1, 2};
  // (a b) a v by loops.
  std::vector<float> ab(4, 0), aba(6, 0), want(2, 0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) ab[i * 2 + j] += a[i * 3 + k] * b[k * 2 + j];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) aba[i * 3 + j] += ab[i * 2 + k] * a[k * 3 + j];
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 3; ++k) want[i] += aba[i * 3 + k] * v[k];
  EXPECT_EQ(run(text, {a, b, v}), want);
  std::string scalar =
      replaced(text, "%2 = stablehlo.dot %1, %v : (tensor<2x3xf32>, tensor<3xf32>)",
               "%2 = stablehlo.dot %1, %s : (tensor<2x3xf32>, tensor<f32>)");
  EXPECT_EQ(parse_error(replaced(scalar, "%v: tensor<3xf32>", "%s: tensor<f32>")),
            "t.mlir:4:26: error: operand #1 of 'stablehlo.dot' has rank 0 (expected 1 or 2)");
}

} // namespace
} // namespace tilesat
