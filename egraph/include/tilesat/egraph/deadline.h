// Deadline: the time after which a long search or apply loop stops early.
//
// The runner's time limit holds inside an iteration too: it hands its deadline to each rule's
// search and apply, which look at the clock every few hundred steps (every match of a computed
// right side) and stop when it passed.
//
//   Deadline d = Deadline::after(std::chrono::milliseconds(50));
//   rule.search(eg, matches, limit, d);   // returns early once 50 ms are over
//   if (d.passed()) ...
#pragma once

#include <chrono>
#include <cstddef>

namespace tilesat::egraph {

class Deadline {
public:
  using Clock = std::chrono::steady_clock;

  /// No deadline: `passed()` is always false and reads no clock.
  Deadline() = default;
  explicit Deadline(Clock::time_point at) : at_(at) {}
  static Deadline after(std::chrono::duration<double> d) {
    return Deadline(Clock::now() + std::chrono::duration_cast<Clock::duration>(d));
  }

  bool never() const { return at_ == Clock::time_point::max(); }
  /// Whether the deadline is over (reads the clock unless there is none).
  bool passed() const { return !never() && Clock::now() >= at_; }
  /// `passed()` checked on every 256th step only: cheap enough for inner loops.
  bool passed_at(std::size_t step) const { return (step & 255) == 0 && passed(); }

private:
  Clock::time_point at_ = Clock::time_point::max();
};

} // namespace tilesat::egraph
