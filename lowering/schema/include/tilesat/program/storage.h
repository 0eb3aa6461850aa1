// The storage contract of a program's tensors: how a tensor's elements are laid out in pages,
// and where each page lives in its buffer. The lowering (which sizes and places buffers) and
// the runtime (which reads and writes them) both use these functions, so they cannot disagree.
//
// A tensor is seen in 3-D as [batch, rows, cols]: its last two dims (a rank-1 tensor is one
// row, a scalar one element), all leading dims folded into `batch`.
//  - Tile layout: each batch is padded to whole 32x32 tiles; a page is one tile, numbered
//    (batch, tile row, tile col) row-major. Inside a tile the elements are four 16x16 faces
//    (top-left, top-right, bottom-left, bottom-right), each row-major, as Tenstorrent tiles
//    are stored (tt-metal, "Tiles" in docs/source/tt-metalium/tt_metal/advanced_topics/tiles.rst).
//    Page bytes: tile_bytes(dtype) (f32/i32 4096, bf16 2048, bfp8_b 1088).
//  - Row-major layout: a page is one row (cols elements); bfp8_b, whose shared exponents only
//    exist in tiles, is held as bf16 in row-major pages.
//  - DRAM: pages back to back from the buffer's address.
//  - L1 interleaved: page p on core p mod n of the buffer's cores (row-major order), at
//    address + (p div n) * page bytes.
//  - L1 sharded (tile layout only): the 2-D tile grid (batch * tile rows, tile cols) is cut
//    into shards of shard_tile_rows x shard_tile_cols tiles; height sharding deals shard rows
//    to cores in row-major order, width sharding shard columns, block sharding maps shard
//    (i, j) to core (row_begin + i, col_begin + j).
//
//   TileView v = tile_view(std::vector<int64_t>{2, 40, 70});   // batch 2, 2x3 tiles each
//   page_count(fb::Layout::Tile, v);                            // 12
#pragma once

#include "program_generated.h"

#include <cstdint>
#include <optional>
#include <span>

