// op_params.h: a graph op's attributes as the program's op parameters.
#pragma once

#include "program_generated.h"
#include "tilesat/graph/graph.h"

namespace tilesat::lowering::detail {

/// The parameters of graph node `id` (not an argument); throws tilesat::Error naming the op
/// when the runtime has no kernel for it.
fb::OpParamsUnion op_params(const Graph& g, NodeId id);

/// Whether an op kind is a matrix product (its work items span the inner dimension).
bool is_matrix_product(OpKind k);

/// Inner-dimension tiles of a matmul/linear node (1 for other ops).
int64_t inner_tiles(const Graph& g, NodeId id);

} // namespace tilesat::lowering::detail
