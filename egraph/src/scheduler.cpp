// The simple and backoff rule schedulers.
#include "tilesat/egraph/scheduler.h"

#include "tilesat/egraph/rewrite.h"

#include <algorithm>
#include <limits>

namespace tilesat::egraph {

std::size_t SimpleScheduler::search_limit(std::size_t, std::size_t) {
  return std::numeric_limits<std::size_t>::max();
}

std::unique_ptr<Scheduler> SimpleScheduler::clone() const {
  return std::make_unique<SimpleScheduler>(*this);
}

BackoffScheduler& BackoffScheduler::with_match_limit(std::size_t n) {
  match_limit_ = n;
  return *this;
}

BackoffScheduler& BackoffScheduler::with_ban_length(std::size_t n) {
  ban_length_ = n;
  return *this;
}

BackoffScheduler& BackoffScheduler::do_not_ban(std::string rule) {
  never_ban_.push_back(std::move(rule));
  return *this;
}

void BackoffScheduler::start(std::span<const Rewrite> rules) {
  stats_.assign(rules.size(), RuleStats{});
  for (std::size_t i = 0; i < rules.size(); ++i)
    stats_[i].never_ban =
        std::find(never_ban_.begin(), never_ban_.end(), rules[i].name()) != never_ban_.end();
}

std::size_t BackoffScheduler::threshold(std::size_t rule) const {
  std::size_t shift = std::min<std::size_t>(stats_[rule].times_banned, 40);
  return match_limit_ << shift;
}

std::size_t BackoffScheduler::search_limit(std::size_t iteration, std::size_t rule) {
  const RuleStats& s = stats_[rule];
  if (s.never_ban) return std::numeric_limits<std::size_t>::max();
  if (iteration < s.banned_until) return 0;
  return threshold(rule) + 1;
}

bool BackoffScheduler::accept(std::size_t iteration, std::size_t rule, std::size_t n) {
  RuleStats& s = stats_[rule];
  if (s.never_ban || n <= threshold(rule)) {
    ++s.times_applied;
    return true;
  }
  std::size_t ban = ban_length_ << std::min<std::size_t>(s.times_banned, 40);
  ++s.times_banned;
  s.banned_until = iteration + ban;
  return false;
}

bool BackoffScheduler::can_stop(std::size_t iteration) {
  std::size_t min_ban = std::numeric_limits<std::size_t>::max();
  for (const RuleStats& s : stats_)
    if (s.banned_until > iteration) min_ban = std::min(min_ban, s.banned_until);
  if (min_ban == std::numeric_limits<std::size_t>::max()) return true;
  // Pull every ban forward so the earliest one ends now; the run continues.
  std::size_t delta = min_ban - iteration;
  for (RuleStats& s : stats_)
    if (s.banned_until > iteration) s.banned_until -= delta;
  return false;
}

bool BackoffScheduler::is_banned(std::size_t iteration, std::size_t rule) const {
  return iteration < stats_[rule].banned_until;
}

std::unique_ptr<Scheduler> BackoffScheduler::clone() const {
  return std::make_unique<BackoffScheduler>(*this);
}

} // namespace tilesat::egraph
