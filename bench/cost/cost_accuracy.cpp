// cost_accuracy FILE.csv...: how well the cost model predicts measured matmul times.
//
// For every row it predicts the time of exactly that configuration (device, shapes, dtype,
// fidelity, operand storage, trace, grid; an `out_of_box` row as ttnn's default program
// configuration runs it, cost/ttnn_matmul_default.h) and prints, per file and over all files,
//   median_ape=X p90_ape=Y kendall_tau=Z rows=N
// (absolute percentage error in percent; Kendall's tau-b between predicted and measured).
// With --rows it also prints each row's prediction and error; with --by KEY[,KEY...] (device,
// config, grid, dtype, fidelity, trace) the same figures per group of rows, with the median
// ratio of predicted to measured time (above 1: the model over-predicts). With --fit-on FIT.csv
// it first fits the descriptors' inner-block fetch latency (`matmul_block_sync_us`, the same
// value on every device) on FIT's rows alone, by median APE, and scores the other files with
// it: a check that what one device's rows teach transfers to another device.
// A hand-tuned row whose dtype and per-core shape the GEMM benchmark's table lists
// (gemm_tuned_configs.csv, tuned_configs.h) is predicted with the benchmark's configuration;
// `--configs FILE` reads another table, `--configs none` lets the model block every tuned row
// itself. The run says how many tuned rows each way took.
//   cost_accuracy --by device,config,grid gemm_flops_n150.csv gemm_flops_p150_dev.csv
//   cost_accuracy --fit-on gemm_flops_n150.csv gemm_flops_p150_dev.csv
#include "gemm_csv.h"
#include "measured_csv.h"
#include "stats.h"
#include "tilesat/cost/device.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/ttnn_matmul_default.h"
#include "tilesat/graph/diagnostic.h"
#include "tuned_configs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <optional>

namespace {
using tilesat::bench::median;
using tilesat::bench::percentile;

struct Sample {
  double predicted_us;
  double measured_us;
};

double kendall_tau_b(const std::vector<Sample>& s) {
  std::vector<double> predicted, measured;
  for (const Sample& x : s) {
    predicted.push_back(x.predicted_us);
    measured.push_back(x.measured_us);
  }
  return tilesat::bench::kendall_tau_b(predicted, measured);
}

std::string summary(const std::vector<Sample>& s, bool with_ratio = false) {
  std::vector<double> ape, ratio;
  for (const Sample& x : s) {
    ape.push_back(std::abs(x.predicted_us - x.measured_us) / x.measured_us * 100);
    ratio.push_back(x.predicted_us / x.measured_us);
  }
  return fmt::format("median_ape={:.1f} p90_ape={:.1f} kendall_tau={:.3f} rows={}{}", median(ape),
                     percentile(ape, 0.9), kendall_tau_b(s), s.size(),
                     with_ratio ? fmt::format(" median_ratio={:.2f}", median(ratio)) : "");
}

// The row's value of a --by key, as "key=value".
std::string group_part(const tilesat::bench::GemmRow& r, const std::string& key) {
  using tilesat::cost::fidelity_name;
  if (key == "device") return "device=" + r.device;
  if (key == "config") return "config=" + r.config_name;
  if (key == "grid") return fmt::format("grid={}x{}", r.config.grid.cols, r.config.grid.rows);
  if (key == "dtype") {
    const int64_t b = r.config.in0_tile_bytes;
    return b == 4096   ? "dtype=f32"
           : b == 2048 ? "dtype=bf16"
           : b == 1088 ? "dtype=bfp8_b"
           : b == 576  ? "dtype=bfp4_b"
                       : fmt::format("dtype={}B/tile", b);
  }
  if (key == "fidelity") return fmt::format("fidelity={}", fidelity_name(r.config.fidelity));
  if (key == "trace") return fmt::format("trace={}", r.trace);
  throw tilesat::Error(fmt::format(
      "--by: unknown key '{}' (keys: device, config, grid, dtype, fidelity, trace)", key));
}

// Loads devices by name as rows name them, with an optional fetch latency for all of them.
class Devices {
public:
  explicit Devices(std::optional<double> block_latency_us = {}) : latency_(block_latency_us) {}
  const tilesat::cost::Device& get(const tilesat::bench::GemmRow& r, const std::string& file) {
    using namespace tilesat;
    cost::Device& d = bench::cached_device(devices_, r.device, file, r.line, "device");
    if (latency_) d.matmul_block_sync_us = *latency_;
    if (r.config.grid.rows > d.grid_full.rows || r.config.grid.cols > d.grid_full.cols)
      throw Error(SourceLoc{file, r.line, 0},
                  fmt::format("grid {}x{} does not fit device {} ({}x{})", r.config.grid.cols,
                              r.config.grid.rows, d.name, d.grid_full.cols, d.grid_full.rows));
    return d;
  }

private:
  std::optional<double> latency_;
  std::map<std::string, tilesat::cost::Device> devices_;
};

// How each row's program configuration is found: out-of-box rows ran with ttnn's own,
// tuned rows with the benchmark's explicit one (2-D multicast, packer accumulation in L1): from
// the table when it lists the row, else blocked by the model.
class Configs {
public:
  explicit Configs(const std::string& table) {
    if (table != "none") table_.emplace(table);
  }
  tilesat::cost::MatmulConfig get(const tilesat::bench::GemmRow& r,
                                  const tilesat::cost::Device& d) {
    if (r.config_name == "out_of_box") return tilesat::cost::ttnn_default_matmul(r.config, d);
    std::optional<tilesat::cost::MatmulConfig> c = table_ ? table_->config(r) : std::nullopt;
    ++(c ? from_table : blocked_by_model);
    return c ? *c : r.config;
  }
  int from_table = 0, blocked_by_model = 0;

private:
  std::optional<tilesat::bench::TunedConfigs> table_;
};

// The model's estimate for one measured row.
tilesat::cost::OpEstimate predict(const tilesat::bench::GemmRow& r, const tilesat::cost::Device& d,
                                  Configs& configs) {
  using namespace tilesat;
  cost::CostModel model(d, {.fidelity = r.config.fidelity, .trace = r.trace});
  return model.matmul(configs.get(r, d));
}

// The fetch latency, 0.1 to 2 us in steps of 0.1, with the lowest median APE on `file`'s rows
// (then the lowest p90).
double fit_block_latency(const std::string& file, Configs& configs) {
  std::vector<tilesat::bench::GemmRow> rows = tilesat::bench::read_gemm_csv(file);
  double best = 0, best_median = 0, best_p90 = 0;
  for (int step = 1; step <= 20; ++step) {
    Devices devices(step * 0.1);
    std::vector<double> ape;
    for (const auto& r : rows) {
      double us = predict(r, devices.get(r, file), configs).us;
      ape.push_back(std::abs(us - r.time_us) / r.time_us * 100);
    }
    double med = median(ape), p90 = percentile(ape, 0.9);
    if (best == 0 || med < best_median - 1e-9 ||
        (std::abs(med - best_median) <= 1e-9 && p90 < best_p90)) {
      best = step * 0.1;
      best_median = med;
      best_p90 = p90;
    }
  }
  fmt::print("fitted matmul_block_sync_us={:.1f} on {} (median_ape={:.1f} p90_ape={:.1f})\n", best,
             file, best_median, best_p90);
  return best;
}

} // namespace

