// Planning for a mesh of chips: what `tilesat opt --device t3k` runs.
//
// The graph is saturated and extracted as for one chip (extract.h's DP on the mesh's chip),
// partitioned over the mesh (mesh_partition.h), emitted as the per-chip SPMD graph with
// mesh_shard and collective ops (mesh_emit.h), and planned by the one-chip planner on the
// chip, so the plan's ops include the collectives with their predicted costs. Each planned
// value carries its distribution; the plan carries the mesh shape it runs on. A one-chip
// device (no mesh) gives exactly optimize_for_device's plan.
//
//   CostModel model(load_device("t3k"));
//   DevicePlanResult r = optimize_for_mesh(g, rules, {}, model, {}, *MeshChoice::shipped());
//   r.plan.mesh_shape;                 // {1, 8}
//   r.plan.distribution(v);            // "shard(dim=0, axis=1, chips=8)"
#pragma once

#include "tilesat/cost/extract.h"
#include "tilesat/cost/mesh_partition.h"

namespace tilesat::cost {

/// Saturates, extracts, partitions over the model's mesh and plans one chip's program; throws
/// tilesat::Error as optimize_for_device does, or naming a value the partition cannot place.
DevicePlanResult optimize_for_mesh(const Graph& g, std::span<const egraph::Rewrite> rules,
                                   const egraph::RunnerConfig& runner, const CostModel& model,
                                   const ExtractOptions& options, const MeshChoice& mesh);

/// Plans an extracted graph `logical` on the model's mesh (the steps after extraction above),
/// with the partition it chose.
///   MeshPartition p;  Plan plan = plan_on_mesh(graph, model, *MeshChoice::shipped(), &p);
Plan plan_on_mesh(const Graph& logical, const CostModel& model, const MeshChoice& mesh,
                  MeshPartition* partition = nullptr);

} // namespace tilesat::cost
