// partition.cpp: row-major, column-major and block partitions of output tiles to cores.
#include "tilesat/lowering/partition.h"

#include "tilesat/graph/diagnostic.h"

#include <algorithm>
#include <fmt/format.h>

namespace tilesat::lowering {

std::string_view partition_name(Partition p) {
  switch (p) {
  case Partition::RowMajor:
    return "row_major";
  case Partition::ColumnMajor:
    return "column_major";
  case Partition::Block:
    return "block";
  }
  return "?";
}

namespace {

// Cuts [0, n) into `parts` contiguous runs whose sizes differ by at most one.
std::vector<std::pair<int64_t, int64_t>> split(int64_t n, int64_t parts) {
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t base = n / parts, extra = n % parts, at = 0;
  for (int64_t i = 0; i < parts; ++i) {
    int64_t len = base + (i < extra ? 1 : 0);
    out.emplace_back(at, at + len);
    at += len;
  }
  return out;
}

// The linear run [s, e) of tiles ordered (batch, major, minor) as blocks; `column` swaps the
// roles of rows and columns. Whole batches in a row are one block (a 4-D conv weight is
// O*I batches of one tile each).
void run_to_blocks(const TileSpace& sp, int64_t s, int64_t e, bool column,
                   std::vector<TileBlock>& out) {
  int64_t major = column ? sp.cols : sp.rows, minor = column ? sp.rows : sp.cols;
  int64_t per_batch = major * minor;
  auto emit = [&](int64_t b, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    if (m0 >= m1 || n0 >= n1) return;
    out.push_back(column ? TileBlock{b, b + 1, n0, n1, m0, m1}
                         : TileBlock{b, b + 1, m0, m1, n0, n1});
  };
  while (s < e) {
    int64_t b = s / per_batch, in = s % per_batch;
    if (in == 0 && e - s >= per_batch) { // whole batches: one block
      int64_t whole = (e - s) / per_batch;
      out.push_back(TileBlock{b, b + whole, 0, sp.rows, 0, sp.cols});
      s += whole * per_batch;
      continue;
    }
    int64_t batch_end = std::min(e, (b + 1) * per_batch) - b * per_batch;
    int64_t m = in / minor, n = in % minor;
    if (n != 0) { // finish the partial line
      int64_t stop = std::min(minor, n + (batch_end - in));
      emit(b, m, m + 1, n, stop);
      in += stop - n;
      ++m;
    }
    int64_t full = (batch_end - in) / minor; // whole lines
    emit(b, m, m + full, 0, minor);
    in += full * minor;
    m += full;
    if (in < batch_end) emit(b, m, m + 1, 0, batch_end - in);
    s = (b + 1) * per_batch < e ? (b + 1) * per_batch : e;
  }
}

} // namespace

std::vector<CoreShare> partition_tiles(const TileSpace& space, uint32_t grid_rows,
                                       uint32_t grid_cols, Partition how) {
  std::vector<CoreShare> shares;
  int64_t total = space.tiles();
  if (total == 0 || grid_rows == 0 || grid_cols == 0) return shares;
  if (how == Partition::Block) {
    int64_t all_rows = space.batch * space.rows;
    int64_t gr = std::min<int64_t>(grid_rows, all_rows),
            gc = std::min<int64_t>(grid_cols, space.cols);
    auto rs = split(all_rows, gr), cs = split(space.cols, gc);
    for (int64_t i = 0; i < gr; ++i) {
      for (int64_t j = 0; j < gc; ++j) {
        CoreShare sh{static_cast<uint32_t>(i), static_cast<uint32_t>(j), {}};
        // A run of global rows may cross batches: one block per batch it touches.
        for (int64_t r = rs[i].first; r < rs[i].second;) {
          int64_t b = r / space.rows, stop = std::min(rs[i].second, (b + 1) * space.rows);
          sh.blocks.push_back(
              {b, b + 1, r - b * space.rows, stop - b * space.rows, cs[j].first, cs[j].second});
          r = stop;
        }
        shares.push_back(std::move(sh));
      }
    }
    return shares;
  }
  int64_t cores = std::min<int64_t>(int64_t{grid_rows} * grid_cols, total);
  auto runs = split(total, cores);
  for (int64_t k = 0; k < cores; ++k) {
    CoreShare sh{static_cast<uint32_t>(k / grid_cols), static_cast<uint32_t>(k % grid_cols), {}};
    run_to_blocks(space, runs[k].first, runs[k].second, how == Partition::ColumnMajor, sh.blocks);
    shares.push_back(std::move(sh));
  }
  return shares;
}

void check_partition(const TileSpace& space, const std::vector<CoreShare>& shares) {
  std::vector<uint8_t> seen(static_cast<size_t>(space.tiles()), 0);
  for (const CoreShare& sh : shares) {
    for (const TileBlock& b : sh.blocks) {
      if (b.b0 < 0 || b.b1 > space.batch || b.r0 < 0 || b.r1 > space.rows || b.c0 < 0 ||
          b.c1 > space.cols || b.b0 >= b.b1 || b.r0 >= b.r1 || b.c0 >= b.c1) {
        throw InternalError(fmt::format("partition: core ({}, {}) has a block outside the {}x{}x{} "
                                        "tiles or empty",
                                        sh.row, sh.col, space.batch, space.rows, space.cols));
      }
      for (int64_t bb = b.b0; bb < b.b1; ++bb)
        for (int64_t r = b.r0; r < b.r1; ++r)
          for (int64_t c = b.c0; c < b.c1; ++c) {
            auto t = static_cast<size_t>((bb * space.rows + r) * space.cols + c);
            if (seen[t]++ != 0) {
              throw InternalError(fmt::format("partition: tile ({}, {}, {}) computed twice (again "
                                              "by core ({}, {}))",
                                              bb, r, c, sh.row, sh.col));
            }
          }
    }
  }
  for (size_t t = 0; t < seen.size(); ++t) {
    if (seen[t] == 0) {
      auto t64 = static_cast<int64_t>(t);
      throw InternalError(fmt::format("partition: tile ({}, {}, {}) computed by no core",
                                      t64 / (space.rows * space.cols),
                                      t64 / space.cols % space.rows, t64 % space.cols));
    }
  }
}

} // namespace tilesat::lowering
