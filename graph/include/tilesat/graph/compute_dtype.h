// Computing a graph in another float dtype.
//
// `compute_in(g, DType::BF16)` gives the graph that computes `g` in bf16: every f32 argument
// (inputs and weights) is converted on entry, every op that makes f32 is followed by a
// conversion (constants, explicit typecasts), and each f32 result is converted back, so the
// function keeps its signature. With const-eval (cost::CostOptions::const_eval), the
// conversions of weights and constants run once when the program loads.
//
//   Graph bf16 = compute_in(g, DType::BF16);   // same arguments and results as g
//   evaluate(bf16, args);                       // rounded to bf16 after every op
#pragma once

#include "tilesat/graph/graph.h"

namespace tilesat {

/// `g` computed in `dtype` (BF16 or BFP8_B; F32 returns `g`); throws tilesat::Error for another
/// dtype.
Graph compute_in(const Graph& g, DType dtype);

} // namespace tilesat
