// runtime_bench: the runtime's two performance figures.
//  1. Tile matmul, 1024x1024x1024 f32, on the wormhole_b0 grid (8x8 cores) run by all host
//     threads, against this machine's peak f32 FLOP/s measured with the same threads
//     (target: >= 50%).
//  2. The seed MLP at batch 32: host time of one run once loaded (target: <= 1 ms).
//   runtime_bench [--repeats N] [--write-program FILE]
#include "peak_flops.h"
#include "test_plans.h"
#include "tilesat/cost/device.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/runtime/run.h"
#include "tilesat/runtime/tile_matmul.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>
#include <thread>

namespace {

using namespace tilesat;

lowering::DeviceSummary wormhole() {
  return lowering::DeviceSummary::of(cost::load_device("wormhole_b0"));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"runtime benchmarks: tile matmul vs peak FLOP/s, seed MLP host time"};
  int repeats = 5;
  std::string write_program;
  app.add_option("--repeats", repeats, "matmul runs (the best counts)")->capture_default_str();
  app.add_option("--write-program", write_program,
                 "also write the seed MLP's program (batch 32, 2x2 cores, wormhole_b0) here");
  CLI11_PARSE(app, argc, argv);
  try {
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    lowering::DeviceSummary dev = wormhole();

    // 1. Tile matmul.
    Graph g("matmul");
    Builder b(g);
    b.output(b.matmul(b.input("a", {1024, 1024}), b.input("b", {1024, 1024})));
    runtime::Program mm = runtime::Program::parse(
        lowering::lower_plan(tilesat::testing::plan_for(g, {{8, 8}}), dev), "matmul");
    runtime::Runner runner(mm, threads);
    std::vector<Tensor> args = random_arguments(g, 1);
    double best_us = 1e30;
    for (int r = 0; r < repeats; ++r) {
      runtime::RunResult res = runner.run(args);
      for (const runtime::OpProfile& op : res.profile.ops)
        if (op.kind == "matmul") best_us = std::min(best_us, op.host_us);
    }
    double flops = 2.0 * 1024 * 1024 * 1024 / (best_us * 1e-6);
    bench::PeakResult peak = bench::measure_peak_flops(threads);
    fmt::print("threads: {} (tile kernel: {}, peak loop: {})\n", threads,
               runtime::tile_matmul_isa(), peak.isa);
    fmt::print("tile matmul 1024x1024x1024 f32 on 8x8 cores: {:.1f} us, {:.1f} GFLOP/s\n", best_us,
               flops * 1e-9);
    fmt::print("measured peak f32: {:.1f} GFLOP/s\n", peak.flops * 1e-9);
    fmt::print("matmul / peak: {:.1f}% (target >= 50%)\n", 100.0 * flops / peak.flops);

    // 2. Seed MLP at batch 32.
    Graph mlp = tilesat::testing::seed_mlp(32);
    std::vector<uint8_t> bytes =
        lowering::lower_plan(tilesat::testing::plan_for(mlp, {{2, 2}}), dev);
    if (!write_program.empty()) lowering::write_program(write_program, bytes);
    runtime::Program prog = runtime::Program::parse(bytes, "mlp");
    runtime::Runner mlp_runner(prog, threads);
    std::vector<Tensor> mlp_args = random_arguments(mlp, 2);
    std::vector<double> times;
    for (int r = 0; r < 20; ++r) (void)mlp_runner.run(mlp_args); // warm up
    for (int r = 0; r < 200; ++r) times.push_back(mlp_runner.run(mlp_args).profile.host_total_us);
    fmt::print("seed MLP batch 32 (10 ops, 2x2 cores): median {:.1f} us, min {:.1f} us per run "
               "(target <= 1000 us)\n",
               median(times), *std::min_element(times.begin(), times.end()));
  } catch (const Error& e) {
    fmt::print(stderr, "runtime_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
