// Tests of ops/conv.cpp: conv2d, max_pool2d and avg_pool2d: inferred types, error messages,
// builder attributes and reference values computed by hand.
#include "op_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat {
namespace {

using ::testing::ElementsAre;
using namespace op_testing;
using ::testing::FloatNear;
using ::testing::Pointwise;
using IntList = std::vector<int64_t>;

// x = 1..9 as a 1x1x3x3 image.
Tensor image3x3() {
  return T({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
}

TEST(Conv2d, InfersNchwOutput) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {2, 4, 8, 8});
  Value w = b.weight("w", {6, 2, 3, 3});
  Value y = b.conv2d(x, w, {.stride = {2, 2}, .padding = {1, 1, 1, 1}, .groups = 2});
  EXPECT_EQ(b.type(y).shape, (Shape{2, 6, 4, 4}));
  const Node& n = g.node(y.id);
  EXPECT_EQ(n.attrs.get<IntList>("stride"), (IntList{2, 2}));
  EXPECT_EQ(n.attrs.get<int64_t>("groups"), 2);
  EXPECT_FALSE(n.attrs.has("dilation"));
  // Only the NCHW dims are written for a conv with default window and groups.
  Value z = b.conv2d(x, b.weight("w2", {3, 4, 1, 1}));
  EXPECT_EQ(g.node(z.id).attrs.entries().size(), 3u);
}

TEST(Conv2d, InfersNhwcOutputAndWritesNchwDims) {
  Graph g;
  Builder b(g);
  Value w = b.weight("w", {6, 4, 3, 3});
  // NHWC (the op table's default dims): no dim attribute is written.
  Value y = b.conv2d(b.input("x", {2, 9, 9, 4}), w, b.weight("b", {1, 1, 1, 6}),
                     {.stride = {2, 2}, .dims = ConvDims{}});
  EXPECT_EQ(b.type(y).shape, (Shape{2, 4, 4, 6}));
  EXPECT_FALSE(g.node(y.id).attrs.has("channel_dim"));
  // The builder's default NCHW writes the three dims that differ from NHWC.
  Value z = b.conv2d(b.input("x2", {2, 4, 9, 9}), w);
  const Attrs& a = g.node(z.id).attrs;
  EXPECT_FALSE(a.has("batch_dim"));
  EXPECT_EQ(a.get<int64_t>("channel_dim"), 1);
  EXPECT_EQ(a.get<int64_t>("height_dim"), 2);
  EXPECT_EQ(a.get<int64_t>("width_dim"), 3);
  EXPECT_EQ(b.type(z).shape, (Shape{2, 6, 7, 7}));
}

// Scalar and two-value forms of the window attributes mean the spelled-out lists.
TEST(Conv2d, ScalarAndPairWindowForms) {
  Attrs a;
  a.set("stride", int64_t{2});
  a.set("padding", IntList{1, 3});
  Window2d w = window2d(complete_attrs(OpKind::Conv2d, a));
  EXPECT_EQ(w.stride_h, 2);
  EXPECT_EQ(w.stride_w, 2);
  EXPECT_EQ(IntList({w.pad_top, w.pad_left, w.pad_bottom, w.pad_right}), (IntList{1, 3, 1, 3}));
  EXPECT_EQ(w.dilation_h, 1);
  a.set("padding", IntList{1, 2, 3});
  EXPECT_THROW(window2d(complete_attrs(OpKind::Conv2d, a)), Error);
}

// An NHWC conv equals permute to NCHW, the NCHW conv, permute back, on random inputs, for
// several dim orders (with a 1x1x1xO bias, stride, asymmetric padding, dilation and groups).
TEST(Conv2d, AnyLayoutEqualsPermutedNchw) {
  for (ConvDims d : {ConvDims{0, 1, 2, 3}, ConvDims{3, 0, 2, 1}, ConvDims{1, 3, 2, 0}}) {
    Graph g;
    Builder b(g);
    std::array<int64_t, 4> order = d.nchw_order();
    Shape nchw{2, 4, 7, 6};
    std::vector<int64_t> dims(4);
    for (size_t i = 0; i < 4; ++i) dims[static_cast<size_t>(order[i])] = nchw[int64_t(i)];
    Value x = b.input("x", Shape(dims));
    Value w = b.weight("w", {6, 2, 3, 2});
    Value bias = b.weight("b", {1, 1, 1, 6});
    Conv2dOptions o{.stride = {2, 1}, .padding = {1, 0, 2, 1}, .dilation = {1, 2}, .groups = 2};
    Conv2dOptions on = o;
    o.dims = d;
    b.output(b.conv2d(x, w, bias, o));
    std::vector<int64_t> to_nchw(order.begin(), order.end()), back(4);
    for (size_t i = 0; i < 4; ++i) back[static_cast<size_t>(order[i])] = int64_t(i);
    Value flat = b.reshape(bias, {6});
    b.output(b.permute(b.conv2d(b.permute(x, to_nchw), w, flat, on), back));
    std::vector<Tensor> r = evaluate(g, random_arguments(g, 7));
    ASSERT_EQ(r[0].shape(), r[1].shape());
    EXPECT_THAT(r[0].data(), Pointwise(FloatNear(1e-5), r[1].data()));
  }
}

// A flattened NHWC conv ([1, 1, N*H*W, C], ttnn's form) equals the NCHW conv of the same
// image, and so do both pools; the result is flattened NHWC too.
TEST(Conv2d, FlatNhwcEqualsNchw) {
  Graph g;
  Builder b(g);
  const int64_t n = 2, c = 4, h = 7, w = 5;
  Value x = b.input("x", {n, c, h, w});
  Value wt = b.weight("w", {6, 2, 3, 2});
  Value bias = b.weight("b", {6});
  Conv2dOptions o{.stride = {2, 1}, .padding = {1, 0, 2, 1}, .groups = 2, .activation = "relu"};
  Value nchw = b.conv2d(x, wt, bias, o);
  Value flat_x = b.reshape(b.permute(x, {0, 2, 3, 1}), {1, 1, n * h * w, c});
  Conv2dOptions of = o;
  of.dims = ConvDims{};
  of.flat = FlatImage{n, h, w};
  Value flat = b.conv2d(flat_x, wt, bias, of);
  const Shape& s = b.type(nchw).shape;
  EXPECT_EQ(b.type(flat).shape, (Shape{1, 1, n * s[2] * s[3], 6}));
  auto unflatten = [&](Value v, int64_t channels, const Shape& like) {
    return b.permute(b.reshape(v, {like[0], like[2], like[3], channels}), {0, 3, 1, 2});
  };
  b.output(nchw);
  b.output(unflatten(flat, 6, s));
  Pool2dOptions po{.stride = {2, 2}, .padding = {1, 1, 1, 1}, .count_include_pad = true};
  Pool2dOptions pf = po;
  pf.flat = FlatImage{n, h, w};
  Value mp = b.max_pool2d(x, {3, 3}, po), mf = b.max_pool2d(flat_x, {3, 3}, pf);
  Value ap = b.avg_pool2d(x, {3, 2}, po), af = b.avg_pool2d(flat_x, {3, 2}, pf);
  b.output(mp);
  b.output(unflatten(mf, c, b.type(mp).shape));
  b.output(ap);
  b.output(unflatten(af, c, b.type(ap).shape));
  std::vector<Tensor> r = evaluate(g, random_arguments(g, 11));
  for (size_t i = 0; i < r.size(); i += 2) {
    ASSERT_EQ(r[i].shape(), r[i + 1].shape()) << i;
    EXPECT_THAT(r[i].data(), Pointwise(FloatNear(1e-5), r[i + 1].data())) << i;
  }
}

TEST(Conv2d, FlatNhwcErrors) {
  EXPECT_EQ(error_of([](Builder& b) {
              b.conv2d(b.input("x", {1, 1, 30, 4}), b.weight("w", {6, 4, 1, 1}),
                       {.dims = ConvDims{}, .flat = FlatImage{2, 4, 4}});
            }),
            "'ttir.conv2d' %2: expected a flattened NHWC input [1, 1, 32, C] (batch_size 2 x "
            "input_height 4 x input_width 4), got 1x1x30x4");
  EXPECT_EQ(error_of([](Builder& b) {
              b.max_pool2d(b.input("x", {32, 4}), {2, 2}, {.flat = FlatImage{2, 4, 4}});
            }),
            "'ttir.max_pool2d' %1: expected a flattened NHWC input [1, 1, 32, C] (batch_size 2 "
            "x input_height 4 x input_width 4), got 32x4");
  EXPECT_EQ(error_of([](Builder& b) {
              b.conv2d(b.input("x", {1, 1, 32, 4}), b.weight("w", {6, 4, 1, 1}),
                       {.flat = FlatImage{2, 4, 4}});
            }),
            "'ttir.conv2d' %2: expected the default NHWC dims (batch_dim 0, height_dim 1, "
            "width_dim 2, channel_dim 3) with a flattened input");
  EXPECT_EQ(error_of([](Builder& b) {
              b.max_pool2d(b.input("x", {1, 1, 32, 4}), {2, 2}, {.flat = FlatImage{2, 0, 4}});
            }),
            "'ttir.max_pool2d' %1: expected batch_size, input_height and input_width to be all "
            "0 (a 4-D input) or all in [1, 2^20] (a flattened NHWC input), got 2, 0, 4");
}

TEST(Conv2d, Errors) {
  EXPECT_EQ(error_of([](Builder& b) {
              b.conv2d(b.input("x", {1, 4, 8, 8}), b.weight("w", {6, 3, 3, 3}));
            }),
            "'ttir.conv2d' %2: expected weight dim 1 to be 4 (input channels / groups), got 3");
  EXPECT_EQ(error_of([](Builder& b) {
              b.conv2d(b.input("x", {1, 4, 8}), b.weight("w", {6, 4, 3, 3}));
            }),
            "'ttir.conv2d' %2: expected an NCHW operand of rank 4, got rank 3");
  EXPECT_EQ(error_of([](Builder& b) {
              b.conv2d(b.input("x", {1, 4, 2, 2}), b.weight("w", {6, 4, 3, 3}));
            }),
            "'ttir.conv2d' %2: expected the padded height (2) to be at least the dilated kernel "
            "extent (3), got less");
  EXPECT_EQ(error_of([](Builder& b) {
              b.conv2d(b.input("x", {1, 4, 8, 8}), b.weight("w", {6, 4, 3, 3}), {.stride = {0, 1}});
            }),
            "'ttir.conv2d' %2: expected 'stride' to be one positive value up to 2^20 or a list of "
            "2, got [0, 1]");
  EXPECT_EQ(error_of([](Builder& b) {
              b.conv2d(b.input("x", {1, 4, 8, 8}), b.weight("w", {6, 4, 3, 3}), b.weight("b", {5}));
            }),
            "'ttir.conv2d' %3: expected a bias of shape 6, 1x1x1x6 or 1x6x1x1, got 5");
  EXPECT_EQ(error_of([](Builder& b) {
              b.conv2d(b.input("x", {1, 4, 8, 8}), b.weight("w", {6, 4, 3, 3}),
                       b.weight("b", {1, 1, 6, 1}));
            }),
            "'ttir.conv2d' %3: expected a bias of shape 6, 1x1x1x6 or 1x6x1x1, got 1x1x6x1");
  EXPECT_EQ(
      error_of([](Builder& b) {
        b.conv2d(b.input("x", {1, 4, 8, 8}), b.weight("w", {6, 4, 3, 3}), {.dims = {0, 2, 2, 1}});
      }),
      "'ttir.conv2d' %2: expected batch_dim, channel_dim, height_dim and width_dim to be a "
      "permutation of 0, 1, 2, 3, got 0, 1, 2, 2");
  EXPECT_EQ(error_of([](Builder& b) {
              b.conv2d(b.input("x", {1, 4, 8, 8}), b.weight("w", {6, 2, 3, 3}), {.groups = 3});
            }),
            "'ttir.conv2d' %2: expected input channels (4) and output channels (6) divisible by "
            "'groups' (3), got otherwise");
}

TEST(Conv2d, Values) {
  // Kernel [[1, 0], [0, 1]]: each output is x[i][j] + x[i+1][j+1].
  Tensor diag = T({1, 1, 2, 2}, {1, 0, 0, 1});
  Tensor y = eval1({image3x3(), diag}, [](Builder& b, auto v) { return b.conv2d(v[0], v[1]); });
  EXPECT_EQ(y.shape(), (Shape{1, 1, 2, 2}));
  EXPECT_THAT(y.data(), ElementsAre(6, 8, 12, 14));
  Tensor yb = eval1({image3x3(), diag, T({1}, {10})},
                    [](Builder& b, auto v) { return b.conv2d(v[0], v[1], v[2]); });
  EXPECT_THAT(yb.data(), ElementsAre(16, 18, 22, 24));
  // Padding 1 on every side, stride 2: windows start at (-1, -1), (-1, 1), (1, -1), (1, 1).
  Tensor yp = eval1({image3x3(), diag}, [](Builder& b, auto v) {
    return b.conv2d(v[0], v[1], {.stride = {2, 2}, .padding = {1, 1, 1, 1}});
  });
  EXPECT_THAT(yp.data(), ElementsAre(1, 3, 7, 14));
  // Dilation 2 with a 2x2 kernel of ones: the four corners, 1 + 3 + 7 + 9.
  Tensor yd = eval1({image3x3(), T({1, 1, 2, 2}, {1, 1, 1, 1})}, [](Builder& b, auto v) {
    return b.conv2d(v[0], v[1], {.dilation = {2, 2}});
  });
  EXPECT_THAT(yd.data(), ElementsAre(20));
  // Two groups of one channel: each output channel sees only its own input channel.
  Tensor yg = eval1({T({1, 2, 1, 1}, {1, 2}), T({2, 1, 1, 1}, {3, 4})},
                    [](Builder& b, auto v) { return b.conv2d(v[0], v[1], {.groups = 2}); });
  EXPECT_THAT(yg.data(), ElementsAre(3, 8));
  // Two input channels summed: 1*3 + 2*4.
  Tensor yc = eval1({T({1, 2, 1, 1}, {1, 2}), T({1, 2, 1, 1}, {3, 4})},
                    [](Builder& b, auto v) { return b.conv2d(v[0], v[1]); });
  EXPECT_THAT(yc.data(), ElementsAre(11));
}

TEST(Conv2d, Activation) {
  // Kernel [[1, 0], [0, -1]] gives x[i][j] - x[i+1][j+1] = -4 everywhere; bias [1, 5] over two
  // output channels (the second with kernel [[0, 0], [0, 1]]), then relu.
  Tensor k = T({2, 1, 2, 2}, {1, 0, 0, -1, 0, 0, 0, 1});
  Tensor y = eval1({image3x3(), k, T({2}, {1, 5})}, [](Builder& b, auto v) {
    return b.conv2d(v[0], v[1], v[2], {.activation = "relu"});
  });
  EXPECT_THAT(y.data(), ElementsAre(0, 0, 0, 0, 10, 11, 13, 14));
  EXPECT_EQ(
      error_of([](Builder& b) {
        b.conv2d(b.input("x", {1, 1, 3, 3}), b.weight("w", {1, 1, 2, 2}), {.activation = "add"});
      }),
      "'ttir.conv2d' %2: expected 'activation' to be empty or an elementwise unary op, got "
      "\"add\"");
}

TEST(Pool2d, InferAndErrors) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {1, 3, 7, 7});
  EXPECT_EQ(b.type(b.max_pool2d(x, {3, 3}, {.stride = {2, 2}})).shape, (Shape{1, 3, 3, 3}));
  EXPECT_EQ(b.type(b.max_pool2d(x, {2, 2}, {.stride = {2, 2}, .ceil_mode = true})).shape,
            (Shape{1, 3, 4, 4}));
  EXPECT_EQ(b.type(b.avg_pool2d(x, {3, 3}, {.padding = {1, 1, 1, 1}})).shape, (Shape{1, 3, 7, 7}));
  EXPECT_EQ(
      error_of([](Builder& bb) {
        bb.max_pool2d(bb.input("x", {1, 3, 7, 7}), {3});
      }),
      "'ttir.max_pool2d' %1: expected 'kernel_size' to hold 2 positive values up to 2^20, got [3]");
  EXPECT_EQ(error_of([](Builder& bb) {
              bb.avg_pool2d(bb.input("x", {1, 3, 7, 7}), {3, 3}, {.padding = {1, 1, 1}});
            }),
            "'ttir.avg_pool2d' %1: expected 'padding' to be one non-negative value up to 2^20 or "
            "a list of 2 or 4, got [1, 1, 1]");
}

