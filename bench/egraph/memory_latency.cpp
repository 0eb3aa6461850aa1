// egraph_memory_latency: the host's latency of dependent random loads over working sets of a
// few sizes, to tell what state a shared machine's caches are in while the e-graph benchmarks
// run (their times follow it: the saturation workload's tables are several MB, read at random).
//
//   egraph_memory_latency                     # 1, 4, 8 and 16 MB
//   egraph_memory_latency --sizes-mb 2,6 --loads 4000000
//
// Each size is one random cyclic permutation of 8-byte indices (fixed seed), walked by a chain
// of loads that each depend on the one before; one line per size:
//   memory_latency size_mb=S ns_per_load=T
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fmt/format.h>
#include <random>
#include <utility>
#include <vector>

namespace {

/// Nanoseconds per load of a dependent walk of `loads` steps over `bytes` of indices.
double chase_ns(std::size_t bytes, std::size_t loads) {
  const std::size_t n = std::max<std::size_t>(bytes / sizeof(std::uint64_t), 2);
  std::vector<std::uint64_t> next(n);
  for (std::size_t i = 0; i < n; ++i) next[i] = i;
  // Sattolo's shuffle: one cycle through every element, so the walk visits all of them.
  std::mt19937_64 rng(1);
  for (std::size_t i = n - 1; i > 0; --i) {
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(next[i], next[pick(rng)]);
  }
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < n; ++i) at = next[at]; // warm up: every page touched once
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < loads; ++i) at = next[at];
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  volatile std::uint64_t sink = at; // keeps the walk
  (void)sink;
  return seconds * 1e9 / static_cast<double>(loads);
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Measures the latency of dependent random loads over working sets of given sizes."};
  std::vector<double> sizes_mb{1, 4, 8, 16};
  std::size_t loads = 2'000'000;
  app.add_option("--sizes-mb", sizes_mb, "Working-set sizes in MB")
      ->delimiter(',')
      ->check(CLI::Range(0.001, 1e5))
      ->capture_default_str();
  app.add_option("--loads", loads, "Dependent loads timed per size")
      ->check(CLI::Range(std::size_t{1000}, std::size_t{1'000'000'000}))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  for (double mb : sizes_mb) {
    const auto bytes = static_cast<std::size_t>(mb * 1e6);
    fmt::print("memory_latency size_mb={:g} ns_per_load={:.1f}\n", mb, chase_ns(bytes, loads));
  }
  return 0;
}
