// compute_dtype.cpp: a graph rebuilt to compute in another float dtype.
#include "tilesat/graph/compute_dtype.h"

#include "tilesat/graph/diagnostic.h"

#include <fmt/format.h>

namespace tilesat {

Graph compute_in(const Graph& g, DType dtype) {
  if (dtype == DType::F32) return g;
  if (dtype != DType::BF16 && dtype != DType::BFP8_B)
    throw Error(fmt::format("expected a float dtype to compute in (bf16 or bfp8_b), got {}",
                            dtype_name(dtype)));
  Graph out(g.name());
  std::vector<NodeId> map(g.num_nodes(), 0);
  auto convert = [&](NodeId v, DType to) {
    Attrs a;
    a.set("dtype", to);
    return out.add_op(OpKind::Typecast, {v}, a, out.node(v).loc);
  };
  for (NodeId a : g.arguments()) {
    const Node& node = g.node(a);
    NodeId id = out.add_argument(node.name, node.type, node.role, node.loc);
    map[a] = node.type.dtype == DType::F32 ? convert(id, dtype) : id;
  }
  for (NodeId n : g.topological_order()) {
    const Node& node = g.node(n);
    if (node.kind == OpKind::Argument) continue;
    std::vector<NodeId> operands;
    for (NodeId o : node.operands) operands.push_back(map[o]);
    // Ops that state their f32 result (constants, fills, typecasts) state `dtype` instead, so
    // rewrite patterns still see a constant where the source has one.
    Attrs attrs = node.attrs;
    bool states_dtype =
        node.kind == OpKind::Constant || node.kind == OpKind::Full || node.kind == OpKind::Typecast;
    if (states_dtype && node.type.dtype == DType::F32) attrs.set("dtype", dtype);
    NodeId id = out.add_op(node.kind, std::move(operands), attrs, node.loc);
    out.mutable_node(id).name = node.name;
    map[n] = out.node(id).type.dtype == DType::F32 ? convert(id, dtype) : id;
  }
  for (const GraphResult& r : g.results()) {
    NodeId v = map[r.value];
    out.add_result(g.node(r.value).type.dtype == DType::F32 ? convert(v, DType::F32) : v, r.name);
  }
  return out;
}

} // namespace tilesat
