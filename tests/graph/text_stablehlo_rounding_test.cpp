// stablehlo.remainder, round_nearest_afz and round_nearest_even against the C library's
// fmod, round and nearbyint (round to nearest even), halves and negative values included.
#include "text_test_support.h"

#include <cmath>
#include <gtest/gtest.h>

namespace tilesat {
namespace {

std::string unary(const std::string& op, const std::string& type) {
  return "func.func @main(%x: " + type + ") -> " + type + " {\n  %0 = stablehlo." + op +
         " %x : " + type + "\n  return %0 : " + type + "\n}\n";
}

const std::vector<float> kValues = {-3.5f, -2.5f, -1.5f, -0.5f, -0.49f, 0.0f,   0.3f,        0.5f,
                                    1.5f,  2.5f,  3.5f,  4.5f,  7.25f,  -7.75f, 1e6f + 0.5f, 12.0f};

TEST(TextStableHloRounding, RoundNearestAfzAndEven) {
  std::vector<float> afz, even;
  for (float v : kValues) {
    afz.push_back(std::round(v));
    even.push_back(std::nearbyint(v));
  }
  EXPECT_EQ(run(unary("round_nearest_afz", "tensor<16xf32>"), {kValues}), afz);
  EXPECT_EQ(run(unary("round_nearest_even", "tensor<16xf32>"), {kValues}), even);
  // Integers are their own rounding: no node.
  const SourceFile f = parse_text(unary("round_nearest_even", "tensor<4xi32>"), "t.mlir");
  EXPECT_EQ(only(f).num_ops(), 0u);
}

TEST(TextStableHloRounding, RemainderHasTheSignOfTheDividend) {
  std::string text = "func.func @main(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {\n"
                     "  %0 = stablehlo.remainder %x, %y : tensor<8xf32>\n"
                     "  return %0 : tensor<8xf32>\n}\n";
  std::vector<float> x = {16, -16, 16, -16, 5.5f, -5.5f, 0.75f, 9},
                     y = {7, 7, -7, -7, 2, 2, 0.5f, 3};
  std::vector<float> want;
  for (size_t i = 0; i < x.size(); ++i) want.push_back(std::fmod(x[i], y[i]));
  EXPECT_EQ(run(text, {x, y}), want);
  std::string ints = "func.func @main(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {\n"
                     "  %0 = stablehlo.remainder %x, %y : tensor<4xi32>\n"
                     "  return %0 : tensor<4xi32>\n}\n";
  EXPECT_EQ(run(ints, {{17, -17, 17, 1000003}, {5, 5, -5, 10}}), (std::vector<float>{2, -2, 2, 3}));
}

} // namespace
} // namespace tilesat
