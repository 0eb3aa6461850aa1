// tensor.cpp: tensor types, host tensors and rounding to a dtype's precision.
#include "tilesat/graph/tensor.h"

#include "tilesat/graph/data_files.h"
#include "tilesat/graph/diagnostic.h"

#include <bit>
#include <cmath>
#include <fmt/format.h>

namespace tilesat {

std::string TensorType::str() const {
  std::string dims = shape.str();
  std::string out = "tensor<" + dims + (dims.empty() ? "" : "x") + std::string(dtype_name(dtype));
  if (!encoding.empty()) out += ", " + encoding;
  return out + ">";
}

Tensor::Tensor(TensorType type) : type_(std::move(type)) {
  // Held as floats: 4 bytes per element, checked against the machine before allocating.
  const auto bytes = static_cast<uint64_t>(type_.shape.numel()) * sizeof(float);
  if (bytes > host_memory_bytes())
    throw Error(fmt::format("{} needs {} bytes of host memory, more than this machine's {}",
                            type_.str(), bytes, host_memory_bytes()));
  try {
    data_.assign(static_cast<size_t>(type_.shape.numel()), 0.0f);
  } catch (const std::bad_alloc&) {
    throw Error(
        fmt::format("{} needs {} bytes of host memory: cannot allocate them", type_.str(), bytes));
  }
}

Tensor::Tensor(TensorType type, std::vector<float> data)
    : type_(std::move(type)), data_(std::move(data)) {
  if (static_cast<int64_t>(data_.size()) != type_.shape.numel()) {
    throw Error(fmt::format("expected {} elements for {}, got {}", type_.shape.numel(), type_.str(),
                            data_.size()));
  }
}

int64_t Tensor::flat_index(std::initializer_list<int64_t> index) const {
  const Shape& s = type_.shape;
  if (static_cast<int64_t>(index.size()) != s.rank()) {
    throw InternalError(
        fmt::format("Tensor::at: expected {} indices, got {}", s.rank(), index.size()));
  }
  int64_t flat = 0, d = 0;
  for (int64_t i : index) {
    if (i < 0 || i >= s[d]) {
      throw InternalError(
          fmt::format("Tensor::at: expected index {} in [0, {}), got {}", d, s[d], i));
    }
    flat = flat * s[d] + i;
    ++d;
  }
  return flat;
}

float& Tensor::at(std::initializer_list<int64_t> index) {
  return data_[static_cast<size_t>(flat_index(index))];
}

float Tensor::at(std::initializer_list<int64_t> index) const {
  return data_[static_cast<size_t>(flat_index(index))];
}

namespace {

float round_to_i32(float x) {
  if (std::isnan(x)) return 0.0f;
  // Saturate like a float -> int32 conversion that cannot overflow.
  if (x >= 2147483648.0f) return 2147483647.0f;
  if (x <= -2147483648.0f) return -2147483648.0f;
  return std::trunc(x);
}

} // namespace

void Tensor::round_to_dtype() {
  switch (type_.dtype) {
  case DType::F32:
    return;
  // The reference keeps bfp8_b values at bf16 precision: the block exponents depend on the
  // tile layout, which only the runtime knows.
  case DType::BF16:
  case DType::BFP8_B:
    for (float& x : data_) x = round_to_bf16(x);
    return;
  case DType::I32:
    for (float& x : data_) x = round_to_i32(x);
    return;
  }
}

float round_to_bf16(float x) {
  if (std::isnan(x)) return x;
  uint32_t bits = std::bit_cast<uint32_t>(x);
  uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7fffu + lsb; // ties go to the even upper half
  bits &= 0xffff0000u;
  return std::bit_cast<float>(bits);
}

} // namespace tilesat
