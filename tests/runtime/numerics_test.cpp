// bf16 rounding and bfp8_b block packing.
#include "tilesat/runtime/numerics.h"

#include <cmath>
#include <gtest/gtest.h>
#include <vector>

namespace tilesat::runtime {
namespace {

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(round_bf16(1.0f), 1.0f);
  EXPECT_EQ(round_bf16(1.0f + 0x1p-8f), 1.0f);                     // tie, 1.0 is even
  EXPECT_EQ(round_bf16(1.0f + 0x1p-7f + 0x1p-8f), 1.0f + 0x1p-6f); // tie, rounds to even
  EXPECT_EQ(round_bf16(1.0f + 0x1p-8f + 0x1p-20f), 1.0f + 0x1p-7f);
  EXPECT_EQ(round_bf16(-3.0f), -3.0f);
  EXPECT_TRUE(std::isnan(round_bf16(NAN)));
  EXPECT_EQ(round_bf16(INFINITY), INFINITY);
}

TEST(Bfp8, RepresentableValuesSurvive) {
  std::vector<float> v(1024, 0.0f);
  for (int i = 0; i < 1024; ++i)
    v[static_cast<size_t>(i)] = static_cast<float>((i % 16) - 8) * 0.125f;
  std::vector<uint8_t> bytes(kBfp8TileBytes);
  std::vector<float> back(1024);
  encode_bfp8_tile(v.data(), bytes.data());
  decode_bfp8_tile(bytes.data(), back.data());
  EXPECT_EQ(back, v);
}

TEST(Bfp8, SmallValuesLosePrecisionAgainstTheBlockMaximum) {
  std::vector<float> v(16, 0.0f);
  v[0] = 1.0f;        // shared exponent 2^0: steps of 2^-6
  v[1] = 0x1p-8f;     // below half a step: 0
  v[2] = 0x1p-7f;     // exactly half a step: tie to even -> 0
  v[3] = 3 * 0x1p-7f; // 1.5 steps: tie to even -> 2 steps
  v[4] = -0.3f;       // -19.2 steps -> -19 steps
  v[5] = 1.99f;       // above the shared exponent's range: saturates at 127 steps
  round_bfp8_block(v.data());
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], 0.0f);
  EXPECT_EQ(v[2], 0.0f);
  EXPECT_EQ(v[3], 2 * 0x1p-6f);
  EXPECT_EQ(v[4], -19 * 0x1p-6f);
  EXPECT_EQ(v[5], 1.984375f); // 127/64 is the largest magnitude (2^0 shared, 1.99 -> 127)
}

TEST(Bfp8, LayoutIsExponentsThenSignMagnitudeBytes) {
  std::vector<float> v(1024, 0.0f);
  v[0] = -1.0f;
  v[16] = 4.0f; // second group
  std::vector<uint8_t> bytes(kBfp8TileBytes);
  encode_bfp8_tile(v.data(), bytes.data());
  EXPECT_EQ(bytes[0], 127);          // 2^0
  EXPECT_EQ(bytes[1], 129);          // 2^2
  EXPECT_EQ(bytes[64], 0x80 | 0x40); // sign, hidden one at bit 6
  EXPECT_EQ(bytes[64 + 16], 0x40);
}

} // namespace
} // namespace tilesat::runtime
