// The kernels of the network ops (conv2d, max/avg pool, layer_norm, rms_norm, take, where,
// eq/lt/gt) against the reference interpreter, on shapes that are not whole tiles, on several
// core grids and placements, in f32, bf16 and bfp8_b (tolerances: runtime/compare.h).
#include "kernel_check.h"
#include "tilesat/runtime/compare.h"

namespace tilesat::runtime {
namespace {

using testing::Case;
using testing::check;

class NnKernels : public ::testing::TestWithParam<Case> {};

// Builds a graph with `build(b, dtype)` for f32, bf16 and bfp8_b and checks each on the case
// with its dtype's tolerance.
template <class Build>
void check_each_dtype(const Case& c, Build build) {
  for (DType dt : {DType::F32, DType::BF16, DType::BFP8_B}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Graph g;
    Builder b(g);
    build(b, dt);
    check(g, c, tolerance(dt));
  }
}

TEST_P(NnKernels, Conv2d) {
  check_each_dtype(GetParam(), [](Builder& b, DType dt) {
    // Two groups, padding, bias and relu.
    Value x = b.input("x", {2, 6, 37, 35}, dt);
    b.output(b.conv2d(x, b.input("w", {8, 3, 3, 3}, dt), b.input("bias", {8}, dt),
                      {.padding = {1, 1, 1, 1}, .groups = 2, .activation = "relu"}));
    // Depthwise, stride 2, uneven padding.
    Value y = b.input("y", {1, 5, 40, 33}, dt);
    b.output(b.conv2d(y, b.input("dw", {5, 1, 3, 3}, dt),
                      {.stride = {2, 2}, .padding = {1, 0, 1, 2}, .groups = 5}));
    // Dilation 2, mixed strides, a 3x2 kernel.
    b.output(b.conv2d(b.input("z", {1, 3, 36, 41}, dt), b.input("w3", {4, 3, 3, 2}, dt),
                      {.stride = {1, 2}, .padding = {2, 1, 0, 3}, .dilation = {2, 2}}));
    // A ResNet stem (7x7, stride 2, padding 3) and a strided 1x1 downsample with bias.
    b.output(b.conv2d(b.input("s", {1, 3, 45, 45}, dt), b.input("w7", {4, 3, 7, 7}, dt),
                      {.stride = {2, 2}, .padding = {3, 3, 3, 3}}));
    b.output(
        b.conv2d(x, b.input("w1", {7, 6, 1, 1}, dt), b.input("b1", {7}, dt), {.stride = {2, 2}}));
  });
}

TEST_P(NnKernels, Pools) {
  check_each_dtype(GetParam(), [](Builder& b, DType dt) {
    Value x = b.input("x", {2, 3, 37, 35}, dt);
    b.output(b.max_pool2d(x, {3, 3}, {.stride = {2, 2}, .padding = {1, 1, 1, 1}}));
    b.output(b.max_pool2d(x, {2, 2}, {.stride = {2, 2}, .ceil_mode = true}));
    b.output(
        b.max_pool2d(x, {3, 2}, {.stride = {1, 3}, .padding = {1, 0, 1, 1}, .dilation = {2, 1}}));
    b.output(b.avg_pool2d(x, {3, 3}, {.stride = {2, 2}, .padding = {1, 1, 1, 1}}));
    b.output(b.avg_pool2d(x, {3, 3},
                          {.stride = {2, 2}, .padding = {1, 1, 1, 1}, .count_include_pad = true}));
    b.output(
        b.avg_pool2d(x, {2, 3}, {.stride = {2, 2}, .padding = {0, 1, 0, 1}, .ceil_mode = true}));
  });
}

// Flattened NHWC images ([1, 1, N*H*W, C], ttnn's activation layout): the convs and pools
// above with tiles of 32 pixels by 32 channels, channel counts not multiples of 32.
TEST_P(NnKernels, FlatNhwcConvAndPools) {
  check_each_dtype(GetParam(), [](Builder& b, DType dt) {
    const FlatImage img{2, 13, 11};
    Value x = b.input("x", {1, 1, img.pixels(), 6}, dt);
    b.output(b.conv2d(x, b.input("w", {40, 3, 3, 3}, dt), b.input("bias", {40}, dt),
                      {.padding = {1, 1, 1, 1},
                       .groups = 2,
                       .activation = "relu",
                       .dims = ConvDims{},
                       .flat = img}));
    b.output(b.conv2d(
        x, b.input("dw", {6, 1, 3, 3}, dt),
        {.stride = {2, 2}, .padding = {1, 0, 1, 2}, .groups = 6, .dims = ConvDims{}, .flat = img}));
    b.output(b.conv2d(x, b.input("w1", {35, 6, 1, 1}, dt), b.input("b1", {35}, dt),
                      {.stride = {2, 2}, .dims = ConvDims{}, .flat = img}));
    b.output(b.conv2d(x, b.input("w3", {4, 6, 3, 2}, dt),
                      {.stride = {1, 2},
                       .padding = {2, 1, 0, 3},
                       .dilation = {2, 2},
                       .dims = ConvDims{},
                       .flat = img}));
    b.output(b.max_pool2d(x, {3, 3}, {.stride = {2, 2}, .padding = {1, 1, 1, 1}, .flat = img}));
    b.output(b.avg_pool2d(
        x, {2, 3}, {.stride = {2, 2}, .padding = {0, 1, 0, 1}, .ceil_mode = true, .flat = img}));
    b.output(b.avg_pool2d(x, {13, 11}, {.flat = img}));
  });
}

TEST_P(NnKernels, LayerNorm) {
  check_each_dtype(GetParam(), [](Builder& b, DType dt) {
    Value x = b.input("x", {3, 37, 70}, dt);
    Value scale = b.input("scale", {70}, dt), bias = b.input("bias", {70}, dt);
    b.output(b.layer_norm(x, &scale, &bias));
    b.output(b.layer_norm(x));
    Value scale2 = b.input("scale2", {37, 1}, dt);
    b.output(b.layer_norm(x, &scale2, nullptr, 1, 1e-3));
  });
}

TEST_P(NnKernels, RmsNorm) {
  check_each_dtype(GetParam(), [](Builder& b, DType dt) {
    Value x = b.input("x", {3, 37, 70}, dt);
    Value weight = b.input("weight", {70}, dt);
    b.output(b.rms_norm(x, &weight));
    b.output(b.rms_norm(x));
    Value weight2 = b.input("weight2", {37, 1}, dt);
    b.output(b.rms_norm(x, &weight2, 1, 1e-3));
  });
}

TEST_P(NnKernels, TakeAsAnEmbeddingLookup) {
  check_each_dtype(GetParam(), [](Builder& b, DType dt) {
    // A [V, H] table indexed by [B, S] token ids (negative ones count from the end).
    Value table = b.input("table", {45, 70}, dt);
    Value ids = b.input("ids", {2, 37}, DType::I32);
    b.output(b.take(table, ids));
    // Along an inner dim, with a rank-1 index list.
    b.output(b.take(b.input("x", {3, 37, 20}, dt), b.input("cols", {33}, DType::I32), 2));
  });
}

// Comparisons are exact, but a bfp8_b operand is stored with one bit less than the
// reference's bf16 and can land on the other side of a tie: they are tested in f32 and bf16,
// and where in bfp8_b only with an exact i32 mask.
TEST_P(NnKernels, WhereAndComparisons) {
  check_each_dtype(GetParam(), [](Builder& b, DType dt) {
    Value x = b.input("x", {3, 37, 70}, dt);
    Value y = b.input("y", {70}, dt);
    if (dt != DType::BFP8_B) {
      Value c = b.input("c", {37, 1}, dt);
      b.output(b.less(x, y));
      b.output(b.greater(c, x));
      b.output(b.equal(x, b.maximum(x, y))); // 1 where x >= y
      b.output(b.equal(c, x));
      // A mask from a comparison, broadcast over all three operands.
      b.output(b.where(b.greater(c, b.scalar(1.5, dt)), x, y));
    }
    // An i32 mask with zeros (values in [-8, 8]).
    b.output(b.where(b.input("m", {37, 70}, DType::I32), y, x));
  });
}

INSTANTIATE_TEST_SUITE_P(Grids, NnKernels, testing::all_cases(), testing::param_name);

} // namespace
} // namespace tilesat::runtime