namespace tilesat::program {

/// The major version this build writes and reads, and the minor version it writes.
inline constexpr uint16_t kVersionMajor = 1;
inline constexpr uint16_t kVersionMinor = 6;
/// Since version 1.3 a program file ends with a checksum trailer (FlatBuffers has none): the
/// CRC-32 (zlib polynomial) of every byte before the trailer, little-endian, then "TSCK".
inline constexpr char kChecksumMagic[4] = {'T', 'S', 'C', 'K'};
inline constexpr size_t kChecksumTrailerBytes = 8;
inline constexpr int64_t kTile = 32;
inline constexpr int64_t kFace = 16;

/// A tensor as [batch, rows, cols] plus its tile counts.
struct TileView {
  int64_t batch = 1, rows = 1, cols = 1;
  int64_t tile_rows = 1, tile_cols = 1;
  int64_t tiles() const { return batch * tile_rows * tile_cols; }
};

inline TileView tile_view(std::span<const int64_t> shape) {
  TileView v;
  size_t r = shape.size();
  if (r >= 1) v.cols = shape[r - 1];
  if (r >= 2) v.rows = shape[r - 2];
  for (size_t i = 0; i + 2 < r; ++i) v.batch *= shape[i];
  v.tile_rows = (v.rows + kTile - 1) / kTile;
  v.tile_cols = (v.cols + kTile - 1) / kTile;
  return v;
}

/// Offset of element (r, c) of a 32x32 tile, in elements, in face order.
inline constexpr int64_t face_offset(int64_t r, int64_t c) {
  return ((r / kFace) * 2 + c / kFace) * kFace * kFace + (r % kFace) * kFace + (c % kFace);
}

inline int64_t tile_page_bytes(fb::DType d) {
  switch (d) {
  case fb::DType::BF16:
    return 2048;
  case fb::DType::BFP8_B:
    return 1088; // 1024 mantissa bytes + 64 shared exponents
  default:
    return 4096;
  }
}

/// Bytes per element in a row-major page.
inline int64_t row_major_element_bytes(fb::DType d) {
  return d == fb::DType::BF16 || d == fb::DType::BFP8_B ? 2 : 4;
}

inline int64_t page_count(fb::Layout layout, const TileView& v) {
  return layout == fb::Layout::Tile ? v.tiles() : v.batch * v.rows;
}

inline int64_t page_bytes(fb::Layout layout, fb::DType d, const TileView& v) {
  return layout == fb::Layout::Tile ? tile_page_bytes(d) : v.cols * row_major_element_bytes(d);
}

inline uint32_t range_rows(const fb::CoreRange& c) {
  return c.row_end() > c.row_begin() ? c.row_end() - c.row_begin() : 0u;
}
inline uint32_t range_cols(const fb::CoreRange& c) {
  return c.col_end() > c.col_begin() ? c.col_end() - c.col_begin() : 0u;
}

/// Where a page lives: the core (for L1) and the byte offset from the buffer's address.
struct PageLocation {
  uint32_t core_row = 0, core_col = 0;
  uint64_t offset = 0;
};

/// How a tensor is placed, in the terms the storage functions need.
struct Placement {
  fb::Layout layout = fb::Layout::Tile;
  fb::DType dtype = fb::DType::F32;
  fb::BufferType buffer = fb::BufferType::DRAM;
  fb::MemoryLayout memory = fb::MemoryLayout::Interleaved;
  fb::CoreRange cores{0, 0, 1, 1}; // L1 interleaved: the buffer's cores; sharded: the shards'
  int64_t shard_tile_rows = 0, shard_tile_cols = 0;
};

/// The shard grid (shards down, shards across) of a sharded tile tensor.
inline std::pair<int64_t, int64_t> shard_grid(const Placement& p, const TileView& v) {
  int64_t sr = p.shard_tile_rows > 0 ? p.shard_tile_rows : 1;
  int64_t sc = p.shard_tile_cols > 0 ? p.shard_tile_cols : 1;
  return {(v.batch * v.tile_rows + sr - 1) / sr, (v.tile_cols + sc - 1) / sc};
}

/// Bytes the tensor needs: per core for L1, in total for DRAM.
inline uint64_t storage_bytes(const Placement& p, const TileView& v) {
  auto pages = static_cast<uint64_t>(page_count(p.layout, v));
  auto pb = static_cast<uint64_t>(page_bytes(p.layout, p.dtype, v));
  if (p.buffer == fb::BufferType::DRAM) return pages * pb;
  if (p.memory == fb::MemoryLayout::Interleaved) {
    uint64_t n = uint64_t{range_rows(p.cores)} * range_cols(p.cores);
    if (n == 0) return 0;
    return (pages + n - 1) / n * pb;
  }
  return static_cast<uint64_t>(p.shard_tile_rows * p.shard_tile_cols) * pb;
}

/// Where page `page` of the tensor is; nullopt when the placement cannot hold it (a shard
/// outside the core range), which verification reports.
inline std::optional<PageLocation> locate_page(const Placement& p, const TileView& v,
                                               int64_t page) {
  auto pb = static_cast<uint64_t>(page_bytes(p.layout, p.dtype, v));
  if (p.buffer == fb::BufferType::DRAM) return PageLocation{0, 0, static_cast<uint64_t>(page) * pb};
  uint32_t rows = range_rows(p.cores), cols = range_cols(p.cores);
  if (rows == 0 || cols == 0) return std::nullopt;
  if (p.memory == fb::MemoryLayout::Interleaved) {
    auto n = static_cast<int64_t>(rows) * cols;
    int64_t core = page % n;
    return PageLocation{p.cores.row_begin() + static_cast<uint32_t>(core / cols),
                        p.cores.col_begin() + static_cast<uint32_t>(core % cols),
                        static_cast<uint64_t>(page / n) * pb};
  }
  if (p.layout != fb::Layout::Tile || p.shard_tile_rows <= 0 || p.shard_tile_cols <= 0)
    return std::nullopt;
  int64_t tr = page / v.tile_cols, tc = page % v.tile_cols; // row in the 2-D tile grid
  int64_t si = tr / p.shard_tile_rows, sj = tc / p.shard_tile_cols;
  auto [gi, gj] = shard_grid(p, v);
  int64_t core_r = 0, core_c = 0;
  auto n = static_cast<int64_t>(rows) * cols;
  if (p.memory == fb::MemoryLayout::HeightSharded) {
    if (gj != 1 || si >= n) return std::nullopt;
    core_r = si / cols;
    core_c = si % cols;
  } else if (p.memory == fb::MemoryLayout::WidthSharded) {
    if (gi != 1 || sj >= n) return std::nullopt;
    core_r = sj / cols;
    core_c = sj % cols;
  } else {
    if (si >= rows || sj >= cols) return std::nullopt;
    core_r = si;
    core_c = sj;
  }
  int64_t in_shard = (tr % p.shard_tile_rows) * p.shard_tile_cols + (tc % p.shard_tile_cols);
  return PageLocation{p.cores.row_begin() + static_cast<uint32_t>(core_r),
                      p.cores.col_begin() + static_cast<uint32_t>(core_c),
                      static_cast<uint64_t>(in_shard) * pb};
}

} // namespace tilesat::program
