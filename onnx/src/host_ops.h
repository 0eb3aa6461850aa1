// host_ops.h: private to onnx/: evaluating ops on HostTensor values at import time, to fold
// shape-computing subgraphs (Shape -> Gather -> Concat -> Reshape ...) into constants.
#pragma once

#include "host_tensor.h"

#include <functional>
#include <span>

namespace tilesat::onnx {

/// f applied to each element; the result has `elem_type`.
HostTensor host_unary(const HostTensor& a, const std::function<double(double)>& f,
                      int32_t elem_type);
/// f applied with NumPy broadcasting; throws tilesat::Error when the shapes do not broadcast.
HostTensor host_binary(const HostTensor& a, const HostTensor& b,
                       const std::function<double(double, double)>& f, int32_t elem_type);
/// Slices of `data` along `axis` picked by `indices` (negative counts from the end).
HostTensor host_take(const HostTensor& data, const HostTensor& indices, int64_t axis);
HostTensor host_concat(std::span<const HostTensor* const> parts, int64_t axis);
/// Per dim: first index, count and step (step may be negative).
struct SliceDim {
  int64_t start = 0, count = 0, step = 1;
};
HostTensor host_slice(const HostTensor& a, std::span<const SliceDim> dims);
/// Result dim i is operand dim perm[i].
HostTensor host_permute(const HostTensor& a, std::span<const int64_t> perm);

/// The per-dim slice of ONNX Slice semantics (clamping, negative indices and steps) for the
/// given starts/ends/axes/steps over `shape`; throws on a zero step or an axis out of range.
std::vector<SliceDim> slice_dims(std::span<const int64_t> shape, std::span<const int64_t> starts,
                                 std::span<const int64_t> ends, std::span<const int64_t> axes,
                                 std::span<const int64_t> steps);
/// Result dims of ONNX Reshape: 0 copies the input dim (unless allow_zero), one -1 is inferred.
std::vector<int64_t> reshape_dims(std::span<const int64_t> in, std::span<const int64_t> shape,
                                  bool allow_zero);
/// `axis` in [-rank, rank) normalized, else throws naming `what`.
int64_t norm_axis(int64_t axis, int64_t rank, std::string_view what);

} // namespace tilesat::onnx
