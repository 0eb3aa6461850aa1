// stablehlo.while unrolled: lax.fori_loop with constant bounds and a scan over stacked
// layers (a dynamic_slice at the counter), in the custom and generic forms, against loops.
#include "text_test_support.h"

#include <cmath>
#include <gtest/gtest.h>

namespace tilesat {
namespace {

// jax.lax.fori_loop(0, 3, lambda i, x: x + x, x) as jax.export prints it.
const char* kForiLoop = R"(func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<4xf32>
   cond {
    %c_1 = stablehlo.constant dense<3> : tensor<i32>
    %1 = stablehlo.compare  LT, %iterArg, %c_1,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1 = stablehlo.add %iterArg_0, %iterArg_0 : tensor<4xf32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>
    stablehlo.return %2, %1 : tensor<i32>, tensor<4xf32>
  }
  return %0#1 : tensor<4xf32>
}
)";

TEST(TextStableHloWhile, ForiLoopIsUnrolled) {
  EXPECT_EQ(run(kForiLoop, {{1, -2, 0.5f, 3}}), (std::vector<float>{8, -16, 4, 24}));
  const SourceFile file = parse_text(kForiLoop, "t.mlir");
  EXPECT_EQ(only(file).num_ops(), 3u); // three adds of x; the counter folds away
}

// A scan over three stacked 4x4 layers, h = tanh(h W_i), in the generic form.
const char* kScan =
    R"(func.func @main(%w: tensor<3x4x4xf32>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = "stablehlo.while"(%c0, %x, %w) ({
  ^bb0(%i: tensor<i32>, %h: tensor<1x4xf32>, %ws: tensor<3x4x4xf32>):
    %n = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare  LT, %i, %n,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %h: tensor<1x4xf32>, %ws: tensor<3x4x4xf32>):
    %z = stablehlo.constant dense<0> : tensor<i32>
    %s = stablehlo.dynamic_slice %ws, %i, %z, %z, sizes = [1, 4, 4] : (tensor<3x4x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x4xf32>
    %m = stablehlo.reshape %s : (tensor<1x4x4xf32>) -> tensor<4x4xf32>
    %y = stablehlo.dot_general %h, %m, contracting_dims = [1] x [0] : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
    %t = stablehlo.tanh %y : tensor<1x4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    "stablehlo.return"(%i1, %t, %ws) : (tensor<i32>, tensor<1x4xf32>, tensor<3x4x4xf32>) -> ()
  }) : (tensor<i32>, tensor<1x4xf32>, tensor<3x4x4xf32>) -> (tensor<i32>, tensor<1x4xf32>, tensor<3x4x4xf32>)
  return %r#1 : tensor<1x4xf32>
}
)";

TEST(TextStableHloWhile, ScanOverStackedLayers) {
  std::vector<float> w(48), x = {0.5f, -1, 0.25f, 2};
  for (size_t k = 0; k < w.size(); ++k) w[k] = std::sin(static_cast<float>(k)) * 0.7f;
  std::vector<float> h = x;
  for (size_t layer = 0; layer < 3; ++layer) {
    std::vector<float> next(4, 0);
    for (size_t j = 0; j < 4; ++j) {
      float acc = 0;
      for (size_t k = 0; k < 4; ++k) acc += h[k] * w[layer * 16 + k * 4 + j];
      next[j] = std::tanh(acc);
    }
    h = next;
  }
  std::vector<float> got = run(kScan, {w, x});
  ASSERT_EQ(got.size(), 4u);
  for (size_t j = 0; j < 4; ++j) EXPECT_NEAR(got[j], h[j], 1e-6) << j;
}

// StableHLO's regions may use values defined before the loop (the bound and the step here).
TEST(TextStableHloWhile, RegionsUseOuterValues) {
  std::string text = replaced(
      replaced(replaced(kForiLoop, "    %c_1 = stablehlo.constant dense<3> : tensor<i32>\n", ""),
               "    %c_1 = stablehlo.constant dense<1> : tensor<i32>\n", ""),
      "  %c = stablehlo.constant dense<0> : tensor<i32>\n",
      "  %c = stablehlo.constant dense<0> : tensor<i32>\n"
      "  %c_1 = stablehlo.constant dense<1> : tensor<i32>\n");
  // counts 0, 1 (< 1 stops): one trip.
  EXPECT_EQ(run(text, {{1, -2, 0.5f, 3}}), (std::vector<float>{2, -4, 1, 6}));
}

