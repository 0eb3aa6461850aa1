// The SPMD reference interpreter: a per-chip graph run on every chip of a mesh in lock-step.
//
// A mesh program is one graph that every chip of a rows x cols mesh runs (spmd.h). Its
// arguments are the full host tensors; each chip evaluates the graph as the plain interpreter
// does, except the multi-chip ops: mesh_shard full_to_shard gives the chip its shard (the whole
// tensor when replicated), collectives combine the values of the chips along cluster_axis, and
// mesh_shard shard_to_full reassembles the chips' shards. A graph result must come out of a
// shard_to_full or be equal on every chip. It is the ground truth `tilesat check` compares a
// mesh program's run with.
//
//   std::vector<Tensor> out = interpret_mesh(g, random_arguments(g, 1), {1, 8});
#pragma once

#include "tilesat/graph/graph.h"
#include "tilesat/graph/spmd.h"

#include <span>
#include <vector>

namespace tilesat {

/// Evaluates the per-chip graph `g` on every chip of `mesh` for the full host tensors
/// `arguments` (in the order of g.arguments()) and returns one tensor per graph result.
/// Throws tilesat::Error naming the op when a mesh_shard or collective does not fit the mesh,
/// and naming the result when one differs between chips without a shard_to_full.
std::vector<Tensor> interpret_mesh(const Graph& g, std::span<const Tensor> arguments,
                                   MeshShape mesh);

} // namespace tilesat
