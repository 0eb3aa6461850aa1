// host_tensor.h: private to onnx/: tensor data known at import time (constants, initializers
// and folded shape computations), kept in double so int64 shape values stay exact.
#pragma once

#include "tilesat/graph/tensor.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class TensorProto;
}

namespace tilesat::onnx {

/// The largest tensor the importer keeps or folds on the host as doubles (elements).
inline constexpr int64_t kMaxHostElements = int64_t{1} << 28;
/// The largest initializer the importer keeps as f32 (elements): a weight is never folded
/// element by element, so it may be larger than kMaxHostElements (an LLM's embedding table).
inline constexpr int64_t kMaxWeightElements = int64_t{1} << 32;

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

/// The import-time data of one value: either decoded values (a HostTensor), or a tensor whose
/// every element is exact in f32 (a float, float16 or 8/16-bit integer initializer), kept at
/// 4 bytes an element and decoded into a HostTensor only when a converter reads its values.
/// A weight's f32 values move into the imported model's weights when it becomes an argument,
/// and are read there from then on, so a model's weights are held once.
///
///   HostData d = HostData::compact(TP::FLOAT, tensor);
///   d.dims();          // from the tensor, nothing decoded
///   d->values.at(0);   // decodes to doubles, kept until drop_decoded()
class HostData {
public:
  HostData() = default;
  HostData(std::nullopt_t) {} // NOLINT: as std::optional
  HostData(HostTensor h) : full_(std::move(h)) {}
  HostData(std::optional<HostTensor> h) : full_(std::move(h)) {}
  /// `values` as data of ONNX type `elem_type` (each element exact in f32).
  static HostData compact(int32_t elem_type, Tensor values);

  bool has_value() const { return full_.has_value() || compact_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  int32_t elem_type() const;
  const std::vector<int64_t>& dims() const;
  int64_t numel() const;
  bool is_integer() const;

  /// The values as doubles; a compact tensor is decoded on first use (an error when it has
  /// more than kMaxHostElements).
  const HostTensor& operator*() const;
  const HostTensor* operator->() const { return &**this; }
  /// The f32 values of compact data, or null.
  const Tensor* compact_values() const;
  /// Moves compact values into `dest`, which they are read from afterwards (`dest` must
  /// outlive every copy of this data); copies when they were moved before.
  void move_compact_to(Tensor& dest);
  /// Frees what operator* decoded from compact values.
  void drop_decoded() const;

private:
  struct Compact {
    int32_t elem_type = 0;
    std::vector<int64_t> dims;
    Tensor owned;
    const Tensor* moved = nullptr;
    std::optional<HostTensor> decoded;
    const Tensor& values() const { return moved != nullptr ? *moved : owned; }
  };
  std::optional<HostTensor> full_;
  std::shared_ptr<Compact> compact_;
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
/// True when every value of ONNX type `elem_type` is exact in f32 (so decode_data keeps the
/// tensor compact).
bool exact_in_f32(int32_t elem_type);
/// decode(), but a tensor of a type exact_in_f32 is kept as f32 (HostData::compact) without
/// passing through doubles; such tensors may have up to kMaxWeightElements elements.
HostData decode_data(const ::onnx::TensorProto& t, const std::string& what);
/// Converts to a tilesat tensor of `dtype`.
Tensor to_tensor(const HostTensor& h, DType dtype);
/// The same for HostData, from compact values without decoding them.
Tensor to_tensor(const HostData& h, DType dtype);

} // namespace tilesat::onnx
