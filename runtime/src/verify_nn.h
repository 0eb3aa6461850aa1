// verify_nn.h: the program checks of the network ops' parameters (conv2d, pool2d,
// layer_norm, rms_norm, take, where) against their tensors, and the broadcast-map check they share
// with the verifier of the other ops.
//
//   try { check_nn_params(op, in_shapes, in_dtypes, out_shape); }
//   catch (const ParamError& e) { /* "<op where><e.field>: <e.what>" */ }
#pragma once

#include "program_view.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tilesat::runtime::detail {

using Dims = std::vector<int64_t>;

/// A failed check: the field below the op (".params.window", ".inputs[1]") and what was
/// expected.
struct ParamError {
  std::string field;
  std::string what;
};

/// "[2, 3]".
std::string dims_str(const Dims& d);

/// Why operand dims `in` do not map into result dims `out` by `map` (operand dim i to result
/// dim map[i], distinct, each extent 1 or equal), or nullopt when they do.
std::optional<std::string> dims_map_error(const Dims& in, const Dims& out, const Dims& map);

/// `map` for NumPy right alignment of a rank-`rank` operand into a rank-`out_rank` result.
Dims right_aligned_map(size_t rank, size_t out_rank);

/// Whether `op` is one of the ops checked here.
bool is_nn_op(const fb::Op& op);

/// Checks such an op's arity, parameters and result shape; throws ParamError.
void check_nn_params(const fb::Op& op, std::span<const Dims> in, std::span<const fb::DType> dtypes,
                     const Dims& out);

} // namespace tilesat::runtime::detail