TEST(TextStableHloWhile, GenericBodyArguments) {
  std::string body = "^bb0(%i: tensor<i32>, %h: tensor<1x4xf32>, %ws: tensor<3x4x4xf32>):\n"
                     "    %z = stablehlo.constant";
  EXPECT_EQ(parse_error(replaced(kScan, body,
                                 "^bb0(%i: tensor<i32>, %h: tensor<1x4xf32>):\n"
                                 "    %z = stablehlo.constant")),
            "t.mlir:9:3: error: the region takes 2 arguments for 3 loop values");
  EXPECT_EQ(parse_error(replaced(kScan, body,
                                 "^bb0(%i: tensor<i32>, %h: tensor<4xf32>, %ws: "
                                 "tensor<3x4x4xf32>):\n    %z = stablehlo.constant")),
            "t.mlir:9:25: error: argument %h of the region is tensor<4xf32>, but loop value #1 is "
            "tensor<1x4xf32>");
}

TEST(TextStableHloWhile, Errors) {
  // A bound that is an argument: the trip count is not known.
  std::string from_arg = replaced(
      replaced(kForiLoop, "%arg0: tensor<4xf32>)", "%arg0: tensor<4xf32>, %n: tensor<i32>)"),
      "%iterArg = %c,", "%iterArg = %n,");
  EXPECT_EQ(parse_error(from_arg),
            "t.mlir:3:3: error: 'stablehlo.while': its condition does not fold to a constant "
            "before trip 0; tilesat unrolls loops whose trip count is known from constants (the "
            "values the condition reads must not depend on the function's arguments)");
  // A counter that never moves.
  EXPECT_EQ(
      parse_error(replaced(kForiLoop, "stablehlo.return %2, %1", "stablehlo.return %iterArg, %1")),
      "t.mlir:3:3: error: 'stablehlo.while' runs more than 4096 trips or 1048576 nodes: "
      "too many to unroll");
  EXPECT_EQ(parse_error(replaced(kForiLoop, "stablehlo.return %2, %1 : tensor<i32>, tensor<4xf32>",
                                 "stablehlo.return %2 : tensor<i32>")),
            "t.mlir:8:5: error: the region returns 1 values, expected 2");
  EXPECT_EQ(parse_error(replaced(kForiLoop, "stablehlo.return %1 : tensor<i1>", "")),
            "t.mlir:4:4: error: the region has no 'stablehlo.return'");
  EXPECT_EQ(parse_error(replaced(kForiLoop, " : tensor<i32>, tensor<4xf32>\n   cond",
                                 " : tensor<i32>\n   cond")),
            "t.mlir:3:63: error: expected 2 types for the loop values of 'stablehlo.while', got 1");
}

// Calls and loop bodies are read by nested parses: their depth counts toward the text's
// nesting limit instead of the stack's.
// @f0 calls @f1 ... calls @f{n-1}, which returns its argument.
std::string call_chain(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    text += "func.func @f" + std::to_string(i) + "(%x: tensor<2xf32>) -> tensor<2xf32> {\n";
    if (i + 1 < n) {
      text += "  %0 = call @f" + std::to_string(i + 1) +
              "(%x) : (tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";
    } else {
      text += "  return %x : tensor<2xf32>\n}\n";
    }
  }
  return text;
}

TEST(TextStableHloWhile, DeepCallChainsAreAnErrorNotACrash) {
  std::string deep = parse_error(call_chain(200));
  EXPECT_NE(deep.find("error: nesting deeper than 64 levels"), std::string::npos) << deep;
  EXPECT_EQ(parse_error(call_chain(40)), "");
}

} // namespace
} // namespace tilesat
