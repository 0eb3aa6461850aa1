// take.cpp: take (NumPy's take along one dim): picks slices of a tensor by integer indices,
// the form of ONNX Gather and of embedding lookups.
#include "ops/op_impl.h"

#include <cmath>
#include <fmt/format.h>

namespace tilesat::ops {

namespace {

// Extents before `dim`, at `dim`, and after it.
struct TakeLayout {
  int64_t dim = 0;
  int64_t outer = 1, extent = 1, inner = 1;
};

TakeLayout take_layout(const Shape& data, const Attrs& attrs) {
  if (data.rank() < 1) fail("expected a data operand of rank >= 1, got rank 0");
  TakeLayout l;
  l.dim = axis_or_fail(attrs.get<int64_t>("dim"), data.rank(), "'dim'");
  l.extent = data[l.dim];
  for (int64_t d = 0; d < l.dim; ++d) l.outer *= data[d];
  for (int64_t d = l.dim + 1; d < data.rank(); ++d) l.inner *= data[d];
  return l;
}

} // namespace

TensorType infer_take(const InferArgs& in) {
  const TensorType& data = *in.operands[0];
  const TensorType& indices = *in.operands[1];
  if (indices.dtype != DType::I32) {
    fail(fmt::format("expected i32 indices, got {}", dtype_name(indices.dtype)));
  }
  TakeLayout l = take_layout(data.shape, in.attrs);
  std::vector<int64_t> dims(data.shape.begin(), data.shape.begin() + l.dim);
  dims.insert(dims.end(), indices.shape.begin(), indices.shape.end());
  dims.insert(dims.end(), data.shape.begin() + l.dim + 1, data.shape.end());
  check_shape(dims, "the result shape");
  return TensorType{data.dtype, Shape(std::move(dims)), {}};
}

Tensor eval_take(const EvalArgs& in) {
  const Tensor& data = *in.operands[0];
  const Tensor& indices = *in.operands[1];
  TakeLayout l = take_layout(data.shape(), in.attrs);
  Tensor out(in.result);
  int64_t n = indices.numel();
  for (int64_t i = 0; i < n; ++i) {
    float raw = indices[i];
    // Indices may count from the end, as in NumPy and ONNX.
    if (!(raw >= static_cast<float>(-l.extent) && raw < static_cast<float>(l.extent))) {
      fail(fmt::format("expected indices in [{}, {}), got {} at flat position {}", -l.extent,
                       l.extent, raw, i));
    }
    auto idx = static_cast<int64_t>(raw);
    if (idx < 0) idx += l.extent;
    for (int64_t o = 0; o < l.outer; ++o) {
      for (int64_t k = 0; k < l.inner; ++k) {
        out[(o * n + i) * l.inner + k] = data[(o * l.extent + idx) * l.inner + k];
      }
    }
  }
  return out;
}

} // namespace tilesat::ops
