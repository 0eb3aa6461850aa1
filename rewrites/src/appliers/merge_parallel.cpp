// merge_parallel.cpp: computed right sides of the parallel-merge rules (multi-patterns): two
// products (or convs) of one input by different weights as one by the weights concatenated
// along their output dim, each original value a slice of its columns (or channels): TASO's
// and TENSAT's Q/K/V merge; and a slice of a slice as one slice, so that merges compose
// without slice chains.
#include "applier_impl.h"
#include "tilesat/rewrites/payload.h"

#include <algorithm>

namespace tilesat::rewrites::appliers {
namespace {

// The matched pair: roots ?p and ?q, the shared input ?x, the weights, and the biases (kNoId
// when the products have none).
struct Pair {
  egraph::Id p, q, x, w1, w2, b1 = egraph::kNoId, b2 = egraph::kNoId;
};

const Shape& shape_of(const ApplyContext& c, egraph::Id id) {
  return c.analysis()[c.egraph().find(id)].type.shape;
}

// `a` and `b` have one rank and equal extents except along `dim`.
bool agree_except(const Shape& a, const Shape& b, int64_t dim) {
  if (a.rank() != b.rank()) return false;
  for (int64_t d = 0; d < a.rank(); ++d) {
    if (d != dim && a[d] != b[d]) return false;
  }
  return true;
}

// The output dim of the weights, of the biases and of the results: the dims along which they
// are concatenated and sliced.
struct Dims {
  int64_t weight = 0, bias = 0, result = 0;
};

// Whether the weights (and biases) can be concatenated along their output dims: equal in every
// other dim, and a bias holding one entry per output (its output dim has the weight's extent).
bool concatenable(const ApplyContext& c, const Pair& m, const Dims& d) {
  const Shape &w1 = shape_of(c, m.w1), &w2 = shape_of(c, m.w2);
  if (d.weight < 0 || d.weight >= w1.rank() || !agree_except(w1, w2, d.weight)) return false;
  if (m.b1 == egraph::kNoId) return true;
  const Shape &b1 = shape_of(c, m.b1), &b2 = shape_of(c, m.b2);
  if (d.bias < 0 || d.bias >= b1.rank() || !agree_except(b1, b2, d.bias)) return false;
  return b1[d.bias] == w1[d.weight] && b2[d.bias] == w2[d.weight];
}

// The parts of `x` joined along `dim`: the operands of a concat along it in x's class, or x.
void parts_along(ApplyContext& c, egraph::Id x, int64_t dim, std::vector<egraph::Id>& out) {
  static const egraph::Symbol concat = op_symbol(OpKind::Concat);
  const egraph::EGraph& eg = c.egraph();
  for (egraph::NodeId n : eg.nodes_with_op(eg.find(x), concat)) {
    const egraph::ENode node = eg.node(n);
    const egraph::AttrValue* d = eg.attrs(node.attrs).find(egraph::Symbol::intern("dim"));
    if (d == nullptr || !d->is_int() || d->as_int() != dim) continue;
    for (egraph::Id ch : node.children) out.push_back(eg.find(ch));
    return;
  }
  out.push_back(eg.find(x));
}

// concat(a, b) along `dim` with nested concats along it flattened: merges made in different
// orders (q with merge(k, v), or merge(q, k) with v) build one concat e-node.
egraph::Id concat_flat(ApplyContext& c, egraph::Id a, egraph::Id b, int64_t dim) {
  std::vector<egraph::Id> parts;
  parts_along(c, a, dim, parts);
  parts_along(c, b, dim, parts);
  Attrs at;
  at.set("dim", dim);
  return c.add(OpKind::Concat, parts, at);
}

// `kind(x, concat(w1, w2), concat(b1, b2))[attrs]`, with ?p and ?q its column slices: ?q is
// united here, ?p's slice is returned (the match's root).
egraph::Id merge(ApplyContext& c, const Pair& m, OpKind kind, const Attrs& attrs, const Dims& d) {
  egraph::EGraph& eg = c.mutable_egraph();
  if (eg.find(m.p) == eg.find(m.q) || !concatenable(c, m, d)) return egraph::kNoId;
  // Copies: adding e-nodes below may move the analysis' facts.
  const Shape p = shape_of(c, m.p), q = shape_of(c, m.q);
  if (d.result < 0 || d.result >= p.rank() || !agree_except(p, q, d.result)) return egraph::kNoId;
  std::vector<egraph::Id> operands = {m.x, concat_flat(c, m.w1, m.w2, d.weight)};
  if (m.b1 != egraph::kNoId) operands.push_back(concat_flat(c, m.b1, m.b2, d.bias));
  if (std::find(operands.begin(), operands.end(), egraph::kNoId) != operands.end())
    return egraph::kNoId;
  egraph::Id merged = c.add(kind, operands, attrs);
  if (merged == egraph::kNoId) return egraph::kNoId;
  merged = eg.find(merged);
  int64_t n1 = p[d.result], n2 = q[d.result];
  egraph::Id sp = slice_along(c, merged, d.result, 0, n1);
  egraph::Id sq = slice_along(c, merged, d.result, n1, n1 + n2);
  if (sp == egraph::kNoId || sq == egraph::kNoId) return egraph::kNoId;
  c.unite(m.q, sq);
  return c.if_fits_root(sp);
}

// Two products merged: `transposed` (argument) is their transpose_b, `activation` (argument,
// linears only) their activation. Declines when an argument is a literal of another kind.
// The output dims: the weights' columns (last dim) or, transposed, rows; the bias's and the
// result's last dim.
egraph::Id merge_products(ApplyContext& c, const Pair& m, OpKind kind, size_t transposed,
                          std::optional<size_t> activation) {
  const egraph::AttrValue& t = c.attr(transposed);
  if (t.kind() != egraph::AttrValue::Kind::kBool) return egraph::kNoId;
  Attrs attrs;
  attrs.set("transpose_b", t.as_bool());
  if (activation) {
    const egraph::AttrValue& a = c.attr(*activation);
    if (a.kind() != egraph::AttrValue::Kind::kString) return egraph::kNoId;
    attrs.set("activation", a.as_string());
  }
  int64_t w = shape_of(c, m.w1).rank(), r = shape_of(c, m.p).rank();
  int64_t b = m.b1 == egraph::kNoId ? 0 : shape_of(c, m.b1).rank();
  return merge(c, m, kind, attrs, Dims{t.as_bool() ? w - 2 : w - 1, b - 1, r - 1});
}

} // namespace

egraph::Id merge_matmuls(ApplyContext& c) {
  Pair m{c.cls(0), c.cls(1), c.cls(2), c.cls(3), c.cls(4)};
  return merge_products(c, m, OpKind::Matmul, 5, std::nullopt);
}

egraph::Id merge_linears(ApplyContext& c) {
  Pair m{c.cls(0), c.cls(1), c.cls(2), c.cls(3), c.cls(5), c.cls(4), c.cls(6)};
  return merge_products(c, m, OpKind::Linear, 7, 8);
}

egraph::Id merge_linears_no_bias(ApplyContext& c) {
  Pair m{c.cls(0), c.cls(1), c.cls(2), c.cls(3), c.cls(4)};
  return merge_products(c, m, OpKind::Linear, 5, 6);
}

namespace {

// The conv2d e-node of class ?p over the matched operands, whose attributes the merged conv
// takes; nullopt when there is none.
std::optional<Attrs> conv_attrs(const ApplyContext& c, const Pair& m) {
  static const egraph::Symbol conv = op_symbol(OpKind::Conv2d);
  const egraph::EGraph& eg = c.egraph();
  std::vector<egraph::Id> want = {eg.find(m.x), eg.find(m.w1)};
  if (m.b1 != egraph::kNoId) want.push_back(eg.find(m.b1));
  for (egraph::NodeId n : eg.nodes_with_op(eg.find(m.p), conv)) {
    const egraph::ENode node = eg.node(n);
    std::vector<egraph::Id> children;
    for (egraph::Id ch : node.children) children.push_back(eg.find(ch));
    if (children == want) return c.analysis().attrs_of(eg, node);
  }
  return std::nullopt;
}

egraph::Id merge_conv(ApplyContext& c, const Pair& m) {
  std::optional<Attrs> attrs = conv_attrs(c, m);
  if (!attrs || attrs->get_or<int64_t>("groups", 1) != 1) return egraph::kNoId;
  Dims d{0, 0, attrs->get_or<int64_t>("channel_dim", 1)};
  if (m.b1 != egraph::kNoId) {
    // A bias holds the channels at the one dim where both have their weight's extent (a [C]
    // bias, tt-mlir's 1x1x1xC, or C at the channel dim); the last such dim.
    const Shape &b1 = shape_of(c, m.b1), &b2 = shape_of(c, m.b2);
    int64_t n1 = shape_of(c, m.w1)[0], n2 = shape_of(c, m.w2)[0];
    d.bias = -1;
    for (int64_t i = 0; i < std::min(b1.rank(), b2.rank()); ++i) {
      if (b1[i] == n1 && b2[i] == n2) d.bias = i;
    }
  }
  return merge(c, m, OpKind::Conv2d, *attrs, d);
}

} // namespace

egraph::Id merge_convs(ApplyContext& c) {
  return merge_conv(c, Pair{c.cls(0), c.cls(1), c.cls(2), c.cls(3), c.cls(4)});
}

egraph::Id merge_convs_bias(ApplyContext& c) {
  return merge_conv(c, Pair{c.cls(0), c.cls(1), c.cls(2), c.cls(3), c.cls(5), c.cls(4), c.cls(6)});
}

egraph::Id compose_slices(ApplyContext& c) {
  std::optional<std::vector<int64_t>> b0 = c.int_list(1), e0 = c.int_list(2), b1 = c.int_list(3),
                                      e1 = c.int_list(4);
  const Shape& s = shape_of(c, c.cls(0));
  auto n = static_cast<size_t>(s.rank());
  if (!b0 || !e0 || !b1 || !e1 || b0->size() != n || e0->size() != n || b1->size() != n ||
      e1->size() != n) {
    return egraph::kNoId;
  }
  // An index as the slice reads it: negative counts from the end, then clamped to [0, extent].
  auto at = [](int64_t i, int64_t extent) {
    return std::clamp<int64_t>(i < 0 ? i + extent : i, 0, extent);
  };
  std::vector<int64_t> begins(n), ends(n);
  for (size_t d = 0; d < n; ++d) {
    int64_t lo = at((*b0)[d], s[static_cast<int64_t>(d)]);
    int64_t inner = std::max<int64_t>(0, at((*e0)[d], s[static_cast<int64_t>(d)]) - lo);
    int64_t b = at((*b1)[d], inner), e = std::max(b, at((*e1)[d], inner));
    begins[d] = lo + b;
    ends[d] = lo + e;
  }
  Attrs a;
  a.set("begins", begins);
  a.set("ends", ends);
  egraph::Id xs[] = {c.cls(0)};
  std::optional<TensorType> t = c.type_of(OpKind::Slice, xs, a);
  if (!t || !t->same_value_type(c.root().type)) return egraph::kNoId;
  return c.add(OpKind::Slice, xs, a);
}

} // namespace tilesat::rewrites::appliers
