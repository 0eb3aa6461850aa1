// Tests of shape.h: extents, strides, tiles, NumPy broadcasting and axes.
#include "tilesat/graph/shape.h"

#include <gtest/gtest.h>

namespace tilesat {
namespace {

TEST(Shape, HeaderExample) {
  Shape a{32, 256}, b{256};
  EXPECT_EQ(broadcast_shapes(a, b).value(), (Shape{32, 256}));
  EXPECT_EQ(a.str(), "32x256");
}

TEST(Shape, NumelStridesStr) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(s.numel(), 24);
  EXPECT_EQ(s.strides(), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(s.str(), "2x3x4");
  Shape scalar;
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(scalar.strides(), std::vector<int64_t>{});
  EXPECT_EQ(scalar.str(), "");
  EXPECT_EQ((Shape{5, 0}).numel(), 0);
}

TEST(Shape, TileCountPadsTheLastTwoDims) {
  EXPECT_EQ((Shape{32, 32}).tile_count(), 1);
  EXPECT_EQ((Shape{32, 128}).tile_count(), 4);
  EXPECT_EQ((Shape{33, 32}).tile_count(), 2);
  EXPECT_EQ((Shape{1, 1}).tile_count(), 1);
  EXPECT_EQ((Shape{256}).tile_count(), 8); // one row of 256
  EXPECT_EQ((Shape{2, 3, 64, 64}).tile_count(), 24);
  EXPECT_EQ(Shape{}.tile_count(), 1);
}

TEST(Shape, BroadcastFollowsNumPy) {
  EXPECT_EQ(broadcast_shapes({2, 1, 4}, {3, 1}).value(), (Shape{2, 3, 4}));
  EXPECT_EQ(broadcast_shapes({}, {3, 4}).value(), (Shape{3, 4}));
  EXPECT_EQ(broadcast_shapes({5, 4}, {5, 4}).value(), (Shape{5, 4}));
  EXPECT_EQ(broadcast_shapes({1}, {0}).value(), (Shape{0}));
  EXPECT_EQ(broadcast_shapes({32, 256}, {10}), std::nullopt);
  EXPECT_EQ(broadcast_shapes({2, 3}, {3, 2}), std::nullopt);
}

TEST(Shape, NormalizeAxis) {
  EXPECT_EQ(normalize_axis(0, 2), 0);
  EXPECT_EQ(normalize_axis(-1, 2), 1);
  EXPECT_EQ(normalize_axis(-2, 2), 0);
  EXPECT_EQ(normalize_axis(2, 2), std::nullopt);
  EXPECT_EQ(normalize_axis(-3, 2), std::nullopt);
  EXPECT_EQ(normalize_axis(0, 0), std::nullopt);
}

} // namespace
} // namespace tilesat
