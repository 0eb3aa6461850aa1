// Tensor shapes and NumPy-style broadcasting.
//
// A shape is a list of non-negative extents; rank 0 is a scalar. Binary ops broadcast as NumPy
// does: shapes are aligned at the right, and each pair of extents must be equal or one of them 1.
//
//   Shape a{32, 256}, b{256};
//   broadcast_shapes(a, b).value();   // {32, 256}
//   a.str();                          // "32x256"
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tilesat {

class Shape {
public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  int64_t operator[](int64_t i) const { return dims_[static_cast<size_t>(i)]; }
  int64_t& operator[](int64_t i) { return dims_[static_cast<size_t>(i)]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  std::vector<int64_t>& dims() { return dims_; }
  auto begin() const { return dims_.begin(); }
  auto end() const { return dims_.end(); }

  /// The most elements a tensor may have, everywhere a shape comes from a user (text, ONNX,
  /// ops' attributes): 2^40, far past memory, far from overflowing int64.
  static constexpr int64_t kMaxElements = int64_t{1} << 40;
  /// The product of `dims` when every one is non-negative and the product is at most
  /// kMaxElements (computed without overflow); nullopt otherwise.
  ///   Shape::checked_numel({1 << 20, 1 << 20}) == 1 << 40;  checked_numel({-1}) == nullopt
  static std::optional<int64_t> checked_numel(std::span<const int64_t> dims);

  /// Product of the extents (1 for a scalar).
  int64_t numel() const;
  /// Row-major strides in elements.
  std::vector<int64_t> strides() const;
  /// "32x128"; "" for a scalar (as in `tensor<f32>`).
  std::string str() const;
  /// Number of 32x32 tiles after padding the last two dims up to multiples of 32.
  int64_t tile_count() const;

  friend bool operator==(const Shape&, const Shape&) = default;

private:
  std::vector<int64_t> dims_;
};

/// NumPy broadcast of two shapes, or nullopt if they are incompatible.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);

/// Normalizes a possibly negative axis into [0, rank); nullopt when out of range.
std::optional<int64_t> normalize_axis(int64_t axis, int64_t rank);

} // namespace tilesat
