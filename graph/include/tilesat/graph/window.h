// The output extent of a sliding window (conv2d and the pools) along one spatial dim, shared
// by the graph's shape inference and the runtime's program verifier.
//
//   window_extent(224, 7, 2, 3, 3, 1, false);  // 112: conv1 of ResNet-18
//   window_extent(5, 3, 2, 0, 0, 1, true);     // 2: ceil_mode keeps the last partial window
//   window_extent(2, 5, 1, 0, 0, 1, false);    // nullopt: the window does not fit
#pragma once

#include <cstdint>
#include <optional>

namespace tilesat {

/// Positions of a window of `k` taps spaced `d` apart, stepping by `s` over `in` elements
/// padded by `p0` before and `p1` after; nullopt when the padded input is shorter than the
/// dilated window. `ceil_mode` keeps a last partial window that starts inside the input or its
/// leading padding. Arguments are non-negative (k, s, d >= 1) and small enough not to overflow
/// (each at most 2^40).
inline std::optional<int64_t> window_extent(int64_t in, int64_t k, int64_t s, int64_t p0,
                                            int64_t p1, int64_t d, bool ceil_mode) {
  int64_t span = d * (k - 1) + 1;
  int64_t padded = in + p0 + p1;
  if (padded < span) return std::nullopt;
  int64_t n = padded - span;
  int64_t out = (ceil_mode ? (n + s - 1) / s : n / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p0) --out;
  return out;
}

} // namespace tilesat
