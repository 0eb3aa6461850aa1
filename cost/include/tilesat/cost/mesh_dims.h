// How an op carries a split of its result through to its operands: the op semantics the mesh
// rules' `shard(d)` relies on (mesh_rule.h).
//
// When an op's result is split into equal blocks along dim d over some chips, each chip can
// compute its block from blocks of its operands when the op carries d: an elementwise op
// from the same block of each operand (right-aligned; a broadcast operand whole), a matmul
// from its rows of the input and the whole weight (or the reverse for columns), a reshape from
// the input dim holding the same elements, a permute from the dim it moves there. Dims an op
// mixes (a softmax's dimension, a reduction's, a matmul's K, a conv's spatial dims) are not
// carried.
//
//   Graph g;  NodeId x = g.add_argument("x", {DType::BF16, Shape{8, 64}});
//   NodeId w = g.add_argument("w", {DType::BF16, Shape{64, 32}}, ArgRole::Weight);
//   NodeId y = g.add_op(OpKind::Matmul, {x, w});
//   operand_dim_flow(g, y, 0, 0);   // {Carried, 0}: rows of x
//   operand_dim_flow(g, y, 1, 0);   // {Broadcast}: all of w on every chip
#pragma once

#include "tilesat/graph/graph.h"

#include <cstdint>
#include <optional>

namespace tilesat::cost {

/// What operand `i` of an op contributes to one block of the result along a dim.
struct DimFlow {
  enum class Kind : uint8_t {
    Carried,   ///< the operand's dim `dim` split the same way
    Broadcast, ///< the whole operand (it does not vary along the result's dim)
    Mixed,     ///< the op mixes elements along the dim: no block-by-block split
  };
  Kind kind = Kind::Mixed;
  int64_t dim = 0;
};

/// How operand `operand` of `op` feeds the result's dim `result_dim` (non-negative).
DimFlow operand_dim_flow(const Graph& g, NodeId op, size_t operand, int64_t result_dim);

/// The dim of operand `operand` that a matmul or linear reads as `dim` of its product's operand
/// (negative counts from the end; transpose_a / transpose_b swap the last two), normalized;
/// other ops: `dim` normalized. nullopt when out of range.
///   operand_dim_as_read(g, mm_with_transpose_b, 1, -2);   // rank - 1
std::optional<int64_t> operand_dim_as_read(const Graph& g, NodeId op, size_t operand, int64_t dim);

/// The attributes of `op` computing a block of `local` (the result's type on one chip) when
/// its result is split along `split_dim` (or -1 for a whole result): a reshape's or
/// broadcast's `shape`, a slice's `ends` along the split dim, a flattened image's batch_size
/// (is_flat_image_op) when its pixels are split; other attributes are unchanged.
///   local_attrs(g, reshape_node, {DType::BF16, Shape{1, 16, 128}}, 1);   // shape = [1, 16, 128]
Attrs local_attrs(const Graph& g, NodeId op, const TensorType& local, int64_t split_dim);

/// Whether `n` is a conv2d or pool over a flattened NHWC image ([1, 1, N*H*W, C]): a split of
/// its pixels is valid only image by image, which the partition checks on the local types.
bool is_flat_image_op(const Node& n);

} // namespace tilesat::cost
