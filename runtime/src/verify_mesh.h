// verify_mesh.h: the program checks of the multi-chip ops (mesh_shard, the collectives)
// against their tensors and the program's mesh.
//
//   try { check_mesh_params(op, in_shapes, out_shape, {2, 4}); }
//   catch (const ParamError& e) { /* "<op where><e.field>: <e.what>" */ }
#pragma once

#include "verify_nn.h"

#include <array>

namespace tilesat::runtime::detail {

/// Whether `op` is a mesh_shard or a collective.
bool is_mesh_op(const fb::Op& op);

/// Checks such an op's arity, parameters and result shape on a `mesh` {rows, cols} of chips;
/// throws ParamError.
void check_mesh_params(const fb::Op& op, std::span<const Dims> in, const Dims& out,
                       std::array<int64_t, 2> mesh);

} // namespace tilesat::runtime::detail
