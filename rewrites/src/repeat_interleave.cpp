// repeat_interleave.cpp: concat(slice_i(x) -> reshape -> broadcast -> reshape) as one broadcast.
#include "tilesat/rewrites/repeat_interleave.h"

#include "tilesat/graph/shape.h"

#include <optional>

namespace tilesat::rewrites {

namespace {

/// Where a concat is one repeat_interleave: the repeated tensor, its dim and the repeat count.
struct Repeat {
  NodeId x = 0;
  int64_t dim = 0;
  int64_t times = 1;
};

/// The two middle shapes of repeat_interleave(x, times) along `dim` for x of shape `x_dims`:
/// x with a unit dim inserted after `dim`, and that dim repeated `times`.
std::pair<std::vector<int64_t>, std::vector<int64_t>> repeat_shapes(std::vector<int64_t> x_dims,
                                                                    int64_t dim, int64_t times) {
  x_dims.insert(x_dims.begin() + dim + 1, 1);
  std::vector<int64_t> repeated = x_dims;
  repeated[static_cast<size_t>(dim + 1)] = times;
  return {std::move(x_dims), std::move(repeated)};
}

/// The element `slice` takes out of its operand along `dim` (extent 1 there, whole elsewhere,
/// unit steps), or nullopt.
std::optional<int64_t> unit_slice_index(const Graph& g, const Node& slice, int64_t dim) {
  if (slice.kind != OpKind::Slice) return std::nullopt;
  const Shape& in = g.node(slice.operands[0]).type.shape;
  const Shape& out = slice.type.shape;
  if (in.rank() != out.rank() || dim >= in.rank() || out[dim] != 1) return std::nullopt;
  for (int64_t j = 0; j < in.rank(); ++j)
    if (j != dim && in[j] != out[j]) return std::nullopt;
  std::vector<int64_t> steps =
      slice.attrs.get_or<std::vector<int64_t>>("step", std::vector<int64_t>{});
  for (int64_t s : steps)
    if (s != 1) return std::nullopt;
  std::vector<int64_t> begins =
      slice.attrs.get_or<std::vector<int64_t>>("begins", std::vector<int64_t>{});
  if (static_cast<int64_t>(begins.size()) != in.rank()) return std::nullopt;
  int64_t b = begins[static_cast<size_t>(dim)];
  if (b < 0) b += in[dim];
  if (b < 0 || b >= in[dim]) return std::nullopt;
  return b;
}

/// The chain below one concat operand: reshape(broadcast(reshape(slice(x)))) that inserts a
/// unit dim after `dim`, repeats it `times` and merges it into `dim`. Returns x and the index.
std::optional<std::pair<NodeId, int64_t>> repeated_piece(const Graph& g, NodeId piece, int64_t dim,
                                                         int64_t times) {
  const Node& merge = g.node(piece);
  if (merge.kind != OpKind::Reshape) return std::nullopt;
  const Node& bcast = g.node(merge.operands[0]);
  if (bcast.kind != OpKind::Broadcast ||
      !bcast.attrs.get_or<std::vector<int64_t>>("dims", std::vector<int64_t>{}).empty())
    return std::nullopt;
  const Node& insert = g.node(bcast.operands[0]);
  if (insert.kind != OpKind::Reshape) return std::nullopt;
  const Node& slice = g.node(insert.operands[0]);
  std::optional<int64_t> index = unit_slice_index(g, slice, dim);
  if (!index) return std::nullopt;
  // Shapes: slice S (S[dim] = 1), insert S with a 1 after dim, broadcast that with `times`
  // there, merge S with `times` at dim.
  auto [inserted, repeated] = repeat_shapes(slice.type.shape.dims(), dim, times);
  std::vector<int64_t> merged = slice.type.shape.dims();
  merged[static_cast<size_t>(dim)] = times;
  if (insert.type.shape.dims() != inserted || bcast.type.shape.dims() != repeated ||
      merge.type.shape.dims() != merged)
    return std::nullopt;
  return std::make_pair(slice.operands[0], *index);
}

std::optional<Repeat> match(const Graph& g, const Node& concat) {
  if (concat.kind != OpKind::Concat || concat.operands.size() < 2) return std::nullopt;
  std::optional<int64_t> dim =
      normalize_axis(concat.attrs.get_or<int64_t>("dim", 0), concat.type.shape.rank());
  if (!dim) return std::nullopt;
  int64_t pieces = static_cast<int64_t>(concat.operands.size());
  if (concat.type.shape[*dim] % pieces != 0) return std::nullopt;
  int64_t times = concat.type.shape[*dim] / pieces;
  std::optional<NodeId> x;
  for (int64_t i = 0; i < pieces; ++i) {
    auto p = repeated_piece(g, concat.operands[static_cast<size_t>(i)], *dim, times);
    if (!p || p->second != i || (x && *x != p->first)) return std::nullopt;
    x = p->first;
  }
  if (g.node(*x).type.shape[*dim] != pieces) return std::nullopt;
  return Repeat{*x, *dim, times};
}

} // namespace

Graph fold_repeat_interleave(const Graph& g) {
  std::vector<std::optional<Repeat>> repeat(g.num_nodes());
  bool any = false;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    repeat[id] = match(g, g.node(id));
    any = any || repeat[id].has_value();
  }
  if (!any) return g;

  // Live nodes: reachable from the results, reading a folded concat's x for its operands.
  std::vector<bool> live(g.num_nodes(), false);
  std::vector<NodeId> stack;
  for (const GraphResult& r : g.results()) stack.push_back(r.value);
  while (!stack.empty()) {
    NodeId n = stack.back();
    stack.pop_back();
    if (live[n]) continue;
    live[n] = true;
    if (repeat[n]) {
      stack.push_back(repeat[n]->x);
      continue;
    }
    for (NodeId o : g.node(n).operands) stack.push_back(o);
  }

  GraphCopy copy = copy_arguments(g);
  Graph& out = copy.graph;
  std::vector<NodeId>& map = copy.map;
  for (NodeId id : g.topological_order()) {
    const Node& n = g.node(id);
    if (n.kind == OpKind::Argument || !live[id]) continue;
    if (!repeat[id]) {
      std::vector<NodeId> operands;
      for (NodeId o : n.operands) operands.push_back(map[o]);
      map[id] = copy_op(out, n, std::move(operands));
      continue;
    }
    const Repeat& r = *repeat[id];
    auto [inserted, repeated] = repeat_shapes(g.node(r.x).type.shape.dims(), r.dim, r.times);
    Attrs to_inserted, to_repeated, to_merged;
    to_inserted.set("shape", inserted);
    to_repeated.set("shape", repeated);
    to_merged.set("shape", n.type.shape.dims());
    NodeId a = out.add_op(OpKind::Reshape, {map[r.x]}, to_inserted, n.loc);
    NodeId b = out.add_op(OpKind::Broadcast, {a}, to_repeated, n.loc);
    map[id] = out.add_op_typed(OpKind::Reshape, {b}, to_merged, n.type, n.loc);
    out.mutable_node(map[id]).name = n.name;
  }
  for (const GraphResult& r : g.results()) out.add_result(map[r.value], r.name);
  return std::move(copy.graph);
}

} // namespace tilesat::rewrites
