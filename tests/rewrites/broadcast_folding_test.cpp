// Tests of rules/broadcast-folding.rules.
#include "rewrite_test_support.h"

namespace tilesat::rewrites {
namespace {

constexpr const char* kBroadcastFoldingRules = "broadcast-folding";

REWRITE_TEST(
    BroadcastFolding, BiasBroadcastFoldsIntoAdd, kBroadcastFoldingRules,
    [](Builder& b) {
      b.output(b.add(b.input("x", {4, 8}), b.broadcast(b.weight("bias", {8}), {4, 8}, {1})));
    },
    "add")

REWRITE_TEST(
    BroadcastFolding, NumpyBroadcastFoldsIntoLhs, kBroadcastFoldingRules,
    [](Builder& b) {
      b.output(b.subtract(b.broadcast(b.input("a", {1, 8}), {4, 8}), b.input("x", {4, 8})));
    },
    "subtract")

REWRITE_TEST(
    BroadcastFolding, ColumnBroadcastFolds, kBroadcastFoldingRules,
    [](Builder& b) {
      b.output(b.multiply(b.input("x", {4, 8}), b.broadcast(b.input("c", {4}), {4, 8}, {0})));
    },
    "multiply")

// Explicit dims describe the broadcast operand, but here it has the higher rank.
REWRITE_TEST(
    BroadcastFolding, HigherRankExplicitBroadcastStays, kBroadcastFoldingRules,
    [](Builder& b) {
      b.output(b.add(b.input("a", {8}), b.broadcast(b.input("c", {4, 1}), {4, 8}, {0, 1})));
    },
    "broadcast add")

REWRITE_TEST(
    BroadcastFolding, EqualBroadcastsMoveBelowTheOp, kBroadcastFoldingRules,
    [](Builder& b) {
      b.output(b.add(b.broadcast(b.input("a", {1, 8}), {4, 8}),
                     b.broadcast(b.input("b", {1, 8}), {4, 8})));
    },
    "add broadcast")

REWRITE_TEST(
    BroadcastFolding, BroadcastToOwnShapeVanishes, kBroadcastFoldingRules,
    [](Builder& b) {
      b.output(b.relu(b.broadcast(b.input("x", {4, 8}), {4, 8})));
    },
    "relu")

// dims [1, 0] on a 4x4 tensor moves elements: not an identity.
REWRITE_TEST(
    BroadcastFolding, PermutingBroadcastStays, kBroadcastFoldingRules,
    [](Builder& b) {
      b.output(b.relu(b.broadcast(b.input("x", {4, 4}), {4, 4}, {1, 0})));
    },
    "broadcast relu")

REWRITE_TEST(
    BroadcastFolding, BroadcastsMerge, kBroadcastFoldingRules,
    [](Builder& b) {
      b.output(b.broadcast(b.broadcast(b.input("x", {8}), {4, 8}), {2, 4, 8}));
    },
    "broadcast")

REWRITE_TEST(
    BroadcastFolding, BroadcastsWithDimsMerge, kBroadcastFoldingRules,
    [](Builder& b) {
      b.output(b.broadcast(b.broadcast(b.input("x", {4}), {4, 8}, {0}), {4, 8, 2}, {0, 1}));
    },
    "broadcast")

REWRITE_TEST(
    BroadcastFolding, UnsqueezedBiasFoldsIntoAdd, kBroadcastFoldingRules,
    [](Builder& b) {
      Value x = b.input("x", {2, 4, 8});
      b.output(b.add(x, b.reshape(b.weight("bias", {8}), {1, 1, 8})));
    },
    "add")

REWRITE_TEST(
    BroadcastFolding, UnsqueezeThatRaisesTheRankStays, kBroadcastFoldingRules,
    [](Builder& b) {
      Value x = b.input("x", {4, 8});
      b.output(b.add(x, b.reshape(b.weight("bias", {8}), {1, 1, 8})));
    },
    "reshape add")

REWRITE_TEST(
    BroadcastFolding, MatrixWithLeadingOnesFolds, kBroadcastFoldingRules,
    [](Builder& b) {
      Value x = b.input("x", {2, 4, 8});
      b.output(b.add(x, b.reshape(b.weight("w", {4, 8}), {1, 4, 8})));
    },
    "add")

REWRITE_TEST(
    BroadcastFolding, ReshapeThatAppendsDimsStays, kBroadcastFoldingRules,
    [](Builder& b) {
      Value x = b.input("x", {2, 8, 8});
      b.output(b.add(x, b.reshape(b.weight("bias", {8}), {8, 1})));
    },
    "reshape add")

} // namespace
} // namespace tilesat::rewrites

namespace tilesat::rewrites {
namespace {

// Found by verify-rules: the broadcast's dims [0, 1] are relative to its rank-2 result, which
// the add then right-aligns into rank 3; as broadcast_dims they would name dims 0 and 1.
REWRITE_TEST(
    BroadcastFolding, LowerRankBroadcastWithDimsStays, "broadcast-folding",
    [](Builder& b) {
      Value c = b.broadcast(b.input("c", {2, 1}), {2, 3}, {0, 1});
      b.output(b.add(b.input("a", {2, 2, 3}), c));
    },
    "broadcast add")

} // namespace
} // namespace tilesat::rewrites
