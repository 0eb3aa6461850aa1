// attention.cpp: computed right sides of the attention family: the head moves of multi-head
// attention (slice, reshape and permute of a fused projection; permute and reshape back) as
// ttnn's transformer ops split_heads and concatenate_heads, scaled dot-product attention, and
// the rotary position embedding.
#include "applier_impl.h"
#include "tilesat/rewrites/payload.h"

#include <algorithm>
#include <cmath>

namespace tilesat::rewrites::appliers {
namespace {

using IntList = std::vector<int64_t>;

// The permutation of a matched permute (argument `i` its permutation) or transpose (arguments
// `i` and `i + 1` its dims) over `rank` dims, or nullopt.
std::optional<IntList> permutation_arg(const ApplyContext& c, size_t i, int64_t rank) {
  if (std::optional<IntList> p = c.int_list(i)) {
    if (static_cast<int64_t>(p->size()) != rank) return std::nullopt;
    return p;
  }
  std::optional<int64_t> d0 = c.integer(i), d1 = c.integer(i + 1);
  if (!d0 || !d1) return std::nullopt;
  return swap_permutation(*d0, *d1, rank);
}

const IntList kHeadsFirst{0, 2, 1, 3};    // [B, S, H, D] <-> [B, H, S, D]
const IntList kHeadsKeyFirst{0, 2, 3, 1}; // [B, S, H, D] -> [B, H, D, S]

} // namespace

egraph::Id split_heads(ApplyContext& c) {
  // ?x ?begins ?ends, then the permute's permutation twice or the transpose's two dims.
  egraph::Id x = c.cls(0);
  const Shape& xs = c.analysis()[x].type.shape;
  const Shape& root = c.root().type.shape;
  std::optional<IntList> begins = c.int_list(1), ends = c.int_list(2);
  std::optional<IntList> perm = permutation_arg(c, 3, 4);
  if (xs.rank() != 3 || root.rank() != 4 || !begins || !ends || begins->size() != 3 ||
      ends->size() != 3 || !perm || (*perm != kHeadsFirst && *perm != kHeadsKeyFirst))
    return egraph::kNoId;
  const bool transpose = *perm == kHeadsKeyFirst;
  const int64_t heads = root[1], head_dim = transpose ? root[2] : root[3];
  const int64_t width = heads * head_dim, w = xs[2];
  // The slice as it reads: negative indices count from the end, then clamp to the extent.
  auto at = [&](size_t d, int64_t i) {
    int64_t e = xs[static_cast<int64_t>(d)];
    return std::clamp<int64_t>(i < 0 ? i + e : i, 0, e);
  };
  const int64_t lo = at(2, (*begins)[2]), hi = at(2, (*ends)[2]);
  if (width < 1 || at(0, (*begins)[0]) != 0 || at(1, (*begins)[1]) != 0 || hi - lo != width ||
      lo % width != 0 || w % width != 0 || w / width < 2)
    return egraph::kNoId;
  Attrs a;
  a.set("num_heads", heads);
  a.set("parts", w / width);
  a.set("part", lo / width);
  if (transpose) a.set("transpose", true);
  egraph::Id xv[] = {x};
  return c.if_fits_root(c.add(OpKind::SplitHeads, xv, a));
}

egraph::Id concatenate_heads(ApplyContext& c) {
  // ?x, then the permute's permutation twice or the transpose's two dims.
  egraph::Id x = c.cls(0);
  std::optional<IntList> perm = permutation_arg(c, 1, 4);
  if (c.analysis()[x].type.shape.rank() != 4 || !perm || *perm != kHeadsFirst) return egraph::kNoId;
  egraph::Id xv[] = {x};
  return c.if_fits_root(c.add(OpKind::ConcatenateHeads, xv, Attrs{}));
}

} // namespace tilesat::rewrites::appliers

