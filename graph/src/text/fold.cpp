// Evaluating what an importer can know while it reads: a value computed from constants only
// (a start index, a loop's condition), and a function's body copied into another graph.
//
//   std::optional<double> i = folded_scalar(g, index);          // 3 for select(-2 < 0, -2 + 5, -2)
//   std::vector<NodeId> out = inline_graph(g, body, carried);  // the body on g's values
#include "text/import.h"
#include "tilesat/graph/interpreter.h"

#include <algorithm>
#include <unordered_map>

namespace tilesat::text {
namespace {

/// At most this many nodes are copied to fold one value.
constexpr size_t kMaxFoldedNodes = 256;

/// Copies the nodes `id` depends on into `sub` (`copy` maps g's ids to sub's); false when one
/// is an argument or the cone is too large to fold.
bool copy_cone(const Graph& g, NodeId id, Graph& sub, std::unordered_map<NodeId, NodeId>& copy) {
  std::vector<NodeId> cone, stack{id};
  std::unordered_map<NodeId, bool> seen;
  while (!stack.empty()) {
    NodeId n = stack.back();
    stack.pop_back();
    if (copy.count(n) != 0 || seen.count(n) != 0) continue;
    if (g.node(n).kind == OpKind::Argument || cone.size() >= kMaxFoldedNodes) return false;
    seen.emplace(n, true);
    cone.push_back(n);
    for (NodeId o : g.node(n).operands) stack.push_back(o);
  }
  // Importers add a node after its operands, so ids order the cone.
  std::sort(cone.begin(), cone.end());
  for (NodeId n : cone) {
    const Node& node = g.node(n);
    std::vector<NodeId> operands;
    for (NodeId o : node.operands) {
      auto it = copy.find(o);
      if (it == copy.end()) return false;
      operands.push_back(it->second);
    }
    copy[n] = sub.add_op_typed(node.kind, std::move(operands), node.attrs, node.type, node.loc);
  }
  return true;
}

/// The one element of `sub`'s only result, or nullopt.
std::optional<double> evaluate_scalar(Graph& sub, NodeId result) {
  if (sub.node(result).type.shape.numel() != 1) return std::nullopt;
  sub.add_result(result);
  try {
    return evaluate(sub, {}).at(0).data().at(0);
  } catch (const Error&) {
    return std::nullopt;
  }
}

} // namespace

std::vector<NodeId> inline_graph(Graph& into, const Graph& f, std::span<const NodeId> args) {
  std::vector<NodeId> map(f.num_nodes());
  for (size_t i = 0; i < args.size() && i < f.arguments().size(); ++i)
    map[f.arguments()[i]] = args[i];
  for (NodeId id = 0; id < f.num_nodes(); ++id) {
    const Node& n = f.node(id);
    if (n.kind == OpKind::Argument) continue;
    std::vector<NodeId> operands;
    for (NodeId o : n.operands) operands.push_back(map[o]);
    map[id] = into.add_op_typed(n.kind, std::move(operands), n.attrs, n.type, n.loc);
  }
  std::vector<NodeId> results;
  for (const GraphResult& r : f.results()) results.push_back(map[r.value]);
  return results;
}

std::optional<double> folded_scalar(const Graph& g, NodeId id) {
  if (g.node(id).type.shape.numel() != 1) return std::nullopt;
  Graph sub;
  std::unordered_map<NodeId, NodeId> copy;
  if (!copy_cone(g, id, sub, copy)) return std::nullopt;
  return evaluate_scalar(sub, copy.at(id));
}

} // namespace tilesat::text
