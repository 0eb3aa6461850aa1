// eval_node.h: private to graph/: the steps the reference interpreters (interpreter.cpp,
// mesh_interpreter.cpp) share.
#pragma once

#include "tilesat/graph/graph.h"

#include <span>
#include <vector>

namespace tilesat::detail {

/// `arguments` checked against g's declared argument types and rounded to their dtypes;
/// throws tilesat::Error naming the argument that does not match.
std::vector<Tensor> checked_arguments(const Graph& g, std::span<const Tensor> arguments);

/// Node `n`'s reference semantics on `operands`, rounded to its dtype.
Tensor eval_node(const Node& n, std::span<const Tensor* const> operands);

} // namespace tilesat::detail
