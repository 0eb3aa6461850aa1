// split.cpp: computed right sides of the splitting rules: an op as two halves of its work
// (slices of its operands computed apart and concatenated, or partial products added), so the
// e-graph holds the split forms beside the whole op and the cost model picks how many pieces.
// Halves are whole 32-row or 32-column tiles where the extent is; a half may split again.
#include "applier_impl.h"
#include "tilesat/rewrites/payload.h"

namespace tilesat::rewrites::appliers {

// Slice `x` to [begin, end) along `dim`.
egraph::Id slice_along(ApplyContext& c, egraph::Id x, int64_t dim, int64_t begin, int64_t end) {
  const Shape s = c.analysis()[x].type.shape;
  std::vector<int64_t> b(static_cast<size_t>(s.rank()), 0), e = s.dims();
  b[static_cast<size_t>(dim)] = begin;
  e[static_cast<size_t>(dim)] = end;
  Attrs a;
  a.set("begins", b);
  a.set("ends", e);
  egraph::Id xs[] = {x};
  return c.add(OpKind::Slice, xs, a);
}

// Reshape `x` to `shape`.
egraph::Id add_reshape(ApplyContext& c, egraph::Id x, const std::vector<int64_t>& shape) {
  Attrs a;
  a.set("shape", shape);
  egraph::Id kids[] = {x};
  return x == egraph::kNoId ? egraph::kNoId : c.add(OpKind::Reshape, kids, a);
}

namespace {

constexpr int64_t kTile = 32;

egraph::Id concat2(ApplyContext& c, egraph::Id a, egraph::Id b, int64_t dim) {
  if (a == egraph::kNoId || b == egraph::kNoId) return egraph::kNoId;
  Attrs at;
  at.set("dim", dim);
  egraph::Id xs[] = {a, b};
  return c.add(OpKind::Concat, xs, at);
}

// The extent's split point: half of it in whole tiles when it is whole tiles, else half of it
// (0: an extent of 1 does not split).
int64_t half_in_tiles(int64_t extent) {
  if (extent % kTile == 0 && extent >= 2 * kTile) return (extent / kTile / 2) * kTile;
  return extent / 2;
}

struct Matched {
  OpKind kind;
  Attrs attrs;
  std::vector<egraph::Id> children;
};

std::optional<Matched> matched(ApplyContext& c) {
  egraph::NodeId root = c.root_node();
  if (root == egraph::kNoId) return std::nullopt;
  // Copies: adding e-nodes below may move the e-graph's node and attribute tables.
  const egraph::ENode node = c.egraph().node(root);
  std::optional<OpKind> kind = op_of(node.op);
  if (!kind) return std::nullopt;
  Matched m{*kind, c.analysis().attrs_of(c.egraph(), node), {}};
  for (egraph::Id ch : node.children) m.children.push_back(c.egraph().find(ch));
  return m;
}

} // namespace

egraph::Id split_rows(ApplyContext& c) {
  // Rows: the second-to-last dim of operand 0 and of the result (a matmul's M, an elementwise
  // op's or a row-wise normalization's rows); the other operands are read whole.
  std::optional<Matched> m = matched(c);
  if (!m || m->children.empty()) return egraph::kNoId;
  const Shape out = c.root().type.shape;
  const Shape in = c.analysis()[m->children[0]].type.shape;
  if (out.rank() < 2 || in.rank() != out.rank() || in[in.rank() - 2] != out[out.rank() - 2])
    return egraph::kNoId;
  if (m->attrs.get_or<bool>("transpose_a", false)) return egraph::kNoId;
  // Ops that mix rows: softmax or reductions over the rows dim, normalizations over it.
  int64_t rows_dim = out.rank() - 2;
  if (m->kind == OpKind::Softmax) {
    int64_t d = m->attrs.get_or<int64_t>("dimension", -1);
    if (d < 0) d += out.rank();
    if (d == rows_dim) return egraph::kNoId;
  } else if (m->kind == OpKind::LayerNorm || m->kind == OpKind::RmsNorm) {
    // The norms normalize their trailing dims from `axis` on.
    int64_t axis = m->attrs.get_or<int64_t>("axis", -1);
    if (axis < 0) axis += out.rank();
    if (axis <= rows_dim) return egraph::kNoId;
  }
  // Other operands must not vary along the rows (a matmul's 2-D weight, a bias, a scale).
  for (size_t i = 1; i < m->children.size(); ++i) {
    const Shape o = c.analysis()[m->children[i]].type.shape;
    bool batched_rows = o.rank() >= 2 && o.rank() == out.rank() && m->kind != OpKind::Matmul &&
                        m->kind != OpKind::Linear;
    if (batched_rows || (o.rank() > 2 && (m->kind == OpKind::Matmul || m->kind == OpKind::Linear)))
      return egraph::kNoId;
  }
  int64_t half = half_in_tiles(out[rows_dim]);
  if (half == 0) return egraph::kNoId;
  egraph::Id parts[2];
  for (int p = 0; p < 2; ++p) {
    std::vector<egraph::Id> kids = m->children;
    kids[0] =
        slice_along(c, m->children[0], rows_dim, p == 0 ? 0 : half, p == 0 ? half : out[rows_dim]);
    if (kids[0] == egraph::kNoId) return egraph::kNoId;
    parts[p] = c.add(m->kind, kids, m->attrs);
  }
  return c.if_fits_root(concat2(c, parts[0], parts[1], rows_dim));
}

egraph::Id split_cols(ApplyContext& c) {
  // Columns of a matmul or linear (N): halves of the weight's columns (and the bias).
  std::optional<Matched> m = matched(c);
  if (!m || (m->kind != OpKind::Matmul && m->kind != OpKind::Linear) || m->children.size() < 2)
    return egraph::kNoId;
  const Shape out = c.root().type.shape;
  const Shape w = c.analysis()[m->children[1]].type.shape;
  if (w.rank() != 2) return egraph::kNoId;
  bool tb = m->attrs.get_or<bool>("transpose_b", false);
  int64_t n = out[out.rank() - 1], half = half_in_tiles(n);
  if (half == 0) return egraph::kNoId;
  egraph::Id parts[2];
  for (int p = 0; p < 2; ++p) {
    int64_t b = p == 0 ? 0 : half, e = p == 0 ? half : n;
    std::vector<egraph::Id> kids = m->children;
    kids[1] = slice_along(c, m->children[1], tb ? 0 : 1, b, e);
    if (kids.size() > 2) {
      const Shape bias = c.analysis()[m->children[2]].type.shape;
      // A bias varying along the columns only (a [N] or [1, N] row) is halved with them.
      if (bias.numel() != n || bias[bias.rank() - 1] != n) return egraph::kNoId;
      kids[2] = slice_along(c, m->children[2], bias.rank() - 1, b, e);
    }
    if (std::find(kids.begin(), kids.end(), egraph::kNoId) != kids.end()) return egraph::kNoId;
    parts[p] = c.add(m->kind, kids, m->attrs);
  }
  return c.if_fits_root(concat2(c, parts[0], parts[1], out.rank() - 1));
}

egraph::Id split_inner(ApplyContext& c) {
  // The inner dim of a matmul (K): the sum of the products of its halves.
  std::optional<Matched> m = matched(c);
  if (!m || m->kind != OpKind::Matmul || m->children.size() != 2) return egraph::kNoId;
  if (m->attrs.get_or<bool>("transpose_a", false) ||
      !m->attrs.get_or<std::string>("activation", "").empty())
    return egraph::kNoId;
  const Shape a = c.analysis()[m->children[0]].type.shape;
  const Shape w = c.analysis()[m->children[1]].type.shape;
  if (w.rank() != 2) return egraph::kNoId;
  bool tb = m->attrs.get_or<bool>("transpose_b", false);
  int64_t k = a[a.rank() - 1], half = half_in_tiles(k);
  if (half == 0) return egraph::kNoId;
  egraph::Id parts[2];
  for (int p = 0; p < 2; ++p) {
    int64_t b = p == 0 ? 0 : half, e = p == 0 ? half : k;
    egraph::Id kids[] = {slice_along(c, m->children[0], a.rank() - 1, b, e),
                         slice_along(c, m->children[1], tb ? 1 : 0, b, e)};
    if (kids[0] == egraph::kNoId || kids[1] == egraph::kNoId) return egraph::kNoId;
    parts[p] = c.add(OpKind::Matmul, kids, m->attrs);
  }
  if (parts[0] == egraph::kNoId || parts[1] == egraph::kNoId) return egraph::kNoId;
  egraph::Id sum[] = {parts[0], parts[1]};
  return c.if_fits_root(c.add(OpKind::Add, sum, Attrs{}));
}

egraph::Id split_batch(ApplyContext& c) {
  // The batch of a conv2d (its batch dim attribute; NCHW's 0): halves of the images.
  std::optional<Matched> m = matched(c);
  if (!m || m->kind != OpKind::Conv2d || m->children.empty()) return egraph::kNoId;
  int64_t dim = m->attrs.get_or<int64_t>("batch_dim", 0);
  const Shape x = c.analysis()[m->children[0]].type.shape;
  if (dim < 0 || dim >= x.rank() || x[dim] < 2) return egraph::kNoId;
  int64_t half = x[dim] / 2;
  egraph::Id parts[2];
  for (int p = 0; p < 2; ++p) {
    std::vector<egraph::Id> kids = m->children;
    kids[0] = slice_along(c, m->children[0], dim, p == 0 ? 0 : half, p == 0 ? half : x[dim]);
    if (kids[0] == egraph::kNoId) return egraph::kNoId;
    parts[p] = c.add(m->kind, kids, m->attrs);
  }
  const Shape out = c.root().type.shape;
  int64_t out_dim = m->attrs.get_or<int64_t>("batch_dim", 0);
  if (out_dim >= out.rank()) return egraph::kNoId;
  return c.if_fits_root(concat2(c, parts[0], parts[1], out_dim));
}

} // namespace tilesat::rewrites::appliers
