// Tests of tensor.h: tensor types, element access and rounding to a dtype.
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/tensor.h"

#include <bit>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>

namespace tilesat {
namespace {

TEST(Tensor, HeaderExample) {
  Tensor t(TensorType{DType::F32, Shape{2, 3}});
  t.at({1, 2}) = 5.0f;
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t[5], 5.0f);
}

TEST(TensorType, Str) {
  EXPECT_EQ((TensorType{DType::F32, Shape{32, 128}}).str(), "tensor<32x128xf32>");
  EXPECT_EQ((TensorType{DType::BF16, Shape{}}).str(), "tensor<bf16>");
  EXPECT_EQ((TensorType{DType::BFP8_B, Shape{32, 32}, "#ttnn_layout"}).str(),
            "tensor<32x32xbfp_bf8, #ttnn_layout>");
  TensorType a{DType::F32, Shape{2}, "#l"}, b{DType::F32, Shape{2}, ""};
  EXPECT_TRUE(a.same_value_type(b));
  EXPECT_NE(a, b);
}

TEST(Tensor, ConstructionChecksSize) {
  Tensor t(TensorType{DType::F32, Shape{2, 2}}, {1, 2, 3, 4});
  EXPECT_EQ(t.at({1, 0}), 3.0f);
  try {
    Tensor bad(TensorType{DType::F32, Shape{2, 2}}, {1, 2, 3});
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message, "expected 4 elements for tensor<2x2xf32>, got 3");
  }
  EXPECT_THROW((void)t.at({2, 0}), InternalError);
  EXPECT_THROW((void)t.at({0}), InternalError);
}

TEST(RoundToBf16, NearestEven) {
  EXPECT_EQ(round_to_bf16(1.0f), 1.0f);
  // bf16 keeps 8 significand bits: the spacing above 1 is 2^-7.
  float half_ulp = std::ldexp(1.0f, -8);
  EXPECT_EQ(round_to_bf16(1.0f + half_ulp), 1.0f);                       // tie, to even (1.0)
  EXPECT_EQ(round_to_bf16(1.0f + 3 * half_ulp), 1.0f + 4 * half_ulp);    // tie, to even (up)
  EXPECT_EQ(round_to_bf16(1.0f + half_ulp * 1.5f), 1.0f + 2 * half_ulp); // above the tie
  EXPECT_EQ(round_to_bf16(1.0f + half_ulp * 0.5f), 1.0f);
  EXPECT_EQ(round_to_bf16(-1.0f - half_ulp * 1.5f), -1.0f - 2 * half_ulp);
  EXPECT_EQ(round_to_bf16(0.1f), std::bit_cast<float>(0x3dcd0000u)); // 0x3dcccccd rounds up
  EXPECT_TRUE(std::isnan(round_to_bf16(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(round_to_bf16(std::numeric_limits<float>::infinity()),
            std::numeric_limits<float>::infinity());
  EXPECT_EQ(round_to_bf16(std::numeric_limits<float>::max()),
            std::numeric_limits<float>::infinity());
}

TEST(Tensor, RoundToDtype) {
  Tensor i(TensorType{DType::I32, Shape{5}}, {1.7f, -1.7f, 3e10f, -3e10f, NAN});
  i.round_to_dtype();
  EXPECT_EQ(i.data(), (std::vector<float>{1.0f, -1.0f, 2147483647.0f, -2147483648.0f, 0.0f}));
  Tensor b(TensorType{DType::BF16, Shape{1}}, {0.1f});
  b.round_to_dtype();
  EXPECT_EQ(b[0], round_to_bf16(0.1f));
  Tensor f(TensorType{DType::F32, Shape{1}}, {0.1f});
  f.round_to_dtype();
  EXPECT_EQ(f[0], 0.1f);
}

} // namespace
} // namespace tilesat
