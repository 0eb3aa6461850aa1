// timing.h: the wall time of a command's phases, which `--timing` prints (as MLIR's
// -mlir-timing does): where a large model's compile time goes.
//
//   PhaseTimes t;
//   SourceFile f = t.time("load", [&] { return load_input(o, &weights); });
//   t.add("dynamic program", report.dp_seconds, 1);   // a part of the phase above it
//   fmt::print(stderr, "{}", t.table());
#pragma once

#include <chrono>
#include <fmt/format.h>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilesat::cli {

/// Phases in the order first seen, each with its seconds summed over every time it ran and its
/// depth (0: a phase of the command, 1: a part of the phase before it).
class PhaseTimes {
public:
  void add(std::string_view name, double seconds, int depth = 0) {
    for (Phase& p : phases_)
      if (p.name == name && p.depth == depth) {
        p.seconds += seconds;
        return;
      }
    phases_.push_back({std::string(name), seconds, depth});
  }

  /// Runs `f`, adds its wall time to phase `name`, returns what it returns.
  template <class F>
  decltype(auto) time(std::string_view name, F&& f) {
    struct Stop {
      PhaseTimes& times;
      std::string_view name;
      std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
      ~Stop() {
        times.add(name,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    } stop{*this, name};
    return std::forward<F>(f)();
  }

  /// One line per phase (seconds, share of the total of the top-level phases, name), then the
  /// total.
  std::string table() const {
    double total = 0;
    for (const Phase& p : phases_)
      if (p.depth == 0) total += p.seconds;
    std::string out = "// timing (wall seconds)\n";
    for (const Phase& p : phases_)
      out += fmt::format("{:>10.3f} {:>6.1f}%  {}{}\n", p.seconds,
                         total > 0 ? 100 * p.seconds / total : 0.0,
                         std::string(2 * static_cast<size_t>(p.depth), ' '), p.name);
    out += fmt::format("{:>10.3f} {:>6.1f}%  total\n", total, total > 0 ? 100.0 : 0.0);
    return out;
  }

private:
  struct Phase {
    std::string name;
    double seconds = 0;
    int depth = 0;
  };
  std::vector<Phase> phases_;
};

} // namespace tilesat::cli
