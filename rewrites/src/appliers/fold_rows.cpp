// fold_rows.cpp: ops that act on each row (last-dim vector) alone, applied before a reshape
// that keeps the last dim. A sequence-first export's [S, B, E] value pads B to a 32-row tile
// in every such op (B = 8: four times the tiles of [S * B, E]); folded, the op runs on the
// [S * B, E] rows and the reshape moves below it, where it meets the next one and collapses.
#include "applier_impl.h"
#include "tilesat/rewrites/payload.h"

#include <algorithm>

namespace tilesat::rewrites::appliers {
namespace {

/// Whether `reshaped` is `x` with its leading dims regrouped (the last dim kept), and the op
/// on `x` pads fewer tiles than on `reshaped`.
bool folds(const Shape& x, const Shape& reshaped) {
  if (x.rank() < 1 || reshaped.rank() < 1 || x.numel() != reshaped.numel()) return false;
  if (x[x.rank() - 1] != reshaped[reshaped.rank() - 1]) return false;
  return x.tile_count() < reshaped.tile_count();
}

/// `v`, an operand varying along the last dim only (every other dim 1), as an operand of the
/// same op on rank-`rank` rows: as it is when its rank is at most `rank`, else reshaped to its
/// last dim. kNoId when it varies along another dim.
egraph::Id per_column(ApplyContext& c, egraph::Id v, int64_t rank) {
  const Shape s = c.analysis()[v].type.shape;
  for (int64_t d = 0; d + 1 < s.rank(); ++d)
    if (s[d] != 1) return egraph::kNoId;
  if (s.rank() <= rank) return v;
  return add_reshape(c, v, {s[s.rank() - 1]});
}

/// The rank-`rank` form of the matched op's attributes, when they act on the last dim only.
std::optional<Attrs> last_dim_attrs(OpKind kind, Attrs attrs, const Shape& reshaped,
                                    const Shape& x) {
  const int64_t r = reshaped.rank(), xr = x.rank();
  auto is_last = [&](int64_t axis) { return normalize_axis(axis, r) == r - 1; };
  switch (kind) {
  case OpKind::Slice: {
    auto begins = attrs.get_or<std::vector<int64_t>>("begins", {});
    auto ends = attrs.get_or<std::vector<int64_t>>("ends", {});
    auto step = attrs.get_or<std::vector<int64_t>>("step", {});
    if (static_cast<int64_t>(begins.size()) != r || static_cast<int64_t>(ends.size()) != r ||
        (!step.empty() && static_cast<int64_t>(step.size()) != r))
      return std::nullopt;
    // Every dim but the last taken whole.
    for (int64_t d = 0; d + 1 < r; ++d) {
      auto sd = static_cast<size_t>(d);
      int64_t b = begins[sd] < 0 ? begins[sd] + reshaped[d] : begins[sd];
      int64_t e = ends[sd] < 0 ? ends[sd] + reshaped[d] : std::min(ends[sd], reshaped[d]);
      if (b != 0 || e != reshaped[d] || (!step.empty() && step[sd] != 1)) return std::nullopt;
    }
    std::vector<int64_t> nb(static_cast<size_t>(xr), 0), ne(x.dims().begin(), x.dims().end());
    nb.back() = begins.back();
    ne.back() = ends.back();
    attrs.set("begins", nb);
    attrs.set("ends", ne);
    if (!step.empty()) {
      std::vector<int64_t> ns(static_cast<size_t>(xr), 1);
      ns.back() = step.back();
      attrs.set("step", ns);
    }
    return attrs;
  }
  case OpKind::Softmax:
    if (!is_last(attrs.get_or<int64_t>("dimension", -1))) return std::nullopt;
    attrs.set("dimension", xr - 1);
    return attrs;
  case OpKind::LayerNorm:
  case OpKind::RmsNorm:
    if (!is_last(attrs.get_or<int64_t>("axis", -1))) return std::nullopt;
    attrs.set("axis", xr - 1);
    return attrs;
  case OpKind::Sum:
  case OpKind::Mean:
  case OpKind::Max: {
    auto dims = attrs.get_or<std::vector<int64_t>>("dim_arg", {});
    if (dims.size() != 1 || !is_last(dims[0])) return std::nullopt;
    attrs.set("dim_arg", std::vector<int64_t>{xr - 1});
    return attrs;
  }
  case OpKind::Typecast:
    return attrs;
  default:
    return std::nullopt;
  }
}

} // namespace

egraph::Id fold_rows(ApplyContext& c) {
  egraph::NodeId root = c.root_node();
  if (root == egraph::kNoId) return egraph::kNoId;
  // Copies: adding e-nodes below may move the e-graph's node and attribute tables.
  const egraph::ENode node = c.egraph().node(root);
  std::optional<OpKind> kind = op_of(node.op);
  if (!kind || node.children.empty()) return egraph::kNoId;
  egraph::Id x = c.cls(0);
  const Shape xs = c.analysis()[x].type.shape;
  const Shape reshaped = c.analysis()[node.children[0]].type.shape;
  if (!folds(xs, reshaped)) return egraph::kNoId;
  std::optional<Attrs> attrs =
      last_dim_attrs(*kind, c.analysis().attrs_of(c.egraph(), node), reshaped, xs);
  if (!attrs) return egraph::kNoId;
  // A norm's scale and bias vary along the normalized last dim only.
  std::vector<egraph::Id> operands = {x};
  for (size_t i = 1; i < node.children.size(); ++i) {
    egraph::Id v = per_column(c, node.children[i], xs.rank());
    if (v == egraph::kNoId) return egraph::kNoId;
    operands.push_back(v);
  }
  egraph::Id op = c.add(*kind, operands, *attrs);
  if (op == egraph::kNoId) return egraph::kNoId;
  return c.if_fits_root(add_reshape(c, op, c.root().type.shape.dims()));
}

egraph::Id fold_rows_binary(ApplyContext& c) {
  egraph::NodeId root = c.root_node();
  if (root == egraph::kNoId) return egraph::kNoId;
  const egraph::ENode node = c.egraph().node(root);
  std::optional<OpKind> kind = op_of(node.op);
  std::optional<int64_t> position = c.integer(2);
  if (!kind || node.children.size() != 2 || !position || (*position != 0 && *position != 1))
    return egraph::kNoId;
  egraph::Id x = c.cls(0), other = c.cls(1);
  const Shape xs = c.analysis()[x].type.shape;
  const Shape reshaped = c.analysis()[node.children[static_cast<size_t>(*position)]].type.shape;
  if (!folds(xs, reshaped)) return egraph::kNoId;
  // The other operand: a value of the reshaped shape is reshaped the same way (the residual
  // stream of a layer whose other branch was folded); else it must vary along the last dim
  // only.
  const Shape os = c.analysis()[other].type.shape;
  egraph::Id o = os == reshaped && reshaped == c.root().type.shape
                     ? add_reshape(c, other, xs.dims())
                     : per_column(c, other, xs.rank());
  if (o == egraph::kNoId) return egraph::kNoId;
  std::vector<egraph::Id> operands =
      *position == 0 ? std::vector<egraph::Id>{x, o} : std::vector<egraph::Id>{o, x};
  egraph::Id op = c.add(*kind, operands, c.analysis().attrs_of(c.egraph(), node));
  if (op == egraph::kNoId) return egraph::kNoId;
  return c.if_fits_root(add_reshape(c, op, c.root().type.shape.dims()));
}

} // namespace tilesat::rewrites::appliers
