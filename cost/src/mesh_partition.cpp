// mesh_partition.cpp: the dynamic program over (value, distribution) for a mesh of chips.
#include "tilesat/cost/mesh_partition.h"

#include "tilesat/cost/mesh_dims.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/spmd.h"
#include "tilesat/rewrites/rule_file.h"
#include "tilesat/rewrites/rule_sets.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

namespace tilesat::cost {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using DK = Distribution::Kind;
using TK = rewrites::MeshTerm::Kind;

// The cheapest way found to compute one value in one distribution.
struct Choice {
  double cost = kInf;
  double op_us = 0;
  std::string rule;
  std::vector<Distribution> operands;
};

class Partitioner {
public:
  Partitioner(const Graph& g, const CostModel& model, const MeshChoice& rules)
      : g_(g), model_(model), rules_(rules), groups_(mesh_groups(model.device())) {}

  MeshPartition run() {
    MeshPartition out;
    out.mesh_shape = mesh_view(model_.device());
    out.groups = groups_;
    out.dist.assign(g_.num_nodes(), Distribution{});
    out.rule.assign(g_.num_nodes(), "");
    out.operand_dist.resize(g_.num_nodes());
    for (NodeId v = 0; v < g_.num_nodes(); ++v)
      out.operand_dist[v].assign(g_.node(v).operands.size(), Distribution{});
    out.result_dist.assign(g_.results().size(), Distribution{});
    if (groups_.empty()) return out;
    std::vector<NodeId> order = g_.topological_order();
    dists_.resize(g_.num_nodes());
    best_.resize(g_.num_nodes());
    one_time_.assign(g_.num_nodes(), false);
    read_as_stored_.assign(g_.num_nodes(), false);
    for (NodeId u = 0; u < g_.num_nodes(); ++u)
      for (size_t i = 0; i < g_.node(u).operands.size(); ++i)
        if (reads_as_stored(g_.node(u).kind, i)) read_as_stored_[g_.node(u).operands[i]] = true;
    for (NodeId v : order) plan_value(v);

    std::vector<std::vector<Distribution>> requests(g_.num_nodes());
    for (size_t i = 0; i < g_.results().size(); ++i) {
      NodeId v = g_.results()[i].value;
      out.result_dist[i] = result_target(v);
      requests[v].push_back(out.result_dist[i]);
    }
    std::vector<MeshConversion> conversions;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      NodeId v = *it;
      std::vector<Distribution>& want = requests[v];
      if (want.empty()) continue;
      std::vector<Distribution> unique;
      for (const Distribution& d : want)
        if (std::find(unique.begin(), unique.end(), d) == unique.end()) unique.push_back(d);
      size_t pick = 0;
      double pick_cost = kInf;
      for (size_t i = 0; i < dists_[v].size(); ++i) {
        double c = best_[v][i].cost;
        for (const Distribution& t : unique) c += convert_us(v, dists_[v][i], t);
        if (c < pick_cost) {
          pick_cost = c;
          pick = i;
        }
      }
      // An argument comes from the host split as its first user needs, and again for others.
      if (g_.node(v).kind == OpKind::Argument) {
        pick = static_cast<size_t>(std::max(index_of(v, unique.front()), 0));
        pick_cost = 0;
      }
      if (!(pick_cost < kInf))
        throw Error(fmt::format("mesh partition: {} has no distribution its users can take",
                                value_name(g_, v)));
      const Distribution& chosen = dists_[v][pick];
      const Choice& c = best_[v][pick];
      out.dist[v] = chosen;
      out.rule[v] = c.rule;
      if (!c.operands.empty()) out.operand_dist[v] = c.operands;
      out.op_us += c.op_us;
      std::vector<Distribution> made;
      for (const Distribution& t : unique) {
        for (MeshConversion& step : path(v, chosen, t)) {
          if (std::find(made.begin(), made.end(), step.to) != made.end()) continue;
          made.push_back(step.to);
          out.collective_us += step.us;
          conversions.push_back(std::move(step));
        }
      }
      const Node& n = g_.node(v);
      for (size_t i = 0; i < c.operands.size(); ++i)
        requests[n.operands[i]].push_back(c.operands[i]);
    }
    std::vector<size_t> position(g_.num_nodes(), 0);
    for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
    std::stable_sort(conversions.begin(), conversions.end(),
                     [&](const MeshConversion& a, const MeshConversion& b) {
                       return position[a.value] < position[b.value];
                     });
    out.conversions = std::move(conversions);
    return out;
  }

private:
  // Replicated; each dim whose extent the group's chips divide, sharded; partial sums.
  std::vector<Distribution> candidates(NodeId v) const {
    const Node& n = g_.node(v);
    std::vector<Distribution> out{Distribution{}};
    if (n.kind == OpKind::Constant || n.kind == OpKind::Full) return out;
    for (int gi = 0; gi < static_cast<int>(groups_.size()); ++gi) {
      for (int64_t d = 0; d < n.type.shape.rank(); ++d) {
        int64_t e = n.type.shape[d];
        if (e >= groups_[gi].chips && e % groups_[gi].chips == 0)
          out.push_back({DK::Sharded, d, gi});
      }
      if (n.kind != OpKind::Argument) out.push_back({DK::Partial, 0, gi});
    }
    return out;
  }

