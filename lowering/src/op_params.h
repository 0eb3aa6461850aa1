// op_params.h: a graph op's attributes as the program's op parameters.
#pragma once

#include "program_generated.h"
#include "tilesat/graph/graph.h"

namespace tilesat::lowering::detail {

/// The parameters of graph node `id` (not an argument); throws tilesat::Error naming the op
/// when the runtime has no kernel for it.
fb::OpParamsUnion op_params(const Graph& g, NodeId id);

/// Throws tilesat::Error "lowering %v = op: why" at the op's location.
[[noreturn]] void unsupported(const Graph& g, NodeId id, const std::string& why);

/// The unary kernel of an elementwise unary op kind, if it has one.
std::optional<fb::UnaryKind> unary_kind(OpKind k);

/// The kernel of a fused "activation" attribute (empty: none); throws when it has none.
std::optional<fb::UnaryKind> activation_kind(const Graph& g, NodeId id, const Attrs& attrs);

/// Sets has_activation and activation of parameters `p` (Linear, Conv2d) from the attribute.
template <class Params>
void set_activation(Params& p, const Graph& g, NodeId id, const Attrs& attrs) {
  if (std::optional<fb::UnaryKind> act = activation_kind(g, id, attrs)) {
    p.has_activation = true;
    p.activation = *act;
  }
}

/// The parameters of conv2d, the pools, layer_norm, rms_norm, take and where (op_params_nn.cpp);
/// nullopt for other ops. `attrs` holds every default.
std::optional<fb::OpParamsUnion> nn_params(const Graph& g, NodeId id, const Attrs& attrs);

/// The parameters of mesh_shard and the collectives (op_params_mesh.cpp); nullopt for other
/// ops. `attrs` holds every default.
std::optional<fb::OpParamsUnion> mesh_params(const Graph& g, NodeId id, const Attrs& attrs);

/// Whether an op kind is a matrix product (its work items span the inner dimension).
bool is_matrix_product(OpKind k);

/// Inner-dimension tiles of a matmul/linear node (1 for other ops).
int64_t inner_tiles(const Graph& g, NodeId id);

/// A possibly negative axis as a position: norm_axis(-1, 4) == 3.
inline int64_t norm_axis(int64_t a, int64_t rank) {
  return a < 0 ? a + rank : a;
}

} // namespace tilesat::lowering::detail
