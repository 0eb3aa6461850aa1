// GridSample (onnx/src/grid_sample.cpp): bilinear, nearest and bicubic sampling with each
// padding mode and both align_corners, worked by hand; the grid a runtime input, a Constant
// (the sampling matrix computed at import) and an initializer (computed at import, a weight);
// and the errors.
#include "test_util.h"

#include <cmath>
#include <gmock/gmock.h>
#include <random>

namespace tilesat::onnx::testing {
namespace {

using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

/// How the model gets its grid.
enum class GridAs { Input, Constant, Initializer };

struct Attrs {
  std::string mode = "bilinear", padding = "zeros";
  int64_t align = 0;
};

OnnxModel grid_sample(const std::vector<int64_t>& x, const std::vector<int64_t>& g,
                      const std::vector<float>& grid, GridAs as, const Attrs& a) {
  OnnxModel m(16);
  m.input("x", x);
  if (as == GridAs::Input) {
    m.input("grid", g);
  } else if (as == GridAs::Constant) {
    m.constant("grid", g, grid);
  } else {
    m.initializer("grid", g, grid);
  }
  ::onnx::NodeProto* n = m.node("GridSample", {"x", "grid"}, {"y"});
  OnnxModel::attr_s(n, "mode", a.mode);
  OnnxModel::attr_s(n, "padding_mode", a.padding);
  OnnxModel::attr(n, "align_corners", a.align);
  m.output("y", std::vector<int64_t>{x[0], x[1], g[1], g[2]});
  return m;
}

/// The output of GridSample(x, grid), evaluated with the grid given each of the three ways
/// (expected to agree within 1e-5: f32 and double).
std::vector<float> sample(const std::vector<int64_t>& xd, const std::vector<float>& x,
                          const std::vector<int64_t>& gd, const std::vector<float>& grid,
                          const Attrs& a) {
  std::vector<float> first;
  for (GridAs as : {GridAs::Input, GridAs::Constant, GridAs::Initializer}) {
    ImportedModel im = import(grid_sample(xd, gd, grid, as, a));
    std::map<std::string, Tensor> inputs{{"x", T(Shape(xd), x)}};
    if (as == GridAs::Input) inputs.emplace("grid", T(Shape(gd), grid));
    std::vector<float> y = run(im, inputs).data();
    if (first.empty()) {
      first = y;
    } else {
      EXPECT_THAT(y, Pointwise(FloatNear(1e-5), first))
          << a.mode << " " << a.padding << " align_corners " << a.align << ", grid as "
          << static_cast<int>(as);
    }
  }
  return first;
}

// X [1, 1, 2, 3] = [[1, 2, 3], [4, 5, 6]] throughout the bilinear and nearest tests.
const std::vector<int64_t> kX23 = {1, 1, 2, 3};
const std::vector<float> kX = {1, 2, 3, 4, 5, 6};

TEST(GridSample, Bilinear) {
  // Without align_corners x = ((gx + 1) * 3 - 1) / 2 and y = gy + 0.5; border and reflection
  // keep a coordinate in [-0.5, W - 0.5] and [-0.5, H - 0.5].
  //   (0, 0):   x 1, y 0.5: (2 + 5) / 2 = 3.5 in every mode.
  //   (-1, -1): x -0.5, y -0.5: taps -1 and 0 each way at 1/2; zeros keeps 1/4 of X[0, 0],
  //             border and reflection read X[0, 0] for index -1.
  //   (1, 0):   x 2.5: taps 2 and 3 at 1/2; zeros half of (3 + 6) / 2; index 3 reads column 2
  //             (border: the edge; reflection: 3 over 2.5).
  //   (-2, 0):  x -2: zeros nothing; border column 0: (1 + 4) / 2; reflection over -0.5 to 1:
  //             (2 + 5) / 2.
  std::vector<int64_t> gd = {1, 1, 4, 2};
  std::vector<float> grid = {0, 0, -1, -1, 1, 0, -2, 0};
  EXPECT_THAT(sample(kX23, kX, gd, grid, {"bilinear", "zeros", 0}),
              Pointwise(FloatNear(1e-6), {3.5f, 0.25f, 2.25f, 0.0f}));
  EXPECT_THAT(sample(kX23, kX, gd, grid, {"bilinear", "border", 0}),
              Pointwise(FloatNear(1e-6), {3.5f, 1.0f, 4.5f, 2.5f}));
  EXPECT_THAT(sample(kX23, kX, gd, grid, {"bilinear", "reflection", 0}),
              Pointwise(FloatNear(1e-6), {3.5f, 1.0f, 4.5f, 3.5f}));
}

TEST(GridSample, BilinearAlignCorners) {
  // x = gx + 1, y = (gy + 1) / 2; the coordinate range is [0, W - 1] and [0, H - 1].
  //   (0, 0):      x 1, y 0.5: 3.5.
  //   (-0.5, 1):   x 0.5, y 1: (4 + 5) / 2.
  //   (1.5, 0):    x 2.5: zeros half of (3 + 6) / 2; border column 2; reflection x 1.5:
  //                (2 + 3 + 5 + 6) / 4.
  //   (-1.5, -2):  x -0.5, y -0.5: zeros 1/4 of X[0, 0]; border X[0, 0]; reflection x 0.5,
  //                y 0.5: (1 + 2 + 4 + 5) / 4.
  std::vector<int64_t> gd = {1, 2, 2, 2};
  std::vector<float> grid = {0, 0, -0.5f, 1, 1.5f, 0, -1.5f, -2};
  EXPECT_THAT(sample(kX23, kX, gd, grid, {"bilinear", "zeros", 1}),
              Pointwise(FloatNear(1e-6), {3.5f, 4.5f, 2.25f, 0.25f}));
  EXPECT_THAT(sample(kX23, kX, gd, grid, {"bilinear", "border", 1}),
              Pointwise(FloatNear(1e-6), {3.5f, 4.5f, 4.5f, 1.0f}));
  EXPECT_THAT(sample(kX23, kX, gd, grid, {"bilinear", "reflection", 1}),
              Pointwise(FloatNear(1e-6), {3.5f, 4.5f, 4.0f, 3.0f}));
}

TEST(GridSample, NearestRoundsHalfToEven) {
  // align_corners: (-0.5, -1) is x 0.5, y 0: 0.5 rounds to 0 (half up would read 2);
  // (0.5, 1) x 1.5 -> 2, y 1: 6; (0, 0) x 1, y 0.5 -> 0: 2; (2, 0) x 3: zeros nothing, border
  // column 2, reflection over 2 to column 1.
  std::vector<int64_t> gd = {1, 1, 4, 2};
  std::vector<float> grid = {-0.5f, -1, 0.5f, 1, 0, 0, 2, 0};
  EXPECT_THAT(sample(kX23, kX, gd, grid, {"nearest", "zeros", 1}),
              Pointwise(FloatNear(1e-6), {1.0f, 6.0f, 2.0f, 0.0f}));
  EXPECT_THAT(sample(kX23, kX, gd, grid, {"nearest", "border", 1}),
              Pointwise(FloatNear(1e-6), {1.0f, 6.0f, 2.0f, 3.0f}));
  EXPECT_THAT(sample(kX23, kX, gd, grid, {"nearest", "reflection", 1}),
              Pointwise(FloatNear(1e-6), {1.0f, 6.0f, 2.0f, 2.0f}));
  // Without: (0, 1) is y 1.5 -> 2, outside (zeros) or moved back to row 1; (0, -1) is y -0.5
  // -> 0, inside.
  gd = {1, 1, 2, 2};
  grid = {0, 1, 0, -1};
  EXPECT_THAT(sample(kX23, kX, gd, grid, {"nearest", "zeros", 0}),
              Pointwise(FloatNear(1e-6), {0.0f, 2.0f}));
  EXPECT_THAT(sample(kX23, kX, gd, grid, {"nearest", "border", 0}),
              Pointwise(FloatNear(1e-6), {5.0f, 2.0f}));
  EXPECT_THAT(sample(kX23, kX, gd, grid, {"nearest", "reflection", 0}),
              Pointwise(FloatNear(1e-6), {5.0f, 2.0f}));
}

// X [1, 1, 1, 4] = [1, 2, 4, 8] in the bicubic tests: one row, so y is 0 and only the x taps
// weigh. The cubic weights (A = -0.75) of taps floor - 1 .. floor + 2 at fraction 1/2 are
// (-0.09375, 0.59375, 0.59375, -0.09375); at 1/4, (-0.10546875, 0.87890625, 0.26171875,
// -0.03515625) (reversed at 3/4).
const std::vector<int64_t> kX14 = {1, 1, 1, 4};
const std::vector<float> kRow = {1, 2, 4, 8};

TEST(GridSample, Bicubic) {
  // x = 2 gx + 1.5: gx 0, -0.5, -1 are x 1.5, 0.5, -0.5 (taps 0..3, -1..2, -2..1).
  //   1.5:  -0.09375 + 0.59375 * 2 + 0.59375 * 4 - 0.09375 * 8 = 2.71875.
  //   0.5:  zeros drops tap -1: 1.40625; border and reflection read X[0] there: 1.3125.
  //   -0.5: zeros keeps taps 0 and 1: 0.59375 - 0.09375 * 2; border reads X[0] for -2 and -1:
  //         0.90625; reflection reads X[1] for -2 and X[0] for -1: 0.8125.
  std::vector<int64_t> gd = {1, 1, 3, 2};
  std::vector<float> grid = {0, 0, -0.5f, 0, -1, 0};
  EXPECT_THAT(sample(kX14, kRow, gd, grid, {"bicubic", "zeros", 0}),
              Pointwise(FloatNear(1e-6), {2.71875f, 1.40625f, 0.40625f}));
  EXPECT_THAT(sample(kX14, kRow, gd, grid, {"bicubic", "border", 0}),
              Pointwise(FloatNear(1e-6), {2.71875f, 1.3125f, 0.90625f}));
  EXPECT_THAT(sample(kX14, kRow, gd, grid, {"bicubic", "reflection", 0}),
              Pointwise(FloatNear(1e-6), {2.71875f, 1.3125f, 0.8125f}));
}

TEST(GridSample, BicubicAlignCorners) {
  // x = 1.5 (gx + 1): gx 0 is 1.5 as above; gx -1.5 is x -0.75, below 0: zeros keeps taps 0
  // and 1 at fraction 1/4: 0.26171875 - 0.03515625 * 2; border moves x to 0: X[0];
  // reflection moves it to 0.75 (taps -1..2 at 3/4, -1 read as 1):
  // -0.03515625 * 2 + 0.26171875 + 0.87890625 * 2 - 0.10546875 * 4. The one-row axis (H 1)
  // has every y tap reflected to row 0.
  std::vector<int64_t> gd = {1, 1, 2, 2};
  std::vector<float> grid = {0, 0, -1.5f, 0.5f};
  EXPECT_THAT(sample(kX14, kRow, gd, grid, {"bicubic", "zeros", 1}),
              Pointwise(FloatNear(1e-6), {2.71875f, 0.19140625f}));
  EXPECT_THAT(sample(kX14, kRow, gd, grid, {"bicubic", "border", 1}),
              Pointwise(FloatNear(1e-6), {2.71875f, 1.0f}));
  EXPECT_THAT(sample(kX14, kRow, gd, grid, {"bicubic", "reflection", 1}),
              Pointwise(FloatNear(1e-6), {2.71875f, 1.52734375f}));
}

TEST(GridSample, BatchesHaveTheirOwnGrid) {
  // X [2, 2, 1, 2]; image 0 samples column 0 (gx -0.5: x 0), image 1 column 1 (gx 0.5: x 1),
  // every channel alike.
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_THAT(sample({2, 2, 1, 2}, x, {2, 1, 1, 2}, {-0.5f, 0, 0.5f, 0}, {}),
              Pointwise(FloatNear(1e-6), {1.0f, 3.0f, 6.0f, 8.0f}));
}

TEST(GridSample, KnownAndRuntimeGridsAgree) {
  // A 3x4 image sampled at 5x3 points in [-1.6, 1.6] (some outside) in every mode: the
  // matrix computed at import (double) and the one built from graph ops (f32) agree.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.6f, 1.6f);
  std::vector<float> x(12), grid(30);
  for (float& v : x) v = u(rng);
  for (float& v : grid) v = u(rng);
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* padding : {"zeros", "border", "reflection"})
      for (int64_t align : {0, 1})
        sample({1, 1, 3, 4}, x, {1, 5, 3, 2}, grid, {mode, padding, align});
}

TEST(GridSample, AKnownGridIsFoldedAtImport) {
  std::vector<float> grid = {0, 0, 0.5f, -0.5f};
  ImportedModel runtime = import(grid_sample(kX23, {1, 1, 2, 2}, grid, GridAs::Input, {}));
  EXPECT_GT(count_ops(runtime.graph, OpKind::Equal), 0u);
  ImportedModel constant = import(grid_sample(kX23, {1, 1, 2, 2}, grid, GridAs::Constant, {}));
  EXPECT_EQ(count_ops(constant.graph, OpKind::Equal), 0u);
  EXPECT_EQ(count_ops(constant.graph, OpKind::Matmul), 1u);
  // An initializer grid becomes a weight [N, H_in * W_in, H_out * W_out].
  ImportedModel weight = import(grid_sample(kX23, {1, 1, 2, 2}, grid, GridAs::Initializer, {}));
  EXPECT_EQ(count_ops(weight.graph, OpKind::Equal), 0u);
  ASSERT_EQ(weight.weights.count("grid.grid_sample"), 1u);
  EXPECT_EQ(weight.weights.at("grid.grid_sample").shape(), (Shape{1, 6, 2}));
}

TEST(GridSample, Errors) {
  std::vector<float> grid = {0, 0};
  auto error = [&](const std::vector<int64_t>& x, const std::vector<int64_t>& g, const Attrs& a) {
    return import_error(grid_sample(x, g, grid, GridAs::Input, a));
  };
  EXPECT_THAT(error(kX23, {1, 1, 1, 2}, {"trilinear", "zeros", 0}),
              HasSubstr("expected 'mode' bilinear, nearest or bicubic (opset 20: linear, "
                        "nearest or cubic), got 'trilinear'"));
  EXPECT_THAT(error(kX23, {1, 1, 1, 2}, {"bilinear", "wrap", 0}),
              HasSubstr("expected 'padding_mode' zeros, border or reflection, got 'wrap'"));
  EXPECT_THAT(error(kX23, {1, 1, 1, 2}, {"bilinear", "zeros", 2}),
              HasSubstr("expected 'align_corners' 0 or 1, got 2"));
  EXPECT_THAT(error(kX23, {1, 1, 1, 3}, {}),
              HasSubstr("expected a grid of shape [N, H_out, W_out, 2], got [1, 1, 1, 3]"));
  EXPECT_THAT(error(kX23, {2, 1, 1, 2}, {}),
              HasSubstr("expected the grid's batch (2) to be X's (1)"));
  EXPECT_THAT(error({1, 1, 2, 2, 2}, {1, 1, 1, 1, 3}, {}),
              HasSubstr("expected a 4-D input X [N, C, H, W], got rank 5"));
  std::vector<float> nan = {0, std::nanf("")};
  EXPECT_THAT(import_error(grid_sample(kX23, {1, 1, 1, 2}, nan, GridAs::Constant, {})),
              HasSubstr("expected finite grid values, got (0, nan) at batch 0, pixel 0"));
  // 512 channels of 256 x 256 pixels sampled at 65 x 64 points: 2^16 x 4160 weights in S,
  // 512 x 256 x 4160 partial sums.
  EXPECT_THAT(error({1, 512, 256, 256}, {1, 65, 64, 2}, {}),
              HasSubstr("GridSample of a [1, 512, 256, 256] input on a 65x64 grid needs "
                        "545259520 elements"));
}

TEST(GridSample, FewChannelsSampleWithoutTheMatrix) {
  // One channel of 256 x 256 at 65 x 64 points: S (2^16 x 4160, 272M) is past the limit, the
  // factored product's partial sums (256 x 4160) are not; a runtime grid's factors (graph ops)
  // and a known grid's (host) give one result.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.2f, 1.2f);
  std::vector<float> x(256 * 256), grid(65 * 64 * 2);
  for (float& v : x) v = u(rng);
  for (float& v : grid) v = u(rng);
  std::vector<float> first;
  for (GridAs as : {GridAs::Input, GridAs::Constant}) {
    ImportedModel im = import(grid_sample({1, 1, 256, 256}, {1, 65, 64, 2}, grid, as, {}));
    EXPECT_EQ(count_ops(im.graph, OpKind::Sum), 1u);
    std::map<std::string, Tensor> inputs{{"x", T(Shape{1, 1, 256, 256}, x)}};
    if (as == GridAs::Input) inputs.emplace("grid", T(Shape{1, 65, 64, 2}, grid));
    std::vector<float> y = run(im, inputs).data();
    if (first.empty())
      first = y;
    else
      EXPECT_THAT(y, Pointwise(FloatNear(1e-5), first));
  }
}

TEST(GridSample, Opset20ModeNames) {
  // 'linear' and 'cubic' (opset 20's names) are read as bilinear and bicubic.
  std::vector<int64_t> gd = {1, 1, 1, 2};
  EXPECT_THAT(sample(kX23, kX, gd, {0, 0}, {"linear", "zeros", 0}),
              Pointwise(FloatNear(1e-6), {3.5f}));
  EXPECT_THAT(sample(kX14, kRow, gd, {0, 0}, {"cubic", "zeros", 0}),
              Pointwise(FloatNear(1e-6), {2.71875f}));
}

} // namespace
} // namespace tilesat::onnx::testing