  int index_of(NodeId v, const Distribution& d) const {
    const std::vector<Distribution>& c = dists_[v];
    auto it = std::find(c.begin(), c.end(), d);
    return it == c.end() ? -1 : static_cast<int>(it - c.begin());
  }

  // The one collective taking `from` to `to`, if one does: all_gather (sharded -> replicated),
  // all_reduce (partial -> replicated), reduce_scatter (partial -> sharded over the same
  // chips; or replicated -> sharded, each chip's copy scaled by 1/chips first).
  std::optional<Collective> collective_for(const Distribution& from, const Distribution& to) const {
    if (to.kind == DK::Replicated && from.kind == DK::Sharded) return Collective::AllGather;
    if (to.kind == DK::Replicated && from.kind == DK::Partial) return Collective::AllReduce;
    if (to.kind == DK::Sharded && from.kind == DK::Partial && from.group == to.group)
      return Collective::ReduceScatter;
    if (to.kind == DK::Sharded && from.kind == DK::Replicated) return Collective::ReduceScatter;
    return std::nullopt;
  }

  MeshConversion conversion(NodeId v, const Distribution& from, const Distribution& to) const {
    MeshConversion c;
    c.value = v;
    c.from = from;
    c.to = to;
    c.op = *collective_for(from, to);
    c.scaled = from.kind == DK::Replicated;
    c.bytes = static_cast<double>(CostModel::tensor_bytes(g_.node(v).type, Layout::Tile));
    if (g_.node(v).kind == OpKind::Argument) {
      // The host hands an argument over in every distribution its users need: a replicated
      // one as on one chip (the same in every plan), a sharded one through the mesh_shard the
      // planner prices, which moves one chip's shard.
      c.host = true;
      c.detail = "from the host";
      c.us = host_arrival_us(v, to);
      return c;
    }
    int group = from.kind == DK::Replicated ? to.group : from.group;
    CollectiveEstimate e =
        collective_cost(c.op, c.bytes, groups_[static_cast<size_t>(group)].collective);
    c.us = one_time_[v] ? 0 : e.us;
    c.detail = one_time_[v] ? "once at load (const-eval)" : e.detail;
    return c;
  }

  // What the host handing argument `v` over in `d` costs beyond the one-chip plan. Replicated
  // or once at load (const-eval): nothing. Sharded: a tile copy of one chip's shard (the
  // mesh_shard the planner prices) where an op reads `v` as stored (a conv weight, which
  // replicated is not converted at all, placement.h reads_as_stored); elsewhere nothing, as
  // the one-chip plan converts the whole tensor to tiles too.
  double host_arrival_us(NodeId v, const Distribution& d) const {
    if (d.kind != DK::Sharded || one_time_[v] || !read_as_stored_[v]) return 0;
    const TensorType& full = g_.node(v).type;
    std::array<TensorUse, 1> in{TensorUse{full, host_placement()}};
    try {
      return model_
          .op(OpKind::MeshShard, mesh_shard_attrs(d, groups_, full.shape.rank(), true), in,
              TensorUse{local_type(full, d, groups_), dram_tile_placement()})
          .us;
    } catch (const Error&) {
      return kInf;
    }
  }

