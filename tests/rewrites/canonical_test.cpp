// Tests of rules/canonical.rules.
#include "rewrite_test_support.h"

namespace tilesat::rewrites {
namespace {

constexpr const char* kCanonicalRules = "canonical";

REWRITE_TEST(
    Canonical, MaximumWithFullZeroIsRelu, kCanonicalRules,
    [](Builder& b) {
      b.output(b.maximum(b.input("x", {4, 8}), b.full({4, 8}, 0.0)));
    },
    "relu")

REWRITE_TEST(
    Canonical, MaximumWithZeroFirstIsRelu, kCanonicalRules,
    [](Builder& b) {
      b.output(b.maximum(b.constant({4, 8}, {0.0}), b.input("x", {4, 8})));
    },
    "relu")

REWRITE_TEST(
    Canonical, MaximumWithReshapedScalarZeroIsRelu, kCanonicalRules,
    [](Builder& b) {
      b.output(b.maximum(b.input("x", {2, 4, 8}, DType::BF16),
                         b.reshape(b.full({}, 0.0, DType::BF16), {1, 1, 1})));
    },
    "relu")

// max(x, 1) is not a relu.
REWRITE_TEST(
    Canonical, MaximumWithOneStays, kCanonicalRules,
    [](Builder& b) {
      b.output(b.maximum(b.input("x", {4, 8}), b.full({4, 8}, 1.0)));
    },
    "full maximum")

// The zeros are larger than x: relu(x) would have another shape.
REWRITE_TEST(
    Canonical, MaximumThatBroadcastsXStays, kCanonicalRules,
    [](Builder& b) {
      b.output(b.maximum(b.input("x", {8}), b.full({4, 8}, 0.0)));
    },
    "full maximum")

REWRITE_TEST(
    Canonical, TimesSigmoidIsSilu, kCanonicalRules,
    [](Builder& b) {
      Value x = b.input("x", {4, 8});
      b.output(b.multiply(x, b.sigmoid(x)));
    },
    "silu")

REWRITE_TEST(
    Canonical, SigmoidTimesXIsSilu, kCanonicalRules,
    [](Builder& b) {
      Value x = b.input("x", {4, 8});
      b.output(b.multiply(b.sigmoid(x), x));
    },
    "silu")

// y * sigmoid(x) is not a silu.
REWRITE_TEST(
    Canonical, TimesSigmoidOfAnotherStays, kCanonicalRules,
    [](Builder& b) {
      b.output(b.multiply(b.input("y", {4, 8}), b.sigmoid(b.input("x", {4, 8}))));
    },
    "sigmoid multiply")

REWRITE_TEST(
    Canonical, ReshapeChainCollapses, kCanonicalRules,
    [](Builder& b) {
      b.output(b.reshape(b.reshape(b.input("x", {4, 8}), {8, 4}), {2, 16}));
    },
    "reshape")

REWRITE_TEST(
    Canonical, ReshapeBackVanishes, kCanonicalRules,
    [](Builder& b) {
      b.output(b.relu(b.reshape(b.reshape(b.input("x", {4, 8}), {32}), {4, 8})));
    },
    "relu")

REWRITE_TEST(
    Canonical, SoftmaxFromExplicitDecomposition, kCanonicalRules,
    [](Builder& b) {
      Value e = b.exp(b.input("x", {4, 8}));
      b.output(b.divide(e, b.broadcast(b.sum(e, {.dims = {1}, .keep_dim = true}), {4, 8})));
    },
    "softmax")

REWRITE_TEST(
    Canonical, SoftmaxFromImplicitDecomposition, kCanonicalRules,
    [](Builder& b) {
      Value e = b.exp(b.input("x", {4, 8}));
      b.output(b.divide(e, b.sum(e, {.dims = {0}, .keep_dim = true})));
    },
    "softmax")

// The sum reduces another tensor: not a softmax.
REWRITE_TEST(
    Canonical, SoftmaxNeedsTheSameExp, kCanonicalRules,
    [](Builder& b) {
      Value e = b.exp(b.input("x", {4, 8}));
      b.output(b.divide(e, b.sum(b.exp(b.input("y", {4, 8})), {.dims = {1}, .keep_dim = true})));
    },
    "exp exp sum divide")

REWRITE_TEST(
    Canonical, EqualReshapesMoveBelowAdd, "canonical",
    [](Builder& b) {
      Value x = b.input("x", {2, 3, 8});
      Value y = b.input("y", {2, 3, 8});
      b.output(b.add(b.reshape(x, {6, 8}), b.reshape(y, {6, 8})));
    },
    "add reshape")

REWRITE_TEST(
    Canonical, ReshapesOfDifferentShapesStay, "canonical",
    [](Builder& b) {
      Value x = b.input("x", {2, 3, 8});
      Value y = b.input("y", {6, 8, 1});
      b.output(b.add(b.reshape(x, {6, 8}), b.reshape(y, {6, 8})));
    },
    "reshape reshape add")

} // namespace
} // namespace tilesat::rewrites

namespace tilesat::rewrites {
namespace {

REWRITE_TEST(
    Canonical, PermuteReshapePermuteIsAReshape, "canonical",
    [](Builder& b) {
      Value p = b.permute(b.input("x", {2, 3, 3, 4}), {0, 3, 1, 2});
      b.output(b.permute(b.reshape(p, {2, 1, 4, 9}), {0, 1, 3, 2}));
    },
    "reshape")

// The last permute moves elements the reshape did not bring back: not a reshape.
REWRITE_TEST(
    Canonical, PermuteReshapePermuteThatMovesElementsStays, "canonical",
    [](Builder& b) {
      Value p = b.permute(b.input("x", {2, 3, 3, 4}), {0, 3, 1, 2});
      b.output(b.permute(b.reshape(p, {2, 1, 4, 9}), {0, 2, 1, 3}));
    },
    "permute reshape permute")

} // namespace
} // namespace tilesat::rewrites
