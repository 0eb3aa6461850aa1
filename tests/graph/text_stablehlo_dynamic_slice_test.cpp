// stablehlo.dynamic_slice and dynamic_update_slice with start indices that fold to constants,
// checked against loops over StableHLO's definition (start indices clamped into
// [0, extent - size]).
#include "text_test_support.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace tilesat {
namespace {

// A 5x6 operand; the start indices are written by `starts` (defining %i and %j).
std::string sliced(const std::string& starts, const std::string& op, const std::string& result) {
  return "func.func @main(%x: tensor<5x6xf32>, %u: tensor<2x3xf32>) -> " + result + " {\n" +
         starts + "  %r = " + op + "\n  return %r : " + result + "\n}\n";
}

const std::string kConstStarts = "  %i = stablehlo.constant dense<1> : tensor<i64>\n"
                                 "  %j = stablehlo.constant dense<5> : tensor<i64>\n";
// JAX's normalisation of a negative index: select(i < 0, i + n, i), here -2 + 5 = 3.
const std::string kFoldedStarts = "  %c = stablehlo.constant dense<-2> : tensor<i32>\n"
                                  "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
                                  "  %n = stablehlo.constant dense<5> : tensor<i32>\n"
                                  "  %lt = stablehlo.compare LT, %c, %z : (tensor<i32>, "
                                  "tensor<i32>) -> tensor<i1>\n"
                                  "  %a = stablehlo.add %c, %n : tensor<i32>\n"
                                  "  %i = stablehlo.select %lt, %a, %c : tensor<i1>, tensor<i32>\n"
                                  "  %j = stablehlo.constant dense<-7> : tensor<i32>\n";

std::vector<float> operand() {
  std::vector<float> x(30);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(k) * 0.5f - 3;
  return x;
}

// x[i0 + r][j0 + c] over an rows x cols window, starts clamped as StableHLO clamps them.
std::vector<float> window(int64_t i0, int64_t j0, int64_t rows, int64_t cols) {
  std::vector<float> x = operand(), out;
  i0 = std::clamp<int64_t>(i0, 0, 5 - rows);
  j0 = std::clamp<int64_t>(j0, 0, 6 - cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) out.push_back(x[static_cast<size_t>((i0 + r) * 6 + j0 + c)]);
  }
  return out;
}

// x with u (2x3) written at the clamped starts.
std::vector<float> updated(int64_t i0, int64_t j0, const std::vector<float>& u) {
  std::vector<float> x = operand();
  i0 = std::clamp<int64_t>(i0, 0, 3);
  j0 = std::clamp<int64_t>(j0, 0, 3);
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t c = 0; c < 3; ++c) {
      x[static_cast<size_t>((i0 + r) * 6 + j0 + c)] = u[static_cast<size_t>(r * 3 + c)];
    }
  }
  return x;
}

const std::vector<float> kUpdate = {10, 11, 12, 13, 14, 15};

TEST(TextStableHloDynamicSlice, ConstantAndFoldedStarts) {
  const std::string custom = "stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 3] : "
                             "(tensor<5x6xf32>, tensor<i64>, tensor<i64>) -> tensor<2x3xf32>";
  // (1, 5): the column start is clamped to 3.
  EXPECT_EQ(run(sliced(kConstStarts, custom, "tensor<2x3xf32>"), {operand(), kUpdate}),
            window(1, 5, 2, 3));
  const std::string generic = "\"stablehlo.dynamic_slice\"(%x, %i, %j) <{slice_sizes = "
                              "array<i64: 4, 1>}> : (tensor<5x6xf32>, tensor<i32>, tensor<i32>) "
                              "-> tensor<4x1xf32>";
  // (3, -7): the row start is clamped to 1, the column start to 0.
  EXPECT_EQ(run(sliced(kFoldedStarts, generic, "tensor<4x1xf32>"), {operand(), kUpdate}),
            window(3, -7, 4, 1));
  const Graph g = only(parse_text(sliced(kFoldedStarts, generic, "tensor<4x1xf32>"), "t.mlir"));
  EXPECT_EQ(g.node(g.results()[0].value).kind, OpKind::Slice);
}

TEST(TextStableHloDynamicSlice, UpdateSlice) {
  const std::string custom = "stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<5x6xf32>, "
                             "tensor<2x3xf32>, tensor<i64>, tensor<i64>) -> tensor<5x6xf32>";
  EXPECT_EQ(run(sliced(kConstStarts, custom, "tensor<5x6xf32>"), {operand(), kUpdate}),
            updated(1, 5, kUpdate));
  const std::string folded = "stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<5x6xf32>, "
                             "tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x6xf32>";
  EXPECT_EQ(run(sliced(kFoldedStarts, folded, "tensor<5x6xf32>"), {operand(), kUpdate}),
            updated(3, -7, kUpdate));
}

TEST(TextStableHloDynamicSlice, Errors) {
  auto error = [](const std::string& op, const std::string& result) {
    return parse_error(sliced(kConstStarts, op, result));
  };
  // An index computed from an argument.
  std::string from_arg = "func.func @main(%x: tensor<5x6xf32>, %k: tensor<i32>) -> "
                         "tensor<2x3xf32> {\n"
                         "  %j = stablehlo.constant dense<0> : tensor<i32>\n"
                         "  %r = stablehlo.dynamic_slice %x, %k, %j, sizes = [2, 3] : "
                         "(tensor<5x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>\n"
                         "  return %r : tensor<2x3xf32>\n}\n";
  EXPECT_EQ(parse_error(from_arg),
            "t.mlir:3:36: error: start index %k of 'stablehlo.dynamic_slice' (dim 0) does not "
            "fold to a finite constant: tilesat plans static shapes");
  EXPECT_EQ(error("stablehlo.dynamic_slice %x, %i, sizes = [2, 3] : "
                  "(tensor<5x6xf32>, tensor<i64>) -> tensor<2x3xf32>",
                  "tensor<2x3xf32>"),
            "t.mlir:4:3: error: 'stablehlo.dynamic_slice' expects 2 start indices (one per dim of "
            "tensor<5x6xf32>), got 1");
  EXPECT_EQ(error("stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 7] : "
                  "(tensor<5x6xf32>, tensor<i64>, tensor<i64>) -> tensor<2x7xf32>",
                  "tensor<2x7xf32>"),
            "t.mlir:4:52: error: attribute 'sizes' of 'stablehlo.dynamic_slice': size 7 of dim 1 "
            "is outside [0, 6]");
  EXPECT_EQ(error("stablehlo.dynamic_slice %x, %i, %j : (tensor<5x6xf32>, "
                  "tensor<i64>, tensor<i64>) -> tensor<2x3xf32>",
                  "tensor<2x3xf32>"),
            "t.mlir:4:3: error: 'stablehlo.dynamic_slice' needs attribute 'sizes'");
  EXPECT_EQ(error("stablehlo.dynamic_update_slice %u, %x, %i, %j : "
                  "(tensor<2x3xf32>, tensor<5x6xf32>, tensor<i64>, tensor<i64>) -> "
                  "tensor<2x3xf32>",
                  "tensor<2x3xf32>"),
            "t.mlir:4:43: error: 'stablehlo.dynamic_update_slice': the update tensor<5x6xf32> is "
            "larger than the operand tensor<2x3xf32> in dim 0");
}

} // namespace
} // namespace tilesat
