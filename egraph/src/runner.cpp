// The saturation loop: search all rules, apply all matches, rebuild; limits and hooks.
#include "tilesat/egraph/runner.h"

#include "tilesat/egraph/egraph.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace tilesat::egraph {

RunnerConfig::RunnerConfig() : scheduler_(std::make_unique<BackoffScheduler>()) {}
RunnerConfig::~RunnerConfig() = default;
RunnerConfig::RunnerConfig(const RunnerConfig& o)
    : iter_limit_(o.iter_limit_), node_limit_(o.node_limit_), time_limit_(o.time_limit_),
      scheduler_(o.scheduler_->clone()), hooks_(o.hooks_), progress_(o.progress_),
      on_decline_(o.on_decline_), check_invariants_(o.check_invariants_),
      staged_apply_(o.staged_apply_) {}
RunnerConfig& RunnerConfig::operator=(const RunnerConfig& o) {
  if (this != &o) *this = RunnerConfig(o);
  return *this;
}

RunnerConfig& RunnerConfig::with_iter_limit(std::size_t n) {
  iter_limit_ = n;
  return *this;
}
RunnerConfig& RunnerConfig::with_node_limit(std::size_t n) {
  node_limit_ = n;
  return *this;
}
RunnerConfig& RunnerConfig::with_time_limit(std::chrono::duration<double> t) {
  time_limit_ = t.count();
  return *this;
}
RunnerConfig& RunnerConfig::with_scheduler(const Scheduler& s) {
  scheduler_ = s.clone();
  return *this;
}
RunnerConfig& RunnerConfig::with_hook(RunnerHook hook) {
  hooks_.push_back(std::move(hook));
  return *this;
}
RunnerConfig& RunnerConfig::with_progress(ProgressFn fn) {
  progress_ = std::move(fn);
  return *this;
}
RunnerConfig& RunnerConfig::with_invariant_checks() {
  check_invariants_ = true;
  return *this;
}
RunnerConfig& RunnerConfig::with_decline_hook(DeclineHook hook) {
  on_decline_ = std::move(hook);
  return *this;
}
RunnerConfig& RunnerConfig::with_staged_apply(bool on) {
  staged_apply_ = on;
  return *this;
}

Runner::Runner(RunnerConfig config) : config_(std::move(config)) {}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

} // namespace

