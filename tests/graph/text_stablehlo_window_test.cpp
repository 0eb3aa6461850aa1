// Tests of StableHLO convolution and reduce_window import: each import is evaluated by the
// reference interpreter and compared with a direct loop over the StableHLO definition (any
// dimension numbers, padding, strides, dilation and groups) written here.
#include "text_test_support.h"
#include "tilesat/graph/parser.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <limits>

namespace tilesat {
namespace {

/// Deterministic values in [-1, 1).
std::vector<float> random_values(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return v;
}

/// Row-major multi-index of `flat` in `dims`.
std::vector<int64_t> index_of(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    idx[i] = flat % dims[i];
    flat /= dims[i];
  }
  return idx;
}

int64_t flat_of(const std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  int64_t f = 0;
  for (size_t i = 0; i < dims.size(); ++i) f = f * dims[i] + idx[i];
  return f;
}

int64_t numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

/// A 2-D convolution by its definition. `in`, `ker`, `out` spell each tensor's dims with the
/// letters of dim_numbers ("b01f", "01io", ...); `pad` is [lo0, hi0, lo1, hi1].
struct ConvCase {
  std::string in, ker, out;
  std::vector<int64_t> x_dims, w_dims, y_dims;
  std::vector<int64_t> stride{1, 1}, pad{0, 0, 0, 0}, dilation{1, 1};
  int64_t groups = 1;
  std::vector<int64_t> lhs_dilation{1, 1};
};

std::vector<float> conv_by_definition(const ConvCase& c, const std::vector<float>& x,
                                      const std::vector<float>& w) {
  // A letter's extent (1 when absent: a 1-D convolution has no spatial dim 1) and index.
  auto extent = [](const std::string& s, const std::vector<int64_t>& dims, char l) {
    size_t at = s.find(l);
    return at == std::string::npos ? int64_t{1} : dims[at];
  };
  auto set = [](const std::string& s, std::vector<int64_t>& idx, char l, int64_t v) {
    if (size_t at = s.find(l); at != std::string::npos) idx[at] = v;
  };
  auto get = [](const std::string& s, const std::vector<int64_t>& idx, char l) {
    size_t at = s.find(l);
    return at == std::string::npos ? int64_t{0} : idx[at];
  };
  int64_t cout = extent(c.ker, c.w_dims, 'o'), cin_group = extent(c.ker, c.w_dims, 'i');
  int64_t kh = extent(c.ker, c.w_dims, '0'), kw = extent(c.ker, c.w_dims, '1');
  int64_t h = extent(c.in, c.x_dims, '0'), wd = extent(c.in, c.x_dims, '1');
  std::vector<float> y(static_cast<size_t>(numel(c.y_dims)));
  for (int64_t f = 0; f < numel(c.y_dims); ++f) {
    std::vector<int64_t> o = index_of(f, c.y_dims);
    int64_t n = get(c.out, o, 'b'), oc = get(c.out, o, 'f');
    int64_t oy = get(c.out, o, '0'), ox = get(c.out, o, '1');
    int64_t group = oc / (cout / c.groups);
    double sum = 0;
    for (int64_t ci = 0; ci < cin_group; ++ci) {
      for (int64_t ky = 0; ky < kh; ++ky) {
        for (int64_t kx = 0; kx < kw; ++kx) {
          // A position in the input dilated by lhs_dilation: only multiples hold elements.
          int64_t iy = oy * c.stride[0] - c.pad[0] + ky * c.dilation[0];
          int64_t ix = ox * c.stride[1] - c.pad[2] + kx * c.dilation[1];
          if (iy < 0 || ix < 0 || iy % c.lhs_dilation[0] != 0 || ix % c.lhs_dilation[1] != 0)
            continue;
          iy /= c.lhs_dilation[0];
          ix /= c.lhs_dilation[1];
          if (iy >= h || ix >= wd) continue;
          std::vector<int64_t> xi(c.in.size()), wi(c.ker.size());
          set(c.in, xi, 'b', n);
          set(c.in, xi, 'f', group * cin_group + ci);
          set(c.in, xi, '0', iy);
          set(c.in, xi, '1', ix);
          set(c.ker, wi, 'o', oc);
          set(c.ker, wi, 'i', ci);
          set(c.ker, wi, '0', ky);
          set(c.ker, wi, '1', kx);
          sum += static_cast<double>(x[static_cast<size_t>(flat_of(xi, c.x_dims))]) *
                 w[static_cast<size_t>(flat_of(wi, c.w_dims))];
        }
      }
    }
    y[static_cast<size_t>(f)] = static_cast<float>(sum);
  }
  return y;
}

/// reduce_window by its definition: padding elements and the start value are `init`.
std::vector<float>
reduce_window_by_definition(const std::vector<float>& x, const std::vector<int64_t>& x_dims,
                            const std::vector<int64_t>& y_dims, const std::vector<int64_t>& window,
                            const std::vector<int64_t>& stride, const std::vector<int64_t>& pad_lo,
                            const std::vector<int64_t>& dilation, float init,
                            const std::function<float(float, float)>& op) {
  std::vector<float> y(static_cast<size_t>(numel(y_dims)));
  for (int64_t f = 0; f < numel(y_dims); ++f) {
    std::vector<int64_t> o = index_of(f, y_dims);
    float acc = init;
    for (int64_t k = 0; k < numel(window); ++k) {
      std::vector<int64_t> kk = index_of(k, window), xi(o.size());
      bool inside = true;
      for (size_t d = 0; d < o.size(); ++d) {
        xi[d] = o[d] * stride[d] - pad_lo[d] + kk[d] * dilation[d];
        inside = inside && xi[d] >= 0 && xi[d] < x_dims[d];
      }
      acc = op(acc, inside ? x[static_cast<size_t>(flat_of(xi, x_dims))] : init);
    }
    y[static_cast<size_t>(f)] = acc;
  }
  return y;
}

std::string tensor(const std::vector<int64_t>& dims) {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + "f32>";
}

void expect_near_all(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << "element " << i;
  }
}

