// Mesh partitioning: which distribution over the chips of a mesh each value of a graph takes
// (replicated, sharded along a dim, or partial sums), and the collectives between them.
//
// The strategies are data: the `mesh` lines of rule files (rewrites/mesh_rule.h, shipped in
// rules/mesh-parallel.rules) say which distributions each op accepts and produces; every op may
// also run replicated. `partition_for_mesh` is a dynamic program over (value, distribution) on
// an extracted graph in topological order, as the one-chip placement DP is over (class,
// placement): a value's cost in a distribution is the cheapest rule computing it so, that is
// the op's cost on one chip at its local shapes (the CostModel on the mesh's chip, every
// tensor in DRAM) plus its operands' costs, each converted where the rule needs it otherwise
// (collective_cost.h): partial -> replicated by all_reduce, partial -> sharded by
// reduce_scatter, sharded -> replicated by all_gather, replicated -> sharded by a reduce_scatter
// of the copies scaled by 1/chips (the collective ops have no per-chip slice), other changes
// through replicated. Arguments come from the host split (mesh_shard) in every distribution
// their users need but partial; results go back whole or sharded (the host joins the blocks),
// partial sums after an all_reduce. Work that depends only on weights and constants runs once
// (const-eval) and costs nothing per inference. A value several consumers need differently is
// converted once per distinct need. A mesh of one chip (or a
// one-chip device) gives every value `replicated` and no collectives.
//
//   Device t3k = load_device("t3k");
//   MeshPartition p = partition_for_mesh(graph, CostModel(t3k), *MeshChoice::shipped());
//   for (const MeshConversion& c : p.conversions)
//     fmt::print("{} {}: {:.1f} us\n", collective_name(c.op), value_name(graph, c.value), c.us);
#pragma once

#include "tilesat/cost/collective_cost.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/graph/graph.h"
#include "tilesat/rewrites/mesh_rule.h"

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tilesat::cost {

/// The mesh rules a partition plans with (no rules: every value replicated).
///   MeshChoice c;  c.rules = rewrites::load_rule_file("my.rules").meshes;
struct MeshChoice {
  std::vector<rewrites::MeshRule> rules;
  /// The shipped `mesh-parallel` rule set, loaded once.
  static std::shared_ptr<const MeshChoice> shipped();
};

/// The mesh shape a partition's program is written for: 1 x N when one ring passes through
/// all N chips (tt-metal opens a T3000 as MeshShape(1, 8) for its ring collectives: tech_reports/
/// LLMs/llms.md 3.3), else the descriptor's rows x cols; {1, 1} for one chip.
///   mesh_view(load_device("t3k"));   // {1, 8}
std::array<int64_t, 2> mesh_view(const Device& device);

/// `device` with its mesh seen as mesh_view(device): a ring through every chip becomes the one
/// axis of a 1 x N mesh, so a collective over mesh axis 1 runs on that ring.
///   mesh_view_device(load_device("t3k")).mesh->shape;   // {1, 8}
Device mesh_view_device(const Device& device);

/// `device` seen as the mesh a module declares (tt-mlir's `ttcore.meshes`): its own mesh shape,
/// or its ring view (mesh_view_device) when `declared` is 1 x chips. A declared 1x1 mesh leaves
/// the device as it is (tt-mlir declares one on every single-chip module). Throws tilesat::Error
/// when the declared mesh is neither.
///   device_on_mesh(load_device("t3k"), {1, 8}).mesh->shape;   // {1, 8}
///   device_on_mesh(load_device("t3k"), {4, 2});               // error
Device device_on_mesh(const Device& device, std::array<int64_t, 2> declared);

/// Chips a value may be split over: the chips along one axis of the mesh view (the value is
/// then replicated along the other axis), and the collective group joining them.
///   mesh_groups(load_device("t3k"));      // {axis 1: the 8-chip ring}
///   mesh_groups(load_device("galaxy"));   // {axis 0: 8 chips, axis 1: 4 chips}
struct MeshGroup {
  int axis = 1;
  int64_t chips = 1;
  CollectiveGroup collective;
};
/// The groups of `device`'s mesh view with more than one chip (none for a one-chip device).
std::vector<MeshGroup> mesh_groups(const Device& device);

/// How a value is spread over the chips.
///   Distribution{Distribution::Kind::Sharded, 0, 0};   // dim 0 split over group 0
struct Distribution {
  enum class Kind : uint8_t { Replicated, Sharded, Partial };
  Kind kind = Kind::Replicated;
  /// Sharded: the tensor dim split (non-negative).
  int64_t dim = 0;
  /// Sharded and partial: the index into the partition's groups.
  int group = 0;
  friend bool operator==(const Distribution&, const Distribution&) = default;
};
/// "replicated", "shard(dim=0, axis=1, chips=8)", "partial(axis=1, chips=8)".
std::string distribution_str(const Distribution& d, std::span<const MeshGroup> groups);
/// The shape one chip holds of a value of `type` distributed so.
///   local_type({BF16, {128, 64}}, shard dim 0 over 8 chips, groups);   // {BF16, {16, 64}}
TensorType local_type(const TensorType& type, const Distribution& d,
                      std::span<const MeshGroup> groups);
/// The attributes of the mesh_shard that splits a host tensor of `rank` dims into `d`
/// (`to_shards`) or joins it back; replicated: shard_shape [1], shard_dims [-1].
///   mesh_shard_attrs(shard dim 0 over 8 chips, groups, 2, true);   // shard_shape [8, 1]
Attrs mesh_shard_attrs(const Distribution& d, std::span<const MeshGroup> groups, int64_t rank,
                       bool to_shards);

/// One conversion the partition inserts: `value` converted `from` -> `to` (a replicated value
/// becomes sharded, or a value moves between shardings, through two of them).
struct MeshConversion {
  NodeId value = 0;
  Distribution from, to;
  Collective op = Collective::AllReduce;
  /// A reduce_scatter of a replicated value: each chip's copy is first scaled by 1/chips, so
  /// the sum of the copies is the value (exact for a power-of-two number of chips): how a
  /// replicated value becomes sharded with the collective ops alone.
  bool scaled = false;
  /// An argument the host hands over once more in another distribution (a second mesh_shard),
  /// not a collective.
  bool host = false;
  /// Bytes of the whole tensor (the collective's B, collective_cost.h).
  double bytes = 0;
  /// Zero for const-eval values (converted once when the program loads).
  double us = 0;
  std::string detail;
};

/// The partition: every graph node's distribution and the rule that chose it.
struct MeshPartition {
  /// The mesh view (mesh_view) and its groups.
  std::array<int64_t, 2> mesh_shape{1, 1};
  std::vector<MeshGroup> groups;
  /// By NodeId.
  std::vector<Distribution> dist;
  /// By NodeId: the `mesh` rule's name, "" for replicated.
  std::vector<std::string> rule;
  /// By NodeId: the distribution the op reads each operand in (its operand's own, or a
  /// conversion of it).
  std::vector<std::vector<Distribution>> operand_dist;
  /// Per graph result: the distribution the host receives it in (never partial).
  std::vector<Distribution> result_dist;
  /// In topological order of the values converted; a result's all_reduce included.
  std::vector<MeshConversion> conversions;
  /// The DP's estimate per inference: ops at local shapes (DRAM) and collectives.
  double op_us = 0;
  double collective_us = 0;
};

/// The dynamic program above over `g` (which must verify) on `model`'s device (its mesh);
/// throws tilesat::Error naming the value when one has no distribution the rules allow.
MeshPartition partition_for_mesh(const Graph& g, const CostModel& model, const MeshChoice& rules);

} // namespace tilesat::cost
