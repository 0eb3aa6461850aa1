// egraph_math_bench: the math saturation workload (all seven start terms in one e-graph, the
// 36 rules, simple scheduler), run once with per-iteration sizes and times.
//
//   egraph_math_bench --iterations 7
//   egraph_math_bench --iterations 100 --node-limit 1000000 --time-limit 20 --report
//   egraph_math_bench --single-pass        # apply in one pass (no staged apply)
//
// The last line is always
//   math_workload iterations=N enodes=N eclasses=N seconds=S peak_rss_mb=M
// (seconds: wall time of adding the start terms and running), preceded by the CPU time of the
// same span on a line `cpu_seconds=S user_seconds=S sys_seconds=S`; and, when TILESAT_BENCH_CSV
// names a file, one CSV row (name, seconds, stop reason, e-nodes, e-classes, iterations, peak RSS)
// is appended to it.
#include "../../tests/egraph/math_language.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <sys/resource.h>

using namespace tilesat::egraph;

namespace {

/// User and system CPU seconds of this process so far.
std::pair<double, double> user_sys_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto sec = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return {sec(ru.ru_utime), sec(ru.ru_stime)};
}

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0; // ru_maxrss is in KiB on Linux
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs the math e-graph saturation workload once."};
  std::size_t iterations = 7;
  std::size_t node_limit = std::numeric_limits<std::size_t>::max();
  double time_limit = 60;
  bool report_table = false;
  bool single_pass = false;
  app.add_option("--iterations", iterations, "Iteration limit")->capture_default_str();
  app.add_option("--node-limit", node_limit, "E-node limit (default: none)");
  app.add_option("--time-limit", time_limit, "Time limit in seconds")->capture_default_str();
  app.add_flag("--report", report_table, "Print the runner's report table");
  app.add_flag("--single-pass", single_pass,
               "Apply each iteration's matches in one pass, then rebuild (no staged apply)");
  CLI11_PARSE(app, argc, argv);

  auto rules = math::rules();
  const auto start = std::chrono::steady_clock::now();
  const auto [user_start, sys_start] = user_sys_seconds();
  EGraph eg;
  eg.add_analysis<math::ConstantFold>();
  for (const auto& t : math::workload_terms()) eg.add_term(RecExpr::parse(t));
  eg.rebuild();

  RunnerConfig cfg;
  cfg.with_scheduler(SimpleScheduler())
      .with_iter_limit(iterations)
      .with_node_limit(node_limit)
      .with_time_limit(std::chrono::duration<double>(time_limit))
      .with_staged_apply(!single_pass)
      .with_progress([](const Iteration& it) {
        fmt::print("iter {:>3}: enodes={:>9} eclasses={:>9} applied={:>9} search_ms={:.3f} "
                   "apply_ms={:.3f} rebuild_ms={:.3f}\n",
                   it.index, it.egraph_nodes, it.egraph_classes, it.applied,
                   it.search_seconds * 1e3, it.apply_seconds * 1e3, it.rebuild_seconds * 1e3);
        std::fflush(stdout);
      });
  Report report = Runner(cfg).run(eg, rules);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto [user_end, sys_end] = user_sys_seconds();
  const double user = user_end - user_start, sys = sys_end - sys_start;

  if (report_table) fmt::print("{}", report.to_table());
  fmt::print("stop: {}\n", report.stop.to_string());
  std::size_t proved = 0;
  auto goals = math::workload_goals();
  for (const auto& g : goals) {
    auto a = eg.lookup_term(RecExpr::parse(g.start));
    auto b = eg.lookup_term(RecExpr::parse(g.goal));
    bool ok = a && b && eg.find(*a) == eg.find(*b);
    proved += ok ? 1 : 0;
    fmt::print("goal {} = {}: {}\n", g.start, g.goal, ok ? "proved" : "not proved");
  }
  fmt::print("goals proved: {}/{}\n", proved, goals.size());
  fmt::print("egraph memory: {:.1f} MB ({:.1f} bytes per e-node, {} e-nodes made)\n",
             eg.memory_bytes() / 1e6,
             static_cast<double>(eg.memory_bytes()) / static_cast<double>(eg.num_nodes()),
             eg.num_ids());
  // CPU time of the run (user + system): the wall time below includes waiting for the CPU
  // when other processes share it. System time is mostly the kernel handing out fresh
  // (zeroed) pages.
  fmt::print("cpu_seconds={:.6f} user_seconds={:.6f} sys_seconds={:.6f}\n", user + sys, user, sys);

  const double rss = peak_rss_mb();
  if (const char* csv = std::getenv("TILESAT_BENCH_CSV")) {
    if (std::FILE* f = std::fopen(csv, "a")) {
      fmt::print(f, "math_workload,{:.6f},{},{},{},{},{:.1f}\n", seconds,
                 to_string(report.stop.reason), eg.num_nodes(), eg.num_classes(),
                 report.iterations.size(), rss);
      std::fclose(f);
    }
  }
  fmt::print(
      "math_workload iterations={} enodes={} eclasses={} seconds={:.6f} peak_rss_mb={:.1f}\n",
      report.iterations.size(), eg.num_nodes(), eg.num_classes(), seconds, rss);
  return 0;
}
