// extract_share.cpp: the dynamic program over recorded configurations with shared operands
// split among their readers, repeated while the DAG objective falls.
#include "tilesat/cost/extract_share.h"

#include "post_order.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

namespace tilesat::cost {
namespace {

constexpr double kUnreached = std::numeric_limits<double>::infinity();
// Work the single-class switches may spend in one refinement, in classes visited: each switch
// is evaluated on the whole objective, so a problem of n classes gets kSwitchWork / n
// switches (a few hundred thousand on a model layer, a hundred on a 20k-class graph), at
// most kMaxSwitches.
constexpr size_t kSwitchWork = 2'000'000, kMaxSwitches = 20'000;

// The problem's classes in an order, with each configuration's operands as positions in it.
struct Indexed {
  std::vector<egraph::Id> cls;
  std::vector<const ProblemClass*> pc;
  std::vector<std::vector<std::vector<size_t>>> children; // [class][config][operand]
  std::vector<size_t> results;
  std::unordered_map<egraph::Id, size_t> pos;

  Indexed(const ExtractionProblem& problem, const std::vector<egraph::Id>& order) {
    for (egraph::Id c : order) {
      auto it = problem.classes.find(c);
      if (it == problem.classes.end() || pos.count(c)) continue;
      pos.emplace(c, cls.size());
      cls.push_back(c);
      pc.push_back(&it->second);
    }
    children.resize(cls.size());
    for (size_t i = 0; i < cls.size(); ++i)
      for (const NodeConfig& cfg : pc[i]->configs) {
        std::vector<size_t> ch;
        for (egraph::Id x : problem.children(cfg)) {
          auto it = pos.find(x);
          ch.push_back(it == pos.end() ? cls.size() : it->second);
        }
        children[i].push_back(std::move(ch));
      }
    for (egraph::Id r : problem.results) results.push_back(pos.at(r));
  }
};

// The classes in a depth-first post-order from the results that follows `a`'s configuration
// of each class first and then the others, cheapest first: each class comes after what its
// chosen configuration reads, and in a cycle (a value and its layout round trip) the class
// nearer the results comes after the one it can be derived from.
std::vector<egraph::Id> from_results(const Indexed& ix, const Assignment& a) {
  const size_t n = ix.cls.size();
  std::vector<size_t> roots = ix.results;
  for (size_t i = 0; i < n; ++i) roots.push_back(i);
  std::vector<size_t> order = post_order(roots, [&](size_t i) {
    const std::vector<NodeConfig>& configs = ix.pc[i]->configs;
    std::vector<uint32_t> by_cost(configs.size());
    for (uint32_t j = 0; j < configs.size(); ++j) by_cost[j] = j;
    auto it = a.find(ix.cls[i]);
    const uint32_t chosen = it == a.end() ? UINT32_MAX : it->second;
    std::stable_sort(by_cost.begin(), by_cost.end(), [&](uint32_t x, uint32_t y) {
      return std::make_pair(x != chosen, configs[x].cost) <
             std::make_pair(y != chosen, configs[y].cost);
    });
    std::vector<size_t> out;
    for (uint32_t j : by_cost)
      for (size_t ch : ix.children[i][j])
        if (ch < n) out.push_back(ch);
    return out;
  });
  std::vector<egraph::Id> out;
  for (size_t i : order) out.push_back(ix.cls[i]);
  return out;
}

// How many readers each class has in assignment `a` (configurations reached from the results
// reading it, and the results themselves).
std::vector<double> readers(const Indexed& ix, const Assignment& a) {
  std::vector<double> u(ix.cls.size(), 0);
  std::vector<bool> seen(ix.cls.size(), false);
  std::vector<size_t> stack;
  for (size_t r : ix.results) {
    u[r] += 1;
    stack.push_back(r);
  }
  while (!stack.empty()) {
    size_t i = stack.back();
    stack.pop_back();
    if (seen[i]) continue;
    seen[i] = true;
    auto it = a.find(ix.cls[i]);
    if (it == a.end()) continue;
    for (size_t ch : ix.children[i][it->second]) {
      if (ch >= ix.cls.size()) continue;
      u[ch] += 1;
      stack.push_back(ch);
    }
  }
  return u;
}

// `u` with each class no configuration of `a` reads counted as read by every class with a
// configuration that can read it: a value no plan computes yet (a merged product its slices
// would share) priced as the sharing it would have.
std::vector<double> with_potential_readers(const Indexed& ix, std::vector<double> u) {
  const size_t n = ix.cls.size();
  std::vector<double> parents(n, 0);
  std::vector<size_t> last(n, n); // the last class counted as a parent of each
  for (size_t i = 0; i < n; ++i)
    for (const std::vector<size_t>& ch : ix.children[i])
      for (size_t o : ch)
        if (o < n && last[o] != i) {
          last[o] = i;
          parents[o] += 1;
        }
  for (size_t i = 0; i < n; ++i)
    if (u[i] == 0) u[i] = parents[i];
  return u;
}

// The dynamic program over `ix` when each operand costs its share (its cost over `u`, at least
// one reader): computed[i][k], the cheapest way to compute class i into placement k, by
// configuration config[i][k]; have[i][p], to have it in p, computed in from[i][p] and
// converted. Configurations reading a class not before theirs are left out, so what it
// selects is acyclic.
struct SharedTables {
  std::vector<std::vector<double>> computed, have;
  std::vector<std::vector<uint32_t>> config, from;
};

SharedTables shared_tables(const Indexed& ix, const std::vector<double>& u) {
  const size_t n = ix.cls.size();
  SharedTables t;
  auto& [computed, have, config, from] = t;
  computed.resize(n);
  have.resize(n);
  config.resize(n);
  from.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const ProblemClass& pc = *ix.pc[i];
    const size_t places = pc.placements.size();
    computed[i].assign(places, kUnreached);
    config[i].assign(places, 0);
    for (uint32_t j = 0; j < pc.configs.size(); ++j) {
      const NodeConfig& cfg = pc.configs[j];
      if (cfg.out >= places) continue;
      double cost = cfg.cost;
      const std::vector<size_t>& ch = ix.children[i][j];
      for (size_t o = 0; o < ch.size() && cost < kUnreached; ++o) {
        if (ch[o] >= i) {
          cost = kUnreached;
          break;
        }
        const std::vector<double>& h = have[ch[o]];
        cost += cfg.reads[o] < h.size() ? h[cfg.reads[o]] / std::max(1.0, u[ch[o]]) : kUnreached;
      }
      if (cost < computed[i][cfg.out]) {
        computed[i][cfg.out] = cost;
        config[i][cfg.out] = j;
      }
    }
    have[i].assign(places, kUnreached);
    from[i].assign(places, 0);
    for (uint32_t p = 0; p < places; ++p)
      for (uint32_t k = 0; k < places; ++k) {
        if (computed[i][k] == kUnreached) continue;
        double cost = computed[i][k] + pc.convert_us(k, p);
        if (cost < have[i][p]) {
          have[i][p] = cost;
          from[i][p] = k;
        }
      }
  }
  return t;
}

// The cheapest assignment under shares `u` (shared_tables), top-down from the results. Nullopt
// when no result can be computed that way.
std::optional<Assignment> shared_dp(const Indexed& ix, const std::vector<double>& u) {
  const SharedTables t = shared_tables(ix, u);
  const auto& [computed, have, config, from] = t;
  // Top-down from the results (which end in DRAM): the first demand of a class fixes it.
  Assignment out;
  std::vector<std::pair<size_t, uint32_t>> stack; // (class, placement computed)
  for (size_t r : ix.results) {
    const ProblemClass& pc = *ix.pc[r];
    double best = kUnreached;
    uint32_t at = 0;
    for (uint32_t k = 0; k < pc.placements.size(); ++k) {
      double cost =
          computed[r][k] +
          (pc.placements[k].buffer == BufferType::DRAM ? 0 : pc.convert_us(k, pc.dram_tile));
      if (cost < best) {
        best = cost;
        at = k;
      }
    }
    if (best == kUnreached) return std::nullopt;
    stack.emplace_back(r, at);
  }
  while (!stack.empty()) {
    auto [i, k] = stack.back();
    stack.pop_back();
    if (out.count(ix.cls[i])) continue;
    if (computed[i][k] == kUnreached) return std::nullopt;
    const uint32_t j = config[i][k];
    out[ix.cls[i]] = j;
    const NodeConfig& cfg = ix.pc[i]->configs[j];
    const std::vector<size_t>& ch = ix.children[i][j];
    for (size_t o = 0; o < ch.size(); ++o) stack.emplace_back(ch[o], from[ch[o]][cfg.reads[o]]);
  }
  return out;
}

// The classes `a` computes that the results reach (a switch can leave others behind).
Assignment reached_part(const Indexed& ix, const Assignment& a) {
  Assignment out;
  std::vector<size_t> stack = ix.results;
  while (!stack.empty()) {
    size_t i = stack.back();
    stack.pop_back();
    auto it = a.find(ix.cls[i]);
    if (it == a.end() || out.count(ix.cls[i])) continue;
    out.emplace(it->first, it->second);
    for (size_t ch : ix.children[i][it->second])
      if (ch < ix.cls.size()) stack.push_back(ch);
  }
  return out;
}

// `a` with class i computed by configuration j, and every class that newly reaches filled
// top-down from `t` in the placement it is read in; nullopt when the tables cannot compute one.
std::optional<Assignment> with_switch(const Indexed& ix, const SharedTables& t, Assignment a,
                                      size_t i, uint32_t j) {
  a[ix.cls[i]] = j;
  std::vector<std::pair<size_t, uint32_t>> stack; // (class, placement read)
  auto push_operands = [&](size_t c, uint32_t config) {
    const NodeConfig& cfg = ix.pc[c]->configs[config];
    const std::vector<size_t>& ch = ix.children[c][config];
    for (size_t o = 0; o < ch.size(); ++o)
      if (ch[o] < ix.cls.size()) stack.emplace_back(ch[o], cfg.reads[o]);
  };
  push_operands(i, j);
  while (!stack.empty()) {
    auto [c, p] = stack.back();
    stack.pop_back();
    if (a.count(ix.cls[c])) continue;
    if (p >= t.have[c].size() || t.have[c][p] == kUnreached) return std::nullopt;
    const uint32_t config = t.config[c][t.from[c][p]];
    a[ix.cls[c]] = config;
    push_operands(c, config);
  }
  return a;
}

// One pass over the classes `out` computes, in `ix`'s order: each other e-node of a class (its
// configuration with the same result placement, else its cheapest) in place of the chosen
// one, what it newly reads filled from the shared tables; a switch is kept when the objective
// falls. This takes what the shares cannot: an e-node whose operands are already paid for by
// other readers (a decomposition reading a value the plan keeps anyway). At most `budget`
// objective evaluations. True when the objective fell.
bool switch_pass(const ExtractionProblem& problem, const Indexed& ix, const SharedTables& t,
                 SharedRefinement& out, size_t& budget) {
  bool better = false;
  for (size_t i = 0; i < ix.cls.size() && budget > 0; ++i) {
    auto it = out.assignment.find(ix.cls[i]);
    if (it == out.assignment.end()) continue;
    const std::vector<NodeConfig>& configs = ix.pc[i]->configs;
    const NodeConfig& current = configs[it->second];
    // Per other e-node, its configuration into the current placement, else its cheapest.
    std::unordered_map<egraph::NodeId, uint32_t> pick;
    for (uint32_t j = 0; j < configs.size(); ++j) {
      if (configs[j].node == current.node) continue;
      auto [p, fresh] = pick.emplace(configs[j].node, j);
      if (fresh) continue;
      const NodeConfig& old = configs[p->second];
      auto rank = [&](const NodeConfig& c) { return std::make_pair(c.out != current.out, c.cost); };
      if (rank(configs[j]) < rank(old)) p->second = j;
    }
    std::vector<uint32_t> candidates;
    for (const auto& [node, j] : pick) candidates.push_back(j);
    std::sort(candidates.begin(), candidates.end());
    for (uint32_t j : candidates) {
      if (budget == 0) break;
      --budget;
      std::optional<Assignment> next = with_switch(ix, t, out.assignment, i, j);
      if (!next) continue;
      std::optional<double> cost = objective(problem, *next);
      if (!cost || *cost >= out.objective * (1 - 1e-9)) continue;
      out.assignment = reached_part(ix, *next);
      out.objective = *cost;
      better = true;
      break;
    }
  }
  return better;
}

} // namespace

