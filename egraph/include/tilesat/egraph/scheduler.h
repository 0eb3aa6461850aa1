// Rule schedulers: which rules search in an iteration, and how many matches they may keep.
//
// `SimpleScheduler` runs every rule every iteration with no limit. `BackoffScheduler` (as
// egg's) throttles a rule that explodes: a rule finding more than its match limit
// (default 1,000, doubled after each ban) is banned for its ban length (default 5 iterations,
// doubled after each ban), so associativity or distribution cannot swamp the e-graph. A run
// only ends as saturated when no rule is banned.
//
//   RunnerConfig cfg = RunnerConfig().with_scheduler(
//       BackoffScheduler().with_match_limit(500).with_ban_length(3).do_not_ban("comm-add"));
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tilesat::egraph {

class Rewrite;

class Scheduler {
public:
  virtual ~Scheduler() = default;
  /// Called once at the start of a run.
  virtual void start(std::span<const Rewrite> rules) = 0;
  /// Matches rule `rule` may collect in iteration `iteration`; 0 skips its search.
  virtual std::size_t search_limit(std::size_t iteration, std::size_t rule) = 0;
  /// After the search found `n` matches: whether they are applied.
  virtual bool accept(std::size_t iteration, std::size_t rule, std::size_t n) = 0;
  /// Whether a run with no change may stop as saturated (may lift bans and say no).
  virtual bool can_stop(std::size_t iteration) = 0;
  /// Whether rule `rule` is banned during `iteration` (for reports).
  virtual bool is_banned(std::size_t iteration, std::size_t rule) const = 0;
  virtual std::unique_ptr<Scheduler> clone() const = 0;
  virtual std::string name() const = 0;
};

/// Every rule, every iteration, every match.
class SimpleScheduler final : public Scheduler {
public:
  void start(std::span<const Rewrite>) override {}
  std::size_t search_limit(std::size_t, std::size_t) override;
  bool accept(std::size_t, std::size_t, std::size_t) override { return true; }
  bool can_stop(std::size_t) override { return true; }
  bool is_banned(std::size_t, std::size_t) const override { return false; }
  std::unique_ptr<Scheduler> clone() const override;
  std::string name() const override { return "simple"; }
};

class BackoffScheduler final : public Scheduler {
public:
  /// Matches a rule may find before its first ban. Default 1,000.
  BackoffScheduler& with_match_limit(std::size_t n);
  /// Iterations of a rule's first ban. Default 5.
  BackoffScheduler& with_ban_length(std::size_t n);
  /// Never bans the rule named `rule`.
  BackoffScheduler& do_not_ban(std::string rule);

  void start(std::span<const Rewrite> rules) override;
  std::size_t search_limit(std::size_t iteration, std::size_t rule) override;
  bool accept(std::size_t iteration, std::size_t rule, std::size_t n) override;
  bool can_stop(std::size_t iteration) override;
  bool is_banned(std::size_t iteration, std::size_t rule) const override;
  std::unique_ptr<Scheduler> clone() const override;
  std::string name() const override { return "backoff"; }

  /// How many times rule `rule` has been banned in this run.
  std::size_t times_banned(std::size_t rule) const { return stats_[rule].times_banned; }

private:
  struct RuleStats {
    std::size_t times_applied = 0;
    std::size_t banned_until = 0;
    std::size_t times_banned = 0;
    bool never_ban = false;
  };
  std::size_t threshold(std::size_t rule) const;

  std::size_t match_limit_ = 1000;
  std::size_t ban_length_ = 5;
  std::vector<std::string> never_ban_;
  std::vector<RuleStats> stats_;
};

} // namespace tilesat::egraph
