// The reference interpreter: evaluates a graph on host tensors, op by op, in plain loops over
// f32 values (sums accumulate in double).
//
// It is the ground truth every numeric test of tilesat compares against (the optimizer's
// rewrites, the runtime's tile kernels). Each op's semantics come from the op table; a value
// whose dtype is bf16 (or bfp8_b) is rounded to bf16 (nearest-even) and an i32 value is
// truncated toward zero, so rounding happens where the graph says it does.
//
//   std::vector<Tensor> args = random_arguments(g, /*seed=*/1);
//   std::vector<Tensor> out = evaluate(g, args);   // one tensor per g.results()
#pragma once

#include "tilesat/graph/graph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tilesat {

/// Evaluates `g` on `arguments` (in the order of g.arguments(), each of the argument's
/// declared dtype and shape) and returns one tensor per graph result. Throws tilesat::Error
/// when the graph does not verify or an argument does not match its declaration.
std::vector<Tensor> evaluate(const Graph& g, std::span<const Tensor> arguments);

/// One deterministic random tensor per argument of `g`: floats uniform in [-1, 1) (rounded to
/// the argument's dtype), i32 integers in [-8, 8]. The same seed gives the same tensors on
/// every platform.
std::vector<Tensor> random_arguments(const Graph& g, uint64_t seed);

} // namespace tilesat
