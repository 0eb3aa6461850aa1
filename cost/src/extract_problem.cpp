// extract_problem.cpp: the extraction objective of an assignment, and the path lower bound.
#include "tilesat/cost/extract_problem.h"

#include "tilesat/graph/diagnostic.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <set>
#include <tuple>

namespace tilesat::cost {

std::vector<egraph::Id> ExtractionProblem::children(const NodeConfig& cfg) const {
  const egraph::EGraph& eg = teg->egraph;
  std::vector<egraph::Id> out;
  for (egraph::Id ch : eg.node(cfg.node).children) out.push_back(eg.find(ch));
  return out;
}

std::optional<double> objective(const ExtractionProblem& problem, const Assignment& a) {
  // Depth-first from the results: 1 on the path, 2 done; a class met on the path is a cycle.
  std::unordered_map<egraph::Id, uint8_t> mark;
  std::set<std::tuple<egraph::Id, uint32_t, uint32_t>> conversions;
  double total = 0;
  struct Frame {
    egraph::Id cls;
    std::vector<egraph::Id> children;
    size_t next = 0;
  };
  auto config_of = [&](egraph::Id c) -> const NodeConfig* {
    auto it = a.find(c);
    auto pc = problem.classes.find(c);
    if (it == a.end() || pc == problem.classes.end() || it->second >= pc->second.configs.size())
      return nullptr;
    return &pc->second.configs[it->second];
  };
  for (egraph::Id r : problem.results) {
    if (mark[r] == 2) continue;
    const NodeConfig* root = config_of(r);
    if (!root) return std::nullopt;
    std::vector<Frame> stack{{r, problem.children(*root), 0}};
    mark[r] = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.children.size()) {
        egraph::Id ch = f.children[f.next++];
        if (mark[ch] == 1) return std::nullopt;
        if (mark[ch] == 2) continue;
        const NodeConfig* cfg = config_of(ch);
        if (!cfg) return std::nullopt;
        mark[ch] = 1;
        stack.push_back({ch, problem.children(*cfg), 0});
        continue;
      }
      const NodeConfig& cfg = *config_of(f.cls);
      total += cfg.cost;
      for (size_t i = 0; i < f.children.size(); ++i) {
        uint32_t out = config_of(f.children[i])->out;
        if (out != cfg.reads[i]) conversions.emplace(f.children[i], out, cfg.reads[i]);
      }
      mark[f.cls] = 2;
      stack.pop_back();
    }
  }
  for (egraph::Id r : problem.results) {
    const ProblemClass& pc = problem.classes.at(r);
    uint32_t out = config_of(r)->out;
    if (pc.placements[out].buffer != BufferType::DRAM) conversions.emplace(r, out, pc.dram_tile);
  }
  for (const auto& [c, from, to] : conversions) {
    double us = problem.classes.at(c).convert_us(from, to);
    if (!std::isfinite(us)) return std::nullopt;
    total += us;
  }
  return total;
}

double path_lower_bound(const ExtractionProblem& problem) {
  // From zero upwards every pass keeps each bound below the cheapest acyclic plan of its class
  // (the plan's root configuration plus, for each operand, a sub-plan that excludes the root);
  // operands come first in `order`, so an acyclic e-graph settles in one pass.
  std::unordered_map<egraph::Id, double> lb;
  for (size_t pass = 0; pass < 4; ++pass) {
    bool changed = false;
    for (egraph::Id c : problem.order) {
      auto pc = problem.classes.find(c);
      if (pc == problem.classes.end()) continue;
      double best = std::numeric_limits<double>::infinity();
      for (const NodeConfig& cfg : pc->second.configs) {
        double below = 0;
        for (egraph::Id ch : problem.children(cfg)) below = std::max(below, lb[ch]);
        best = std::min(best, cfg.cost + below);
      }
      if (!std::isfinite(best)) continue; // no configuration: never part of a plan
      if (best > lb[c]) {
        lb[c] = best;
        changed = true;
      }
    }
    if (!changed) break;
  }
  double out = 0;
  for (egraph::Id r : problem.results) out = std::max(out, lb[r]);
  return out;
}

double mandatory_lower_bound(const ExtractionProblem& problem) {
  // needs(c): classes every acyclic plan of c computes: c, and for each e-node of c with a
  // configuration what all of them need through one operand or another (an intersection over
  // e-nodes of unions over operands). Operands first; an operand not yet visited (a cycle)
  // counts as needing nothing, which only shrinks the sets. Bit sets, so bounded in size.
  constexpr size_t kMaxClasses = 8192;
  const size_t n = problem.order.size();
  if (n > kMaxClasses) return 0;
  std::unordered_map<egraph::Id, size_t> index;
  for (size_t i = 0; i < n; ++i) index[problem.order[i]] = i;
  const size_t words = (n + 63) / 64;
  using Bits = std::vector<uint64_t>;
  std::vector<Bits> needs(n);
  std::vector<bool> done(n, false);
  std::vector<double> cheapest(n, 0);
  for (size_t i = 0; i < n; ++i) {
    auto pc = problem.classes.find(problem.order[i]);
    if (pc == problem.classes.end() || pc->second.configs.empty()) continue;
    std::optional<Bits> common;
    egraph::NodeId last = egraph::kNoId;
    cheapest[i] = std::numeric_limits<double>::infinity();
    for (const NodeConfig& cfg : pc->second.configs) {
      cheapest[i] = std::min(cheapest[i], cfg.cost);
      if (cfg.node == last) continue;
      last = cfg.node;
      Bits mine(words, 0);
      for (egraph::Id ch : problem.children(cfg)) {
        size_t k = index.at(ch);
        if (!done[k]) continue;
        for (size_t w = 0; w < words; ++w) mine[w] |= needs[k][w];
      }
      if (!common)
        common = std::move(mine);
      else
        for (size_t w = 0; w < words; ++w) (*common)[w] &= mine[w];
    }
    needs[i] = std::move(*common);
    needs[i][i / 64] |= uint64_t{1} << (i % 64);
    done[i] = true;
  }
  Bits all(words, 0);
  for (egraph::Id r : problem.results)
    if (size_t k = index.at(r); done[k])
      for (size_t w = 0; w < words; ++w) all[w] |= needs[k][w];
  double total = 0;
  for (size_t i = 0; i < n; ++i)
    if (all[i / 64] >> (i % 64) & 1) total += cheapest[i];
  return total;
}

rewrites::Selection selection_of(const ExtractionProblem& problem, const Assignment& a) {
  auto pick = std::make_shared<std::unordered_map<egraph::Id, egraph::NodeId>>();
  for (const auto& [c, k] : a) {
    auto it = problem.classes.find(c);
    if (it == problem.classes.end() || k >= it->second.configs.size())
      throw InternalError(fmt::format("assignment names configuration {} of class {}, which "
                                      "the extraction problem does not hold",
                                      k, c));
    pick->emplace(c, it->second.configs[k].node);
  }
  const egraph::EGraph* eg = &problem.teg->egraph;
  return [pick, eg](egraph::Id cls) {
    auto it = pick->find(eg->find(cls));
    return it == pick->end() ? egraph::kNoId : it->second;
  };
}

} // namespace tilesat::cost