Report Runner::run(EGraph& eg, std::span<const Rewrite> rules) {
  const Clock::time_point start = Clock::now();
  Report report;
  for (const Rewrite& r : rules) report.rule_names.push_back(r.name());
  Scheduler& sched = *config_.scheduler_;
  sched.start(rules);
  if (!eg.is_clean()) eg.rebuild();
  if (config_.check_invariants_) eg.check_invariants();

  std::vector<Matches> matches(rules.size());
  std::vector<std::size_t> order; // the rules in the order of the apply phase
  std::optional<Stop> stop;
  auto over_time = [&] { return seconds_since(start) > config_.time_limit_; };
  // Searches and applies stop early at the time limit, so a long iteration cannot overrun it.
  const Deadline deadline =
      std::isfinite(config_.time_limit_) && config_.time_limit_ < 1e9
          ? Deadline(start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(config_.time_limit_)))
          : Deadline{};
  auto limit_stop = [&]() -> std::optional<Stop> {
    if (eg.num_nodes() > config_.node_limit_)
      return Stop{StopReason::kNodeLimit, static_cast<double>(config_.node_limit_), {}};
    if (over_time()) return Stop{StopReason::kTimeLimit, config_.time_limit_, {}};
    return std::nullopt;
  };

  for (std::size_t i = 0;; ++i) {
    if (report.iterations.size() >= config_.iter_limit_) {
      stop = Stop{StopReason::kIterationLimit, static_cast<double>(config_.iter_limit_), {}};
      break;
    }
    if ((stop = limit_stop())) break;

    Iteration it;
    it.index = i;
    it.rules.resize(rules.size());
    const std::size_t nodes_before = eg.num_nodes();
    const std::size_t classes_before = eg.num_classes();
    const Clock::time_point iter_start = Clock::now();

    // Search every rule against the same rebuilt e-graph.
    for (std::size_t r = 0; r < rules.size() && !stop; ++r) {
      matches[r].reset(0, 0);
      std::size_t limit = sched.search_limit(i, r);
      it.rules[r].banned = limit == 0;
      if (limit == 0) continue;
      rules[r].search(eg, matches[r], limit, deadline);
      it.rules[r].matches = matches[r].size();
      it.matches += matches[r].size();
      if (!sched.accept(i, r, matches[r].size())) {
        matches[r].reset(0, 0);
        it.rules[r].banned = true;
      }
      if (over_time()) stop = Stop{StopReason::kTimeLimit, config_.time_limit_, {}};
    }
    it.search_seconds = seconds_since(iter_start);

    // Apply all matches; a rule stops applying as soon as the e-graph passes the node limit.
    // Staged, the union pass first merges the classes of the matches whose right side exists,
    // and congruence is restored after every stage that merged classes: a node is then added
    // with canonical children. In one pass, many nodes are added with children that later
    // merges make congruent to other nodes, and the final rebuild drops them.
    const Clock::time_point apply_start = Clock::now();
    double restore_seconds = 0;
    auto restore_stage = [&] {
      if (!eg.needs_repair()) return;
      const Clock::time_point restore_start = Clock::now();
      it.rebuild_unions += eg.restore_congruence();
      ++it.congruence_restores;
      restore_seconds += seconds_since(restore_start);
    };
    const bool staged = config_.staged_apply_;
    if (staged) {
      for (std::size_t r = 0; r < rules.size() && !stop; ++r) {
        if (matches[r].empty()) continue;
        ApplyResult res = rules[r].apply_unions(eg, matches[r], deadline);
        it.rules[r].applied += res.applied;
        it.union_pass_applied += res.applied;
        it.applied += res.applied;
        if (over_time()) stop = Stop{StopReason::kTimeLimit, config_.time_limit_, {}};
      }
      restore_stage();
    }
    // Staged, the rules with the fewest matches left go first: their merges are then restored
    // before the big stages add their nodes (7 iterations of the math workload make 69,207
    // e-nodes in this order, 75,247 in rule order).
    order.resize(rules.size());
    for (std::size_t r = 0; r < rules.size(); ++r) order[r] = r;
    if (staged)
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return matches[a].size() < matches[b].size();
      });
    for (std::size_t k = 0; k < rules.size() && !stop; ++k) {
      const std::size_t r = order[k];
      if (matches[r].empty()) continue;
      ApplyResult res =
          rules[r].apply(eg, matches[r], &config_.on_decline_, config_.node_limit_, deadline);
      it.rules[r].applied += res.applied;
      it.rules[r].declined = res.declined;
      it.applied += res.applied;
      matches[r] = Matches(); // frees the buffer: large runs must not hold every rule's matches
      stop = limit_stop();
      if (staged && !stop) restore_stage();
    }
    for (Matches& m : matches) m = Matches();
    it.apply_seconds = seconds_since(apply_start) - restore_seconds;

    const Clock::time_point rebuild_start = Clock::now();
    it.rebuild_unions += eg.rebuild();
    it.rebuild_seconds = restore_seconds + seconds_since(rebuild_start);
    if (config_.check_invariants_) eg.check_invariants();

    it.egraph_nodes = eg.num_nodes();
    it.egraph_classes = eg.num_classes();
    it.total_seconds = seconds_since(iter_start);
    report.iterations.push_back(std::move(it));
    const Iteration& done = report.iterations.back();

    if (config_.progress_) config_.progress_(done);
    for (const RunnerHook& hook : config_.hooks_) {
      if (stop) break;
      if (auto msg = hook(eg, done)) stop = Stop{StopReason::kOther, 0, *msg};
    }
    if (stop) break;
    bool unchanged = done.applied == 0 && done.egraph_nodes == nodes_before &&
                     done.egraph_classes == classes_before;
    if (unchanged && sched.can_stop(i)) {
      stop = Stop{StopReason::kSaturated, 0, {}};
      break;
    }
  }

  report.stop = *stop;
  report.egraph_nodes = eg.num_nodes();
  report.egraph_classes = eg.num_classes();
  report.total_seconds = seconds_since(start);
  return report;
}

} // namespace tilesat::egraph
