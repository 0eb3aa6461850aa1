// source_exits.h: private to rewrites/: where the uses of a multi-use value of the source
// graph come together again (its post-dominators), for the inner-single-use guard.
//
//   x -> div -> erf -> add -> m = mul(x, add) -> mul(m, 0.5)
//   source_exits(g)[x]: exits {m, mul(m, 0.5), ...}; region {div, erf, add} before exit 0,
//   m before exit 1
#pragma once

#include "tilesat/graph/graph.h"

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tilesat::rewrites {

/// The post-dominators of a value, nearest first (every path from the value to a result
/// passes each of them), and the ops between: each with the index of the first exit it lies
/// before.
struct SourceExit {
  std::vector<NodeId> exits;
  std::vector<std::pair<NodeId, uint32_t>> region;
};

/// For each value of `g` with more than one use whose uses come together before a result:
/// up to `max_exits` post-dominators, while the region stays within `max_region` ops (a
/// fusion at a farther exit would subsume too much to be one kernel).
std::unordered_map<NodeId, SourceExit> source_exits(const Graph& g, size_t max_exits = 4,
                                                    size_t max_region = 64);

} // namespace tilesat::rewrites
