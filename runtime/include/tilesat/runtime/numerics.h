// Element formats of device tiles: f32, bf16 (round-to-nearest-even), bfp8_b and i32.
//
// bfp8_b is Tenstorrent's block floating point with a bf16-style 8-bit exponent: a 32x32 tile
// is stored as 64 exponent bytes (one per row of each 16x16 face, faces in order) followed by
// 1024 bytes, one per element in face order, each a sign bit and a 7-bit magnitude (the
// mantissa with its hidden bit, shifted right by the distance to the shared exponent, rounded
// to nearest with ties to even and saturated at 127). Value = magnitude * 2^(exp - 127 - 6).
// Source: tenstorrent/tt-metal tt_metal/impl/data_format/blockfloat_common.cpp
// (pack_fp32_vec_as_bfp_tiles, convert_u32_to_bfp with is_exp_a = false for the "_b" formats).
//
//   float tile[1024];                         // face order (see tilesat/program/storage.h)
//   uint8_t bytes[1088];
//   encode_bfp8_tile(tile, bytes);
//   decode_bfp8_tile(bytes, tile);            // each value now a bfp8_b value
#pragma once

#include <bit>
#include <cstdint>

namespace tilesat::runtime {

/// f32 -> bf16 bits, round to nearest even (NaN stays a quiet NaN). Inline, as the two below:
/// the runtime converts every element of a bf16 tile it reads or writes.
inline uint16_t to_bf16_bits(float x) {
  auto u = std::bit_cast<uint32_t>(x);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0) {
    return static_cast<uint16_t>((u >> 16) | 0x0040u); // quiet NaN
  }
  uint32_t lsb = (u >> 16) & 1u;
  u += 0x7fffu + lsb;
  return static_cast<uint16_t>(u >> 16);
}
/// bf16 bits -> the f32 of the same value.
inline float from_bf16_bits(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}
/// f32 -> nearest bf16 value, as f32.
inline float round_bf16(float x) {
  return from_bf16_bits(to_bf16_bits(x));
}

inline constexpr int kBfp8ExponentBytes = 64;
inline constexpr int kBfp8TileBytes = 1088;

/// Packs 1024 values (face order) into one bfp8_b tile of kBfp8TileBytes bytes.
void encode_bfp8_tile(const float* values, uint8_t* bytes);
/// Unpacks one bfp8_b tile into 1024 values (face order).
void decode_bfp8_tile(const uint8_t* bytes, float* values);

/// Each group of 16 values rounded through bfp8_b (what encoding then decoding gives).
void round_bfp8_block(float* values16);

} // namespace tilesat::runtime