  // The conversions taking `v` from `from` to `to`: none, one collective, or two through
  // replicated (sharded along another dim, or partial over other chips).
  std::vector<MeshConversion> path(NodeId v, const Distribution& from,
                                   const Distribution& to) const {
    if (from == to) return {};
    if (collective_for(from, to) || g_.node(v).kind == OpKind::Argument)
      return {conversion(v, from, to)};
    if (to.kind == DK::Partial || from.kind == DK::Replicated) return {};
    return {conversion(v, from, Distribution{}), conversion(v, Distribution{}, to)};
  }

  double convert_us(NodeId v, const Distribution& from, const Distribution& to) const {
    if (from == to) return 0;
    if (to.kind == DK::Partial) return kInf;
    double us = 0;
    for (const MeshConversion& c : path(v, from, to)) us += c.us;
    return us;
  }

  // The cheapest way to have operand `u` in distribution `to`.
  double need(NodeId u, const Distribution& to) const {
    double best = kInf;
    for (size_t i = 0; i < dists_[u].size(); ++i)
      best = std::min(best, best_[u][i].cost + convert_us(u, dists_[u][i], to));
    return best;
  }

  // Where a result goes back to the host from: whole or in blocks the host joins, or partial
  // sums after an all_reduce.
  Distribution result_target(NodeId v) const {
    Distribution target;
    double best = kInf;
    for (const Distribution& d : dists_[v]) {
      if (d.kind == DK::Partial) continue;
      double c = need(v, d);
      if (c < best) {
        best = c;
        target = d;
      }
    }
    return target;
  }

  // The op's time on one chip at its local shapes, every tensor in DRAM; 0 for const-eval
  // work.
  double local_op_us(NodeId v, std::span<const Distribution> operands,
                     const Distribution& d) const {
    if (one_time_[v]) return 0;
    const Node& n = g_.node(v);
    std::vector<TensorUse> inputs;
    for (size_t i = 0; i < n.operands.size(); ++i)
      inputs.push_back(
          {local_type(g_.node(n.operands[i]).type, operands[i], groups_), dram_tile_placement()});
    TensorUse output{local_type(n.type, d, groups_), dram_tile_placement()};
    Attrs attrs = local_attrs(g_, v, output.type, d.kind == DK::Sharded ? d.dim : -1);
    try {
      return model_.op(n.kind, attrs, inputs, output).us;
    } catch (const Error&) {
      // An op the model cannot price runs replicated only (the planner prices it later).
      return d.kind == DK::Replicated ? 0 : kInf;
    }
  }

  // The operand distributions `rule` needs for result `d` over group `gi`, or empty.
  std::optional<std::vector<Distribution>> operands_for(NodeId v, const rewrites::MeshRule& rule,
                                                        const Distribution& d, int gi) const {
    const Node& n = g_.node(v);
    const rewrites::MeshTerm& r = rule.result;
    switch (r.kind) {
    case TK::Replicated:
      if (d.kind != DK::Replicated) return std::nullopt;
      break;
    case TK::Partial:
      if (d.kind != DK::Partial || d.group != gi) return std::nullopt;
      break;
    case TK::ShardDim: {
      auto k = normalize_axis(r.dim, n.type.shape.rank());
      if (d.kind != DK::Sharded || d.group != gi || !k || *k != d.dim) return std::nullopt;
      break;
    }
    case TK::ShardVar:
      if (d.kind != DK::Sharded || d.group != gi) return std::nullopt;
      break;
    }
    std::vector<Distribution> out;
    for (size_t i = 0; i < n.operands.size(); ++i) {
      const rewrites::MeshTerm& t = rule.operand(i);
      Distribution want;
      switch (t.kind) {
      case TK::Replicated:
        break;
      case TK::Partial:
        want = {DK::Partial, 0, gi};
        break;
      case TK::ShardDim: {
        std::optional<int64_t> k = operand_dim_as_read(g_, v, i, t.dim);
        if (!k) return std::nullopt;
        want = {DK::Sharded, *k, gi};
        break;
      }
      case TK::ShardVar: {
        if (r.kind != TK::ShardVar) return std::nullopt;
        DimFlow f = operand_dim_flow(g_, v, i, d.dim);
        if (f.kind == DimFlow::Kind::Mixed) return std::nullopt;
        if (f.kind == DimFlow::Kind::Carried) want = {DK::Sharded, f.dim, gi};
        break;
      }
      }
      if (index_of(n.operands[i], want) < 0) return std::nullopt;
      out.push_back(want);
    }
    // A line with explicit dims (`shard(1)`) is taken on trust only where the op, given its
    // operands' blocks, computes the result's block: a line for batched products must not
    // split a 2-D weight's columns as if they were heads.
    // So is a split of a flattened image's pixels: only whole images per chip.
    bool explicit_dims = r.kind == TK::ShardDim || is_flat_image_op(n);
    for (size_t i = 0; i < n.operands.size(); ++i)
      explicit_dims = explicit_dims || rule.operand(i).kind == TK::ShardDim;
    if (explicit_dims && !computes_local_block(v, out, d)) return std::nullopt;
    return out;
  }

