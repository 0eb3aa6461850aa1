// Tests of rules/attention.rules: the head moves of multi-head attention, as torch exports
// them, become split_heads and concatenate_heads; REWRITE_TEST also compares the rewritten
// graph with the source on random inputs.
#include "rewrite_test_support.h"

namespace tilesat::rewrites {
namespace {

constexpr const char* kAttention = "attention";

// GPT-2's attention: a fused Q/K/V projection [1, 8, 3 * 2 heads * 4] sliced into its parts,
// each viewed as [1, 8, 2, 4] and made [1, 2, 8, 4] (the key [1, 2, 4, 8]).
Value head_part(Builder& b, Value qkv, int64_t part, bool key) {
  Value s = b.slice(qkv, {0, 0, part * 8}, {1, 8, (part + 1) * 8});
  Value r = b.reshape(s, {1, 8, 2, 4});
  return key ? b.permute(r, {0, 2, 3, 1}) : b.transpose(r, 1, 2);
}

REWRITE_TEST(
    Attention, FusedQkvSplitsIntoHeads, kAttention,
    [](Builder& b) {
      Value qkv = b.input("qkv", {1, 8, 24});
      Value scores = b.matmul(head_part(b, qkv, 0, false), head_part(b, qkv, 1, true));
      b.output(b.matmul(b.softmax(scores, -1), head_part(b, qkv, 2, false)));
    },
    "split_heads split_heads matmul softmax split_heads matmul")

// The heads joined back: [1, 2, 8, 4] -> [1, 8, 2, 4] -> [1, 8, 8].
REWRITE_TEST(
    Attention, HeadsConcatenate, kAttention,
    [](Builder& b) {
      b.output(b.reshape(b.transpose(b.input("x", {1, 2, 8, 4}), 1, 2), {1, 8, 8}));
    },
    "concatenate_heads")

REWRITE_TEST(
    Attention, HeadsConcatenateFromPermute, kAttention,
    [](Builder& b) {
      b.output(b.reshape(b.permute(b.input("x", {2, 3, 4, 8}), {0, 2, 1, 3}), {2, 4, 24}));
    },
    "concatenate_heads")

// Negative: a slice that is not one of equal parts (columns 4..12 of 24) is no head split.
REWRITE_TEST(
    Attention, UnalignedSliceStays, kAttention,
    [](Builder& b) {
      Value s = b.slice(b.input("qkv", {1, 8, 24}), {0, 0, 4}, {1, 8, 12});
      b.output(b.transpose(b.reshape(s, {1, 8, 2, 4}), 1, 2));
    },
    "slice reshape transpose")

// Negative: a slice of half the sequence is no head split either.
REWRITE_TEST(
    Attention, SliceOfTheSequenceStays, kAttention,
    [](Builder& b) {
      Value s = b.slice(b.input("qkv", {1, 8, 16}), {0, 0, 0}, {1, 4, 16});
      b.output(b.transpose(b.reshape(s, {1, 4, 2, 8}), 1, 2));
    },
    "slice reshape transpose")

// Negative: swapping seq and head_dim instead of seq and heads is not concatenate_heads.
REWRITE_TEST(
    Attention, OtherPermutationsStay, kAttention,
    [](Builder& b) {
      b.output(b.reshape(b.permute(b.input("x", {1, 2, 8, 4}), {0, 3, 1, 2}), {1, 4, 16}));
    },
    "permute reshape")

} // namespace
} // namespace tilesat::rewrites
