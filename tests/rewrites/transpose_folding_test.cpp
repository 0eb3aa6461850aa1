// Tests of rules/transpose-folding.rules: each rule fires, its guard declines, values agree.
#include "rewrite_test_support.h"

namespace tilesat::rewrites {
namespace {

constexpr const char* kTransposeFoldingRules = "transpose-folding";

REWRITE_TEST(
    TransposeFolding, FoldsTransposeIntoMatmulB, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.matmul(b.input("x", {32, 128}), b.transpose(b.weight("w", {256, 128}), 0, 1)));
    },
    "matmul")

REWRITE_TEST(
    TransposeFolding, FoldsNegativeDims, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.matmul(b.input("x", {2, 4, 8}), b.transpose(b.weight("w", {2, 6, 8}), -1, -2)));
    },
    "matmul")

// Dims 0 and 1 of a rank-3 weight are not the ones transpose_b swaps: no fold.
REWRITE_TEST(
    TransposeFolding, KeepsTransposeOfBatchDims, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.matmul(b.input("x", {5, 3, 2}), b.transpose(b.weight("w", {2, 5, 4}), 0, 1)));
    },
    "transpose matmul")

REWRITE_TEST(
    TransposeFolding, UnfoldsTransposeOfTransposedB, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.matmul(b.input("x", {4, 8}), b.transpose(b.weight("w", {8, 6}), 0, 1),
                        {.transpose_b = true}));
    },
    "matmul")

REWRITE_TEST(
    TransposeFolding, FoldsTransposeIntoMatmulA, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.matmul(b.transpose(b.input("x", {8, 4}), 0, 1), b.weight("w", {8, 6})));
    },
    "matmul")

REWRITE_TEST(
    TransposeFolding, FoldsPermuteIntoMatmulB, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.matmul(b.input("x", {4, 8}), b.permute(b.weight("w", {6, 8}), {1, 0})));
    },
    "matmul")

// A permute that moves a batch dim is not a transpose_b.
REWRITE_TEST(
    TransposeFolding, KeepsPermuteOfBatchDims, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.matmul(b.input("x", {3, 5, 2}), b.permute(b.weight("w", {2, 3, 4}), {1, 0, 2})));
    },
    "permute matmul")

REWRITE_TEST(
    TransposeFolding, TransposeOfMatmulSwapsOperands, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.transpose(b.matmul(b.input("a", {4, 8}), b.input("b", {8, 6})), 0, 1));
    },
    "matmul")

// The matmul is also a result: rewriting the transpose would compute the product twice.
REWRITE_TEST(
    TransposeFolding, TransposeOfSharedMatmulStays, kTransposeFoldingRules,
    [](Builder& b) {
      Value m = b.matmul(b.input("a", {4, 8}), b.input("b", {8, 6}));
      b.output(m);
      b.output(b.transpose(m, 0, 1));
    },
    "matmul transpose")

REWRITE_TEST(
    TransposeFolding, TransposeOfTransposeCancels, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.relu(b.transpose(b.transpose(b.input("x", {4, 8}), 1, 0), 0, 1)));
    },
    "relu")

// Different pairs of dims: the two transposes do not cancel.
REWRITE_TEST(
    TransposeFolding, DifferentTransposesStay, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.transpose(b.transpose(b.input("x", {2, 3, 4}), 0, 1), 1, 2));
    },
    "transpose transpose")

REWRITE_TEST(
    TransposeFolding, InversePermutesCancel, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.relu(b.permute(b.permute(b.input("x", {2, 3, 4}), {1, 2, 0}), {2, 0, 1})));
    },
    "relu")

REWRITE_TEST(
    TransposeFolding, PermutesCompose, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.permute(b.permute(b.input("x", {2, 3, 4}), {1, 2, 0}), {1, 0, 2}));
    },
    "permute")

REWRITE_TEST(
    TransposeFolding, TransposeMovesThroughUnary, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.transpose(b.exp(b.transpose(b.input("x", {4, 8}), 0, 1)), 0, 1));
    },
    "exp")

REWRITE_TEST(
    TransposeFolding, PermutesOfBothOperandsMoveBelowAdd, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.add(b.permute(b.input("a", {1, 3, 4, 5}), {0, 2, 3, 1}),
                     b.permute(b.input("b", {1, 3, 4, 5}), {0, 2, 3, 1})));
    },
    "add permute")

// The operands broadcast against each other: add(a, b) would have another shape.
REWRITE_TEST(
    TransposeFolding, PermutesOfDifferentShapesStay, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.add(b.permute(b.input("a", {1, 3, 4}), {2, 1, 0}),
                     b.permute(b.input("b", {2, 3, 4}), {2, 1, 0})));
    },
    "permute permute add")

REWRITE_TEST(
    TransposeFolding, IdentityPermuteVanishes, kTransposeFoldingRules,
    [](Builder& b) {
      b.output(b.exp(b.permute(b.input("x", {2, 3, 4}), {0, 1, 2})));
    },
    "exp")

REWRITE_TEST(
    TransposeFolding, TransposeOfBothOperandsMovesBelowMultiply, kTransposeFoldingRules,
    [](Builder& b) {
      Value x = b.input("x", {4, 8});
      Value y = b.input("y", {4, 8});
      b.output(b.multiply(b.transpose(x, 0, 1), b.transpose(y, 0, 1)));
    },
    "multiply transpose")

} // namespace
} // namespace tilesat::rewrites