/// A function of one convolution `op_text` over %x and %w of the case's shapes.
std::string conv_fn(const ConvCase& c, const std::string& op_text) {
  return "func.func @main(%x: " + tensor(c.x_dims) + ", %w: " + tensor(c.w_dims) + ") -> " +
         tensor(c.y_dims) + " {\n  %0 = " + op_text + " : (" + tensor(c.x_dims) + ", " +
         tensor(c.w_dims) + ") -> " + tensor(c.y_dims) + "\n  return %0 : " + tensor(c.y_dims) +
         "\n}\n";
}

void expect_conv(const ConvCase& c, const std::string& op_text) {
  std::vector<float> x = random_values(numel(c.x_dims), 1), w = random_values(numel(c.w_dims), 2);
  expect_near_all(run(conv_fn(c, op_text), {x, w}), conv_by_definition(c, x, w));
}

TEST(TextStableHloWindow, ConvolutionCustomAndGenericForms) {
  // As JAX prints a flax Conv(8, (3, 3), strides=2, padding=1) on NHWC.
  expect_conv(
      {"b01f", "01io", "b01f", {2, 9, 8, 3}, {3, 3, 3, 8}, {2, 5, 4, 8}, {2, 2}, {1, 1, 1, 1}},
      "stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, "
      "f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], "
      "rhs_dilate = [1, 1], reverse = [0, 0]} {batch_group_count = 1 : i64, "
      "feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, "
      "#stablehlo<precision DEFAULT>]}");
  // Depthwise, dilated along one dim, padded unevenly.
  expect_conv({"b01f",
               "01io",
               "b01f",
               {1, 10, 9, 4},
               {3, 2, 1, 4},
               {1, 8, 11, 4},
               {1, 1},
               {2, 0, 1, 2},
               {2, 1},
               4},
              "\"stablehlo.convolution\"(%x, %w) {batch_group_count = 1 : i64, "
              "dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, "
              "feature_group_count = 4 : i64, padding = dense<[[2, 0], [1, 2]]> : "
              "tensor<2x2xi64>, rhs_dilation = array<i64: 2, 1>, window_strides = array<i64: 1, "
              "1>}");
}

