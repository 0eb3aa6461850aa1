// Comparing a device result with the reference interpreter's, with tolerances per dtype.
//
// The test is normwise: max |got - reference| <= tolerance(dtype) * max(1, max |reference|).
// Tolerances: f32 1e-5 (only the order of f32 sums differs from the reference); bf16 2^-7
// (one bf16 step of the largest result, both sides rounding each op's result to bf16);
// bfp8_b 5e-2 (7-bit mantissas under a shared block exponent, accumulated over a layer).
// Results that went through `depth` ops in bf16 (each rounding its result, the reference
// after every op and a fused device kernel once) may differ by a rounding per op, which adds
// up like a random walk: their tolerance is scaled by sqrt(depth).
//
//   Comparison c = compare(device_out, reference_out, DType::BF16);
//   if (!c.ok) fmt::print("max abs error {} > {}\n", c.max_abs, c.allowed_abs);
#pragma once

#include "tilesat/graph/tensor.h"

namespace tilesat::runtime {

/// The normwise tolerance of results computed in `dtype` (relative to max(1, max |ref|)),
/// through `depth` ops on the longest path (bf16: scaled by sqrt(depth)).
double tolerance(DType dtype, size_t depth = 1);

/// How far a result is from its reference.
struct Comparison {
  double max_abs = 0;      // max |got - ref|
  double max_rel = 0;      // max |got - ref| / max(1, max |ref|)
  double allowed_abs = 0;  // tolerance * max(1, max |ref|)
  int64_t nan_in_both = 0; // elements NaN in result and reference (no error measured there)
  bool shape_ok = true;
  bool ok = true; // shapes agree, no NaN where the reference has none, max_abs <= allowed_abs
};

/// Compares `got` with `reference` under the tolerance of `dtype` and `depth`.
Comparison compare(const Tensor& got, const Tensor& reference, DType dtype, size_t depth = 1);

} // namespace tilesat::runtime
