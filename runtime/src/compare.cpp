// compare.cpp: normwise comparison of device results with the reference interpreter.
#include "tilesat/runtime/compare.h"

#include <algorithm>
#include <cmath>

namespace tilesat::runtime {

double tolerance(DType dtype, size_t depth) {
  double walk = std::sqrt(static_cast<double>(std::max<size_t>(depth, 1)));
  switch (dtype) {
  case DType::F32:
  case DType::I32:
    return 1e-5;
  case DType::BF16:
    return 0x1p-7 * walk;
  case DType::BFP8_B:
    return 5e-2;
  }
  return 5e-2;
}

Comparison compare(const Tensor& got, const Tensor& reference, DType dtype, size_t depth) {
  Comparison c;
  if (got.shape() != reference.shape()) {
    c.shape_ok = false;
    c.ok = false;
    return c;
  }
  double scale = 1.0;
  bool nan = false;
  for (int64_t i = 0; i < reference.numel(); ++i) {
    double r = reference[i], g = got[i];
    if (std::isfinite(r)) scale = std::max(scale, std::abs(r));
    if (std::isnan(g) != std::isnan(r)) nan = true;
    if (std::isnan(g) && std::isnan(r)) ++c.nan_in_both;
    if (!std::isnan(g) && !std::isnan(r)) c.max_abs = std::max(c.max_abs, std::abs(g - r));
  }
  c.max_rel = c.max_abs / scale;
  c.allowed_abs = tolerance(dtype, depth) * scale;
  c.ok = !nan && c.max_abs <= c.allowed_abs;
  if (nan) c.max_abs = c.max_rel = NAN;
  return c;
}

} // namespace tilesat::runtime
