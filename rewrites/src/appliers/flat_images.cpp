// flat_images.cpp: convs and pools on ttnn's flattened NHWC activations. An NCHW tensor's
// tiles cover its H x W planes, so a 7x7 plane pads to a whole 32x32 tile (21x the data); as
// [1, 1, N*H*W, C] the pixels are rows and the channels columns, and only C pads.
#include "applier_impl.h"
#include "tilesat/graph/conv_attrs.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/rewrites/payload.h"

namespace tilesat::rewrites::appliers {
namespace {

using IntList = std::vector<int64_t>;

const IntList kToNhwc{0, 2, 3, 1}, kToNchw{0, 3, 1, 2};

egraph::Id add_permute(ApplyContext& c, egraph::Id x, const IntList& perm) {
  Attrs a;
  a.set("permutation", perm);
  egraph::Id kids[] = {x};
  return x == egraph::kNoId ? egraph::kNoId : c.add(OpKind::Permute, kids, a);
}

// NCHW `x` [N, C, H, W] as the flattened NHWC image [1, 1, N*H*W, C].
egraph::Id flatten_nchw(ApplyContext& c, egraph::Id x, const Shape& s) {
  return add_reshape(c, add_permute(c, x, kToNhwc), {1, 1, s[0] * s[2] * s[3], s[1]});
}

} // namespace

egraph::Id as_flat_image(ApplyContext& c) {
  egraph::NodeId root = c.root_node();
  if (root == egraph::kNoId) return egraph::kNoId;
  // Copies: adding e-nodes below may move the e-graph's node and attribute tables.
  const egraph::ENode node = c.egraph().node(root);
  std::optional<OpKind> kind = op_of(node.op);
  if (!kind ||
      (*kind != OpKind::Conv2d && *kind != OpKind::MaxPool2d && *kind != OpKind::AvgPool2d))
    return egraph::kNoId;
  Attrs attrs = c.analysis().attrs_of(c.egraph(), node);
  const Attrs complete = complete_attrs(*kind, attrs);
  const Shape xs = c.analysis()[node.children[0]].type.shape;
  const Shape& rs = c.root().type.shape;
  if (xs.rank() != 4 || rs.rank() != 4) return egraph::kNoId;
  try {
    if (flat_image(complete).active()) return egraph::kNoId;
    if (*kind == OpKind::Conv2d && !conv_dims(complete).is_nchw()) return egraph::kNoId;
  } catch (const Error&) {
    return egraph::kNoId; // invalid attributes: the op is invalid anyway
  }
  // The same op on the flattened image: NHWC dims (the op table's defaults) and its extents.
  for (const char* dim : {"batch_dim", "height_dim", "width_dim", "channel_dim"}) attrs.erase(dim);
  set_flat_image(attrs, FlatImage{xs[0], xs[2], xs[3]});
  std::vector<egraph::Id> kids(node.children.begin(), node.children.end());
  kids[0] = flatten_nchw(c, kids[0], xs);
  if (kids[0] == egraph::kNoId) return egraph::kNoId;
  egraph::Id flat = c.add(*kind, kids, attrs);
  // Back to NCHW [N, C', OH, OW].
  egraph::Id nhwc = add_reshape(c, flat, {rs[0], rs[2], rs[3], rs[1]});
  return c.if_fits_root(add_permute(c, nhwc, kToNchw));
}

egraph::Id mean_as_global_pool(ApplyContext& c) {
  // ?x ?dims: a mean of NCHW ?x over H and W (dims [2, 3] or [-2, -1]).
  egraph::Id x = c.cls(0);
  const Shape xs = c.analysis()[x].type.shape;
  const Shape rs = c.root().type.shape;
  std::optional<IntList> dims = c.int_list(1);
  if (xs.rank() != 4 || !dims || dims->size() != 2) return egraph::kNoId;
  std::optional<int64_t> d0 = normalize_axis((*dims)[0], 4), d1 = normalize_axis((*dims)[1], 4);
  if (!d0 || !d1 || std::min(*d0, *d1) != 2 || std::max(*d0, *d1) != 3) return egraph::kNoId;
  Attrs a;
  a.set("kernel_size", IntList{xs[2], xs[3]});
  set_flat_image(a, FlatImage{xs[0], xs[2], xs[3]});
  egraph::Id kids[] = {flatten_nchw(c, x, xs)};
  if (kids[0] == egraph::kNoId) return egraph::kNoId;
  // [1, 1, N, C] holds [N, C] (or [N, C, 1, 1]) in row-major order.
  egraph::Id pooled = c.add(OpKind::AvgPool2d, kids, a);
  return c.if_fits_root(add_reshape(c, pooled, rs.dims()));
}

} // namespace tilesat::rewrites::appliers
