// contrib.cpp: the com.microsoft transformer ops ONNX Runtime's transformer optimizer
// (onnxruntime.transformers.optimizer, Olive, optimum's ORT optimization levels) writes into
// BERT-, GPT- and T5-style models, read with the graph's own ops: the Gelu family, FusedMatMul,
// BiasAdd, SkipLayerNormalization, SkipSimplifiedLayerNormalization and
// SimplifiedLayerNormalization (RMSNorm), EmbedLayerNormalization, Attention and
// MultiHeadAttention; and of its LLM exports (onnxruntime-genai, the int4 quantizer)
// RotaryEmbedding and MatMulNBits. Semantics as ONNX Runtime's contrib operator documentation
// states them (docs/ContribOperators.md); what an op can do beyond the forms read here (packed or
// past key/values, rotary embedding, 2-D mask indices) is an error naming the input or attribute.
#include "converters.h"

#include <cmath>
#include <fmt/format.h>

namespace tilesat::onnx {
namespace {

// ONNX Runtime's default epsilon of the skip and embed layer norms (kDefaultSkipLayerNormEpsilon,
// kDefaultEmbedLayerNormEpsilon).
constexpr double kContribLayerNormEpsilon = 1e-12;

void refuse_output(NodeContext& c, size_t i, std::string_view what) {
  if (c.wants_output(i)) c.fail(fmt::format("output {} ('{}') is not read", i, what));
}

void refuse_input(NodeContext& c, size_t i, std::string_view what) {
  if (c.has_input(i)) c.fail(fmt::format("input {} ('{}') is not read", i, what));
}

// Input `i` as a value of the graph in x's dtype (a weight or a computed value).
Value operand_as(NodeContext& c, size_t i, DType d) {
  return operand_like(c, i, d, false);
}

// Splits the last dim of [B, S, N * H] into heads: [B, N, S, H].
Value heads(Builder& b, Value x, int64_t num_heads) {
  const Shape& s = b.type(x).shape;
  int64_t hidden = s[2];
  return b.permute(b.reshape(x, {s[0], s[1], num_heads, hidden / num_heads}), {0, 2, 1, 3});
}

// [B, N, S, H] back to [B, S, N * H].
Value merge_heads(Builder& b, Value x) {
  const Shape& s = b.type(x).shape;
  return b.reshape(b.permute(x, {0, 2, 1, 3}), {s[0], s[2], s[1] * s[3]});
}

// The columns [from, to) of x's last dim.
Value columns(Builder& b, Value x, int64_t from, int64_t to) {
  std::vector<int64_t> begins(static_cast<size_t>(b.type(x).shape.rank()), 0);
  std::vector<int64_t> ends = b.type(x).shape.dims();
  begins.back() = from;
  ends.back() = to;
  return b.slice(x, begins, ends);
}

// An additive mask for scores [B, N, S, T] from a key padding mask: [B] valid key counts
// (ONNX Runtime's 1-D mask_index: keys at or after the count are masked), [B, T] or
// [B, S, T] of 1 (attend) and 0 (masked); masked positions get `filter`.
Value padding_mask(NodeContext& c, size_t i, int64_t batch, int64_t seq, int64_t total,
                   double filter, DType d) {
  Builder& b = c.builder();
  Value m = in_f32(b, c.operand(i));
  const Shape s = b.type(m).shape;
  Value valid;
  if (s.rank() == 1 && s[0] == batch) {
    Value positions = iota(b, total, 1, 2, DType::F32);
    valid = b.less(positions, b.reshape(m, {batch, 1}));
    valid = b.reshape(valid, {batch, 1, 1, total});
  } else if (s.rank() == 2 && s[0] == batch && s[1] == total) {
    valid = b.reshape(m, {batch, 1, 1, total});
  } else if (s.rank() == 3 && s[0] == batch && s[1] == seq && s[2] == total) {
    valid = b.reshape(m, {batch, 1, seq, total});
  } else {
    c.fail(fmt::format("mask (input {}) of shape {}: expected [{}] key counts, [{}, {}] or "
                       "[{}, {}, {}]",
                       i, s.str(), batch, batch, total, batch, seq, total));
  }
  Value masked = b.subtract(b.scalar(1, DType::F32), valid);
  Value add = b.multiply(masked, b.scalar(filter, DType::F32));
  return d == DType::F32 ? add : b.typecast(add, d);
}

// softmax(q k^T * scale + mask terms) v over heads: q [B, N, S, H], k [B, N, T, H],
// v [B, N, T, Hv]; `masks` are added to the scores; `causal` masks keys after each query.
Value attend(Builder& b, Value q, Value k, Value v, double scale, const std::vector<Value>& masks,
             bool causal, double filter) {
  DType d = b.type(q).dtype;
  Value products = b.matmul(q, k, {.transpose_b = true});
  Value scores = b.multiply(products, b.scalar(scale, d));
  for (Value m : masks) scores = b.add(scores, m);
  if (causal) {
    int64_t s = b.type(q).shape[2], t = b.type(k).shape[2];
    std::vector<double> future(static_cast<size_t>(s * t), 0.0);
    // Query i sees keys up to i + (t - s): the keys of a past come first.
    for (int64_t i = 0; i < s; ++i)
      for (int64_t j = i + (t - s) + 1; j < t; ++j) future[static_cast<size_t>(i * t + j)] = filter;
    scores = b.add(scores, b.constant(Shape{s, t}, std::move(future), d));
  }
  return b.matmul(b.softmax(scores, -1), v);
}

double attention_scale(NodeContext& c, int64_t head_size) {
  double scale = c.attr_float("scale", 0.0);
  return scale != 0.0 ? scale : 1.0 / std::sqrt(static_cast<double>(head_size));
}

int64_t num_heads(NodeContext& c, int64_t hidden, std::string_view what) {
  int64_t n = c.attr_int("num_heads", 0);
  if (n < 1) c.fail("expected a positive 'num_heads'");
  if (hidden % n != 0)
    c.fail(fmt::format("{} {} is not divisible by num_heads {}", what, hidden, n));
  return n;
}

} // namespace

void convert_contrib_gelu(NodeContext& c) {
  Builder& b = c.builder();
  const std::string& type = c.node().op_type();
  Value x = c.operand(0);
  DType d = b.type(x).dtype;
  if (type == "QuickGelu") {
    double alpha = c.attr_float("alpha", 1.702);
    c.set_output(0, b.multiply(x, b.sigmoid(b.multiply(x, b.scalar(alpha, d)))));
    return;
  }
  // BiasGelu and FastGelu add their bias first (FastGelu's is optional).
  if (c.has_input(1)) x = b.add(x, operand_as(c, 1, d));
  c.set_output(0, type == "FastGelu" ? gelu_tanh(b, x) : b.gelu(x));
}

void convert_fused_matmul(NodeContext& c) {
  if (c.attr_int("transBatchA", 0) != 0 || c.attr_int("transBatchB", 0) != 0)
    c.fail("expected 'transBatchA' and 'transBatchB' 0");
  Builder& b = c.builder();
  Value a = c.operand(0);
  DType d = b.type(a).dtype;
  Value w = operand_as(c, 1, d);
  if (b.type(a).shape.rank() < 2 || b.type(w).shape.rank() < 2)
    c.fail("expected operands of rank 2 or more");
  Value y = b.matmul(
      a, w,
      {.transpose_a = c.attr_int("transA", 0) != 0, .transpose_b = c.attr_int("transB", 0) != 0});
  double alpha = c.attr_float("alpha", 1.0);
  c.set_output(0, alpha == 1.0 ? y : b.multiply(y, b.scalar(alpha, d)));
}

void convert_bias_add(NodeContext& c) {
  Builder& b = c.builder();
  Value x = c.operand(0);
  DType d = b.type(x).dtype;
  Value first = b.add(x, operand_as(c, 1, d));
  c.set_output(0, b.add(first, operand_as(c, 2, d)));
}

// SkipLayerNormalization (input, skip, gamma, beta?, bias?) and its RMS form
// SkipSimplifiedLayerNormalization (input, skip, gamma): the norm of input + skip (+ bias) over
// the last dim; output 3 is that sum.
void convert_skip_layer_norm(NodeContext& c) {
  bool simplified = c.node().op_type() == "SkipSimplifiedLayerNormalization";
  Builder& b = c.builder();
  Value x = c.operand(0);
  DType d = b.type(x).dtype;
  Value sum = b.add(x, operand_as(c, 1, d));
  if (simplified) {
    // ONNX Runtime's versions differ on whether this op adds its bias input.
    refuse_input(c, 3, "bias");
  } else if (c.has_input(4)) {
    sum = b.add(sum, operand_as(c, 4, d));
  }
  refuse_output(c, 1, "mean");
  refuse_output(c, 2, "inv_std_var");
  double eps = c.attr_float("epsilon", kContribLayerNormEpsilon);
  Value gamma = operand_as(c, 2, d);
  std::optional<Value> beta;
  if (!simplified && c.has_input(3)) beta = operand_as(c, 3, d);
  c.set_output(0, simplified ? b.rms_norm(sum, &gamma, -1, eps)
                             : b.layer_norm(sum, &gamma, beta ? &*beta : nullptr, -1, eps));
  c.set_output(3, sum);
}

// SimplifiedLayerNormalization (X, scale): RMSNorm over the dims from `axis` on.
void convert_simplified_layer_norm(NodeContext& c) {
  if (c.attr_int("stash_type", 1) != 1) c.fail("expected 'stash_type' 1 (float)");
  refuse_output(c, 1, "inv_std_var");
  Builder& b = c.builder();
  Value x = c.operand(0);
  Value scale = operand_as(c, 1, b.type(x).dtype);
  int64_t rank = b.type(x).shape.rank();
  int64_t axis = norm_axis(c.attr_int("axis", -1), std::max<int64_t>(rank, 1), "'axis'");
  c.set_output(0, b.rms_norm(x, &scale, axis, c.attr_float("epsilon", 1e-5)));
}

// EmbedLayerNormalization: the layer norm of word, position and segment embeddings summed;
// output 1 (mask_index) is each batch row's count of mask ones (0 without a mask, which
// ONNX Runtime's Attention reads as no padding).
void convert_embed_layer_norm(NodeContext& c) {
  Builder& b = c.builder();
  Value ids = c.operand(0);
  const Shape ids_shape = b.type(ids).shape;
  if (ids_shape.rank() != 2)
    c.fail(fmt::format("expected input_ids [batch, sequence], got {}", ids_shape.str()));
  int64_t batch = ids_shape[0], seq = ids_shape[1];
  auto indices = [&](Value v) {
    return b.type(v).dtype == DType::I32 ? v : b.typecast(v, DType::I32);
  };
  Value words = c.operand(2);
  DType d = b.type(words).dtype;
  Value sum = b.take(words, indices(ids), 0);
  Value positions_table = operand_as(c, 3, d);
  Value positions;
  if (c.has_input(8)) {
    positions = b.take(positions_table, indices(c.operand(8)), 0);
  } else {
    std::vector<int64_t> first(2, 0), end = b.type(positions_table).shape.dims();
    if (end[0] < seq)
      c.fail(
          fmt::format("position_embedding has {} rows, fewer than the sequence's {}", end[0], seq));
    end[0] = seq;
    positions = b.slice(positions_table, first, end);
  }
  sum = b.add(sum, positions);
  if (c.has_input(1) && c.has_input(4)) {
    Value segments_table = operand_as(c, 4, d);
    Value segment_ids = indices(c.operand(1));
    sum = b.add(sum, b.take(segments_table, segment_ids, 0));
  } else if (c.has_input(1) != c.has_input(4)) {
    c.fail("expected both segment_ids and segment_embedding, or neither");
  }
  Value gamma = operand_as(c, 5, d), beta = operand_as(c, 6, d);
  c.set_output(
      0, b.layer_norm(sum, &gamma, &beta, -1, c.attr_float("epsilon", kContribLayerNormEpsilon)));
  if (c.wants_output(1)) {
    Value counts = c.has_input(7) ? b.sum(in_f32(b, c.operand(7)), {.dims = {1}})
                                  : b.full(Shape{batch}, 0.0, DType::F32);
    c.set_output(1, b.typecast(counts, DType::I32));
  }
  c.set_output(2, sum);
}

// Attention (input, weights, bias?, mask_index?, past?, attention_bias?): self-attention with
// the Q, K and V projections in one weight [hidden_in, q + k + v] (qkv_hidden_sizes, or three
// equal parts), bias added, heads split, scaled dot-product attention, heads merged.
void convert_contrib_attention(NodeContext& c) {
  refuse_input(c, 4, "past");
  refuse_input(c, 6, "past_sequence_length");
  refuse_output(c, 1, "present");
  if (c.attr_int("do_rotary", 0) != 0) c.fail("expected 'do_rotary' 0");
  if (c.attr_int("past_present_share_buffer", 0) != 0)
    c.fail("expected 'past_present_share_buffer' 0");
  Builder& b = c.builder();
  Value x = c.operand(0);
  DType d = b.type(x).dtype;
  const Shape xs = b.type(x).shape;
  if (xs.rank() != 3)
    c.fail(fmt::format("expected input [batch, sequence, hidden], got {}", xs.str()));
  Value qkv = b.matmul(x, operand_as(c, 1, d));
  int64_t width = b.type(qkv).shape[2];
  if (c.has_input(2)) qkv = b.add(qkv, operand_as(c, 2, d));
  std::vector<int64_t> sizes = c.attr_ints("qkv_hidden_sizes", {});
  if (sizes.empty()) {
    if (width % 3 != 0) c.fail(fmt::format("weights width {} is not three equal parts", width));
    sizes = {width / 3, width / 3, width / 3};
  }
  if (sizes.size() != 3 || sizes[0] != sizes[1] || sizes[0] + sizes[1] + sizes[2] != width)
    c.fail(fmt::format("expected 'qkv_hidden_sizes' of three sizes summing to the weights' {} "
                       "columns, Q and K equal",
                       width));
  int64_t n = num_heads(c, sizes[0], "Q width");
  if (sizes[2] % n != 0)
    c.fail(fmt::format("V width {} is not divisible by num_heads {}", sizes[2], n));
  Value q = heads(b, columns(b, qkv, 0, sizes[0]), n);
  Value k = heads(b, columns(b, qkv, sizes[0], 2 * sizes[0]), n);
  Value v = heads(b, columns(b, qkv, 2 * sizes[0], width), n);
  double filter = c.attr_float("mask_filter_value", -10000.0);
  std::vector<Value> masks;
  if (c.has_input(3)) masks.push_back(padding_mask(c, 3, xs[0], xs[1], xs[1], filter, d));
  if (c.has_input(5)) masks.push_back(operand_as(c, 5, d));
  Value out = attend(b, q, k, v, attention_scale(c, sizes[0] / n), masks,
                     c.attr_int("unidirectional", 0) != 0, filter);
  c.set_output(0, merge_heads(b, out));
}

// MultiHeadAttention (query, key, value, bias?, key_padding_mask?, attention_bias?, ...) with
// separate 3-D query [B, S, D], key [B, T, D] and value [B, T, Dv].
void convert_multi_head_attention(NodeContext& c) {
  for (size_t i = 6; i < 10; ++i)
    refuse_input(c, i,
                 i == 6   ? "past_key"
                 : i == 7 ? "past_value"
                          : "past_sequence_length or cache_indirection");
  refuse_output(c, 1, "present_key");
  refuse_output(c, 2, "present_value");
  Builder& b = c.builder();
  Value q = c.operand(0);
  DType d = b.type(q).dtype;
  if (!c.has_input(1) || !c.has_input(2))
    c.fail("expected separate key and value inputs (packed QKV or KV is not read)");
  Value k = operand_as(c, 1, d), v = operand_as(c, 2, d);
  const Shape qs = b.type(q).shape, ks = b.type(k).shape, vs = b.type(v).shape;
  if (qs.rank() != 3 || ks.rank() != 3 || vs.rank() != 3)
    c.fail(fmt::format("expected 3-D query, key and value, got {}, {} and {}", qs.str(), ks.str(),
                       vs.str()));
  if (c.has_input(3)) {
    Value bias = operand_as(c, 3, d);
    q = b.add(q, columns(b, bias, 0, qs[2]));
    k = b.add(k, columns(b, bias, qs[2], qs[2] + ks[2]));
    v = b.add(v, columns(b, bias, qs[2] + ks[2], qs[2] + ks[2] + vs[2]));
  }
  int64_t n = num_heads(c, qs[2], "query width");
  double filter = c.attr_float("mask_filter_value", -10000.0);
  std::vector<Value> masks;
  if (c.has_input(4)) masks.push_back(padding_mask(c, 4, qs[0], qs[1], ks[1], filter, d));
  if (c.has_input(5)) masks.push_back(operand_as(c, 5, d));
  Value qh = heads(b, q, n);
  Value kh = heads(b, k, n);
  Value vh = heads(b, v, n);
  Value out = attend(b, qh, kh, vh, attention_scale(c, qs[2] / n), masks,
                     c.attr_int("unidirectional", 0) != 0, filter);
  c.set_output(0, merge_heads(b, out));
}

// MatMulNBits (A, B, scales, zero_points?, g_idx?, bias?): A times a [K, N] weight stored
// quantized along K in blocks of block_size values of `bits` bits (4 or 8; B is uint8
// [N, blocks, block_size * bits / 8], low nibble first), each block with a scale and a zero
// point (default 2^(bits - 1); uint8 ones packed like B, or float ones as they are). The weight
// is dequantized to f32 at import: it takes 32 / bits times the model file's bytes.
void convert_matmul_nbits(NodeContext& c) {
  const int64_t k = c.attr_int("K", 0), n = c.attr_int("N", 0), bits = c.attr_int("bits", 4),
                block = c.attr_int("block_size", 0);
  if (k < 1 || n < 1) c.fail("expected positive 'K' and 'N'");
  if (bits != 4 && bits != 8) c.fail(fmt::format("expected 'bits' 4 or 8, got {}", bits));
  if (block < 2 || block * bits % 8 != 0)
    c.fail(fmt::format("expected a 'block_size' of whole bytes, got {}", block));
  refuse_input(c, 4, "g_idx");
  const int64_t blocks = (k + block - 1) / block, blob = block * bits / 8;
  const HostTensor& q = c.input_data(1, "B");
  if (q.numel() != n * blocks * blob)
    c.fail(fmt::format("expected B of {} x {} x {} bytes (N, blocks of K, bytes per block), got "
                       "{} values",
                       n, blocks, blob, q.numel()));
  const HostTensor& scales = c.input_data(2, "scales");
  if (scales.numel() != n * blocks)
    c.fail(fmt::format("expected {} scales (N x blocks), got {}", n * blocks, scales.numel()));
  const HostTensor* zp = c.has_input(3) ? &c.input_data(3, "zero_points") : nullptr;
  const bool packed_zp = zp != nullptr && zp->elem_type == ::onnx::TensorProto::UINT8;
  const int64_t zp_row = packed_zp ? (blocks * bits + 7) / 8 : blocks;
  if (zp != nullptr && zp->numel() != n * zp_row)
    c.fail(fmt::format("expected {} zero points, got {}", n * zp_row, zp->numel()));
  const int64_t mask = (1 << bits) - 1;
  auto field = [&](const std::vector<double>& bytes, int64_t base, int64_t i) {
    auto byte = static_cast<int64_t>(bytes[static_cast<size_t>(base + i * bits / 8)]);
    return bits == 8 ? byte : (byte >> (4 * (i % 2))) & mask;
  };
  Tensor w(TensorType{DType::F32, Shape{k, n}, {}});
  for (int64_t col = 0; col < n; ++col)
    for (int64_t b = 0; b < blocks; ++b) {
      double zero = static_cast<double>(1 << (bits - 1));
      if (zp != nullptr)
        zero = packed_zp ? static_cast<double>(field(zp->values, col * zp_row, b))
                         : zp->values[static_cast<size_t>(col * blocks + b)];
      double scale = scales.values[static_cast<size_t>(col * blocks + b)];
      for (int64_t i = 0; i < block && b * block + i < k; ++i) {
        auto value = static_cast<double>(field(q.values, (col * blocks + b) * blob, i));
        w[(b * block + i) * n + col] = static_cast<float>((value - zero) * scale);
      }
    }
  Builder& bld = c.builder();
  Value a = c.operand(0);
  Value weight = c.importer().add_weight(c.node().input(1), std::move(w));
  if (bld.type(a).dtype != DType::F32) weight = bld.typecast(weight, bld.type(a).dtype);
  Value y = bld.matmul(a, weight);
  if (c.has_input(5)) y = bld.add(y, operand_as(c, 5, bld.type(a).dtype));
  c.set_output(0, y);
}

// RotaryEmbedding (input, position_ids, cos_cache, sin_cache): the rotate-half rotary
// embedding of each head's first rotary_embedding_dim values, cos and sin looked up at the
// positions ([batch, sequence] ids, or one static offset for 0, 1, ... from it). Input
// [batch, heads, sequence, head] or [batch, sequence, heads * head] (num_heads given).
void convert_contrib_rotary(NodeContext& c) {
  if (c.attr_int("interleaved", 0) != 0) c.fail("expected 'interleaved' 0");
  if (c.attr_int("is_packed_batching", 0) != 0) c.fail("expected 'is_packed_batching' 0");
  if (c.attr_float("scale", 1.0) != 1.0) c.fail("expected 'scale' 1");
  Builder& b = c.builder();
  Value x = c.operand(0);
  DType d = b.type(x).dtype;
  const Shape xs = b.type(x).shape;
  bool flat = xs.rank() == 3;
  if (!flat && xs.rank() != 4)
    c.fail(fmt::format("expected input [batch, heads, sequence, head] or [batch, sequence, "
                       "hidden], got {}",
                       xs.str()));
  int64_t heads = flat ? num_heads(c, xs[2], "hidden width") : xs[1];
  int64_t head = flat ? xs[2] / heads : xs[3], seq = flat ? xs[1] : xs[2];
  // [batch, sequence, heads, head] either way (a 4-D input moved there and back).
  Value h = flat ? b.reshape(x, {xs[0], seq, heads, head}) : b.permute(x, {0, 2, 1, 3});
  int64_t rot = c.attr_int("rotary_embedding_dim", 0);
  if (rot == 0) rot = head;
  if (rot < 2 || rot > head || rot % 2 != 0)
    c.fail(fmt::format("expected an even 'rotary_embedding_dim' up to the head size {}, got {}",
                       head, rot));
  Value cos_cache = operand_as(c, 2, d), sin_cache = operand_as(c, 3, d);
  Value ids;
  if (c.input_shape(1).numel() == 1 && c.input_static(1)) {
    double start = static_scalar(c, 1, "position_ids");
    std::vector<double> positions(static_cast<size_t>(seq));
    for (int64_t i = 0; i < seq; ++i)
      positions[static_cast<size_t>(i)] = start + static_cast<double>(i);
    ids = b.constant(Shape{1, seq}, std::move(positions), DType::I32);
  } else {
    ids = c.operand(1);
    if (b.type(ids).dtype != DType::I32) ids = b.typecast(ids, DType::I32);
  }
  // cos and sin [batch or 1, sequence, 1, rot]: each half of the rotary dims takes the cache's
  // rot / 2 values.
  auto table = [&](Value cache) {
    Value rows = b.take(cache, ids, 0); // [batch, sequence, rot / 2]
    const Shape rs = b.type(rows).shape;
    if (rs[2] * 2 < rot)
      c.fail(fmt::format("cos and sin caches have {} columns, fewer than rotary_embedding_dim / "
                         "2 = {}",
                         rs[2], rot / 2));
    Value half = columns(b, rows, 0, rot / 2);
    return b.reshape(b.concat({half, half}, 2), {rs[0], rs[1], 1, rot});
  };
  Value part = rot == head ? h : columns(b, h, 0, rot);
  Value cos_table = table(cos_cache);
  Value sin_table = table(sin_cache);
  Value rotated = b.rotary_embedding(part, cos_table, sin_table);
  if (rot < head) rotated = b.concat({rotated, columns(b, h, rot, head)}, 3);
  c.set_output(0, flat ? b.reshape(rotated, xs.dims()) : b.permute(rotated, {0, 2, 1, 3}));
}

} // namespace tilesat::onnx
