// extract_exact.cpp: the extraction objective as weighted MaxSAT and as a linear program, in Z3.
#include "tilesat/cost/extract_exact.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <string>
#include <tuple>
#include <unordered_set>
#include <z3++.h>

namespace tilesat::cost {
namespace {

using Clock = std::chrono::steady_clock;

// Milliseconds from now to `t` for Z3's timeout (at least 1).
unsigned ms_until(Clock::time_point t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
  return static_cast<unsigned>(std::clamp<int64_t>(ms, 1, 1'000'000'000));
}

// A cost as an exact decimal for Z3 (to 1e-12 us).
std::string decimal(double us) {
  return fmt::format("{:.12f}", us);
}

// A Z3 numeral as a double.
double to_double(const z3::expr& e) {
  return std::stod(e.get_decimal_string(15));
}

// The strongly connected group of each class in the graph of every configuration's reads
// (Tarjan's algorithm, iterative): a reader and an operand in one group may form a cycle.
std::unordered_map<egraph::Id, uint32_t> components(const ExtractionProblem& problem) {
  std::unordered_map<egraph::Id, std::vector<egraph::Id>> edges;
  for (const auto& [c, pc] : problem.classes) {
    std::unordered_set<egraph::Id> seen;
    for (const NodeConfig& cfg : pc.configs)
      for (egraph::Id ch : problem.children(cfg))
        if (seen.insert(ch).second) edges[c].push_back(ch);
  }
  std::unordered_map<egraph::Id, uint32_t> index, low, group;
  std::unordered_set<egraph::Id> on_stack;
  std::vector<egraph::Id> stack;
  uint32_t next = 0, groups = 0;
  struct Frame {
    egraph::Id cls;
    size_t edge = 0;
  };
  for (const auto& [root, pc] : problem.classes) {
    if (index.count(root)) continue;
    std::vector<Frame> frames{{root}};
    index[root] = low[root] = next++;
    stack.push_back(root);
    on_stack.insert(root);
    while (!frames.empty()) {
      Frame& f = frames.back();
      const std::vector<egraph::Id>& out = edges[f.cls];
      if (f.edge < out.size()) {
        egraph::Id w = out[f.edge++];
        if (!index.count(w)) {
          index[w] = low[w] = next++;
          stack.push_back(w);
          on_stack.insert(w);
          frames.push_back({w});
        } else if (on_stack.count(w)) {
          low[f.cls] = std::min(low[f.cls], index[w]);
        }
        continue;
      }
      egraph::Id v = f.cls;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().cls] = std::min(low[frames.back().cls], low[v]);
      if (low[v] == index[v]) {
        egraph::Id w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack.erase(w);
          group[w] = groups;
        } while (w != v);
        ++groups;
      }
    }
  }
  return group;
}

// The problem's constraints over one Boolean per configuration and per conversion, and an
// integer level per class of a strongly connected group. `cost` is the objective as (variable,
// microseconds) terms.
class Encoding {
public:
  Encoding(z3::context& ctx, const ExtractionProblem& problem)
      : ctx_(ctx), problem_(problem), constraints_(ctx) {}

