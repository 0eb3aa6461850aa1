// mesh_dims.cpp: which operand dims an op's result dims come from, block by block.
#include "tilesat/cost/mesh_dims.h"

#include "tilesat/graph/conv_attrs.h"

#include <algorithm>

namespace tilesat::cost {

namespace {

using Kind = DimFlow::Kind;

DimFlow carried(int64_t dim) {
  return {Kind::Carried, dim};
}
DimFlow broadcast() {
  return {Kind::Broadcast, 0};
}
DimFlow mixed() {
  return {Kind::Mixed, 0};
}

// NumPy right alignment of an operand against the result (or `dims`: operand dim k maps to
// result dim dims[k]); an extent-1 or missing dim is broadcast.
DimFlow aligned(const Shape& operand, const Shape& result, int64_t d,
                const std::vector<int64_t>& dims = {}) {
  int64_t k = -1;
  if (!dims.empty()) {
    auto it = std::find(dims.begin(), dims.end(), d);
    if (it != dims.end()) k = it - dims.begin();
  } else {
    k = d - (result.rank() - operand.rank());
  }
  if (k < 0 || k >= operand.rank()) return broadcast();
  if (operand[k] == 1 && result[d] != 1) return broadcast();
  return carried(k);
}

std::vector<int64_t> int_list(const Attrs& a, std::string_view name) {
  return a.get_or<std::vector<int64_t>>(std::string(name), {});
}

DimFlow matmul_flow(const Graph& g, const Node& n, size_t i, int64_t d) {
  Attrs a = complete_attrs(n.kind, n.attrs);
  const Shape& r = n.type.shape;
  const Shape& s = g.node(n.operands[i]).type.shape;
  if (i == 2) return aligned(s, r, d); // a linear's bias
  if (s.rank() < 2 || r.rank() < 2) return mixed();
  bool ta = a.get<bool>("transpose_a"), tb = a.get<bool>("transpose_b");
  if (d == r.rank() - 2) return i == 0 ? carried(s.rank() - (ta ? 1 : 2)) : broadcast();
  if (d == r.rank() - 1) return i == 1 ? carried(s.rank() - (tb ? 2 : 1)) : broadcast();
  int64_t k = d - (r.rank() - s.rank());
  if (k < 0 || s[k] == 1) return broadcast();
  return carried(k);
}

DimFlow reduce_flow(const Node& n, const Shape& in, int64_t d) {
  Attrs a = complete_attrs(n.kind, n.attrs);
  std::vector<int64_t> reduced = int_list(a, "dim_arg");
  std::vector<bool> is_reduced(static_cast<size_t>(in.rank()), reduced.empty());
  for (int64_t r : reduced)
    if (auto k = normalize_axis(r, in.rank())) is_reduced[static_cast<size_t>(*k)] = true;
  if (a.get<bool>("keep_dim")) return is_reduced[static_cast<size_t>(d)] ? mixed() : carried(d);
  int64_t seen = 0;
  for (int64_t k = 0; k < in.rank(); ++k) {
    if (is_reduced[static_cast<size_t>(k)]) continue;
    if (seen++ == d) return carried(k);
  }
  return mixed();
}

// A reshape carries result dim d from the input dim before which the same number of elements
// lie (each chip's block is then one contiguous run per leading index on both sides).
DimFlow reshape_flow(const Shape& in, const Shape& out, int64_t d) {
  int64_t before = 1;
  for (int64_t j = 0; j < d; ++j) before *= out[j];
  int64_t p = 1;
  for (int64_t k = 0; k < in.rank(); ++k) {
    if (p == before && in[k] != 1) return carried(k);
    p *= in[k];
    if (p > before) break;
  }
  return mixed();
}

DimFlow conv_flow(const Graph& g, const Node& n, size_t i, int64_t d) {
  Attrs a = complete_attrs(n.kind, n.attrs);
  const Shape& s = g.node(n.operands[i]).type.shape;
  // A flattened NHWC image's pixels, image by image (local_attrs gives each chip its images;
  // a split inside an image fails the partition's local type check).
  if (d == 2 && flat_image(a).active()) return i == 0 ? carried(2) : broadcast();
  if (d == a.get<int64_t>("batch_dim")) return i == 0 ? carried(d) : broadcast();
  if (d != a.get<int64_t>("channel_dim") || a.get<int64_t>("groups") != 1) return mixed();
  if (i == 0) return broadcast();
  if (i == 1 || s.rank() == 1) return carried(0);
  return s[d] == n.type.shape[d] ? carried(d) : mixed();
}

} // namespace

DimFlow operand_dim_flow(const Graph& g, NodeId op, size_t operand, int64_t d) {
  const Node& n = g.node(op);
  if (operand >= n.operands.size() || d < 0 || d >= n.type.shape.rank()) return mixed();
  const Shape& r = n.type.shape;
  const Shape& s = g.node(n.operands[operand]).type.shape;
  const OpInfo& info = op_info(n.kind);
  if (info.has_trait(OpTrait::ElementwiseUnary) || info.has_trait(OpTrait::ElementwiseBinary) ||
      n.kind == OpKind::Where || n.kind == OpKind::FusedEltwise || n.kind == OpKind::Typecast) {
    std::vector<int64_t> dims;
    if (info.has_trait(OpTrait::ElementwiseBinary) && s.rank() < r.rank())
      dims = int_list(n.attrs, "broadcast_dims");
    return aligned(s, r, d, dims);
  }
  switch (n.kind) {
  case OpKind::Matmul:
  case OpKind::Linear:
    return matmul_flow(g, n, operand, d);
  case OpKind::Softmax: {
    auto k = normalize_axis(complete_attrs(n.kind, n.attrs).get<int64_t>("dimension"), r.rank());
    return k && *k == d ? mixed() : carried(d);
  }
  case OpKind::LayerNorm:
  case OpKind::RmsNorm: {
    auto k = normalize_axis(complete_attrs(n.kind, n.attrs).get<int64_t>("axis"), r.rank());
    if (!k || d >= *k) return mixed();
    return operand == 0 ? carried(d) : aligned(s, r, d);
  }
  case OpKind::Sum:
  case OpKind::Mean:
  case OpKind::Max:
    return reduce_flow(n, s, d);
  case OpKind::Transpose: {
    Attrs a = complete_attrs(n.kind, n.attrs);
    auto d0 = normalize_axis(a.get<int64_t>("dim0"), r.rank());
    auto d1 = normalize_axis(a.get<int64_t>("dim1"), r.rank());
    if (!d0 || !d1) return mixed();
    return carried(d == *d0 ? *d1 : d == *d1 ? *d0 : d);
  }
  case OpKind::Permute: {
    std::vector<int64_t> perm = int_list(n.attrs, "permutation");
    if (d >= static_cast<int64_t>(perm.size())) return mixed();
    auto k = normalize_axis(perm[static_cast<size_t>(d)], s.rank());
    return k ? carried(*k) : mixed();
  }
  case OpKind::Broadcast:
    return aligned(s, r, d, int_list(n.attrs, "dims"));
  case OpKind::Reshape:
    return reshape_flow(s, r, d);
  case OpKind::Concat: {
    auto k = normalize_axis(complete_attrs(n.kind, n.attrs).get<int64_t>("dim"), r.rank());
    return k && *k == d ? mixed() : carried(d);
  }
  case OpKind::Slice:
    // Carried along a dim the slice keeps whole.
    return s[d] == r[d] ? carried(d) : mixed();
  case OpKind::SplitHeads: {
    // [B, S, W] -> [B, H, S, D] ([B, H, D, S] transposed): batch and sequence carried; one
    // part's heads are not blocks of W when there are several parts.
    Attrs a = complete_attrs(n.kind, n.attrs);
    if (d == 0) return carried(0);
    if (d == (a.get<bool>("transpose") ? 3 : 2)) return carried(1);
    return d == 1 && a.get<int64_t>("parts") == 1 ? carried(2) : mixed();
  }
  case OpKind::Attention: {
    // Result [B, H, S, Dv]: batch from every operand; heads from the key and value only when
    // each query head has its own; query rows from the query (every key needed, and a causal
    // mask counts positions from the first row); Dv from the value.
    if (operand == 3) {
      Shape scores{r[0], r[1], r[2], g.node(n.operands[1]).type.shape[2]};
      return d == 3 ? mixed() : aligned(s, scores, d);
    }
    if (d == 0) return carried(0);
    if (d == 1) return operand == 0 || s[1] == r[1] ? carried(1) : mixed();
    if (d == 2)
      return operand != 0                                             ? broadcast()
             : complete_attrs(n.kind, n.attrs).get<bool>("is_causal") ? mixed()
                                                                      : carried(2);
    return operand == 2 ? carried(3) : mixed();
  }
  case OpKind::RotaryEmbedding:
    // Each element reads its partner half a row away along the last dim; cos and sin follow x.
    if (d == r.rank() - 1) return mixed();
    return operand == 0 ? carried(d) : aligned(s, r, d);
  case OpKind::ConcatenateHeads:
    // [B, H, S, D] -> [B, S, H * D]: blocks of heads are blocks of H * D.
    return d == 0 ? carried(0) : d == 1 ? carried(2) : carried(1);
  case OpKind::Conv2d:
    return conv_flow(g, n, operand, d);
  case OpKind::MaxPool2d:
  case OpKind::AvgPool2d:
    // NCHW: batch and channels; flattened NHWC: the pixels image by image, and channels.
    if (flat_image(complete_attrs(n.kind, n.attrs)).active()) return d >= 2 ? carried(d) : mixed();
    return d <= 1 ? carried(d) : mixed();
  default:
    return mixed();
  }
}

std::optional<int64_t> operand_dim_as_read(const Graph& g, NodeId op, size_t operand, int64_t dim) {
  const Node& n = g.node(op);
  if (operand >= n.operands.size()) return std::nullopt;
  int64_t rank = g.node(n.operands[operand]).type.shape.rank();
  std::optional<int64_t> k = normalize_axis(dim, rank);
  if (!k || (n.kind != OpKind::Matmul && n.kind != OpKind::Linear) || operand > 1 || rank < 2)
    return k;
  Attrs a = complete_attrs(n.kind, n.attrs);
  bool swapped = a.get<bool>(operand == 0 ? "transpose_a" : "transpose_b");
  if (swapped && *k >= rank - 2) return *k == rank - 1 ? rank - 2 : rank - 1;
  return k;
}

bool is_flat_image_op(const Node& n) {
  return (n.kind == OpKind::Conv2d || n.kind == OpKind::MaxPool2d || n.kind == OpKind::AvgPool2d) &&
         flat_image(complete_attrs(n.kind, n.attrs)).active();
}

Attrs local_attrs(const Graph& g, NodeId op, const TensorType& local, int64_t split_dim) {
  const Node& n = g.node(op);
  Attrs a = n.attrs;
  if (split_dim < 0) return a;
  if (n.kind == OpKind::Reshape || n.kind == OpKind::Broadcast || n.kind == OpKind::Full)
    a.set("shape", local.shape.dims());
  if (n.kind == OpKind::SplitHeads && split_dim == 1) a.set("num_heads", local.shape[1]);
  if (split_dim == 2 && is_flat_image_op(n)) {
    // Each chip's whole images: its pixels over the result's pixels per image.
    FlatImage f = flat_image(complete_attrs(n.kind, n.attrs));
    int64_t per_image = n.type.shape[2] / f.batch;
    if (per_image > 0 && local.shape[2] % per_image == 0) {
      f.batch = local.shape[2] / per_image;
      set_flat_image(a, f);
    }
  }
  if (n.kind == OpKind::Slice) {
    std::vector<int64_t> begins = int_list(a, "begins"), ends = int_list(a, "ends");
    auto d = static_cast<size_t>(split_dim);
    if (d < begins.size() && d < ends.size()) {
      begins[d] = 0;
      ends[d] = local.shape[split_dim];
      a.set("begins", begins);
      a.set("ends", ends);
    }
  }
  return a;
}

} // namespace tilesat::cost