namespace tilesat::rewrites::appliers {
namespace {

// scaled_dot_product_attention of ?q (arg 0), the key as transposed in the product ?kt (arg 1,
// [B, H, D, S]) and ?v (arg 2), when the scores were scaled by the splat ?s (arg 3: divided by
// it when `divided`, arg 5) and softmax ran over their last dim (arg 4); `mask` adds the mask
// operand (arg 6) as `kind`, with the splat fill of arg 7 for "select". Operands of rank 3,
// [N, S, D] with batch and heads in one dim (torch's nn.MultiheadAttention computes in that
// form), attend as [1, N, S, D] and reshape back; those are matched without a mask.
egraph::Id attention(ApplyContext& c, const char* kind) {
  egraph::Id q = c.cls(0), kt = c.cls(1), v = c.cls(2);
  const std::optional<double>& s = c.tensor(3).splat;
  std::optional<int64_t> dim = c.integer(4);
  const egraph::AttrValue& divided = c.attr(5);
  const Shape& ks = c.analysis()[kt].type.shape;
  const int64_t rank = ks.rank();
  if (!s || !(*s != 0) || !std::isfinite(*s) || !dim || (rank != 4 && rank != 3) ||
      (rank == 3 && kind) || divided.kind() != egraph::AttrValue::Kind::kBool ||
      normalize_axis(*dim, rank) != std::optional<int64_t>(rank - 1))
    return egraph::kNoId;
  auto heads = [&](egraph::Id x) {
    const Shape& xs = c.analysis()[x].type.shape;
    return xs.rank() != 3 ? egraph::kNoId : add_reshape(c, x, {1, xs[0], xs[1], xs[2]});
  };
  if (rank == 3) {
    q = heads(q);
    kt = heads(kt);
    v = heads(v);
    if (q == egraph::kNoId || kt == egraph::kNoId || v == egraph::kNoId) return egraph::kNoId;
  }
  Attrs ta;
  ta.set("dim0", int64_t{2});
  ta.set("dim1", int64_t{3});
  egraph::Id ktv[] = {kt};
  egraph::Id k = c.add(OpKind::Transpose, ktv, ta);
  if (k == egraph::kNoId) return egraph::kNoId;
  Attrs a;
  a.set("scale", divided.as_bool() ? 1.0 / *s : *s);
  std::vector<egraph::Id> kids{q, k, v};
  if (kind) {
    kids.push_back(c.cls(6));
    a.set("mask_kind", std::string(kind));
    if (std::string_view(kind) == "select") {
      const std::optional<double>& fill = c.tensor(7).splat;
      if (!fill) return egraph::kNoId;
      a.set("mask_fill", *fill);
    }
  }
  egraph::Id out = c.add(OpKind::Attention, kids, a);
  if (rank == 3 && out != egraph::kNoId) {
    const Shape& os = c.analysis()[out].type.shape;
    out = add_reshape(c, out, {os[1], os[2], os[3]});
  }
  return c.if_fits_root(out);
}

} // namespace

egraph::Id attention_plain(ApplyContext& c) {
  return attention(c, nullptr);
}

egraph::Id attention_masked(ApplyContext& c) {
  return attention(c, "add");
}

egraph::Id attention_selected(ApplyContext& c) {
  return attention(c, "select");
}

egraph::Id rotary_embedding(ApplyContext& c) {
  // ?x ?cos ?sin, the concat's dim, then the begins and ends of the slice negated (the second
  // half of the last dim) and of the other (the first half).
  egraph::Id x = c.cls(0);
  const Shape& xs = c.analysis()[x].type.shape;
  const int64_t rank = xs.rank();
  std::optional<int64_t> dim = c.integer(3);
  if (rank < 2 || !dim || normalize_axis(*dim, rank) != std::optional<int64_t>(rank - 1))
    return egraph::kNoId;
  const int64_t d = xs[rank - 1], half = d / 2;
  if (d % 2 != 0) return egraph::kNoId;
  // The slice's bounds as it reads them (negative from the end, clamped), which must keep
  // every dim whole but the last and take [lo, hi) of it.
  auto is_half = [&](size_t begins_arg, int64_t lo, int64_t hi) {
    std::optional<IntList> b = c.int_list(begins_arg), e = c.int_list(begins_arg + 1);
    if (!b || !e || static_cast<int64_t>(b->size()) != rank ||
        static_cast<int64_t>(e->size()) != rank)
      return false;
    for (int64_t i = 0; i < rank; ++i) {
      auto at = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + xs[i] : v, 0, xs[i]); };
      const auto u = static_cast<size_t>(i);
      const int64_t want_lo = i == rank - 1 ? lo : 0, want_hi = i == rank - 1 ? hi : xs[i];
      if (at((*b)[u]) != want_lo || at((*e)[u]) != want_hi) return false;
    }
    return true;
  };
  if (!is_half(4, half, d) || !is_half(6, 0, half)) return egraph::kNoId;
  egraph::Id kids[] = {x, c.cls(1), c.cls(2)};
  return c.if_fits_root(c.add(OpKind::RotaryEmbedding, kids, Attrs{}));
}

} // namespace tilesat::rewrites::appliers
