// unit_dims.cpp: a batched matmul or linear by a 2-D weight as one 2-D product over the
// batch folded into rows. torch's export of sequence-first transformer layers gives linears a
// `128x1x768` operand: as 128 products of one row each, every row pads to a 32-row tile (32x
// the work and L1); folded, it is one 128x768 by 768xN product.
#include "applier_impl.h"
#include "tilesat/rewrites/payload.h"

#include <numeric>

namespace tilesat::rewrites::appliers {

egraph::Id fold_batch_rows(ApplyContext& c) {
  egraph::NodeId root = c.root_node();
  if (root == egraph::kNoId) return egraph::kNoId;
  // Copies: adding e-nodes below may move the e-graph's node and attribute tables.
  const egraph::ENode node = c.egraph().node(root);
  std::optional<OpKind> kind = op_of(node.op);
  if (!kind || (*kind != OpKind::Matmul && *kind != OpKind::Linear)) return egraph::kNoId;
  const Attrs attrs = c.analysis().attrs_of(c.egraph(), node);
  egraph::Id a = c.cls(0), b = c.cls(1);
  const Shape as = c.analysis()[a].type.shape;
  const Shape bs = c.analysis()[b].type.shape;
  // Only a with batch dims, read as stored, by a 2-D b shared by every batch.
  if (as.rank() < 3 || bs.rank() != 2 || attrs.get_or<bool>("transpose_a", false))
    return egraph::kNoId;
  int64_t k = as[as.rank() - 1];
  int64_t rows = as.numel() / std::max<int64_t>(k, 1);
  // Only where the batched form pads: each batch's rows short of a whole 32-row tile. With
  // whole tiles per batch the two forms compute the same tiles and the rule adds nothing.
  if (k == 0 || as[as.rank() - 2] % 32 == 0) return egraph::kNoId;
  // A bias that varies along the last dim only broadcasts to the 2-D product as it did to the
  // batched one (checked before anything is added).
  std::optional<Shape> bias_shape;
  if (node.children.size() > 2) {
    bias_shape = c.analysis()[node.children[2]].type.shape;
    for (int64_t d = 0; d + 1 < bias_shape->rank(); ++d)
      if ((*bias_shape)[d] != 1) return egraph::kNoId;
  }
  std::vector<egraph::Id> operands;
  Attrs to2d;
  to2d.set("shape", std::vector<int64_t>{rows, k});
  egraph::Id a2[] = {a};
  operands.push_back(c.add(OpKind::Reshape, a2, to2d));
  operands.push_back(b);
  if (bias_shape) {
    egraph::Id bias = node.children[2];
    const Shape& cs = *bias_shape;
    if (cs.rank() > 2) {
      Attrs flat;
      flat.set("shape", std::vector<int64_t>{cs.rank() == 0 ? 1 : cs[cs.rank() - 1]});
      egraph::Id bs1[] = {bias};
      bias = c.add(OpKind::Reshape, bs1, flat);
    }
    operands.push_back(bias);
  }
  for (egraph::Id id : operands)
    if (id == egraph::kNoId) return egraph::kNoId;
  egraph::Id product = c.add(*kind, operands, attrs);
  if (product == egraph::kNoId) return egraph::kNoId;
  Attrs back;
  back.set("shape", c.root().type.shape.dims());
  egraph::Id p[] = {product};
  return c.if_fits_root(c.add(OpKind::Reshape, p, back));
}

} // namespace tilesat::rewrites::appliers

namespace tilesat::rewrites::appliers {

std::optional<std::vector<int64_t>> swap_permutation(int64_t d0, int64_t d1, int64_t rank) {
  std::optional<int64_t> a = normalize_axis(d0, rank), b = normalize_axis(d1, rank);
  if (!a || !b) return std::nullopt;
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[static_cast<size_t>(*a)], perm[static_cast<size_t>(*b)]);
  return perm;
}

egraph::Id unit_dims_reshape(ApplyContext& c) {
  // A permute (or transpose) that moves only unit dims keeps every element's row-major
  // position: the dims of extent > 1 stay in their order. It is then a reshape to its result
  // shape, which costs nothing to the layout (and meets other reshapes to cancel).
  egraph::NodeId root = c.root_node();
  if (root == egraph::kNoId) return egraph::kNoId;
  const egraph::ENode node = c.egraph().node(root);
  std::optional<OpKind> kind = op_of(node.op);
  if (!kind || (*kind != OpKind::Permute && *kind != OpKind::Transpose)) return egraph::kNoId;
  const Attrs attrs = c.analysis().attrs_of(c.egraph(), node);
  egraph::Id x = c.cls(0);
  const Shape xs = c.analysis()[x].type.shape;
  auto rank = static_cast<size_t>(xs.rank());
  std::vector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  if (*kind == OpKind::Permute) {
    std::optional<std::vector<int64_t>> p = c.int_list(1);
    if (!p || p->size() != rank) return egraph::kNoId;
    perm = *p;
  } else {
    std::optional<std::vector<int64_t>> p =
        swap_permutation(attrs.get_or<int64_t>("dim0", 0), attrs.get_or<int64_t>("dim1", 1),
                         static_cast<int64_t>(rank));
    if (!p) return egraph::kNoId;
    perm = std::move(*p);
  }
  std::vector<int64_t> out;
  int64_t last = -1;
  bool moves_data = false, moves_any = false;
  for (size_t i = 0; i < rank; ++i) {
    int64_t p = perm[i];
    if (p < 0 || p >= static_cast<int64_t>(rank)) return egraph::kNoId;
    moves_any = moves_any || p != static_cast<int64_t>(i);
    out.push_back(xs[p]);
    if (xs[p] == 1) continue;
    moves_data = moves_data || p < last;
    last = p;
  }
  if (moves_data || !moves_any) return egraph::kNoId;
  Attrs a;
  a.set("shape", out);
  egraph::Id in[] = {x};
  return c.if_fits_root(c.add(OpKind::Reshape, in, a));
}

} // namespace tilesat::rewrites::appliers