TEST(Pool2d, MaxValues) {
  Tensor y = eval1({image3x3()}, [](Builder& b, auto v) { return b.max_pool2d(v[0], {2, 2}); });
  EXPECT_THAT(y.data(), ElementsAre(5, 6, 8, 9));
  Tensor floor = eval1({image3x3()}, [](Builder& b, auto v) {
    return b.max_pool2d(v[0], {2, 2}, {.stride = {2, 2}});
  });
  EXPECT_THAT(floor.data(), ElementsAre(5));
  // ceil_mode keeps the partial windows at the right and bottom edges.
  Tensor ceil = eval1({image3x3()}, [](Builder& b, auto v) {
    return b.max_pool2d(v[0], {2, 2}, {.stride = {2, 2}, .ceil_mode = true});
  });
  EXPECT_THAT(ceil.data(), ElementsAre(5, 6, 8, 9));
  // Padding never wins, even against negative values.
  Tensor neg = eval1({T({1, 1, 1, 1}, {-3})}, [](Builder& b, auto v) {
    return b.max_pool2d(v[0], {2, 2}, {.padding = {1, 1, 0, 0}});
  });
  EXPECT_THAT(neg.data(), ElementsAre(-3));
}

TEST(Pool2d, AvgValues) {
  Tensor y = eval1({image3x3()}, [](Builder& b, auto v) { return b.avg_pool2d(v[0], {2, 2}); });
  EXPECT_THAT(y.data(), ElementsAre(3, 4, 6, 7));
  Pool2dOptions padded{.stride = {2, 2}, .padding = {1, 1, 1, 1}};
  Tensor ex = eval1({image3x3()}, [&](Builder& b, auto v) {
    return b.avg_pool2d(v[0], {2, 2}, padded);
  });
  EXPECT_THAT(ex.data(), Pointwise(FloatNear(1e-6), {1.0f, 2.5f, 5.5f, 7.0f}));
  padded.count_include_pad = true;
  Tensor in = eval1({image3x3()}, [&](Builder& b, auto v) {
    return b.avg_pool2d(v[0], {2, 2}, padded);
  });
  EXPECT_THAT(in.data(), Pointwise(FloatNear(1e-6), {0.25f, 1.25f, 2.75f, 7.0f}));
}

} // namespace
} // namespace tilesat
