// nchw_convs.cpp: conv2d in any 4-D layout as permute -> NCHW conv2d -> permute for the device
// (flattened NHWC convs stay as they are).
#include "tilesat/cost/nchw_convs.h"

#include "tilesat/graph/conv_attrs.h"

namespace tilesat::cost {

namespace {

// A 4-D conv not in NCHW (a flattened NHWC conv is the device's own form).
bool non_nchw_conv(const Node& n) {
  if (n.kind != OpKind::Conv2d) return false;
  Attrs a = complete_attrs(n.kind, n.attrs);
  return !conv_dims(a).is_nchw() && !flat_image(a).active();
}

} // namespace

Graph nchw_convs(const Graph& g) {
  bool any = false;
  for (NodeId id = 0; id < g.num_nodes(); ++id) any = any || non_nchw_conv(g.node(id));
  if (!any) return g;
  GraphCopy copy = copy_arguments(g);
  Graph& out = copy.graph;
  std::vector<NodeId>& map = copy.map;
  for (NodeId id : g.topological_order()) {
    const Node& n = g.node(id);
    if (n.kind == OpKind::Argument) continue;
    std::vector<NodeId> operands;
    for (NodeId o : n.operands) operands.push_back(map[o]);
    if (!non_nchw_conv(n)) {
      map[id] = copy_op(out, n, std::move(operands));
      continue;
    }
    // The input permuted to NCHW, the conv in NCHW, its result permuted back.
    std::array<int64_t, 4> order = conv_dims(complete_attrs(n.kind, n.attrs)).nchw_order();
    std::vector<int64_t> to_nchw(order.begin(), order.end()), back(4);
    for (size_t i = 0; i < 4; ++i) back[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
    Attrs in_perm;
    in_perm.set("permutation", to_nchw);
    operands[0] = out.add_op(OpKind::Permute, {operands[0]}, in_perm, n.loc);
    Attrs attrs = n.attrs;
    set_conv_dims(attrs, ConvDims{0, 2, 3, 1});
    NodeId conv = out.add_op(n.kind, std::move(operands), attrs, n.loc);
    Attrs out_perm;
    out_perm.set("permutation", back);
    map[id] = out.add_op(OpKind::Permute, {conv}, out_perm, n.loc);
    out.mutable_node(map[id]).name = n.name;
  }
  for (const GraphResult& r : g.results()) out.add_result(map[r.value], r.name);
  return std::move(copy.graph);
}

} // namespace tilesat::cost