  // False when `deadline` passed before the encoding was complete.
  bool build(Clock::time_point deadline) {
    std::unordered_map<egraph::Id, uint32_t> group = components(problem_);
    size_t step = 0;
    for (const auto& [c, pc] : problem_.classes) {
      if ((++step & 63) == 0 && Clock::now() >= deadline) return false;
      z3::expr_vector all(ctx_);
      for (uint32_t i = 0; i < pc.configs.size(); ++i) {
        z3::expr x = ctx_.bool_const(fmt::format("x{}_{}", c, i).c_str());
        all.push_back(x);
        config_vars_[c].push_back(x);
        if (pc.configs[i].cost > 0) cost_.emplace_back(x, pc.configs[i].cost);
      }
      if (all.size() > 1) constraints_.push_back(z3::atmost(all, 1));
    }
    for (const auto& [c, pc] : problem_.classes) {
      if ((++step & 63) == 0 && Clock::now() >= deadline) return false;
      for (uint32_t i = 0; i < pc.configs.size(); ++i) {
        const NodeConfig& cfg = pc.configs[i];
        const z3::expr& x = config_vars_.at(c)[i];
        std::vector<egraph::Id> ch = problem_.children(cfg);
        for (size_t j = 0; j < ch.size(); ++j) {
          constraints_.push_back(z3::implies(x, available(ch[j], cfg.reads[j])));
          if (group.at(ch[j]) == group.at(c))
            constraints_.push_back(z3::implies(x, level(c) > level(ch[j])));
        }
      }
    }
    for (egraph::Id r : problem_.results) {
      const ProblemClass& pc = problem_.classes.at(r);
      std::vector<z3::expr> ways;
      for (uint32_t k = 0; k < pc.placements.size(); ++k) {
        if (pc.placements[k].buffer == BufferType::DRAM)
          ways.push_back(computed(r, k));
        else if (std::optional<z3::expr> y = conversion(r, k, pc.dram_tile))
          ways.push_back(*y);
      }
      constraints_.push_back(any(ways));
    }
    return true;
  }

  const z3::expr_vector& constraints() const { return constraints_; }
  const std::vector<std::pair<z3::expr, double>>& cost() const { return cost_; }

  // The configuration `model` chooses for each class.
  Assignment assignment(const z3::model& model) const {
    Assignment a;
    for (const auto& [c, xs] : config_vars_)
      for (uint32_t i = 0; i < xs.size(); ++i)
        if (model.eval(xs[i], true).is_true()) {
          a[c] = i;
          break;
        }
    return a;
  }

private:
  // At least one of `ways` holds (false when there is none).
  z3::expr any(const std::vector<z3::expr>& ways) const {
    if (ways.size() == 1) return ways[0];
    z3::expr_vector v(ctx_);
    for (const z3::expr& w : ways) v.push_back(w);
    return ways.empty() ? ctx_.bool_val(false) : z3::mk_or(v);
  }

  // Class `c` is computed into placement `k`: one of its configurations into `k` is chosen.
  z3::expr computed(egraph::Id c, uint32_t k) {
    auto key = std::make_pair(c, k);
    auto it = computed_.find(key);
    if (it != computed_.end()) return it->second;
    const ProblemClass& pc = problem_.classes.at(c);
    std::vector<z3::expr> ways;
    for (uint32_t i = 0; i < pc.configs.size(); ++i)
      if (pc.configs[i].out == k) ways.push_back(config_vars_.at(c)[i]);
    return computed_.emplace(key, any(ways)).first->second;
  }

  bool can_compute(egraph::Id c, uint32_t k) const {
    const std::vector<NodeConfig>& configs = problem_.classes.at(c).configs;
    return std::any_of(configs.begin(), configs.end(),
                       [&](const NodeConfig& x) { return x.out == k; });
  }

  // The variable of converting class `c` from `from` to `to`, paid once however many read it
  // (nullopt when `from` is never computed or the conversion has no cost known).
  std::optional<z3::expr> conversion(egraph::Id c, uint32_t from, uint32_t to) {
    auto key = std::make_tuple(c, from, to);
    auto it = conversions_.find(key);
    if (it != conversions_.end()) return it->second;
    double us = problem_.classes.at(c).convert_us(from, to);
    if (!can_compute(c, from) || !std::isfinite(us)) return std::nullopt;
    z3::expr y = ctx_.bool_const(fmt::format("y{}_{}_{}", c, from, to).c_str());
    constraints_.push_back(z3::implies(y, computed(c, from)));
    if (us > 0) cost_.emplace_back(y, us);
    return conversions_.emplace(key, y).first->second;
  }

