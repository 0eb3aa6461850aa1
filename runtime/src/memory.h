// memory.h: the CPU model's memories (one L1 arena per core, DRAM) and tile/row access to
// the tensors stored in them, following tilesat/program/storage.h.
#pragma once

#include "program_view.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace tilesat::runtime::detail {

class DeviceMemory {
public:
  DeviceMemory(uint32_t rows, uint32_t cols, uint64_t l1_bytes, uint64_t dram_bytes);
  uint8_t* l1(uint32_t row, uint32_t col) {
    return l1_[static_cast<size_t>(row) * cols_ + col].get();
  }
  uint8_t* dram() { return dram_.get(); }
  uint64_t l1_bytes() const { return l1_bytes_; }

private:
  uint32_t cols_;
  uint64_t l1_bytes_;
  std::vector<std::unique_ptr<uint8_t[]>> l1_;
  std::unique_ptr<uint8_t[]> dram_;
};

/// A tensor of the program with everything needed to find its pages.
struct TensorRef {
  const fb::Tensor* desc = nullptr;
  std::vector<int64_t> shape;
  program::TileView view;
  program::Placement placement;
  uint64_t address = 0;
  fb::DType dtype() const { return placement.dtype; }
  fb::Layout layout() const { return placement.layout; }
};

TensorRef tensor_ref(const fb::Program& p, uint32_t tensor);

/// The bytes of page `page` (verified to lie inside its memory).
uint8_t* page_ptr(DeviceMemory& m, const TensorRef& t, int64_t page);

/// Reads output-tile (b, tr, tc) of a tile or row-major tensor as 1024 floats in face order
/// (padding reads as zero).
void read_tile(DeviceMemory& m, const TensorRef& t, int64_t b, int64_t tr, int64_t tc, float* out);
/// Writes 1024 floats (face order) as tile (b, tr, tc), rounding to the tensor's dtype; in a
/// row-major tensor only the elements inside the shape are written.
void write_tile(DeviceMemory& m, const TensorRef& t, int64_t b, int64_t tr, int64_t tc,
                float* values);
/// The whole tensor as logical row-major floats.
std::vector<float> read_logical(DeviceMemory& m, const TensorRef& t);
/// Stores logical row-major floats into the tensor's pages (padding zero).
void write_logical(DeviceMemory& m, const TensorRef& t, const std::vector<float>& values);

/// Rounds a value to an i32 as a typecast does (toward zero, saturating, NaN -> 0).
int32_t to_i32(float x);

} // namespace tilesat::runtime::detail
