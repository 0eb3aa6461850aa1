// memory.cpp: page addressing and the element formats of stored tiles and rows.
#include "memory.h"

#include "tilesat/graph/diagnostic.h"
#include "tilesat/runtime/numerics.h"

#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <limits>
#include <new>

namespace tilesat::runtime::detail {

using program::face_offset;
using program::kTile;

DeviceMemory::DeviceMemory(uint32_t rows, uint32_t cols, uint64_t l1_bytes, uint64_t dram_bytes)
    : cols_(cols), l1_bytes_(l1_bytes) {
  // Arenas are not zeroed: a program reads only what it wrote (verified data flow), and the
  // operating system maps untouched pages lazily.
  l1_.reserve(static_cast<size_t>(rows) * cols);
  for (size_t i = 0; i < static_cast<size_t>(rows) * cols; ++i)
    l1_.push_back(std::make_unique_for_overwrite<uint8_t[]>(l1_bytes));
  try {
    dram_ = std::make_unique_for_overwrite<uint8_t[]>(std::max<uint64_t>(dram_bytes, 1));
  } catch (const std::bad_alloc&) {
    throw Error(fmt::format("cannot allocate the {} bytes of host memory that model the "
                            "program's DRAM",
                            dram_bytes));
  }
}

TensorRef tensor_ref(const fb::Program& p, uint32_t tensor) {
  TensorRef r;
  r.desc = p.tensors()->Get(tensor);
  const fb::Buffer& b = *p.buffers()->Get(r.desc->buffer());
  r.shape = shape_of(*r.desc);
  r.view = program::tile_view(r.shape);
  r.placement = placement_of(*r.desc, b);
  r.address = b.address();
  return r;
}

uint8_t* page_ptr(DeviceMemory& m, const TensorRef& t, int64_t page) {
  std::optional<program::PageLocation> loc = program::locate_page(t.placement, t.view, page);
  if (!loc) throw InternalError("page outside its placement (the verifier should have refused)");
  if (t.placement.buffer == fb::BufferType::DRAM) return m.dram() + t.address + loc->offset;
  return m.l1(loc->core_row, loc->core_col) + t.address + loc->offset;
}

int32_t to_i32(float x) {
  if (std::isnan(x)) return 0;
  if (x >= 2147483647.0f) return std::numeric_limits<int32_t>::max();
  if (x <= -2147483648.0f) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(x);
}

namespace {

int64_t tile_page(const TensorRef& t, int64_t b, int64_t tr, int64_t tc) {
  return (b * t.view.tile_rows + tr) * t.view.tile_cols + tc;
}

void decode_tile_page(const uint8_t* src, fb::DType d, float* out) {
  switch (d) {
  case fb::DType::F32:
    std::memcpy(out, src, 4096);
    break;
  case fb::DType::BF16:
    for (int i = 0; i < 1024; ++i) {
      uint16_t bits;
      std::memcpy(&bits, src + 2 * i, 2);
      out[i] = from_bf16_bits(bits);
    }
    break;
  case fb::DType::BFP8_B:
    decode_bfp8_tile(src, out);
    break;
  case fb::DType::I32:
    for (int i = 0; i < 1024; ++i) {
      int32_t v;
      std::memcpy(&v, src + 4 * i, 4);
      out[i] = static_cast<float>(v);
    }
    break;
  }
}

void encode_tile_page(float* values, fb::DType d, uint8_t* dst) {
  switch (d) {
  case fb::DType::F32:
    std::memcpy(dst, values, 4096);
    break;
  case fb::DType::BF16:
    for (int i = 0; i < 1024; ++i) {
      uint16_t bits = to_bf16_bits(values[i]);
      std::memcpy(dst + 2 * i, &bits, 2);
    }
    break;
  case fb::DType::BFP8_B:
    encode_bfp8_tile(values, dst);
    break;
  case fb::DType::I32:
    for (int i = 0; i < 1024; ++i) {
      int32_t v = to_i32(values[i]);
      std::memcpy(dst + 4 * i, &v, 4);
    }
    break;
  }
}

float read_row_element(const uint8_t* row, fb::DType d, int64_t i) {
  if (d == fb::DType::BF16 || d == fb::DType::BFP8_B) {
    uint16_t bits;
    std::memcpy(&bits, row + 2 * i, 2);
    return from_bf16_bits(bits);
  }
  if (d == fb::DType::I32) {
    int32_t v;
    std::memcpy(&v, row + 4 * i, 4);
    return static_cast<float>(v);
  }
  float v;
  std::memcpy(&v, row + 4 * i, 4);
  return v;
}

void write_row_element(uint8_t* row, fb::DType d, int64_t i, float x) {
  if (d == fb::DType::BF16 || d == fb::DType::BFP8_B) {
    uint16_t bits = to_bf16_bits(x);
    std::memcpy(row + 2 * i, &bits, 2);
  } else if (d == fb::DType::I32) {
    int32_t v = to_i32(x);
    std::memcpy(row + 4 * i, &v, 4);
  } else {
    std::memcpy(row + 4 * i, &x, 4);
  }
}

} // namespace

void read_tile(DeviceMemory& m, const TensorRef& t, int64_t b, int64_t tr, int64_t tc, float* out) {
  if (t.layout() == fb::Layout::Tile) {
    decode_tile_page(page_ptr(m, t, tile_page(t, b, tr, tc)), t.dtype(), out);
    return;
  }
  std::memset(out, 0, 4096);
  int64_t r_end = std::min(kTile, t.view.rows - tr * kTile);
  int64_t c_end = std::min(kTile, t.view.cols - tc * kTile);
  for (int64_t r = 0; r < r_end; ++r) {
    const uint8_t* row = page_ptr(m, t, b * t.view.rows + tr * kTile + r);
    for (int64_t c = 0; c < c_end; ++c)
      out[face_offset(r, c)] = read_row_element(row, t.dtype(), tc * kTile + c);
  }
}

void write_tile(DeviceMemory& m, const TensorRef& t, int64_t b, int64_t tr, int64_t tc,
                float* values) {
  if (t.layout() == fb::Layout::Tile) {
    encode_tile_page(values, t.dtype(), page_ptr(m, t, tile_page(t, b, tr, tc)));
    return;
  }
  int64_t r_end = std::min(kTile, t.view.rows - tr * kTile);
  int64_t c_end = std::min(kTile, t.view.cols - tc * kTile);
  for (int64_t r = 0; r < r_end; ++r) {
    uint8_t* row = page_ptr(m, t, b * t.view.rows + tr * kTile + r);
    for (int64_t c = 0; c < c_end; ++c)
      write_row_element(row, t.dtype(), tc * kTile + c, values[face_offset(r, c)]);
  }
}

std::vector<float> read_logical(DeviceMemory& m, const TensorRef& t) {
  const program::TileView& v = t.view;
  std::vector<float> out(static_cast<size_t>(numel(t.shape)));
  if (out.empty()) return out;
  if (t.layout() == fb::Layout::RowMajor) {
    for (int64_t p = 0; p < v.batch * v.rows; ++p) {
      const uint8_t* row = page_ptr(m, t, p);
      for (int64_t c = 0; c < v.cols; ++c)
        out[static_cast<size_t>(p * v.cols + c)] = read_row_element(row, t.dtype(), c);
    }
    return out;
  }
  float tile[1024];
  for (int64_t b = 0; b < v.batch; ++b)
    for (int64_t tr = 0; tr < v.tile_rows; ++tr)
      for (int64_t tc = 0; tc < v.tile_cols; ++tc) {
        read_tile(m, t, b, tr, tc, tile);
        int64_t r_end = std::min(kTile, v.rows - tr * kTile);
        int64_t c_end = std::min(kTile, v.cols - tc * kTile);
        for (int64_t r = 0; r < r_end; ++r)
          for (int64_t c = 0; c < c_end; ++c)
            out[static_cast<size_t>((b * v.rows + tr * kTile + r) * v.cols + tc * kTile + c)] =
                tile[face_offset(r, c)];
      }
  return out;
}

void write_logical(DeviceMemory& m, const TensorRef& t, const std::vector<float>& values) {
  const program::TileView& v = t.view;
  float tile[1024];
  for (int64_t b = 0; b < v.batch; ++b)
    for (int64_t tr = 0; tr < v.tile_rows; ++tr)
      for (int64_t tc = 0; tc < v.tile_cols; ++tc) {
        std::memset(tile, 0, sizeof tile);
        int64_t r_end = std::min(kTile, v.rows - tr * kTile);
        int64_t c_end = std::min(kTile, v.cols - tc * kTile);
        for (int64_t r = 0; r < r_end; ++r)
          for (int64_t c = 0; c < c_end; ++c)
            tile[face_offset(r, c)] = values[static_cast<size_t>(
                (b * v.rows + tr * kTile + r) * v.cols + tc * kTile + c)];
        write_tile(m, t, b, tr, tc, tile);
      }
}

} // namespace tilesat::runtime::detail
