// The attention head ops as strided reads of their operand.
//
// `split_heads` takes one part of a (possibly fused Q/K/V) projection [B, S, parts * H * D]
// and splits it into heads, [B, H, S, D] (or [B, H, D, S] with `transpose`, a key ready for
// Q @ K^T); `concatenate_heads` joins heads back, [B, H, S, D] -> [B, S, H * D]. Both only
// move elements: each result element, in row-major order, reads the operand at
// `base + sum(index[i] * strides[i])` over `shape`. The reference interpreter, the runtime's
// kernel and the lowering all take the read from here.
//
//   HeadView v = head_view(OpKind::SplitHeads, attrs, Shape({1, 128, 2304}));
//   // num_heads 12, parts 3, part 1: v.shape [1, 12, 128, 64], v.base 768,
//   // v.strides [294912, 64, 2304, 1]
#pragma once

#include "tilesat/graph/attribute.h"
#include "tilesat/graph/op.h"
#include "tilesat/graph/shape.h"

#include <cstdint>
#include <vector>

namespace tilesat {

/// A strided read: result element i (row-major over `shape`) is operand element
/// base + sum(index[d] * strides[d]).
struct HeadView {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int64_t base = 0;
};

/// The read of `kind` (SplitHeads or ConcatenateHeads) with `attrs` (defaults filled) over an
/// operand of shape `operand`; throws tilesat::Error naming the mismatch ("expected ...").
HeadView head_view(OpKind kind, const Attrs& attrs, const Shape& operand);

} // namespace tilesat
