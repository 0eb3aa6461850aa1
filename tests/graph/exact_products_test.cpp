// Tests of exact_gemm.cpp through the ops that use it (matmul, linear, conv2d): at sizes that
// cross every block boundary of the kernel, each result equals the plain loop that sums the
// products in double in ascending order of the contracted index, to the bit.
#include "op_test_support.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <random>

namespace tilesat {
namespace {

using op_testing::eval1;

Tensor random_tensor(Shape s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(s.numel()));
  for (float& x : v) x = d(rng);
  return Tensor(TensorType{DType::F32, std::move(s)}, std::move(v));
}

// Element (i, j) of the row-major matrix `m` with `cols` columns, read transposed or not.
float at(const Tensor& m, int64_t batch_off, int64_t cols, bool t, int64_t i, int64_t j) {
  return m[batch_off + (t ? j * cols + i : i * cols + j)];
}

void expect_same_bits(const Tensor& got, const std::vector<float>& want) {
  ASSERT_EQ(got.data().size(), want.size());
  int64_t wrong = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (got.data()[i] != want[i]) {
      if (++wrong <= 3)
        ADD_FAILURE() << "element " << i << ": " << got.data()[i] << " != " << want[i];
    }
  }
  EXPECT_EQ(wrong, 0);
}

// 131 rows (one 128-row block and 3 rows, not a whole register tile), 263 columns (a 256-column
// block and 7), 300 contracted (two 128 blocks and 44), every transpose, a broadcast batch.
TEST(ExactProducts, MatmulEqualsThePlainLoopToTheBit) {
  const int64_t m = 131, n = 263, k = 300;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Tensor a = random_tensor(ta ? Shape{2, k, m} : Shape{2, m, k}, 1);
      Tensor b = random_tensor(tb ? Shape{1, n, k} : Shape{1, k, n}, 2);
      Tensor got = eval1({a, b}, [&](Builder& g, const std::vector<Value>& v) {
        return g.matmul(v[0], v[1], {.transpose_a = ta, .transpose_b = tb});
      });
      std::vector<float> want;
      for (int64_t bi = 0; bi < 2; ++bi)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double acc = 0.0;
            for (int64_t p = 0; p < k; ++p)
              acc += double{at(a, bi * m * k, ta ? m : k, ta, i, p)} *
                     double{at(b, 0, tb ? k : n, tb, p, j)};
            want.push_back(static_cast<float>(acc));
          }
      SCOPED_TRACE(testing::Message() << "ta=" << ta << " tb=" << tb);
      expect_same_bits(got, want);
    }
}

// A direct convolution in NCHW that skips the padding, summing in the order (ci, ky, kx).
std::vector<float> plain_conv(const Tensor& x, const Tensor& w, const Tensor& bias, int64_t groups,
                              int64_t s, int64_t pad, int64_t dil, int64_t oh, int64_t ow) {
  const Shape &xs = x.shape(), &ws = w.shape();
  const int64_t cout = ws[0], cig = ws[1], kh = ws[2], kw = ws[3];
  std::vector<float> out;
  for (int64_t n = 0; n < xs[0]; ++n)
    for (int64_t co = 0; co < cout; ++co)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          double acc = bias[co];
          const int64_t g = co / (cout / groups);
          for (int64_t ci = 0; ci < cig; ++ci)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t y = oy * s - pad + ky * dil, xx = ox * s - pad + kx * dil;
                if (y < 0 || y >= xs[2] || xx < 0 || xx >= xs[3]) continue;
                const int64_t c = g * cig + ci;
                acc += double{x[((n * xs[1] + c) * xs[2] + y) * xs[3] + xx]} *
                       double{w[((co * cig + ci) * kh + ky) * kw + kx]};
              }
          out.push_back(static_cast<float>(acc));
        }
  return out;
}

// Output 2 x 19 x 17 (323 positions: a 256-position run and 67), grouped, strided, padded and
// dilated, in NCHW and in NHWC.
TEST(ExactProducts, Conv2dEqualsThePlainLoop) {
  const int64_t n = 2, c = 6, h = 37, w = 33, cout = 9, groups = 3;
  Tensor x = random_tensor({n, c, h, w}, 3);
  Tensor wt = random_tensor({cout, c / groups, 3, 3}, 4);
  Tensor bias = random_tensor({cout}, 5);
  const int64_t oh = (h + 2 - 2 * 2 - 1) / 2 + 1, ow = (w + 2 - 2 * 2 - 1) / 2 + 1;
  std::vector<float> want = plain_conv(x, wt, bias, groups, 2, 1, 2, oh, ow);
  Conv2dOptions o{.stride = {2, 2}, .padding = {1, 1, 1, 1}, .dilation = {2, 2}, .groups = groups};
  Tensor got = eval1({x, wt, bias}, [&](Builder& b, const std::vector<Value>& v) {
    return b.conv2d(v[0], v[1], v[2], o);
  });
  ASSERT_EQ(got.shape(), (Shape{n, cout, oh, ow}));
  expect_same_bits(got, want);
  // The same image as NHWC: the result is NHWC too.
  o.dims = ConvDims{0, 1, 2, 3};
  Tensor nhwc = eval1({x, wt, bias}, [&](Builder& b, const std::vector<Value>& v) {
    return b.conv2d(b.permute(v[0], {0, 2, 3, 1}), v[1], v[2], o);
  });
  ASSERT_EQ(nhwc.shape(), (Shape{n, oh, ow, cout}));
  std::vector<float> want_nhwc;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xx = 0; xx < ow; ++xx)
        for (int64_t co = 0; co < cout; ++co)
          want_nhwc.push_back(want[static_cast<size_t>(((i * cout + co) * oh + y) * ow + xx)]);
  expect_same_bits(nhwc, want_nhwc);
}

// A weight that is infinite only meets padding at the image's corner: the plain loop skips the
// padded tap, so that output is finite (a product with a zero for padding would be NaN).
TEST(ExactProducts, Conv2dSkipsPaddingUnderAnInfiniteWeight) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = op_testing::T({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor k = op_testing::T({1, 1, 2, 2}, {inf, 0, 0, 1});
  Tensor y = eval1({x, k}, [](Builder& b, const std::vector<Value>& v) {
    return b.conv2d(v[0], v[1], {.padding = {1, 1, 0, 0}});
  });
  ASSERT_EQ(y.shape(), (Shape{1, 1, 2, 2}));
  // Window at (-1, -1) reads only x[0][0] through the kernel's 1; the others meet the inf tap.
  EXPECT_EQ(y.data()[0], 1.0f);
  EXPECT_TRUE(std::isinf(y.data()[3]));
}

} // namespace
} // namespace tilesat
