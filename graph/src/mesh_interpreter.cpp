// mesh_interpreter.cpp: interpret_mesh, the per-chip graph evaluated on every chip of a mesh in
// lock-step, the multi-chip ops combining the chips' values through spmd.h.
#include "tilesat/graph/mesh_interpreter.h"

#include "eval_node.h"
#include "ops/op_impl.h"

#include <fmt/format.h>
#include <optional>

namespace tilesat {

namespace {

using ChipValues = std::vector<std::optional<Tensor>>; // one per node

class MeshRun {
public:
  MeshRun(const Graph& g, MeshShape mesh)
      : g_(g), mesh_(mesh), chips_(mesh[0] * mesh[1]),
        values_(static_cast<size_t>(chips_), ChipValues(g.num_nodes())) {}

  const Tensor& value(int64_t chip, NodeId id) const {
    return *values_[static_cast<size_t>(chip)][id];
  }
  void set(int64_t chip, NodeId id, Tensor t) {
    values_[static_cast<size_t>(chip)][id] = std::move(t);
  }
  int64_t chips() const { return chips_; }

  // Node `id` on every chip.
  void step(NodeId id) {
    const Node& n = g_.node(id);
    if (!op_info(n.kind).has_trait(OpTrait::MultiChip)) {
      for (int64_t c = 0; c < chips_; ++c) {
        std::vector<const Tensor*> operands;
        for (NodeId op : n.operands) operands.push_back(&value(c, op));
        set(c, id, detail::eval_node(n, operands));
      }
      return;
    }
    try {
      multi_chip(n, id);
    } catch (const Error& e) {
      throw Error(n.loc, fmt::format("'ttir.{}' {}: {}", op_name(n.kind), value_name(g_, id),
                                     e.diagnostic().message));
    }
  }

private:
  void multi_chip(const Node& n, NodeId id) {
    Attrs attrs = complete_attrs(n.kind, n.attrs);
    NodeId x = n.operands[0];
    if (n.kind == OpKind::MeshShard) {
      MeshShardSpec spec = mesh_shard_spec(attrs, n.type.shape.rank());
      check_shard_fits(spec, mesh_);
      if (spec.direction == ShardDirection::FullToShard) {
        for (int64_t c = 0; c < chips_; ++c) set(c, id, take_shard(value(c, x), spec, mesh_, c));
        return;
      }
      std::vector<const Tensor*> shards;
      for (int64_t c = 0; c < chips_; ++c) shards.push_back(&value(c, x));
      Tensor full = assemble_shards(shards, spec, mesh_);
      for (int64_t c = 0; c < chips_; ++c) set(c, id, full);
      return;
    }
    int64_t axis = attrs.get<int64_t>("cluster_axis");
    int64_t size = mesh_[static_cast<size_t>(axis)];
    if (const auto* k = std::get_if<int64_t>(attrs.find("cluster_size")); k && *k != size) {
      ops::fail(fmt::format("expected cluster_size {} (the chips along mesh axis {} of a {} "
                            "mesh), got {}",
                            size, axis, mesh_shape_str(mesh_), *k));
    }
    std::vector<Tensor> out;
    for (int64_t c = 0; c < chips_; ++c) {
      std::vector<const Tensor*> group;
      for (int64_t member : cluster_group(mesh_, c, axis)) group.push_back(&value(member, x));
      if (n.kind == OpKind::AllGather) {
        int64_t dim = ops::axis_or_fail(attrs.get<int64_t>("all_gather_dim"), n.type.shape.rank(),
                                        "all_gather_dim");
        out.push_back(gather_group(group, dim));
      } else if (n.kind == OpKind::AllReduce) {
        out.push_back(reduce_group(group));
      } else {
        int64_t dim = ops::axis_or_fail(attrs.get<int64_t>("scatter_dim"), n.type.shape.rank(),
                                        "scatter_dim");
        out.push_back(scatter_piece(reduce_group(group), dim, mesh_coord(mesh_, c, axis), size));
      }
    }
    for (int64_t c = 0; c < chips_; ++c) set(c, id, std::move(out[static_cast<size_t>(c)]));
  }

  const Graph& g_;
  MeshShape mesh_;
  int64_t chips_;
  std::vector<ChipValues> values_;
};

} // namespace

std::vector<Tensor> interpret_mesh(const Graph& g, std::span<const Tensor> arguments,
                                   MeshShape mesh) {
  if (mesh[0] < 1 || mesh[1] < 1) {
    throw Error(fmt::format("expected a mesh of at least 1x1 chips, got {}", mesh_shape_str(mesh)));
  }
  std::vector<Tensor> checked = detail::checked_arguments(g, arguments);
  MeshRun run(g, mesh);
  for (int64_t c = 0; c < run.chips(); ++c) {
    for (size_t i = 0; i < checked.size(); ++i) run.set(c, g.arguments()[i], checked[i]);
  }
  for (NodeId id : g.topological_order()) {
    if (g.node(id).kind != OpKind::Argument) run.step(id);
  }
  std::vector<Tensor> results;
  for (size_t i = 0; i < g.results().size(); ++i) {
    NodeId id = g.results()[i].value;
    for (int64_t c = 1; c < run.chips(); ++c) {
      if (run.value(c, id).data() != run.value(0, id).data()) {
        throw Error(fmt::format("result {} ({}) differs between chip 0 and chip {} of the {} "
                                "mesh: a per-chip graph's result must come out of a "
                                "shard_to_full mesh_shard or be equal on every chip",
                                i, value_name(g, id), c, mesh_shape_str(mesh)));
      }
    }
    results.push_back(run.value(0, id));
  }
  return results;
}

} // namespace tilesat
