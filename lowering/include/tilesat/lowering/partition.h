// Tile-to-core work partition (seed 003, TTTilesToCoreMap): deals the output tiles of an op,
// seen as (batch, tile row, tile col), to the cores of a grid so that each tile is computed
// by exactly one core.
//  - RowMajor: tiles in row-major order cut into one contiguous run per core;
//  - ColumnMajor: the same in column-major order (within each batch);
//  - Block: the (batch * tile rows) x (tile cols) grid cut into a rectangle per core.
// Each core's share is a list of rectangular blocks (a run that wraps a row becomes several).
//
//   TileSpace s{1, 4, 8};                                 // one batch of 4x8 tiles
//   auto parts = partition_tiles(s, 2, 2, Partition::Block);
//   check_partition(s, parts);                            // throws if a tile is missed/repeated
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace tilesat::lowering {

enum class Partition : uint8_t { RowMajor, ColumnMajor, Block };
std::string_view partition_name(Partition p);

/// The output tiles of an op.
struct TileSpace {
  int64_t batch = 1, rows = 1, cols = 1;
  int64_t tiles() const { return batch * rows * cols; }
};

/// Half-open ranges of batch, tile row and tile col.
struct TileBlock {
  int64_t b0 = 0, b1 = 0, r0 = 0, r1 = 0, c0 = 0, c1 = 0;
  int64_t tiles() const { return (b1 - b0) * (r1 - r0) * (c1 - c0); }
  friend bool operator==(const TileBlock&, const TileBlock&) = default;
};

/// One core's work: its position in the grid and its blocks.
struct CoreShare {
  uint32_t row = 0, col = 0;
  std::vector<TileBlock> blocks;
};

/// Deals the tiles of `space` to at most grid_rows x grid_cols cores (fewer when there are
/// fewer tiles than cores; cores without work are left out).
std::vector<CoreShare> partition_tiles(const TileSpace& space, uint32_t grid_rows,
                                       uint32_t grid_cols, Partition how);

/// Throws tilesat::InternalError naming the tile when a tile is not covered exactly once or a
/// block leaves the space.
void check_partition(const TileSpace& space, const std::vector<CoreShare>& shares);

} // namespace tilesat::lowering
