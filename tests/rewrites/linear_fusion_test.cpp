// Tests of rules/linear-fusion.rules.
#include "rewrite_test_support.h"

namespace tilesat::rewrites {
namespace {

constexpr const char* kLinearFusionRules = "linear-fusion";

REWRITE_TEST(
    LinearFusion, MatmulPlusBiasIsLinear, kLinearFusionRules,
    [](Builder& b) {
      b.output(b.add(b.matmul(b.input("x", {4, 8}), b.weight("w", {8, 6})), b.weight("bias", {6})));
    },
    "linear")

REWRITE_TEST(
    LinearFusion, BiasFirstIsLinear, kLinearFusionRules,
    [](Builder& b) {
      b.output(b.add(b.weight("bias", {6}), b.matmul(b.input("x", {4, 8}), b.weight("w", {8, 6}))));
    },
    "linear")

// The product has a second user.
REWRITE_TEST(
    LinearFusion, SharedMatmulStays, kLinearFusionRules,
    [](Builder& b) {
      Value m = b.matmul(b.input("x", {4, 8}), b.weight("w", {8, 6}));
      b.output(b.subtract(m, b.add(m, b.weight("bias", {6}))));
    },
    "matmul add subtract")

// The bias broadcasts the product to a larger shape: a linear's result keeps the product's.
REWRITE_TEST(
    LinearFusion, BiasThatGrowsTheResultStays, kLinearFusionRules,
    [](Builder& b) {
      b.output(b.add(b.matmul(b.input("x", {4, 8}), b.weight("w", {8, 6})),
                     b.weight("bias", {2, 4, 6})));
    },
    "matmul add")

REWRITE_TEST(
    LinearFusion, BiasAfterReshapeMovesIntoLinear, kLinearFusionRules,
    [](Builder& b) {
      Value m = b.matmul(b.input("x", {4, 8}), b.weight("w", {8, 6}));
      b.output(b.add(b.reshape(m, {2, 2, 6}), b.weight("bias", {6})));
    },
    "linear reshape")

REWRITE_TEST(
    LinearFusion, ActivationFoldsIntoLinear, kLinearFusionRules,
    [](Builder& b) {
      Value m = b.matmul(b.input("x", {4, 8}), b.weight("w", {8, 6}));
      b.output(b.sigmoid(b.add(m, b.weight("bias", {6}))));
    },
    "linear")

REWRITE_TEST(
    LinearFusion, ActivationFoldsIntoMatmul, kLinearFusionRules,
    [](Builder& b) {
      b.output(b.relu(b.matmul(b.input("x", {4, 8}), b.weight("w", {8, 6}))));
    },
    "linear")

// tt-mlir's matmul_silu: silu folds like the other activations.
REWRITE_TEST(
    LinearFusion, SiluFoldsIntoMatmul, kLinearFusionRules,
    [](Builder& b) {
      b.output(b.silu(b.matmul(b.input("x", {4, 8}), b.weight("w", {8, 6}))));
    },
    "linear")

REWRITE_TEST(
    LinearFusion, SiluFoldsIntoLinear, kLinearFusionRules,
    [](Builder& b) {
      Value m = b.matmul(b.input("x", {4, 8}), b.weight("w", {8, 6}));
      b.output(b.silu(b.add(m, b.weight("bias", {6}))));
    },
    "linear")

// The product is also a result (tt-mlir's matmul_multiple_uses): no activation fusion.
REWRITE_TEST(
    LinearFusion, ActivationOfSharedMatmulStays, kLinearFusionRules,
    [](Builder& b) {
      Value m = b.matmul(b.input("x", {4, 8}), b.weight("w", {8, 6}));
      b.output(m);
      b.output(b.sigmoid(m));
    },
    "matmul sigmoid")

REWRITE_TEST(
    LinearFusion, BiasThatBroadcastsOverTheReshapeStays, kLinearFusionRules,
    [](Builder& b) {
      Value a = b.input("a", {4, 8});
      Value w = b.weight("w", {8, 16});
      b.output(b.add(b.reshape(b.matmul(a, w), {2, 2, 16}), b.weight("c", {2, 1, 16})));
    },
    "matmul reshape add")

} // namespace
} // namespace tilesat::rewrites
