// The graph the device planner works on: every conv2d in a layout other than NCHW (tt-mlir's
// NHWC default, or any other dim order) becomes permute -> NCHW conv2d -> permute, since the
// runtime's conv2d kernel takes NCHW only. The rewrites may then fold the permutes into their
// neighbours.
//
//   Graph g = parse("conv2d(x: 1x8x8x4, w: 6x4x3x3) <{stride = 1 : i32}>");  // NHWC
//   Graph d = nchw_convs(g);  // permute[0,3,1,2] -> conv2d{NCHW} -> permute[0,2,3,1]
#pragma once

#include "tilesat/graph/graph.h"

namespace tilesat::cost {

/// `g` with each non-NCHW conv2d wrapped in permutes to and from NCHW; arguments, results and
/// names are kept, so the result computes the same values. A graph without such convs is
/// returned unchanged.
Graph nchw_convs(const Graph& g);

} // namespace tilesat::cost