SharedRefinement refine_shared(const ExtractionProblem& problem, const Assignment& seed,
                               size_t max_rounds) {
  SharedRefinement out;
  out.assignment = seed;
  std::optional<double> start = objective(problem, seed);
  if (!start) return out;
  out.objective = *start;
  // Two orders, each round: the problem's operands-first order, fixed, and one that follows
  // the current assignment from the results (which can use the other direction of a cycle).
  const Indexed operands_first(problem, problem.order);
  size_t switch_budget =
      std::min(kMaxSwitches, kSwitchWork / std::max<size_t>(problem.classes.size(), 1));
  for (size_t round = 0; round < max_rounds; ++round) {
    bool better = false;
    const Indexed following(problem, from_results(operands_first, out.assignment));
    for (const Indexed* ix : {&operands_first, &following}) {
      const std::vector<double> u = readers(*ix, out.assignment);
      for (const std::vector<double>& shares :
           {u, with_potential_readers(*ix, u),
            with_potential_readers(*ix, std::vector<double>(u.size(), 0))}) {
        std::optional<Assignment> next = shared_dp(*ix, shares);
        if (!next) continue;
        std::optional<double> cost = objective(problem, *next);
        if (!cost || *cost >= out.objective * (1 - 1e-9)) continue;
        out.assignment = std::move(*next);
        out.objective = *cost;
        better = true;
      }
    }
    if (!better) {
      const Indexed& ix = operands_first;
      const SharedTables t =
          shared_tables(ix, with_potential_readers(ix, readers(ix, out.assignment)));
      better = switch_pass(problem, ix, t, out, switch_budget);
    }
    if (!better) break;
    ++out.rounds;
  }
  return out;
}

} // namespace tilesat::cost
