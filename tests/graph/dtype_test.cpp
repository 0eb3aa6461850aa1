// Tests of dtype.h: names, parsing and storage sizes.
#include "tilesat/graph/dtype.h"

#include <gtest/gtest.h>

namespace tilesat {
namespace {

TEST(DType, HeaderExample) {
  DType t = parse_dtype("bf16").value();
  EXPECT_EQ(t, DType::BF16);
  EXPECT_EQ(tile_bytes(t), 2048);
  EXPECT_EQ(dtype_name(DType::BFP8_B), "bfp_bf8");
}

TEST(DType, ElementAndTileBytes) {
  EXPECT_EQ(element_bytes(DType::F32), 4);
  EXPECT_EQ(tile_bytes(DType::F32), 4096);
  EXPECT_EQ(element_bytes(DType::BF16), 2);
  EXPECT_EQ(tile_bytes(DType::BF16), 2048);
  EXPECT_EQ(element_bytes(DType::BFP8_B), 1);
  EXPECT_EQ(tile_bytes(DType::BFP8_B), 1088); // 1024 mantissas + 64 shared exponents
  EXPECT_EQ(element_bytes(DType::I32), 4);
  EXPECT_EQ(tile_bytes(DType::I32), 4096);
}

TEST(DType, NamesRoundTrip) {
  for (DType t : {DType::F32, DType::BF16, DType::BFP8_B, DType::I32}) {
    EXPECT_EQ(parse_dtype(dtype_name(t)), t);
  }
  EXPECT_EQ(parse_dtype("bfp8_b"), DType::BFP8_B);
  EXPECT_EQ(parse_dtype("si32"), DType::I32);
  EXPECT_EQ(parse_dtype("ui32"), std::nullopt);
  EXPECT_EQ(parse_dtype("f16"), std::nullopt);
  EXPECT_EQ(parse_dtype(""), std::nullopt);
}

TEST(DType, IsFloat) {
  EXPECT_TRUE(is_float(DType::F32));
  EXPECT_TRUE(is_float(DType::BF16));
  EXPECT_TRUE(is_float(DType::BFP8_B));
  EXPECT_FALSE(is_float(DType::I32));
}

} // namespace
} // namespace tilesat