TEST(TextStableHloWindow, ConvolutionNchwAndReorderedOutput) {
  // torch-xla's layout, OIHW kernel; a splat padding.
  ConvCase nchw{"bf01", "oi01", "bf01", {1, 4, 7, 6}, {6, 2, 3, 3}, {1, 6, 7, 6}};
  nchw.pad = {1, 1, 1, 1};
  nchw.groups = 2;
  expect_conv(nchw, "\"stablehlo.convolution\"(%x, %w) {dimension_numbers = "
                    "#stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, "
                    "feature_group_count = 2 : i64, padding = dense<1> : tensor<2x2xi64>}");
  // An NHWC input whose result is declared NCHW: the result is permuted.
  ConvCase moved{"b01f", "i01o", "bf01", {1, 6, 5, 3}, {3, 2, 2, 4}, {1, 4, 5, 4}};
  expect_conv(moved, "stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[i, 0, 1, o]->[b, "
                     "f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 "
                     ": i64}");
}

TEST(TextStableHloWindow, Convolution1d) {
  // JAX's 1-D layout (a flax Conv over sequences), strided and padded.
  expect_conv({"b0f", "0io", "b0f", {2, 11, 3}, {3, 3, 4}, {2, 6, 4}, {2, 1}, {1, 1, 0, 0}},
              "stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], "
              "window = {stride = [2], pad = [[1, 1]], rhs_dilate = [1]} {batch_group_count = 1 "
              ": i64, feature_group_count = 1 : i64}");
  // torch-xla's [b, f, 0] with grouped, dilated taps (a wav2vec2-style positional conv).
  expect_conv(
      {"bf0", "oi0", "bf0", {1, 4, 12}, {4, 2, 3}, {1, 4, 12}, {1, 1}, {2, 2, 0, 0}, {2, 1}, 2},
      "\"stablehlo.convolution\"(%x, %w) {dimension_numbers = #stablehlo.conv<[b, f, "
      "0]x[o, i, 0]->[b, f, 0]>, feature_group_count = 2 : i64, padding = dense<2> : "
      "tensor<1x2xi64>, rhs_dilation = array<i64: 2>}");
}

TEST(TextStableHloWindow, TransposedConvolution) {
  // Each case: letters, shapes, stride, padding, dilation, groups, input dilation.
  // clang-format off
  const std::pair<ConvCase, const char*> cases[] = {
      // flax ConvTranspose(4, (3, 3), strides=(2, 2), padding="SAME") as JAX lowers it:
      // input dilation 2, padding k - 1 - p around the spread input.
      {{"b01f", "01io", "b01f", {1, 4, 5, 3}, {3, 3, 3, 4}, {1, 8, 10, 4}, {1, 1}, {2, 1, 2, 1}, {1, 1}, 1, {2, 2}},
       "stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
       "window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1]} "
       "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}"},
      // Uneven input dilation in the generic form.
      {{"b01f", "01io", "b01f", {1, 3, 4, 2}, {2, 2, 2, 3}, {1, 9, 3, 3}, {1, 1}, {1, 2, 0, 0}, {1, 1}, 1, {3, 1}},
       "\"stablehlo.convolution\"(%x, %w) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, "
       "lhs_dilation = array<i64: 3, 1>, padding = dense<[[1, 2], [0, 0]]> : tensor<2x2xi64>}"},
      // A 1-D one.
      {{"bf0", "oi0", "bf0", {1, 2, 5}, {3, 2, 3}, {1, 3, 11}, {1, 1}, {2, 2, 0, 0}, {1, 1}, 1, {2, 1}},
       "\"stablehlo.convolution\"(%x, %w) {dimension_numbers = #stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>, "
       "lhs_dilation = array<i64: 2>, padding = dense<2> : tensor<1x2xi64>}"},
  };
  // clang-format on
  for (const auto& [c, text] : cases) expect_conv(c, text);
}