  // Class `c` is there in placement `p`: computed there or converted there.
  z3::expr available(egraph::Id c, uint32_t p) {
    auto key = std::make_pair(c, p);
    auto it = available_.find(key);
    if (it != available_.end()) return it->second;
    std::vector<z3::expr> ways;
    if (can_compute(c, p)) ways.push_back(computed(c, p));
    const size_t n = problem_.classes.at(c).placements.size();
    for (uint32_t k = 0; k < n; ++k)
      if (k != p)
        if (std::optional<z3::expr> y = conversion(c, k, p)) ways.push_back(*y);
    return available_.emplace(key, any(ways)).first->second;
  }

  z3::expr level(egraph::Id c) {
    auto it = levels_.find(c);
    if (it != levels_.end()) return it->second;
    return levels_.emplace(c, ctx_.int_const(fmt::format("level{}", c).c_str())).first->second;
  }

  z3::context& ctx_;
  const ExtractionProblem& problem_;
  z3::expr_vector constraints_;
  std::vector<std::pair<z3::expr, double>> cost_;
  std::unordered_map<egraph::Id, std::vector<z3::expr>> config_vars_;
  std::map<std::pair<egraph::Id, uint32_t>, z3::expr> computed_, available_;
  std::map<std::tuple<egraph::Id, uint32_t, uint32_t>, z3::expr> conversions_;
  std::unordered_map<egraph::Id, z3::expr> levels_;
};

// Rounding slack for a bound read back from Z3: the weights are decimals to 1e-12 us.
double slack(double value, size_t terms) {
  return 1e-9 * (std::abs(value) + 1) + 1e-12 * static_cast<double>(terms);
}

} // namespace

ExactResult solve_exact(const ExtractionProblem& problem, const Assignment& seed,
                        Clock::time_point deadline) {
  const Clock::time_point start = Clock::now();
  ExactResult out;
  out.status = "no time";
  std::optional<double> seed_cost = objective(problem, seed);
  if (seed_cost) {
    out.assignment = seed;
    out.objective = *seed_cost;
  }
  auto finish = [&] {
    out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return out;
  };
  try {
    // Weighted MaxSAT: each chosen configuration and conversion violates a soft constraint
    // weighing its cost.
    z3::context ctx;
    Encoding exact(ctx, problem);
    if (!exact.build(deadline)) return finish();
    z3::optimize opt(ctx);
    for (const z3::expr& c : exact.constraints()) opt.add(c);
    std::optional<z3::optimize::handle> h;
    for (const auto& [x, us] : exact.cost()) h = opt.add_soft(!x, decimal(us).c_str());
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return finish();
    z3::params params(ctx);
    params.set("timeout", ms_until(deadline));
    opt.set(params);
    z3::check_result res = opt.check();
    out.status = res == z3::sat ? "optimal" : res == z3::unknown ? "timeout" : "infeasible";
    if (res != z3::unsat) {
      try {
        Assignment found = exact.assignment(opt.get_model());
        std::optional<double> cost = objective(problem, found);
        if (cost && *cost < out.objective) {
          out.assignment = std::move(found);
          out.objective = *cost;
        }
      } catch (const z3::exception&) {
        // No model at the timeout: the seed stands.
      }
      double lower = 0, tolerance = 0;
      if (h) {
        try {
          z3::expr lo = opt.lower(*h);
          if (lo.is_numeral()) {
            lower = to_double(lo);
            tolerance = slack(lower, exact.cost().size());
            out.lower_bound = std::max(0.0, lower - tolerance);
          }
        } catch (const z3::exception&) {
        }
      }
      if (res == z3::sat) {
        // Proven optimal: the assignment's objective is the bound when it matches Z3's optimum
        // up to the rounding of the weights (gap 0).
        out.bound = "z3";
        if (out.objective <= lower + tolerance) out.lower_bound = out.objective;
        return finish();
      }
    }
    if (out.lower_bound > 0) out.bound = "z3";
  } catch (const z3::exception&) {
    // A solver failure (out of memory, cancelled): what was proven so far stands.
  }
  return finish();
}

} // namespace tilesat::cost
