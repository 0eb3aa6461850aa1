// mesh_emit.cpp: a partition's per-chip SPMD graph with mesh_shard and collective ops.
#include "tilesat/cost/mesh_emit.h"

#include "tilesat/cost/mesh_dims.h"
#include "tilesat/graph/diagnostic.h"

#include <fmt/format.h>
#include <map>
#include <utility>

namespace tilesat::cost {

namespace {

using DK = Distribution::Kind;

class Emitter {
public:
  Emitter(const Graph& g, const MeshPartition& p) : g_(g), p_(p) { out_.graph.set_name(g.name()); }

  MeshGraph run() {
    for (NodeId v : g_.topological_order()) {
      emit_value(v);
      for (size_t i = 0; i < p_.conversions.size(); ++i)
        if (p_.conversions[i].value == v) emit_conversion(static_cast<int>(i));
    }
    for (size_t i = 0; i < g_.results().size(); ++i) {
      const GraphResult& r = g_.results()[i];
      const Distribution& d = p_.result_dist[i];
      NodeId local = at(r.value, d);
      NodeId full =
          add(OpKind::MeshShard, {local},
              mesh_shard_attrs(d, p_.groups, g_.node(r.value).type.shape.rank(), false), "host");
      out_.graph.add_result(full, r.name);
    }
    return std::move(out_);
  }

private:
  NodeId add(OpKind kind, std::vector<NodeId> operands, Attrs attrs, std::string dist,
             int conversion = -1) {
    NodeId n = out_.graph.add_op(kind, std::move(operands), std::move(attrs));
    record(n, std::move(dist), conversion);
    return n;
  }

  void record(NodeId n, std::string dist, int conversion) {
    out_.distribution.resize(out_.graph.num_nodes());
    out_.conversion.resize(out_.graph.num_nodes(), -1);
    out_.distribution[n] = std::move(dist);
    out_.conversion[n] = conversion;
  }

  NodeId at(NodeId v, const Distribution& d) const {
    auto it = local_.find({v, key(d)});
    if (it == local_.end())
      throw InternalError(fmt::format("mesh emit: {} is not available as {}", value_name(g_, v),
                                      distribution_str(d, p_.groups)));
    return it->second;
  }

  static std::tuple<int, int64_t, int> key(const Distribution& d) {
    return {static_cast<int>(d.kind), d.dim, d.group};
  }

  void emit_value(NodeId v) {
    const Node& n = g_.node(v);
    const Distribution& d = p_.dist[v];
    std::string dist = distribution_str(d, p_.groups);
    if (n.kind == OpKind::Argument) {
      NodeId a = out_.graph.add_argument(n.name, n.type, n.role, n.loc);
      record(a, "host", -1);
      host_[v] = a;
      // Every chip sees a graph argument whole: a replicated one needs no mesh_shard (and is
      // planned as on one chip: a conv2d weight read as stored, const-eval work once).
      if (d.kind == DK::Replicated) {
        out_.distribution[a] = dist;
        local_[{v, key(d)}] = a;
        return;
      }
      local_[{v, key(d)}] = add(OpKind::MeshShard, {a},
                                mesh_shard_attrs(d, p_.groups, n.type.shape.rank(), true), dist);
      return;
    }
    std::vector<NodeId> operands;
    for (size_t i = 0; i < n.operands.size(); ++i)
      operands.push_back(at(n.operands[i], p_.operand_dist[v][i]));
    TensorType local = local_type(n.type, d, p_.groups);
    Attrs attrs = local_attrs(g_, v, local, d.kind == DK::Sharded ? d.dim : -1);
    try {
      NodeId c = out_.graph.add_op(n.kind, std::move(operands), std::move(attrs), n.loc);
      out_.graph.mutable_node(c).name = n.name;
      record(c, dist, -1);
      local_[{v, key(d)}] = c;
    } catch (const Error& e) {
      std::string from;
      for (size_t i = 0; i < n.operands.size(); ++i)
        from += fmt::format("{}{} {} as {}", i ? ", " : "", value_name(g_, n.operands[i]),
                            g_.node(n.operands[i]).type.shape.str(),
                            distribution_str(p_.operand_dist[v][i], p_.groups));
      throw InternalError(fmt::format("mesh partition: {} ({} of {}) as {}: {}", value_name(g_, v),
                                      op_name(n.kind), from, dist, e.diagnostic().message));
    }
  }

  void emit_conversion(int i) {
    const MeshConversion& c = p_.conversions[static_cast<size_t>(i)];
    const Node& n = g_.node(c.value);
    std::string dist = distribution_str(c.to, p_.groups);
    if (c.host && c.to.kind == DK::Replicated) {
      local_[{c.value, key(c.to)}] = host_.at(c.value);
      return;
    }
    if (c.host) {
      // The host hands the argument over once more, split another way.
      local_[{c.value, key(c.to)}] =
          add(OpKind::MeshShard, {host_.at(c.value)},
              mesh_shard_attrs(c.to, p_.groups, n.type.shape.rank(), true), dist, i);
      return;
    }
    const Distribution& grouped = c.from.kind == DK::Replicated ? c.to : c.from;
    const MeshGroup& g = p_.groups[static_cast<size_t>(grouped.group)];
    NodeId from = at(c.value, c.from);
    if (c.scaled) {
      // Each chip's replicated copy times 1/chips: the reduce_scatter's sum is the value.
      Attrs f;
      f.set("shape", std::vector<int64_t>{1});
      f.set("fill_value", 1.0 / static_cast<double>(g.chips));
      f.set("dtype", n.type.dtype);
      NodeId scale = add(OpKind::Full, {}, std::move(f), "replicated");
      from = add(OpKind::Multiply, {from, scale}, {}, "replicated");
    }
    Attrs a;
    a.set("cluster_axis", int64_t{g.axis});
    OpKind kind = OpKind::AllReduce;
    if (c.op == Collective::AllGather) {
      kind = OpKind::AllGather;
      a.set("all_gather_dim", c.from.dim);
      a.set("cluster_size", g.chips);
    } else if (c.op == Collective::ReduceScatter) {
      kind = OpKind::ReduceScatter;
      a.set("scatter_dim", c.to.dim);
      a.set("cluster_size", g.chips);
    }
    if (kind != OpKind::AllGather) a.set("reduce_type", std::string("sum"));
    local_[{c.value, key(c.to)}] = add(kind, {from}, std::move(a), dist, i);
  }

  const Graph& g_;
  const MeshPartition& p_;
  MeshGraph out_;
  std::map<std::pair<NodeId, std::tuple<int, int64_t, int>>, NodeId> local_;
  std::map<NodeId, NodeId> host_;
};

} // namespace

MeshGraph per_chip_graph(const Graph& g, const MeshPartition& p) {
  return Emitter(g, p).run();
}

} // namespace tilesat::cost