TEST(TextStableHloWindow, ConvolutionErrors) {
  ConvCase c{"b01f", "01io", "b01f", {1, 4, 4, 2}, {3, 3, 2, 2}, {1, 4, 4, 2}};
  auto custom = [&](const std::string& numbers, const std::string& window,
                    const std::string& attrs = "") {
    return parse_error(conv_fn(c, "stablehlo.convolution(%x, %w) dim_numbers = " + numbers +
                                      ", window = {" + window + "}" + attrs));
  };
  std::string nhwc = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]";
  EXPECT_EQ(custom(nhwc, "pad = [[1, 1], [1, 1]], lhs_dilate = [0, 2]"),
            "t.mlir:2:140: error: 'stablehlo.convolution': input dilation 0 is not supported");
  EXPECT_EQ(custom(nhwc, "pad = [[1, 1], [1, 1]], reverse = [true, false]"),
            "t.mlir:2:137: error: 'stablehlo.convolution': a reversed window is not supported");
  EXPECT_EQ(custom(nhwc, "pad = [[-1, 1], [1, 1]]"),
            "t.mlir:2:109: error: 'stablehlo.convolution': negative padding -1 is not supported");
  EXPECT_EQ(custom(nhwc, "pad = [[1, 1]]"),
            "t.mlir:2:109: error: attribute 'pad' of 'stablehlo.convolution': expected 4 values, "
            "got 2");
  EXPECT_EQ(custom(nhwc, "pad = [[1, 1], [1, 1]]", " {batch_group_count = 2 : i64}"),
            "t.mlir:2:148: error: 'stablehlo.convolution': batch_group_count 2 is not supported");
  EXPECT_EQ(custom("[b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f]", ""),
            "t.mlir:2:52: error: attribute 'dim_numbers' of 'stablehlo.convolution': only 1-D "
            "and 2-D convolutions (spatial dims 0, or 0 and 1) are supported, got [b, 0, 1, 2, "
            "f] x [0, 1, 2, i, o] -> [b, 0, 1, 2, f]");
  EXPECT_EQ(custom("[b, 0, 1, f]x[0, 1, i, i]->[b, 0, 1, f]", ""),
            "t.mlir:2:52: error: attribute 'dim_numbers' of 'stablehlo.convolution': expected [b, "
            "0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] (input x kernel -> output), got [b, 0, 1, f] x "
            "[0, 1, i, i] -> [b, 0, 1, f]");
  EXPECT_EQ(parse_error(conv_fn(c, "\"stablehlo.convolution\"(%x, %w) {dimension_numbers = "
                                   "#stablehlo.conv<[b, 0, 1, f]->[0, 1, i, o]x[b, 0, 1, f]>}")),
            "t.mlir:2:61: error: attribute 'dim_numbers' of 'stablehlo.convolution': expected [b, "
            "0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] (input x kernel -> output), got "
            "#stablehlo.conv<[b, 0, 1, f]->[0, 1, i, o]x[b, 0, 1, f]>");
  // Shapes the window does not give are reported at the op.
  EXPECT_EQ(custom(nhwc, ""), "t.mlir:2:3: error: 'stablehlo.convolution': declared result type "
                              "tensor<1x4x4x2xf32>, but the operands give tensor<1x2x2x2xf32>");
}

/// A function of one generic reduce_window with `reducer` over %x, init `init`.
std::string reduce_window_fn(const std::vector<int64_t>& x_dims, const std::vector<int64_t>& y_dims,
                             const std::string& reducer, const std::string& init,
                             const std::string& attrs) {
  return "func.func @main(%x: " + tensor(x_dims) + ") -> " + tensor(y_dims) +
         " {\n  %c = stablehlo.constant dense<" + init +
         "> : tensor<f32>\n  %0 = \"stablehlo.reduce_window\"(%x, %c) ({\n  ^bb0(%a: "
         "tensor<f32>, %b: tensor<f32>):\n    %r = stablehlo." +
         reducer + " %a, %b : tensor<f32>\n    stablehlo.return %r : tensor<f32>\n  }) {" + attrs +
         "} : (" + tensor(x_dims) + ", tensor<f32>) -> " + tensor(y_dims) +
         "\n  return %0 : " + tensor(y_dims) + "\n}\n";
}

