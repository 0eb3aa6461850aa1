// Host tensors: the values the reference interpreter computes with.
//
// Elements are stored as f32 in row-major order whatever the logical dtype; a bf16 tensor's
// values are f32 values already rounded to bf16 (round-to-nearest-even), an i32 tensor holds
// integral values (exact up to 2^24). `TensorType` is the static type of a graph value.
//
//   Tensor t(TensorType{DType::F32, Shape{2, 3}});
//   t.at({1, 2}) = 5.0f;
//   t.numel();   // 6
#pragma once

#include "tilesat/graph/dtype.h"
#include "tilesat/graph/shape.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace tilesat {

/// The static type of a value: element type, shape, and an optional encoding such as
/// `#ttnn_layout` that tilesat carries through text unchanged.
struct TensorType {
  DType dtype = DType::F32;
  Shape shape;
  std::string encoding = {};

  /// "tensor<32x128xf32>" (with ", #enc" when an encoding is present).
  std::string str() const;
  /// Same dtype and shape (the encoding is ignored).
  bool same_value_type(const TensorType& o) const { return dtype == o.dtype && shape == o.shape; }
  friend bool operator==(const TensorType&, const TensorType&) = default;
};

class Tensor {
public:
  Tensor() = default;
  /// Zero-filled tensor of the given type.
  explicit Tensor(TensorType type);
  Tensor(TensorType type, std::vector<float> data);

  const TensorType& type() const { return type_; }
  DType dtype() const { return type_.dtype; }
  const Shape& shape() const { return type_.shape; }
  int64_t numel() const { return static_cast<int64_t>(data_.size()); }
  std::vector<float>& data() { return data_; }
  const std::vector<float>& data() const { return data_; }

  float& at(std::initializer_list<int64_t> index);
  float at(std::initializer_list<int64_t> index) const;
  float& operator[](int64_t flat) { return data_[static_cast<size_t>(flat)]; }
  float operator[](int64_t flat) const { return data_[static_cast<size_t>(flat)]; }

  /// Rounds every element to the dtype's precision (bf16: nearest-even; i32: trunc toward zero).
  void round_to_dtype();

private:
  int64_t flat_index(std::initializer_list<int64_t> index) const;
  TensorType type_;
  std::vector<float> data_;
};

/// f32 -> bf16 -> f32 with round-to-nearest-even (NaN stays NaN).
float round_to_bf16(float x);

} // namespace tilesat
