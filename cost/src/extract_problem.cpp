// extract_problem.cpp: the extraction objective of an assignment, and the path lower bound.
#include "tilesat/cost/extract_problem.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_set>

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
  std::unordered_set<egraph::Id> needed(problem.results.begin(), problem.results.end());
  std::vector<egraph::Id> todo(needed.begin(), needed.end());
  double total = 0;
  while (!todo.empty()) {
    egraph::Id c = todo.back();
    todo.pop_back();
    auto pc = problem.classes.find(c);
    if (pc == problem.classes.end() || pc->second.configs.empty()) continue;
    double cheapest = std::numeric_limits<double>::infinity();
    // The operands every e-node with a configuration reads.
    std::optional<std::set<egraph::Id>> common;
    egraph::NodeId last = egraph::kNoId;
    for (const NodeConfig& cfg : pc->second.configs) {
      cheapest = std::min(cheapest, cfg.cost);
      if (cfg.node == last) continue;
      last = cfg.node;
      std::vector<egraph::Id> ch = problem.children(cfg);
      std::set<egraph::Id> mine(ch.begin(), ch.end());
      if (!common) {
        common = std::move(mine);
        continue;
      }
      std::set<egraph::Id> both;
      std::set_intersection(common->begin(), common->end(), mine.begin(), mine.end(),
                            std::inserter(both, both.begin()));
      common = std::move(both);
    }
    total += cheapest;
    for (egraph::Id ch : *common)
      if (needed.insert(ch).second) todo.push_back(ch);
  }
  return total;
}

rewrites::Selection selection_of(const ExtractionProblem& problem, const Assignment& a) {
  auto pick = std::make_shared<std::unordered_map<egraph::Id, egraph::NodeId>>();
  for (const auto& [c, k] : a) pick->emplace(c, problem.classes.at(c).configs.at(k).node);
  const egraph::EGraph* eg = &problem.teg->egraph;
  return [pick, eg](egraph::Id cls) {
    auto it = pick->find(eg->find(cls));
    return it == pick->end() ? egraph::kNoId : it->second;
  };
}

} // namespace tilesat::cost