  // Whether op v on operands distributed as `operands` gives its result's local type under `d`
  // (the per-chip op's type inference on the local operand types).
  bool computes_local_block(NodeId v, std::span<const Distribution> operands,
                            const Distribution& d) const {
    const Node& n = g_.node(v);
    Graph local("local");
    std::vector<NodeId> ins;
    for (size_t i = 0; i < n.operands.size(); ++i)
      ins.push_back(local.add_argument(
          fmt::format("x{}", i), local_type(g_.node(n.operands[i]).type, operands[i], groups_)));
    TensorType want = local_type(n.type, d, groups_);
    try {
      NodeId r = local.add_op(n.kind, std::move(ins),
                              local_attrs(g_, v, want, d.kind == DK::Sharded ? d.dim : -1));
      return local.node(r).type.shape == want.shape;
    } catch (const Error&) {
      return false;
    }
  }

  void consider(NodeId v, size_t di, std::vector<Distribution> operands, std::string rule) {
    const Node& n = g_.node(v);
    double op_us = local_op_us(v, operands, dists_[v][di]);
    double cost = op_us;
    for (size_t i = 0; i < operands.size() && cost < kInf; ++i)
      cost += need(n.operands[i], operands[i]);
    Choice& c = best_[v][di];
    if (cost < c.cost) c = Choice{cost, op_us, std::move(rule), std::move(operands)};
  }

  void plan_value(NodeId v) {
    const Node& n = g_.node(v);
    dists_[v] = candidates(v);
    best_[v].assign(dists_[v].size(), Choice{});
    bool const_eval = model_.options().const_eval;
    if (n.operands.empty()) {
      one_time_[v] = const_eval && (n.kind != OpKind::Argument || n.role == ArgRole::Weight);
      for (size_t i = 0; i < dists_[v].size(); ++i) {
        double us = n.kind == OpKind::Argument ? host_arrival_us(v, dists_[v][i]) : 0;
        best_[v][i] = Choice{us, 0, "", {}};
      }
      return;
    }
    bool once = const_eval;
    for (NodeId u : n.operands) once = once && one_time_[u];
    one_time_[v] = once;
    for (size_t di = 0; di < dists_[v].size(); ++di) {
      const Distribution& d = dists_[v][di];
      if (d.kind == DK::Replicated)
        consider(v, di, std::vector<Distribution>(n.operands.size()), "");
      for (const rewrites::MeshRule& rule : rules_.rules) {
        if (!rule.matches(n.kind, n.operands.size())) continue;
        for (int gi = 0; gi < static_cast<int>(groups_.size()); ++gi)
          if (auto ops = operands_for(v, rule, d, gi)) consider(v, di, std::move(*ops), rule.name);
      }
    }
  }

  const Graph& g_;
  const CostModel& model_;
  const MeshChoice& rules_;
  std::vector<MeshGroup> groups_;
  std::vector<std::vector<Distribution>> dists_;
  std::vector<std::vector<Choice>> best_;
  std::vector<bool> one_time_;
  // Whether an op reads the value as stored (reads_as_stored).
  std::vector<bool> read_as_stored_;
};

} // namespace

