// Greedy extraction by fixed-point iteration over class costs.
#include "tilesat/egraph/extract.h"

#include "tilesat/egraph/egraph.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace tilesat::egraph {

double AstSize::cost(const EGraph&, const ENode&, std::span<const double> child_costs) const {
  double s = 1;
  for (double c : child_costs) s += c;
  return s;
}

double AstDepth::cost(const EGraph&, const ENode&, std::span<const double> child_costs) const {
  double d = 0;
  for (double c : child_costs) d = std::max(d, c);
  return d + 1;
}

Extractor::Extractor(const EGraph& eg, const CostFunction& cost)
    : eg_(eg), cost_(eg.num_ids(), std::numeric_limits<double>::infinity()),
      best_(eg.num_ids(), kNoId) {
  std::vector<double> kids;
  bool changed = true;
  while (changed) {
    changed = false;
    for (Id c : eg.classes()) {
      for (NodeId n : eg.eclass(c).nodes) {
        ENode node = eg.node(n);
        kids.clear();
        bool finite = true;
        for (Id ch : node.children) {
          double k = cost_[eg.find(ch)];
          if (k == std::numeric_limits<double>::infinity()) {
            finite = false;
            break;
          }
          kids.push_back(k);
        }
        if (!finite) continue;
        // A tree cost over a DAG that shares much (a deep residual chain) can overflow; its
        // children are finite, so it stays selectable at the largest finite cost.
        double v = std::min(cost.cost(eg, node, kids), std::numeric_limits<double>::max());
        if (v < cost_[c]) {
          cost_[c] = v;
          best_[c] = n;
          changed = true;
        } else if (v == cost_[c] && n != best_[c] && node.op != eg.node(best_[c]).op &&
                   node.op.str() < eg.node(best_[c]).op.str()) {
          // A tie goes to the op whose name sorts first: not to the order of symbol ids,
          // which depends on what the process interned before (the same e-graph extracts the
          // same term in any process). Costs do not move, so this needs no further pass.
          best_[c] = n;
        }
      }
    }
  }
}

double Extractor::best_cost(Id id) const {
  return cost_[eg_.find(id)];
}
NodeId Extractor::best_node(Id id) const {
  return best_[eg_.find(id)];
}

RecExpr Extractor::extract(Id id) const {
  RecExpr out;
  std::unordered_map<Id, std::uint32_t> done;
  auto build = [&](auto&& self, Id cls) -> std::uint32_t {
    cls = eg_.find(cls);
    if (auto it = done.find(cls); it != done.end()) return it->second;
    NodeId n = best_[cls];
    if (n == kNoId) throw std::invalid_argument("extract: class has no finite-cost term");
    ENode node = eg_.node(n);
    std::vector<std::uint32_t> kids;
    for (Id ch : node.children) kids.push_back(self(self, ch));
    std::uint32_t idx = out.add(node.op, std::move(kids), eg_.attrs(node.attrs));
    done.emplace(cls, idx);
    return idx;
  };
  build(build, id);
  return out;
}

} // namespace tilesat::egraph
