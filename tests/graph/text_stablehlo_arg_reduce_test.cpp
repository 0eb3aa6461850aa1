// stablehlo.reduce of a value and an index (jnp.argmax, jnp.argmin) against loops: the extreme
// value and the smallest index holding it, ties included.
#include "text_test_support.h"

#include <gtest/gtest.h>

namespace tilesat {
namespace {

// jnp.argmax(x, axis=1) as jax.jit(...).lower(...).as_text() prints it (values and indices).
const char* kArgmax =
    R"(func.func public @main(%arg0: tensor<4x6xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = stablehlo.iota dim = 1 : tensor<4x6xi32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
   reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
    %2 = stablehlo.compare  GT, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.compare  NE, %arg1, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %4 = stablehlo.or %2, %3 : tensor<i1>
    %5 = stablehlo.compare  EQ, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %6 = stablehlo.compare  LT, %arg2, %arg4,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.and %5, %6 : tensor<i1>
    %8 = stablehlo.or %4, %7 : tensor<i1>
    %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
    %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
    stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
  }
  return %1#0, %1#1 : tensor<4xf32>, tensor<4xi32>
}
)";

// jnp.argmin(x, axis=0) in the generic form, the region's arguments in StableHLO's order.
const char* kArgmin = R"(func.func @main(%x: tensor<4x6xf32>) -> tensor<6xi32> {
  %i = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4x6xi32>
  %inf = "stablehlo.constant"() <{value = dense<0x7F800000> : tensor<f32>}> : () -> tensor<f32>
  %z = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %r:2 = "stablehlo.reduce"(%x, %i, %inf, %z) ({
  ^bb0(%a: tensor<f32>, %ai: tensor<i32>, %b: tensor<f32>, %bi: tensor<i32>):
    %lt = "stablehlo.compare"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %eq = "stablehlo.compare"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %first = "stablehlo.compare"(%ai, %bi) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %tie = "stablehlo.and"(%eq, %first) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %take = "stablehlo.or"(%lt, %tie) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %v = "stablehlo.select"(%lt, %a, %b) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %k = "stablehlo.select"(%take, %ai, %bi) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%v, %k) : (tensor<f32>, tensor<i32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<6xf32>, tensor<6xi32>)
  return %r#1 : tensor<6xi32>
}
)";

// Rows with ties (the first index wins) and negative values.
const std::vector<float> kX = {1, 5, 2, 5, 0, -1, -3, -2, -2, -7, -2, -9,
                               0, 0, 0, 0, 0, 0,  4,  8,  -8, 8,  3,  -8};

TEST(TextStableHloArgReduce, ArgmaxAsJaxWritesIt) {
  const SourceFile file = parse_text(kArgmax, "t.mlir");
  const Graph& g = only(file);
  std::vector<Tensor> out = evaluate(g, std::vector<Tensor>{Tensor(g.node(0).type, kX)});
  std::vector<float> max, index;
  for (size_t r = 0; r < 4; ++r) {
    size_t best = 0;
    for (size_t c = 1; c < 6; ++c) {
      if (kX[r * 6 + c] > kX[r * 6 + best]) best = c;
    }
    max.push_back(kX[r * 6 + best]);
    index.push_back(static_cast<float>(best));
  }
  EXPECT_EQ(out.at(0).data(), max);
  EXPECT_EQ(out.at(1).data(), index);
  EXPECT_EQ(index, (std::vector<float>{1, 1, 0, 1}));
}

TEST(TextStableHloArgReduce, ArgminGenericForm) {
  std::vector<float> index;
  for (size_t c = 0; c < 6; ++c) {
    size_t best = 0;
    for (size_t r = 1; r < 4; ++r) {
      if (kX[r * 6 + c] < kX[best * 6 + c]) best = r;
    }
    index.push_back(static_cast<float>(best));
  }
  EXPECT_EQ(run(kArgmin, {kX}), index);
}

TEST(TextStableHloArgReduce, Errors) {
  // The last index on ties is not jnp.argmax's choice.
  EXPECT_EQ(parse_error(replaced(kArgmax, "LT, %arg2, %arg4", "GT, %arg2, %arg4")),
            "t.mlir:5:3: error: 'stablehlo.reduce': a reducer of a value and an index is read "
            "when it picks the larger (argmax) or smaller (argmin) value and the smaller index "
            "on ties, as jnp.argmax and jnp.argmin write it; this region does not");
  EXPECT_EQ(parse_error(replaced(kArgmax, "stablehlo.return %9, %10", "stablehlo.return %9")),
            "t.mlir:6:4: error: the region returns 1 values, expected 2");
  EXPECT_EQ(
      parse_error(replaced(kArgmax, "stablehlo.return %9, %10 : tensor<f32>, tensor<i32>\n", "")),
      "t.mlir:6:4: error: the region has no 'stablehlo.return'");
  EXPECT_EQ(parse_error(replaced(kArgmax, "(%arg2: tensor<i32>, %arg4: tensor<i32>)",
                                 "(%arg2: tensor<i32>)")),
            "t.mlir:6:4: error: expected 2 reducer arguments per operand, got 1");
  EXPECT_EQ(parse_error(replaced(kArgmax, "%1:2 = stablehlo.reduce", "%1 = stablehlo.reduce")),
            "t.mlir:5:8: error: expected 1 result type for 'stablehlo.reduce', got 2");
}

} // namespace
} // namespace tilesat