int main(int argc, char** argv) {
  using namespace tilesat;
  bool show_rows = false;
  std::vector<std::string> files, by;
  std::string fit_on, table = TILESAT_TUNED_CONFIGS;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rows") == 0) {
      show_rows = true;
    } else if (std::strcmp(argv[i], "--fit-on") == 0 && i + 1 < argc) {
      fit_on = argv[++i];
    } else if (std::strcmp(argv[i], "--configs") == 0 && i + 1 < argc) {
      table = argv[++i];
    } else if (std::strcmp(argv[i], "--by") == 0 && i + 1 < argc) {
      std::string keys = argv[++i];
      for (size_t at = 0; at <= keys.size();) {
        size_t comma = std::min(keys.find(',', at), keys.size());
        by.push_back(keys.substr(at, comma - at));
        at = comma + 1;
      }
    } else {
      files.emplace_back(argv[i]);
    }
  }
  if (files.empty()) {
    fmt::print(stderr, "usage: cost_accuracy [--rows] [--by KEY[,KEY...]] [--fit-on FIT.csv] "
                       "[--configs TABLE.csv|none] FILE.csv...\n");
    return 2;
  }
  try {
    for (const std::string& k : by) (void)group_part(bench::GemmRow{}, k);
  } catch (const Error& e) {
    fmt::print(stderr, "cost_accuracy: {}\n", e.what());
    return 2;
  }
  try {
    Configs fit_configs(table), configs(table);
    Devices devices(fit_on.empty() ? std::optional<double>{}
                                   : std::optional<double>{fit_block_latency(fit_on, fit_configs)});
    std::vector<Sample> all;
    std::map<std::string, std::vector<Sample>> groups;
    for (const std::string& file : files) {
      std::vector<Sample> samples;
      for (const bench::GemmRow& r : bench::read_gemm_csv(file)) {
        cost::OpEstimate e = predict(r, devices.get(r, file), configs);
        samples.push_back({e.us, r.time_us});
        if (!by.empty()) {
          std::string key;
          for (const std::string& k : by) key += (key.empty() ? "" : " ") + group_part(r, k);
          groups[key].push_back(samples.back());
        }
        if (show_rows)
          fmt::print(
              "{}:{} {} {}x{}x{} trace={} predicted={:.1f} measured={:.1f} ape={:.1f} [{}: {}]\n",
              file, r.line, r.config_name, r.config.m, r.config.k, r.config.n, r.trace, e.us,
              r.time_us, std::abs(e.us - r.time_us) / r.time_us * 100, e.cost.dominant,
              e.cost.detail);
      }
      fmt::print("{} {}\n", file, summary(samples));
      all.insert(all.end(), samples.begin(), samples.end());
    }
    fmt::print("overall {}\n", summary(all));
    if (configs.from_table + configs.blocked_by_model > 0)
      fmt::print("tuned rows: {} with the benchmark's configuration, {} blocked by the model\n",
                 configs.from_table, configs.blocked_by_model);
    for (const auto& [key, samples] : groups) fmt::print("{}: {}\n", key, summary(samples, true));
  } catch (const Error& e) {
    fmt::print(stderr, "cost_accuracy: {}\n", e.what());
    return 1;
  }
  return 0;
}
