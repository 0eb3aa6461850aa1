// source_exits.cpp: immediate post-dominators of the source graph (Cooper, Harvey and
// Kennedy's intersection over a reverse topological order, with a virtual sink after every
// result), and the region between each multi-use value and its post-dominator.
#include "source_exits.h"

#include <optional>

namespace tilesat::rewrites {

std::unordered_map<NodeId, SourceExit> source_exits(const Graph& g, size_t max_exits,
                                                    size_t max_region) {
  const std::vector<NodeId> order = g.topological_order();
  const auto sink = static_cast<NodeId>(g.num_nodes());
  std::vector<uint32_t> rank(g.num_nodes() + 1, 0); // the sink has rank 0
  std::vector<NodeId> ipdom(g.num_nodes() + 1, sink);
  std::vector<bool> reached(g.num_nodes(), false), result(g.num_nodes(), false);
  for (NodeId n : order) reached[n] = true;
  for (const GraphResult& r : g.results()) result[r.value] = true;
  // Walks both candidates towards the sink until they meet; a post-dominator always has a
  // lower rank than the values it post-dominates.
  auto intersect = [&](NodeId a, NodeId b) {
    while (a != b) {
      if (rank[a] > rank[b]) {
        a = ipdom[a];
      } else {
        b = ipdom[b];
      }
    }
    return a;
  };
  uint32_t next = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    std::optional<NodeId> p;
    if (result[*it]) p = sink;
    for (NodeId u : g.users(*it)) {
      if (reached[u]) p = p ? intersect(*p, u) : u;
    }
    ipdom[*it] = p.value_or(sink);
    rank[*it] = next++;
  }
  std::unordered_map<NodeId, SourceExit> out;
  std::vector<bool> seen(g.num_nodes(), false);
  for (NodeId n : order) {
    if (g.use_count(n) < 2 || ipdom[n] == sink) continue;
    SourceExit e;
    std::vector<NodeId> touched{n};
    seen[n] = true;
    // Stage k: the ops reachable from the previous exit (or n) before exit k; each exit
    // post-dominates the previous one, so the walk ends there.
    for (NodeId from = n, to = ipdom[n]; to != sink && e.exits.size() < max_exits;
         from = to, to = ipdom[to]) {
      auto stage = static_cast<uint32_t>(e.exits.size());
      if (from != n) e.region.emplace_back(from, stage);
      seen[to] = true;
      touched.push_back(to);
      std::vector<NodeId> stack{from};
      while (!stack.empty() && e.region.size() <= max_region) {
        NodeId v = stack.back();
        stack.pop_back();
        for (NodeId u : g.users(v)) {
          if (!reached[u] || seen[u]) continue;
          seen[u] = true;
          touched.push_back(u);
          e.region.emplace_back(u, stage);
          stack.push_back(u);
        }
      }
      if (e.region.size() > max_region) break;
      e.exits.push_back(to);
    }
    for (NodeId t : touched) seen[t] = false;
    if (!e.exits.empty()) {
      // Ops of a stage cut short belong to no exit.
      auto kept = static_cast<uint32_t>(e.exits.size());
      std::erase_if(e.region, [kept](const auto& r) { return r.second >= kept; });
      out.emplace(n, std::move(e));
    }
  }
  return out;
}

} // namespace tilesat::rewrites
