// host_tensor.h: private to onnx/: tensor data known at import time (constants, initializers
// and folded shape computations), kept in double so int64 shape values stay exact.
#pragma once

#include "tilesat/graph/tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class TensorProto;
}

namespace tilesat::onnx {

/// The largest tensor the importer keeps or folds on the host (elements).
inline constexpr int64_t kMaxHostElements = int64_t{1} << 28;

/// Values of an ONNX tensor known at import time.
struct HostTensor {
  int32_t elem_type = 1; // onnx::TensorProto_DataType
  std::vector<int64_t> dims;
  std::vector<double> values; // row-major

  int64_t numel() const { return static_cast<int64_t>(values.size()); }
  bool is_integer() const;
  /// The values as int64 (each rounded toward zero).
  std::vector<int64_t> ints() const;
};

/// "FLOAT", "INT64", ... (the TensorProto.DataType name).
std::string elem_type_name(int32_t elem_type);
/// The tilesat dtype of an ONNX element type, or nullopt when tilesat has none: every integer
/// type and bool map to i32 (as int64 always has: values beyond i32 are not kept exactly);
/// double and float16 compute in f32; strings and complex are not supported.
std::optional<DType> dtype_of(int32_t elem_type);
/// Decodes a TensorProto (raw_data or typed fields); throws tilesat::Error naming `what` for
/// unsupported element types, external data, or data that does not match the dims.
HostTensor decode(const ::onnx::TensorProto& t, const std::string& what);
/// Converts to a tilesat tensor of `dtype`.
Tensor to_tensor(const HostTensor& h, DType dtype);

} // namespace tilesat::onnx
