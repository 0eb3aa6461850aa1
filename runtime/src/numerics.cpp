// numerics.cpp: bfp8_b block packing (format described in numerics.h, where the bf16
// conversions are, inline).
#include "tilesat/runtime/numerics.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace tilesat::runtime {

namespace {

// The biased 8-bit exponent of a group's largest magnitude (0 for an all-zero group).
uint8_t shared_exponent(const float* v) {
  uint32_t m = 0;
  for (int i = 0; i < 16; ++i) {
    uint32_t e = (std::bit_cast<uint32_t>(v[i]) >> 23) & 0xffu;
    if (e > m) m = e;
  }
  return static_cast<uint8_t>(m);
}

// Sign and 7-bit magnitude of x against shared exponent `se`.
uint8_t encode_one(float x, uint32_t se) {
  uint32_t u = std::bit_cast<uint32_t>(x);
  if ((u & 0x7fffffffu) == 0) return 0;
  uint32_t e = (u >> 23) & 0xffu;
  uint32_t sign = u >> 31;
  uint32_t mant = (u & 0x007fffffu) | 0x00800000u; // 24 bits with the hidden one
  uint32_t diff = se - e;
  if (diff >= 32)
    mant = 0;
  else
    mant >>= diff;
  // Keep the top 7 of 24 bits, rounding the 17 dropped bits to nearest, ties to even.
  uint32_t dropped = mant & 0x1ffffu;
  mant >>= 17;
  if (dropped > 0x10000u || (dropped == 0x10000u && (mant & 1u) != 0)) ++mant;
  if (mant > 127u) mant = 127u;
  if (mant == 0) sign = 0;
  return static_cast<uint8_t>((sign << 7) | mant);
}

float decode_one(uint8_t b, uint8_t se) {
  float mag = std::ldexp(static_cast<float>(b & 0x7fu), static_cast<int>(se) - 127 - 6);
  return (b & 0x80u) != 0 ? -mag : mag;
}

} // namespace

void encode_bfp8_tile(const float* values, uint8_t* bytes) {
  for (int g = 0; g < 64; ++g) {
    const float* v = values + g * 16;
    uint8_t se = shared_exponent(v);
    bytes[g] = se;
    for (int i = 0; i < 16; ++i) bytes[kBfp8ExponentBytes + g * 16 + i] = encode_one(v[i], se);
  }
}

void decode_bfp8_tile(const uint8_t* bytes, float* values) {
  for (int g = 0; g < 64; ++g) {
    uint8_t se = bytes[g];
    for (int i = 0; i < 16; ++i) {
      values[g * 16 + i] = decode_one(bytes[kBfp8ExponentBytes + g * 16 + i], se);
    }
  }
}

void round_bfp8_block(float* values16) {
  uint8_t se = shared_exponent(values16);
  for (int i = 0; i < 16; ++i) values16[i] = decode_one(encode_one(values16[i], se), se);
}

} // namespace tilesat::runtime
