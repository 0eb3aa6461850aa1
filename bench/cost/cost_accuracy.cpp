// cost_accuracy FILE.csv...: how well the cost model predicts measured matmul times.
//
// For every row it predicts the time of exactly that configuration (device, shapes, dtype,
// fidelity, operand storage, trace, grid; an `out_of_box` row as ttnn's default program
// configuration runs it, cost/ttnn_matmul_default.h) and prints, per file and over all files,
//   median_ape=X p90_ape=Y kendall_tau=Z rows=N
// (absolute percentage error in percent; Kendall's tau-b between predicted and measured).
// With --rows it also prints each row's prediction and error.
#include "gemm_csv.h"
#include "tilesat/cost/device.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/ttnn_matmul_default.h"
#include "tilesat/graph/diagnostic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <map>

namespace {

struct Sample {
  double predicted_us;
  double measured_us;
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  // Nearest rank.
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double kendall_tau_b(const std::vector<Sample>& s) {
  double concordant = 0, discordant = 0, ties_x = 0, ties_y = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    for (size_t j = i + 1; j < s.size(); ++j) {
      double dx = s[i].predicted_us - s[j].predicted_us;
      double dy = s[i].measured_us - s[j].measured_us;
      if (dx == 0 && dy == 0) continue;
      if (dx == 0)
        ties_x += 1;
      else if (dy == 0)
        ties_y += 1;
      else if ((dx > 0) == (dy > 0))
        concordant += 1;
      else
        discordant += 1;
    }
  }
  double denom = std::sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y));
  return denom == 0 ? 0 : (concordant - discordant) / denom;
}

std::string summary(const std::vector<Sample>& s) {
  std::vector<double> ape;
  for (const Sample& x : s)
    ape.push_back(std::abs(x.predicted_us - x.measured_us) / x.measured_us * 100);
  return fmt::format("median_ape={:.1f} p90_ape={:.1f} kendall_tau={:.3f} rows={}", median(ape),
                     percentile(ape, 0.9), kendall_tau_b(s), s.size());
}

} // namespace

int main(int argc, char** argv) {
  using namespace tilesat;
  bool show_rows = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rows") == 0)
      show_rows = true;
    else
      files.emplace_back(argv[i]);
  }
  if (files.empty()) {
    fmt::print(stderr, "usage: cost_accuracy [--rows] FILE.csv...\n");
    return 2;
  }
  try {
    std::map<std::string, cost::Device> devices;
    std::vector<Sample> all;
    for (const std::string& file : files) {
      std::vector<Sample> samples;
      for (const bench::GemmRow& r : bench::read_gemm_csv(file)) {
        if (!devices.count(r.device)) {
          try {
            devices.emplace(r.device, cost::load_device(r.device));
          } catch (const Error& e) {
            throw Error(SourceLoc{file, r.line, 0},
                        fmt::format("column 'device': {}", e.diagnostic().message));
          }
        }
        const cost::Device& d = devices.at(r.device);
        if (r.config.grid.rows > d.grid_full.rows || r.config.grid.cols > d.grid_full.cols)
          throw Error(SourceLoc{file, r.line, 0},
                      fmt::format("grid {}x{} does not fit device {} ({}x{})", r.config.grid.cols,
                                  r.config.grid.rows, d.name, d.grid_full.cols, d.grid_full.rows));
        cost::CostModel model(d, {.fidelity = r.config.fidelity, .trace = r.trace});
        // Out-of-box rows ran with ttnn's own program configuration; tuned rows with the
        // benchmark's explicit one (2-D multicast, packer accumulation in L1).
        cost::OpEstimate e = model.matmul(
            r.config_name == "out_of_box" ? cost::ttnn_default_matmul(r.config, d) : r.config);
        samples.push_back({e.us, r.time_us});
        if (show_rows)
          fmt::print(
              "{}:{} {} {}x{}x{} trace={} predicted={:.1f} measured={:.1f} ape={:.1f} [{}]\n", file,
              r.line, r.config_name, r.config.m, r.config.k, r.config.n, r.trace, e.us, r.time_us,
              std::abs(e.us - r.time_us) / r.time_us * 100, e.cost.dominant);
      }
      fmt::print("{} {}\n", file, summary(samples));
      all.insert(all.end(), samples.begin(), samples.end());
    }
    fmt::print("overall {}\n", summary(all));
  } catch (const Error& e) {
    fmt::print(stderr, "cost_accuracy: {}\n", e.what());
    return 1;
  }
  return 0;
}
