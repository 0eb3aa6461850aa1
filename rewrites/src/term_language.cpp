// term_language.cpp: Graph -> tensor e-graph, and a selection of e-nodes -> Graph.
#include "tilesat/rewrites/term_language.h"

#include "source_exits.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/rewrites/payload.h"

#include <fmt/format.h>
#include <unordered_map>

namespace tilesat::rewrites {
namespace {

// Ops whose TTIR form carries every attribute, defaults included (tt-mlir's softmax prints
// `dimension` and `numericStable` always).
bool keeps_every_attr(OpKind kind) {
  return kind == OpKind::Softmax;
}

egraph::Attrs argument_payload(size_t index) {
  return egraph::Attrs{
      {argument_index_attr(), egraph::AttrValue(static_cast<std::int64_t>(index))}};
}

} // namespace

egraph::Symbol argument_index_attr() {
  static const egraph::Symbol index = egraph::Symbol::intern("index");
  return index;
}

TensorEGraph to_egraph(const Graph& g, ToEGraphOptions options) {
  g.verify_or_throw();
  TensorEGraph teg;
  teg.source = g;
  std::vector<TensorType> arg_types;
  std::unordered_map<NodeId, size_t> arg_index;
  for (NodeId a : g.arguments()) {
    arg_index[a] = arg_types.size();
    arg_types.push_back(g.node(a).type);
  }
  if (options.explanations) teg.egraph.enable_explanations();
  teg.facts = &teg.egraph.add_analysis<TensorAnalysis>(std::move(arg_types));
  teg.class_of_node.assign(g.num_nodes(), egraph::kNoId);
  // Arguments first, so every argument has a class even when no result uses it.
  for (NodeId a : g.arguments()) {
    egraph::AttrId p = teg.egraph.intern_attrs(argument_payload(arg_index[a]));
    teg.class_of_node[a] = teg.egraph.add(op_symbol(OpKind::Argument), {}, p);
  }
  for (NodeId n : g.topological_order()) {
    const Node& node = g.node(n);
    if (node.kind == OpKind::Argument) continue;
    std::vector<egraph::Id> children;
    for (NodeId o : node.operands) children.push_back(teg.class_of_node[o]);
    egraph::AttrId p = teg.egraph.intern_attrs(to_payload(node.kind, node.attrs));
    teg.class_of_node[n] = teg.egraph.add(op_symbol(node.kind), children, p);
  }
  teg.egraph.rebuild();
  // Equal source ops share a class, which then has the users of all of them.
  std::unordered_map<egraph::Id, uint32_t> users;
  for (NodeId n = 0; n < g.num_nodes(); ++n) {
    if (teg.class_of_node[n] == egraph::kNoId) continue;
    teg.class_of_node[n] = teg.egraph.find(teg.class_of_node[n]);
    users[teg.class_of_node[n]] += static_cast<uint32_t>(g.use_count(n));
  }
  for (const auto& [cls, count] : users) teg.facts->set_source_users(cls, count);
  // Where the uses of a multi-use value come together, for a class of one source value.
  std::unordered_map<egraph::Id, int> sources;
  for (NodeId n = 0; n < g.num_nodes(); ++n) {
    if (teg.class_of_node[n] != egraph::kNoId) ++sources[teg.class_of_node[n]];
  }
  for (const auto& [n, e] : source_exits(g)) {
    if (sources[teg.class_of_node[n]] != 1) continue;
    std::vector<egraph::Id> exits;
    for (NodeId x : e.exits) exits.push_back(teg.class_of_node[x]);
    std::vector<std::pair<egraph::Id, uint32_t>> region;
    for (auto [r, stage] : e.region) region.emplace_back(teg.class_of_node[r], stage);
    teg.facts->set_source_exits(teg.class_of_node[n], std::move(exits), std::move(region));
  }
  for (const GraphResult& r : g.results()) teg.results.push_back(teg.class_of_node[r.value]);
  return teg;
}

Graph to_graph(const TensorEGraph& teg, const Selection& select) {
  const Graph& src = teg.source;
  Graph out(src.name());
  std::unordered_map<egraph::Id, NodeId> made;
  for (NodeId a : src.arguments()) {
    const Node& n = src.node(a);
    NodeId id = out.add_argument(n.name, n.type, n.role, n.loc);
    made.emplace(teg.egraph.find(teg.class_of_node[a]), id);
  }
  // Iterative post-order over classes; a class on the stack twice means a cycle.
  std::unordered_map<egraph::Id, bool> on_stack;
  struct Frame {
    egraph::Id cls;
    egraph::NodeId node;
    size_t next_child;
  };
  auto build = [&](egraph::Id root) -> NodeId {
    root = teg.egraph.find(root);
    if (auto it = made.find(root); it != made.end()) return it->second;
    std::vector<Frame> stack;
    auto push = [&](egraph::Id cls) {
      egraph::NodeId n = select(cls);
      if (n == egraph::kNoId) {
        throw InternalError(fmt::format("to_graph: no e-node selected for class {}", cls));
      }
      if (on_stack[cls]) throw InternalError(fmt::format("to_graph: cyclic selection at {}", cls));
      on_stack[cls] = true;
      stack.push_back(Frame{cls, n, 0});
    };
    push(root);
    while (!stack.empty()) {
      Frame& f = stack.back();
      egraph::ENode node = teg.egraph.node(f.node);
      if (f.next_child < node.arity()) {
        egraph::Id child = teg.egraph.find(node.children[f.next_child++]);
        if (made.find(child) == made.end()) push(child);
        continue;
      }
      std::optional<OpKind> kind = op_of(node.op);
      if (!kind || *kind == OpKind::Argument) {
        throw InternalError(fmt::format("to_graph: class {} selects a foreign leaf", f.cls));
      }
      std::vector<NodeId> operands;
      for (egraph::Id c : node.children) operands.push_back(made.at(teg.egraph.find(c)));
      const egraph::Attrs& payload = teg.egraph.attrs(node.attrs);
      NodeId id = out.add_op(*kind, std::move(operands),
                             keeps_every_attr(*kind) ? complete_from_payload(*kind, payload)
                                                     : from_payload(*kind, payload));
      made.emplace(f.cls, id);
      on_stack[f.cls] = false;
      stack.pop_back();
    }
    return made.at(root);
  };
  for (size_t i = 0; i < teg.results.size(); ++i) {
    out.add_result(build(teg.results[i]), src.results()[i].name);
  }
  return out;
}

egraph::RecExpr source_term(const TensorEGraph& teg, NodeId node) {
  const Graph& g = teg.source;
  egraph::RecExpr term;
  std::unordered_map<NodeId, uint32_t> index;
  std::unordered_map<NodeId, size_t> arg_index;
  for (size_t i = 0; i < g.arguments().size(); ++i) arg_index[g.arguments()[i]] = i;
  // Recursion depth is bounded by the graph's depth; explanations are for small programs.
  std::function<uint32_t(NodeId)> add = [&](NodeId n) -> uint32_t {
    const Node& nd = g.node(n);
    std::vector<uint32_t> children;
    for (NodeId o : nd.operands) children.push_back(add(o));
    if (nd.kind == OpKind::Argument) {
      return term.add(op_symbol(OpKind::Argument), {}, argument_payload(arg_index.at(n)));
    }
    return term.add(op_symbol(nd.kind), std::move(children), to_payload(nd.kind, nd.attrs));
  };
  add(node);
  return term;
}

egraph::RecExpr selected_term(const TensorEGraph& teg, const Selection& select, egraph::Id cls) {
  egraph::RecExpr term;
  std::function<uint32_t(egraph::Id)> add = [&](egraph::Id c) -> uint32_t {
    egraph::ENode n = teg.egraph.node(select(teg.egraph.find(c)));
    std::vector<uint32_t> children;
    for (egraph::Id child : n.children) children.push_back(add(child));
    return term.add(n.op, std::move(children), teg.egraph.attrs(n.attrs));
  };
  add(cls);
  return term;
}

} // namespace tilesat::rewrites
