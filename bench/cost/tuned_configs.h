// tuned_configs: the program configurations a matmul benchmark gave its hand-tuned rows.
//
// tt-metal's GEMM benchmark (test_matmul_2d_host_perf) runs each hand-tuned shape with an
// explicit 2-D multicast configuration written for a 1x1 grid and scaled by the grid: M by its
// rows, K and N by its columns; the inner block is K/32 / in0_block_w_div tiles, the output
// block the per-core block divided by num_out_blocks_h x num_out_blocks_w, the sub-block the
// first of ttnn's list that divides it (one tile row when the output is sharded), and the
// packer accumulates in L1. `gemm_tuned_configs.csv` holds the benchmark's table; a measured
// row whose dtype and per-core shape it lists is predicted with that configuration.
//
//   TunedConfigs table("bench/cost/gemm_tuned_configs.csv");
//   std::optional<cost::MatmulConfig> c = table.config(row);   // nullopt: not in the table
#pragma once

#include "gemm_csv.h"

#include <optional>
#include <string>
#include <vector>

namespace tilesat::bench {

class TunedConfigs {
public:
  /// Reads the table; errors name the file, line and column.
  explicit TunedConfigs(const std::string& path);

  /// `row`'s configuration with the benchmark's blocking, when the table lists its dtype, its
  /// per-core shape (the row's shape divided by its grid) and its operand placement.
  std::optional<cost::MatmulConfig> config(const GemmRow& row) const;

private:
  struct Entry {
    int64_t tile_bytes, m, k, n;
    bool in0_sharded, out_sharded;
    int64_t in0_block_w_div, out_blocks_h, out_blocks_w;
  };
  std::vector<Entry> entries_;
};

} // namespace tilesat::bench
