// SPMD data movement: how the multi-chip ops move tensors between the chips of a mesh.
//
// A mesh program is one per-chip graph that every chip of a rows x cols mesh runs. Its
// arguments are the full host tensors; `mesh_shard` (full_to_shard) gives each chip its
// shard, collectives (all_gather, reduce_scatter, all_reduce) combine the values of the chips
// along one mesh axis, and `mesh_shard` (shard_to_full) reassembles a result. Chips are
// numbered row-major; cluster_axis 0 groups the chips of one column, 1 those of one row, as
// in tt-metal. The functions below are the numerics of those ops, shared by the reference
// interpreter (interpret_mesh) and the runtime, so both combine values identically.
//
//   MeshShape mesh{2, 4};
//   cluster_group(mesh, 5, 1);                       // {4, 5, 6, 7}: chip 5's row
//   MeshShardSpec s = mesh_shard_spec(attrs, 2);     // from a mesh_shard's attributes
//   Tensor mine = take_shard(full, s, mesh, 5);      // chip 5's block of `full`
//   Tensor sum = reduce_group(group_values);         // sum over the group, in group order
#pragma once

#include "tilesat/graph/attribute.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/tensor.h"

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace tilesat {

/// Chips per mesh axis: {rows, cols}; one chip is {1, 1}, an n300 {1, 2}, a T3000 {2, 4}.
using MeshShape = std::array<int64_t, 2>;

/// "2x4".
std::string mesh_shape_str(MeshShape mesh);

/// Chip `chip`'s index along mesh `axis` (0: its row, 1: its column).
///
///   mesh_coord({2, 4}, 5, 0);   // 1
int64_t mesh_coord(MeshShape mesh, int64_t chip, int64_t axis);

/// The chips that combine with `chip` in a collective over `cluster_axis`, in ascending order
/// (chip's position in it is mesh_coord(mesh, chip, cluster_axis)).
///
///   cluster_group({2, 4}, 5, 0);   // {1, 5}: chip 5's column
std::vector<int64_t> cluster_group(MeshShape mesh, int64_t chip, int64_t cluster_axis);

/// tt-mlir's mesh shard types tilesat runs: every chip holds the whole tensor, or a block.
enum class ShardType : uint8_t { Replicate, Devices };
/// full_to_shard at a graph argument, shard_to_full at a result.
enum class ShardDirection : uint8_t { FullToShard, ShardToFull };

/// A mesh_shard's attributes, checked against the rank of its tensors.
struct MeshShardSpec {
  ShardType type = ShardType::Replicate;
  ShardDirection direction = ShardDirection::FullToShard;
  /// Pieces per tensor dim (all 1 when replicated).
  std::vector<int64_t> shard_shape;
  /// Per mesh axis, the tensor dim split over it, or -1.
  std::array<int64_t, 2> shard_dims{-1, -1};
};

/// The spec of a mesh_shard whose tensors have rank `rank`, from its attributes (defaults
/// filled in); throws tilesat::Error "expected X, got Y" for a bad attribute.
///
///   Attrs a;   // shard_type "devices", shard_direction "full_to_shard",
///              // shard_shape [8, 1], shard_dims [-1, 0]
///   mesh_shard_spec(a, 2).shard_dims;   // {-1, 0}: dim 0 split over the 8 chips of a row
MeshShardSpec mesh_shard_spec(const Attrs& attrs, int64_t rank);

/// Throws tilesat::Error unless `spec` splits each tensor dim into as many pieces as the mesh
/// has chips along the axis it is split over ("expected shard_shape[0] = 8 ...").
void check_shard_fits(const MeshShardSpec& spec, MeshShape mesh);

/// Chip `chip`'s shard of the full tensor `full` (the whole tensor when replicated).
///
///   take_shard(x /* [16, 4] */, spec /* dim 0 over axis 1 */, {1, 8}, 3);   // rows 6..7
Tensor take_shard(const Tensor& full, const MeshShardSpec& spec, MeshShape mesh, int64_t chip);

/// The full tensor from every chip's shard (`shards[chip]`, all chips of the mesh): blocks
/// placed at their chips' positions, taken from the chips whose index is 0 along each axis
/// that splits no dim; chip 0's tensor when replicated.
Tensor assemble_shards(std::span<const Tensor* const> shards, const MeshShardSpec& spec,
                       MeshShape mesh);

/// all_gather: the group's tensors joined along `dim`, in group order.
///
///   gather_group({&a /* [2, 3] */, &b /* [2, 3] */}, 0);   // [4, 3]: a's rows, then b's
Tensor gather_group(std::span<const Tensor* const> group, int64_t dim);

/// all_reduce (sum): the elementwise sum of the group's tensors, accumulated in double in
/// group order, rounded to their dtype.
Tensor reduce_group(std::span<const Tensor* const> group);

/// reduce_scatter's piece `index` of `count` equal pieces of `x` along `dim`.
///
///   scatter_piece(sum /* [8, 3] */, 0, 1, 4);   // rows 2..3
Tensor scatter_piece(const Tensor& x, int64_t dim, int64_t index, int64_t count);

} // namespace tilesat