TEST(TextStableHloWindow, ReduceWindowPools) {
  const float inf = std::numeric_limits<float>::infinity();
  auto max = [](float a, float b) { return std::max(a, b); };
  auto min = [](float a, float b) { return std::min(a, b); };
  auto add = [](float a, float b) { return a + b; };
  std::vector<int64_t> nhwc{2, 9, 8, 3};
  std::vector<float> x = random_values(numel(nhwc), 3);
  // flax max_pool((3, 3), strides=(2, 2), padding=((0, 1), (0, 1))) on NHWC.
  std::string pooled = "padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>, "
                       "window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: "
                       "1, 2, 2, 1>";
  std::vector<int64_t> y{2, 4, 4, 3};
  expect_near_all(run(reduce_window_fn(nhwc, y, "maximum", "0xFF800000", pooled), {x}),
                  reduce_window_by_definition(x, nhwc, y, {1, 3, 3, 1}, {1, 2, 2, 1}, {0, 0, 0, 0},
                                              {1, 1, 1, 1}, -inf, max));
  expect_near_all(run(reduce_window_fn(nhwc, y, "add", "0.0", pooled), {x}),
                  reduce_window_by_definition(x, nhwc, y, {1, 3, 3, 1}, {1, 2, 2, 1}, {0, 0, 0, 0},
                                              {1, 1, 1, 1}, 0.0f, add));
  expect_near_all(run(reduce_window_fn(nhwc, y, "minimum", "0x7F800000", pooled), {x}),
                  reduce_window_by_definition(x, nhwc, y, {1, 3, 3, 1}, {1, 2, 2, 1}, {0, 0, 0, 0},
                                              {1, 1, 1, 1}, inf, min));
  // A padded max whose init value is not the identity, and a dilated window along dims 0 and
  // 3 (the others trivial, flattened ahead).
  std::vector<int64_t> y2{1, 9, 8, 2};
  std::string odd = "padding = dense<[[1, 0], [0, 0], [0, 0], [1, 1]]> : tensor<4x2xi64>, "
                    "window_dimensions = array<i64: 2, 1, 1, 2>, window_strides = array<i64: 2, "
                    "1, 1, 2>, window_dilations = array<i64: 1, 1, 1, 2>";
  expect_near_all(run(reduce_window_fn(nhwc, y2, "maximum", "0.25", odd), {x}),
                  reduce_window_by_definition(x, nhwc, y2, {2, 1, 1, 2}, {2, 1, 1, 2}, {1, 0, 0, 1},
                                              {1, 1, 1, 2}, 0.25f, max));
  // A window along one dim of a rank-3 operand (a 1-D pool).
  std::vector<int64_t> ncl{2, 3, 8}, y3{2, 3, 4};
  std::vector<float> x3 = random_values(numel(ncl), 4);
  expect_near_all(run(reduce_window_fn(ncl, y3, "add", "0.0",
                                       "window_dimensions = array<i64: 1, 1, 2>, window_strides "
                                       "= array<i64: 1, 1, 2>"),
                      {x3}),
                  reduce_window_by_definition(x3, ncl, y3, {1, 1, 2}, {1, 1, 2}, {0, 0, 0},
                                              {1, 1, 1}, 0.0f, add));
}

TEST(TextStableHloWindow, ReduceWindowErrors) {
  std::vector<int64_t> x{1, 4, 4, 1}, y{1, 2, 2, 1};
  std::string window = "window_dimensions = array<i64: 1, 2, 2, 1>";
  EXPECT_EQ(parse_error(reduce_window_fn(x, y, "multiply", "1.0", window)),
            "t.mlir:5:10: error: reducer 'stablehlo.multiply' of 'stablehlo.reduce_window' is "
            "not supported (expected stablehlo.add, stablehlo.maximum or stablehlo.minimum)");
  EXPECT_EQ(parse_error(reduce_window_fn(x, y, "add", "0.0",
                                         window + ", window_strides = array<i64: 1, 2, 2, 1>, "
                                                  "base_dilations = array<i64: 1, 2, 1, 1>")),
            "t.mlir:7:109: error: attribute 'base_dilations' of 'stablehlo.reduce_window': base "
            "dilation 2 for dim 1 is not supported");
  EXPECT_EQ(parse_error(reduce_window_fn(x, {1, 2, 2, 1}, "add", "0.0",
                                         "window_dimensions = array<i64: 1, 2, 2, 1>, "
                                         "window_strides = array<i64: 1, 2, 2, 2>")),
            "t.mlir:3:3: error: 'stablehlo.reduce_window': a window over 3 dims ([1, 2, 3]) is "
            "not supported (at most 2)");
  EXPECT_EQ(parse_error(reduce_window_fn(x, {1, 3, 3, 1}, "add", "1.0",
                                         window + ", padding = dense<[[0, 0], [1, 0], [1, 0], [0, "
                                                  "0]]> : tensor<4x2xi64>")),
            "t.mlir:3:38: error: 'stablehlo.reduce_window': an add reducer with padding needs the "
            "init value 0");
  EXPECT_EQ(parse_error(reduce_window_fn(x, y, "add", "0.0",
                                         "window_dimensions = array<i64: 2, "
                                         "2>")),
            "t.mlir:7:27: error: attribute 'window_dimensions' of 'stablehlo.reduce_window': "
            "expected 4 values (one per dim), got 2");
}

} // namespace
} // namespace tilesat
