// Element types of tensors and their storage sizes on a tile-based device.
//
// Tenstorrent cores compute on 32x32 tiles. A tile of f32 or int32 holds 4 bytes per element,
// bf16 2 bytes, and bfp8_b ("block floating point", 8-bit mantissas) stores 1 byte per element
// plus one shared 8-bit exponent per 16 elements: 1024 + 64 = 1088 bytes per tile.
//
//   DType t = parse_dtype("bf16").value();   // DType::BF16
//   tile_bytes(t);                           // 2048
//   dtype_name(DType::BFP8_B);               // "bfp_bf8"
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tilesat {

enum class DType : uint8_t { F32, BF16, BFP8_B, I32 };

inline constexpr int64_t kTileRows = 32;
inline constexpr int64_t kTileCols = 32;
inline constexpr int64_t kTileElements = kTileRows * kTileCols;

/// The name used in tensor types: f32, bf16, bfp_bf8 (tt-mlir's spelling of bfp8_b), i32.
std::string_view dtype_name(DType t);
/// Accepts f32, bf16, bfp_bf8, bfp8_b, i32, si32 (ui32 is not an element type of tilesat).
std::optional<DType> parse_dtype(std::string_view name);
/// Bytes per element in row-major storage (bfp8_b counts its mantissa byte only: 1).
int64_t element_bytes(DType t);
/// Bytes of one 32x32 tile, including bfp8_b's shared exponents.
int64_t tile_bytes(DType t);
bool is_float(DType t);

} // namespace tilesat
