// torch's exported repeat_interleave, folded back into one broadcast.
//
// `k.repeat_interleave(4, dim=1)` on a 1x8x128x128 tensor (grouped-query attention's K and V)
// exports as one chain per index along the dim: slice out element i, reshape it to
// 1x1x1x128x128, broadcast to 1x1x4x128x128, reshape to 1x4x128x128; then a concat of the
// eight. As such it is 33 device ops, and on a mesh no chip can hold its own KV heads: the
// concat takes one piece from each. Folded, it is the reshape -> broadcast -> reshape of the
// whole tensor (1x8x1x128x128 -> 1x8x4x128x128 -> 1x32x128x128), which splits by heads.
//
// A variadic concat is beyond the rule files' fixed-arity patterns, so this is a graph pass,
// run before saturation (rewrites::optimize, cost::optimize_for_device and optimize_for_mesh).
// Its result computes the same values (tests/rewrites/repeat_interleave_test.cpp compares them
// with the reference interpreter).
//
//   Graph g2 = fold_repeat_interleave(g);   // g itself when no concat matches
#pragma once

#include "tilesat/graph/graph.h"

namespace tilesat::rewrites {

/// `g` with every concat of exported repeat_interleave chains replaced by the reshape ->
/// broadcast -> reshape of the repeated tensor; nodes used only by those chains are dropped.
Graph fold_repeat_interleave(const Graph& g);

} // namespace tilesat::rewrites
