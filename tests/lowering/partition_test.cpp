// Partition invariants: every output tile on exactly one core, for every strategy and grid.
#include "tilesat/graph/diagnostic.h"
#include "tilesat/lowering/partition.h"

#include <gtest/gtest.h>

namespace tilesat::lowering {
namespace {

TEST(Partition, CoversEveryTileOnceForManySpacesAndGrids) {
  for (Partition how : {Partition::RowMajor, Partition::ColumnMajor, Partition::Block}) {
    for (TileSpace s : {TileSpace{1, 1, 1}, TileSpace{1, 4, 8}, TileSpace{3, 5, 7},
                        TileSpace{2, 1, 9}, TileSpace{1, 32, 32}, TileSpace{5, 2, 1}}) {
      for (auto [gr, gc] : {std::pair{1u, 1u}, {1u, 2u}, {2u, 2u}, {3u, 5u}, {8u, 8u}}) {
        std::vector<CoreShare> parts = partition_tiles(s, gr, gc, how);
        EXPECT_NO_THROW(check_partition(s, parts))
            << partition_name(how) << " " << s.batch << "x" << s.rows << "x" << s.cols << " on "
            << gr << "x" << gc;
        EXPECT_LE(parts.size(), size_t{gr} * gc);
        for (const CoreShare& c : parts) {
          EXPECT_LT(c.row, gr);
          EXPECT_LT(c.col, gc);
        }
      }
    }
  }
}

TEST(Partition, RowMajorRunsAreBalanced) {
  TileSpace s{2, 3, 5}; // 30 tiles on 4 cores: 8, 8, 7, 7
  std::vector<CoreShare> parts = partition_tiles(s, 2, 2, Partition::RowMajor);
  ASSERT_EQ(parts.size(), 4u);
  std::vector<int64_t> counts;
  for (const CoreShare& c : parts) {
    int64_t n = 0;
    for (const TileBlock& b : c.blocks) n += b.tiles();
    counts.push_back(n);
  }
  EXPECT_EQ(counts, (std::vector<int64_t>{8, 8, 7, 7}));
  // The first core's run wraps a row: (0,0,0..4) then (0,1,0..2).
  EXPECT_EQ(parts[0].blocks[0], (TileBlock{0, 1, 0, 1, 0, 5}));
  EXPECT_EQ(parts[0].blocks[1], (TileBlock{0, 1, 1, 2, 0, 3}));
}

TEST(Partition, ColumnMajorWalksColumns) {
  TileSpace s{1, 4, 2};
  std::vector<CoreShare> parts = partition_tiles(s, 1, 2, Partition::ColumnMajor);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].blocks, (std::vector<TileBlock>{{0, 1, 0, 4, 0, 1}}));
  EXPECT_EQ(parts[1].blocks, (std::vector<TileBlock>{{0, 1, 0, 4, 1, 2}}));
}

TEST(Partition, BlockGivesRectanglesAndSplitsAtBatches) {
  TileSpace s{2, 3, 4}; // 6 global tile rows
  std::vector<CoreShare> parts = partition_tiles(s, 4, 2, Partition::Block);
  ASSERT_EQ(parts.size(), 8u);
  // Global rows 0..1 -> batch 0 rows 0..1; rows 2..3 -> batch 0 row 2 and batch 1 row 0.
  EXPECT_EQ(parts[0].blocks, (std::vector<TileBlock>{{0, 1, 0, 2, 0, 2}}));
  EXPECT_EQ(parts[2].blocks, (std::vector<TileBlock>{{0, 1, 2, 3, 0, 2}, {1, 2, 0, 1, 0, 2}}));
}

// A run over whole batches is one block, whatever their number: a 512x512x3x3 conv weight
// (262144 batches of one tile) gives each core a block or three, not a block per batch.
TEST(Partition, WholeBatchesAreOneBlock) {
  TileSpace w{512 * 512, 1, 1};
  for (Partition how : {Partition::RowMajor, Partition::ColumnMajor}) {
    std::vector<CoreShare> parts = partition_tiles(w, 8, 8, how);
    ASSERT_EQ(parts.size(), 64u);
    EXPECT_NO_THROW(check_partition(w, parts));
    for (const CoreShare& c : parts) {
      ASSERT_EQ(c.blocks.size(), 1u);
      EXPECT_EQ(c.blocks[0].tiles(), 4096);
    }
  }
  // 3 batches of 2x2 tiles on 2 cores: 6 tiles each; the first core's whole batch is one
  // block, then half of the second batch.
  std::vector<CoreShare> parts = partition_tiles({3, 2, 2}, 1, 2, Partition::RowMajor);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].blocks, (std::vector<TileBlock>{{0, 1, 0, 2, 0, 2}, {1, 2, 0, 1, 0, 2}}));
  EXPECT_EQ(parts[1].blocks, (std::vector<TileBlock>{{1, 2, 1, 2, 0, 2}, {2, 3, 0, 2, 0, 2}}));
}

TEST(Partition, FewerTilesThanCoresLeavesCoresIdle) {
  std::vector<CoreShare> parts = partition_tiles({1, 1, 3}, 8, 8, Partition::RowMajor);
  EXPECT_EQ(parts.size(), 3u);
}

TEST(Partition, CheckFindsRepeatedAndMissingTiles) {
  TileSpace s{1, 2, 2};
  std::vector<CoreShare> twice = {{0, 0, {{0, 1, 0, 2, 0, 2}}}, {0, 1, {{0, 1, 1, 2, 1, 2}}}};
  EXPECT_THROW(check_partition(s, twice), InternalError);
  std::vector<CoreShare> missing = {{0, 0, {{0, 1, 0, 1, 0, 2}}}};
  EXPECT_THROW(check_partition(s, missing), InternalError);
  std::vector<CoreShare> outside = {{0, 0, {{0, 1, 0, 3, 0, 2}}}};
  EXPECT_THROW(check_partition(s, outside), InternalError);
}

} // namespace
} // namespace tilesat::lowering
