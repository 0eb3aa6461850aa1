// The per-chip graph of a mesh partition: one SPMD graph every chip of the mesh runs.
//
// Its arguments are the full host tensors, which every chip sees whole (replicated); a sharded
// one is followed by a `mesh_shard` (full_to_shard) giving every chip its block; each op runs at
// its local shapes (a reshape's or broadcast's shape, a slice's ends made local: mesh_dims.h); each
// conversion of the partition is its collective (all_gather, reduce_scatter, all_reduce over
// the group's mesh axis, tt-mlir's attribute names), made once per value and distribution; each
// result leaves through a `mesh_shard` (shard_to_full) from the distribution the partition
// returns it in.
//
//   MeshPartition p = partition_for_mesh(g, model, *MeshChoice::shipped());
//   MeshGraph m = per_chip_graph(g, p);
//   m.graph;                      // what plan_graph plans on the mesh's chip
//   m.distribution[node];         // "shard(dim=0, axis=1, chips=8)", "host", ...
#pragma once

#include "tilesat/cost/mesh_partition.h"
#include "tilesat/graph/graph.h"

#include <string>
#include <vector>

namespace tilesat::cost {

/// The per-chip graph and, for each of its nodes, how the value is spread over the chips.
struct MeshGraph {
  Graph graph;
  /// By NodeId of `graph`: distribution_str of the value, or "host" for a full host tensor (a
  /// sharded argument before its mesh_shard, a result after it).
  std::vector<std::string> distribution;
  /// By NodeId of `graph`: the partition's conversion a collective performs, or -1.
  std::vector<int> conversion;
};

/// Emits the per-chip graph of `p` (a partition of `g`); throws tilesat::Error naming the
/// value when an op cannot take its local shapes.
MeshGraph per_chip_graph(const Graph& g, const MeshPartition& p);

} // namespace tilesat::cost
