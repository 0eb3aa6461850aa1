// Tests of rules/attention.rules: the head moves of multi-head attention, as torch exports
// them, become split_heads and concatenate_heads, softmax(q k^T / s + mask) v one
// scaled_dot_product_attention, and Llama's rotate-half rotary embedding one
// rotary_embedding; REWRITE_TEST also compares the rewritten graph with the source
// on random inputs (the soundness evidence of the attention rules, which Z3 cannot encode).
#include "rewrite_test_support.h"
#include "tilesat/egraph/runner.h"
#include "tilesat/rewrites/extract.h"

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

// GPT-2's attention: scores divided by sqrt(head_dim), a causal mask as a where with a fill,
// softmax, the values: one scaled_dot_product_attention (the key untransposed by the
// transposed head split's twin).
REWRITE_TEST(
    Attention, Gpt2AttentionIsOneOp, kAttention,
    [](Builder& b) {
      Value qkv = b.input("qkv", {1, 8, 24});
      Value scores =
          b.divide(b.matmul(head_part(b, qkv, 0, false), head_part(b, qkv, 1, true)), b.scalar(2));
      Value mask = b.input("mask", {1, 1, 8, 8});
      Value p = b.softmax(b.where(mask, scores, b.scalar(-1e4)), -1);
      b.output(b.concatenate_heads(b.matmul(p, head_part(b, qkv, 2, false))));
    },
    "split_heads split_heads split_heads scaled_dot_product_attention concatenate_heads")

// BERT's: separate projections viewed as heads, the key permuted to [B, H, D, S], an additive
// mask; here the scale multiplies.
REWRITE_TEST(
    Attention, BertAttentionIsOneOp, kAttention,
    [](Builder& b) {
      auto heads = [&](const char* name, const std::vector<int64_t>& perm) {
        return b.permute(b.reshape(b.input(name, {2, 8, 8}), {2, 8, 2, 4}), perm);
      };
      Value scores =
          b.multiply(b.matmul(heads("q", {0, 2, 1, 3}), heads("k", {0, 2, 3, 1})), b.scalar(0.5));
      Value p = b.softmax(b.add(scores, b.input("mask", {2, 1, 1, 8})), 3);
      b.output(b.matmul(p, heads("v", {0, 2, 1, 3})));
    },
    "reshape permute reshape permute reshape permute scaled_dot_product_attention")

// torch's nn.MultiheadAttention as exported: the fused projection is sequence-first
// [S, B, 3 * H * D], each part viewed as [S, B * H, D] and made [B * H, S, D] (the key
// [B * H, D, S]), the query divided by sqrt(head_dim) before the product.
Value mha_part(Builder& b, Value qkv, int64_t part, bool key) {
  Value s = b.slice(qkv, {0, 0, part * 8}, {8, 2, (part + 1) * 8});
  Value r = b.reshape(s, {8, 4, 4});
  return key ? b.permute(r, {1, 2, 0}) : b.transpose(r, 0, 1);
}

void multihead_attention(Builder& b, bool divided) {
  Value qkv = b.input("qkv", {8, 2, 24});
  Value q = mha_part(b, qkv, 0, false);
  q = divided ? b.divide(q, b.scalar(2)) : b.multiply(q, b.scalar(0.5));
  Value p = b.softmax(b.matmul(q, mha_part(b, qkv, 1, true)), 2);
  b.output(b.matmul(p, mha_part(b, qkv, 2, false)));
}

// The fewest ops keep the products (the fused op needs its operands as [1, B * H, S, D]); a
// cost that prefers it extracts one scaled_dot_product_attention between reshapes, computing
// the same values.
TEST(Attention, MultiheadAttentionScalesTheQuery) {
  for (bool divided : {true, false}) {
    Graph g;
    Builder b(g);
    multihead_attention(b, divided);
    TensorEGraph teg = to_egraph(g);
    egraph::Runner().run(teg.egraph, testing::rules_from(kAttention));
    testing::PerOpCost cost([](OpKind kind, const egraph::ENode&) {
      return kind == OpKind::Matmul || kind == OpKind::Softmax ? 100.0 : 1.0;
    });
    Graph out = to_graph(teg, select_cheapest(teg, cost));
    EXPECT_EQ(testing::op_list(out),
              "slice reshape transpose reshape slice reshape permute reshape transpose slice "
              "reshape transpose reshape scaled_dot_product_attention reshape")
        << divided;
    EXPECT_TRUE(testing::same_values(g, out));
  }
}

// Negative: a softmax over the query positions is no attention.
REWRITE_TEST(
    Attention, SoftmaxOverQueriesStays, kAttention,
    [](Builder& b) {
      Value q = b.input("q", {1, 2, 8, 4});
      Value p = b.softmax(b.divide(b.matmul(q, b.input("kt", {1, 2, 4, 8})), b.scalar(2)), 2);
      b.output(b.matmul(p, b.input("v", {1, 2, 8, 4})));
    },
    "matmul constant divide softmax matmul")

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

// Hugging Face's apply_rotary_pos_emb as torch exports it: x * cos + rotate_half(x) * sin with
// rotate_half(x) = cat(-x[..., D/2:], x[..., :D/2]), on inputs x (shape `xs`) and cos and sin
// (shape `cs`); the negated slice is [nb, ne), the other [kb, ke) (as given: negative bounds
// count from the end).
using Bounds = std::vector<int64_t>;
void rotary_parts(Builder& b, const Shape& xs, const Shape& cs, const Bounds& nb, const Bounds& ne,
                  const Bounds& kb, const Bounds& ke) {
  Value x = b.input("x", xs), cos = b.input("cos", cs), sin = b.input("sin", cs);
  Value rotated = b.concat({b.neg(b.slice(x, nb, ne)), b.slice(x, kb, ke)}, -1);
  b.output(b.add(b.multiply(x, cos), b.multiply(rotated, sin)));
}

// The Llama layers' form: cos and sin [1, 1, S, D] broadcast over batch and heads.
REWRITE_TEST(
    Attention, RotaryEmbeddingIsOneOp, kAttention,
    [](Builder& b) {
      rotary_parts(b, {2, 3, 5, 8}, {1, 1, 5, 8}, {0, 0, 0, 4}, {2, 3, 5, 8}, {0, 0, 0, 0},
                   {2, 3, 5, 4});
    },
    "rotary_embedding")

// The same with the halves' bounds counted from the end and cos, sin of the whole shape.
REWRITE_TEST(
    Attention, RotaryEmbeddingWithNegativeBounds, kAttention,
    [](Builder& b) {
      rotary_parts(b, {4, 6}, {4, 6}, {0, -3}, {4, 6}, {0, 0}, {4, -3});
    },
    "rotary_embedding")

// Negative: the first half negated (cat(-x[..., :D/2], x[..., D/2:])) is not rotate_half.
REWRITE_TEST(
    Attention, FirstHalfNegatedStays, kAttention,
    [](Builder& b) {
      rotary_parts(b, {3, 8}, {3, 8}, {0, 0}, {3, 4}, {0, 4}, {3, 8});
    },
    "multiply slice neg slice concat multiply add")

// Negative: cos of more elements than x (x broadcast up by the product) is no rotary
// embedding of x.
REWRITE_TEST(
    Attention, CosLargerThanXStays, kAttention,
    [](Builder& b) {
      rotary_parts(b, {1, 5, 8}, {2, 5, 8}, {0, 0, 4}, {1, 5, 8}, {0, 0, 0}, {1, 5, 4});
    },
    "multiply slice neg slice concat multiply add")

} // namespace
} // namespace tilesat::rewrites
