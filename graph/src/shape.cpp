// shape.cpp: extents, strides, tile counts and NumPy broadcasting.
#include "tilesat/graph/shape.h"

#include <fmt/format.h>

namespace tilesat {

std::optional<int64_t> Shape::checked_numel(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d != 0 && n > kMaxElements / d)) return std::nullopt;
    n *= d;
  }
  return n;
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::vector<int64_t> Shape::strides() const {
  std::vector<int64_t> s(dims_.size(), 1);
  for (size_t i = dims_.size(); i > 1; --i) s[i - 2] = s[i - 1] * dims_[i - 1];
  return s;
}

std::string Shape::str() const {
  return fmt::format("{}", fmt::join(dims_, "x"));
}

int64_t Shape::tile_count() const {
  // A rank-1 tensor is one row; a scalar occupies one tile.
  auto tiles = [](int64_t extent, int64_t tile) { return (extent + tile - 1) / tile; };
  int64_t rows = rank() >= 2 ? dims_[dims_.size() - 2] : 1;
  int64_t cols = rank() >= 1 ? dims_.back() : 1;
  int64_t batch = 1;
  for (int64_t i = 0; i + 2 < rank(); ++i) batch *= dims_[static_cast<size_t>(i)];
  return batch * tiles(rows, 32) * tiles(cols, 32);
}

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  int64_t rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) {
    int64_t ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[static_cast<size_t>(i)] = da == 1 ? db : da;
  }
  return Shape(std::move(out));
}

std::optional<int64_t> normalize_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

} // namespace tilesat
