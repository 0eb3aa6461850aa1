// tuned_configs.cpp: the GEMM benchmark's hand-tuned program configurations.
#include "tuned_configs.h"

#include "measured_csv.h"
#include "tilesat/cost/ttnn_matmul_default.h"

#include <tuple>
#include <utility>

namespace tilesat::bench {

TunedConfigs::TunedConfigs(const std::string& path) {
  MeasuredCsv csv(path, {"dtype", "m", "k", "n", "in0_sharded", "out_sharded", "in0_block_w_div",
                         "num_out_blocks_h", "num_out_blocks_w", "source"});
  while (csv.next()) {
    Entry e{};
    e.tile_bytes = dtype_tile_bytes(csv.get("dtype"));
    if (e.tile_bytes == 0)
      throw csv.bad("dtype", "expected BFLOAT16, BFLOAT8_B, BFLOAT4_B or FLOAT32");
    for (auto [column, value] : {std::pair{"m", &e.m}, {"k", &e.k}, {"n", &e.n}}) {
      *value = csv.positive_int(column);
      if (*value % 32) throw csv.bad(column, "expected a multiple of 32 (whole tiles per core)");
    }
    for (auto [column, value] :
         {std::pair{"in0_sharded", &e.in0_sharded}, {"out_sharded", &e.out_sharded}}) {
      std::optional<bool> b = parse_flag(csv.get(column));
      if (!b) throw csv.bad(column, "expected True or False");
      *value = *b;
    }
    e.in0_block_w_div = csv.positive_int("in0_block_w_div");
    e.out_blocks_h = csv.positive_int("num_out_blocks_h");
    e.out_blocks_w = csv.positive_int("num_out_blocks_w");
    if ((e.k / 32) % e.in0_block_w_div) throw csv.bad("in0_block_w_div", "does not divide K/32");
    if ((e.m / 32) % e.out_blocks_h) throw csv.bad("num_out_blocks_h", "does not divide M/32");
    if ((e.n / 32) % e.out_blocks_w) throw csv.bad("num_out_blocks_w", "does not divide N/32");
    if (csv.get("source").empty()) throw csv.bad("source", "expected where the row comes from");
    entries_.push_back(e);
  }
}

std::optional<cost::MatmulConfig> TunedConfigs::config(const GemmRow& row) const {
  const cost::MatmulConfig& c = row.config;
  const int64_t rows = c.grid.rows, cols = c.grid.cols;
  if (rows == 0 || cols == 0 || c.m % rows || c.k % cols || c.n % cols) return std::nullopt;
  for (const Entry& e : entries_) {
    if (e.tile_bytes != c.in0_tile_bytes || e.m != c.m / rows || e.k != c.k / cols ||
        e.n != c.n / cols || e.in0_sharded != c.in0_sharded || e.out_sharded != c.out_sharded)
      continue;
    cost::MatmulConfig t = c;
    cost::MatmulBlocking b;
    b.per_core_m = e.m / 32;
    b.per_core_n = e.n / 32;
    b.in0_block_w = e.k / 32 / e.in0_block_w_div;
    b.out_block_h = b.per_core_m / e.out_blocks_h;
    b.out_block_w = b.per_core_n / e.out_blocks_w;
    std::tie(b.out_subblock_h, b.out_subblock_w) =
        cost::ttnn_subblock(b.out_block_h, b.out_block_w, c.fp32_accumulate, e.out_sharded);
    t.mcast = cost::MatmulMcast::Block2D;
    t.packer_l1_acc = true;
    t.in0_block_w = b.in0_block_w;
    t.blocking = b;
    return t;
  }
  return std::nullopt;
}

} // namespace tilesat::bench
