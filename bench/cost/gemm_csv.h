// gemm_csv: measured matmul rows in the column format of tt-metal's GEMM FLOPS report.
//
// Columns (by header name, any order, extra columns ignored): device, m, k, n, dtype,
// fidelity, in0_storage, in1_storage, out_storage, in0_sharded, out_sharded, use_trace, grid
// ("8x8" is x by y: columns by rows), time_ns; optionally config (out_of_box: ttnn chose the
// program configuration; manually_tuned or empty: the benchmark gave one).
//
//   std::vector<GemmRow> rows = read_gemm_csv("gemm_flops_n150.csv");
//   rows[0].config.m;  rows[0].time_us;  rows[0].device;   // "wormhole_b0"
#pragma once

#include "tilesat/cost/op_cost.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilesat::bench {

struct GemmRow {
  /// The descriptor name the row's device maps to (N150 -> wormhole_b0, P150 ->
  /// blackhole_p150; a descriptor name is taken as is).
  std::string device;
  std::string config_name; // "out_of_box", "manually_tuned"
  cost::MatmulConfig config;
  bool trace = false;
  double time_us = 0;
  int line = 0;
};

/// Bytes of one 32x32 tile of a dtype as the report names it (BFLOAT16 2048, BFLOAT8_B 1088,
/// BFLOAT4_B 576, FLOAT32 4096); 0 for any other name.
int64_t dtype_tile_bytes(const std::string& dtype);
/// A True/False column (also true/false, 1/0; empty is false); nullopt for anything else.
std::optional<bool> parse_flag(const std::string& s);

/// Reads every row; throws tilesat::Error naming file:line and the column on bad input.
std::vector<GemmRow> read_gemm_csv(const std::string& path);

} // namespace tilesat::bench