std::shared_ptr<const MeshChoice> MeshChoice::shipped() {
  static const std::shared_ptr<const MeshChoice> choice = [] {
    auto c = std::make_shared<MeshChoice>();
    c->rules = rewrites::load_rule_file(rewrites::rule_set_path("mesh-parallel")).meshes;
    return c;
  }();
  return choice;
}

std::array<int64_t, 2> mesh_view(const Device& device) {
  if (!device.mesh) return {1, 1};
  const Mesh& m = *device.mesh;
  if (m.ring_over_all_chips) return {1, m.chips()};
  return m.shape;
}

Device mesh_view_device(const Device& device) {
  Device d = device;
  if (!d.mesh || !d.mesh->ring_over_all_chips) return d;
  Mesh& m = *d.mesh;
  int64_t links = std::min(m.links_per_pair[0], m.links_per_pair[1]);
  m.shape = {1, m.chips()};
  m.axis_topology = {MeshTopology::Line, MeshTopology::Ring};
  m.links_per_pair = {links, links};
  return d;
}

Device device_on_mesh(const Device& device, std::array<int64_t, 2> declared) {
  if (declared == MeshShape{1, 1}) return device;
  MeshShape own = device.mesh ? device.mesh->shape : MeshShape{1, 1};
  MeshShape view = mesh_view(device);
  if (declared == own) return device;
  if (declared == view) return mesh_view_device(device);
  throw Error(fmt::format("the module's mesh {} (ttcore.meshes) does not fit device '{}': its "
                          "mesh is {}{}",
                          mesh_shape_str(declared), device.name, mesh_shape_str(own),
                          view == own ? "" : " or its ring as " + mesh_shape_str(view)));
}

std::vector<MeshGroup> mesh_groups(const Device& device) {
  std::vector<MeshGroup> out;
  if (!device.mesh || device.mesh->chips() <= 1) return out;
  const Mesh& m = *device.mesh;
  if (m.ring_over_all_chips) {
    CollectiveGroup all = all_chips_group(device);
    out.push_back({1, all.chips, all});
    return out;
  }
  for (int axis = 0; axis < 2; ++axis)
    if (m.shape[axis] > 1) out.push_back({axis, m.shape[axis], axis_group(device, axis)});
  return out;
}

std::string distribution_str(const Distribution& d, std::span<const MeshGroup> groups) {
  if (d.kind == DK::Replicated) return "replicated";
  std::string where;
  if (d.group >= 0 && d.group < static_cast<int>(groups.size())) {
    const MeshGroup& g = groups[static_cast<size_t>(d.group)];
    where = fmt::format("axis={}, chips={}", g.axis, g.chips);
  }
  if (d.kind == DK::Partial) return fmt::format("partial({})", where);
  return fmt::format("shard(dim={}, {})", d.dim, where);
}

Attrs mesh_shard_attrs(const Distribution& d, std::span<const MeshGroup> groups, int64_t rank,
                       bool to_shards) {
  Attrs a;
  a.set("shard_direction", std::string(to_shards ? "full_to_shard" : "shard_to_full"));
  if (d.kind != DK::Sharded) {
    a.set("shard_type", std::string("replicate"));
    a.set("shard_shape", std::vector<int64_t>{1});
    a.set("shard_dims", std::vector<int64_t>{-1});
    return a;
  }
  const MeshGroup& g = groups[static_cast<size_t>(d.group)];
  std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
  shape[static_cast<size_t>(d.dim)] = g.chips;
  std::vector<int64_t> dims{-1, -1};
  dims[static_cast<size_t>(g.axis)] = d.dim;
  a.set("shard_type", std::string("devices"));
  a.set("shard_shape", shape);
  a.set("shard_dims", dims);
  return a;
}

TensorType local_type(const TensorType& type, const Distribution& d,
                      std::span<const MeshGroup> groups) {
  TensorType t = type;
  if (d.kind == DK::Sharded && d.dim >= 0 && d.dim < t.shape.rank() && d.group >= 0 &&
      d.group < static_cast<int>(groups.size()))
    t.shape[d.dim] /= groups[static_cast<size_t>(d.group)].chips;
  return t;
}

MeshPartition partition_for_mesh(const Graph& g, const CostModel& model, const MeshChoice& rules) {
  return Partitioner(g, model, rules).run();
}

} // namespace tilesat::cost
