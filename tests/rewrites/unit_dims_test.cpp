// Tests of rules/unit-dims.rules' row folding (fold-rows-*): row-wise ops of a
// sequence-first [S, B, E] value (B = 3 pads to a 32-row tile) run on its [S * B, E] rows.
// Each graph reshapes 2-D rows to [5, 3, 40], applies one op and reshapes back, so the folded
// form is the op alone once the two reshapes cancel; the unfolded form keeps both. Values are
// compared with the reference interpreter on random inputs (check_rewrite).
#include "rewrite_test_support.h"

namespace tilesat::rewrites {
namespace {

constexpr const char* kFoldRules = "unit-dims,canonical";

// [15, 40] rows seen as [5, 3, 40].
Value seq_first(Builder& b, const char* name = "x") {
  return b.reshape(b.input(name, {15, 40}), {5, 3, 40});
}

REWRITE_TEST(
    FoldRows, SliceOfTheLastDim, kFoldRules,
    [](Builder& b) {
      Value s = b.slice(seq_first(b), {0, 0, 8}, {5, 3, 24});
      b.output(b.reshape(s, {15, 16}));
    },
    "slice")

REWRITE_TEST(
    FoldRows, SoftmaxOverTheLastDim, kFoldRules,
    [](Builder& b) {
      b.output(b.reshape(b.softmax(seq_first(b), 2), {15, 40}));
    },
    "softmax")

REWRITE_TEST(
    FoldRows, LayerNormWithScaleAndBias, kFoldRules,
    [](Builder& b) {
      Value x = seq_first(b);
      Value g = b.input("g", {40});
      Value beta = b.input("beta", {40});
      b.output(b.reshape(b.layer_norm(x, &g, &beta, 2, 1e-6), {15, 40}));
    },
    "layer_norm")

REWRITE_TEST(
    FoldRows, RmsNormWithWeight, kFoldRules,
    [](Builder& b) {
      Value x = seq_first(b);
      Value w = b.input("w", {40});
      b.output(b.reshape(b.rms_norm(x, &w), {15, 40}));
    },
    "rms_norm")

// A rank-3 per-column operand becomes a 1-D operand of the folded op.
REWRITE_TEST(
    FoldRows, Rank3ColumnOperand, kFoldRules,
    [](Builder& b) {
      b.output(b.reshape(b.multiply(seq_first(b), b.input("m", {1, 1, 40})), {15, 40}));
    },
    "reshape multiply")

REWRITE_TEST(
    FoldRows, MeanOverTheLastDim, kFoldRules,
    [](Builder& b) {
      b.output(b.reshape(b.mean(seq_first(b), {{2}, true}), {15, 1}));
    },
    "mean")

REWRITE_TEST(
    FoldRows, Typecast, kFoldRules,
    [](Builder& b) {
      b.output(b.reshape(b.typecast(seq_first(b), DType::BF16), {15, 40}));
    },
    "typecast")

// A bias as the first operand (how torch exports x @ W + b).
REWRITE_TEST(
    FoldRows, BiasAddEitherSide, kFoldRules,
    [](Builder& b) {
      b.output(b.reshape(b.add(b.input("bias", {40}), seq_first(b)), {15, 40}));
    },
    "add")

// A residual add of an unfolded [S, B, E] value: that value is reshaped like the other.
REWRITE_TEST(
    FoldRows, ResidualReshapedAlike, kFoldRules,
    [](Builder& b) {
      Value y = b.input("y", {5, 3, 40});
      b.output(b.reshape(b.subtract(y, seq_first(b)), {15, 40}));
    },
    "reshape subtract")

// Declined: the slice cuts a leading dim.
REWRITE_TEST(
    FoldRows, SliceOfALeadingDimStays, kFoldRules,
    [](Builder& b) {
      Value s = b.slice(seq_first(b), {0, 0, 0}, {5, 2, 40});
      b.output(b.reshape(s, {10, 40}));
    },
    "reshape slice reshape")

// Declined: 32 rows per batch pad nothing, so folding saves no tiles.
REWRITE_TEST(
    FoldRows, NoPaddingNoFold, kFoldRules,
    [](Builder& b) {
      Value x = b.reshape(b.input("x", {64, 40}), {2, 32, 40});
      b.output(b.reshape(b.softmax(x, 2), {64, 40}));
    },
    "reshape softmax reshape")

// Declined: the other operand varies along a leading dim.
REWRITE_TEST(
    FoldRows, OperandVaryingAlongRowsStays, kFoldRules,
    [](Builder& b) {
      b.output(b.reshape(b.multiply(seq_first(b), b.input("m", {5, 1, 40})), {15, 40}));
    },
    "reshape multiply reshape")

// Declined: softmax over a leading dim mixes rows.
REWRITE_TEST(
    FoldRows, SoftmaxOverALeadingDimStays, kFoldRules,
    [](Builder& b) {
      b.output(b.reshape(b.softmax(seq_first(b), 1), {15, 40}));
    },
    "reshape softmax reshape")

} // namespace
} // namespace tilesat::rewrites
