// common.cpp: helpers shared by the op families: messages, axes and strided indexing.
#include "ops/op_impl.h"

#include <fmt/format.h>

namespace tilesat::ops {

void fail(std::string message) {
  throw Error(std::move(message));
}

std::string list_str(std::span<const int64_t> v) {
  return fmt::format("[{}]", fmt::join(v, ", "));
}

int64_t axis_or_fail(int64_t axis, int64_t rank, std::string_view what) {
  std::optional<int64_t> a = normalize_axis(axis, rank);
  if (!a) fail(fmt::format("expected {} in [{}, {}), got {}", what, -rank, rank, axis));
  return *a;
}

void check_shape(std::span<const int64_t> dims, std::string_view what) {
  for (int64_t d : dims)
    if (d < 0)
      fail(fmt::format("expected non-negative extents in {}, got {}", what, list_str(dims)));
  if (!Shape::checked_numel(dims))
    fail(fmt::format("expected at most 2^40 elements in {}, got {}", what, list_str(dims)));
}

void check_same_dtype(DType a, DType b) {
  if (a != b) {
    fail(fmt::format("expected operand dtypes to match, got {} and {}", dtype_name(a),
                     dtype_name(b)));
  }
}

std::vector<int64_t> broadcast_strides(const Shape& operand, const Shape& result,
                                       std::span<const int64_t> dims) {
  std::vector<int64_t> in = operand.strides();
  std::vector<int64_t> out(static_cast<size_t>(result.rank()), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (operand[static_cast<int64_t>(i)] != 1) out[static_cast<size_t>(dims[i])] = in[i];
  }
  return out;
}

std::vector<int64_t> right_aligned_dims(int64_t rank, int64_t result_rank) {
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) dims[static_cast<size_t>(i)] = result_rank - rank + i;
  return dims;
}

std::vector<int64_t> strided_offsets(const Shape& shape, std::span<const int64_t> strides,
                                     int64_t base) {
  int64_t n = shape.numel();
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(n));
  std::vector<int64_t> index(static_cast<size_t>(shape.rank()), 0);
  int64_t offset = base;
  for (int64_t k = 0; k < n; ++k) {
    out.push_back(offset);
    // Advance the row-major counter, keeping `offset` in step with it.
    for (int64_t d = shape.rank() - 1; d >= 0; --d) {
      auto ud = static_cast<size_t>(d);
      if (++index[ud] < shape[d]) {
        offset += strides[ud];
        break;
      }
      offset -= strides[ud] * (shape[d] - 1);
      index[ud] = 0;
    }
  }
  return out;
}

Tensor gather(const Tensor& in, const TensorType& result, std::span<const int64_t> offsets) {
  Tensor out(result);
  for (size_t i = 0; i < offsets.size(); ++i)
    out.data()[i] = in.data()[static_cast<size_t>(offsets[i])];
  return out;
}

} // namespace tilesat::ops
