// verify.cpp: Graph::verify, every structural and typing problem of a graph, each named by
// op, value and source location.
#include "boost_graph.h"
#include "ops/op_impl.h"
#include "tilesat/graph/graph.h"

#include <fmt/format.h>
#include <set>

namespace tilesat {

namespace {

// Records the target of every back edge: each lies on a cycle.
struct CycleVisitor : boost::default_dfs_visitor {
  std::set<NodeId>* on_cycle;
  template <class E, class G>
  void back_edge(E e, const G& g) const {
    on_cycle->insert(static_cast<NodeId>(boost::target(e, g)));
  }
};

// The problem with node `id` other than cycles, or "" when there is none.
std::string check_node(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  const OpInfo& info = op_info(n.kind);
  try {
    ops::check_operand_count(info, n.operands.size());
    std::vector<const TensorType*> types;
    for (size_t i = 0; i < n.operands.size(); ++i) {
      NodeId op = n.operands[i];
      if (op >= g.num_nodes()) {
        ops::fail(fmt::format("expected operand {} to be a defined value, got %{}", i, op));
      }
      types.push_back(&g.node(op).type);
    }
    Attrs full = ops::with_defaults(info, n.attrs);
    TensorType inferred = info.infer(InferArgs{types, full});
    if (!inferred.same_value_type(n.type)) {
      return fmt::format("expected result type {}, got {}", inferred.str(), n.type.str());
    }
  } catch (const Error& e) {
    return e.diagnostic().message;
  }
  return "";
}

} // namespace

std::vector<Diagnostic> Graph::verify() const {
  std::vector<Diagnostic> out;
  auto report = [&](NodeId id, const std::string& message) {
    const Node& n = nodes_[id];
    out.push_back(Diagnostic{
        n.loc, fmt::format("'ttir.{}' {}: {}", op_name(n.kind), value_name(*this, id), message)});
  };
  for (NodeId id = 0; id < nodes_.size(); ++id) {
    if (nodes_[id].kind == OpKind::Argument) {
      if (!nodes_[id].operands.empty()) {
        report(id, fmt::format("expected no operands, got {}", nodes_[id].operands.size()));
      }
      continue;
    }
    std::string problem = check_node(*this, id);
    if (!problem.empty()) report(id, problem);
  }

  std::set<NodeId> on_cycle;
  CycleVisitor vis;
  vis.on_cycle = &on_cycle;
  std::vector<boost::default_color_type> colors(nodes_.size(), boost::white_color);
  auto color =
      boost::make_iterator_property_map(colors.begin(), boost::get(boost::vertex_index, bg_->g));
  boost::depth_first_search(bg_->g, vis, color);
  for (NodeId id : on_cycle) {
    report(id,
           fmt::format("expected an acyclic graph, got a cycle through {}", value_name(*this, id)));
  }

  for (size_t i = 0; i < results_.size(); ++i) {
    if (results_[i].value >= nodes_.size()) {
      Diagnostic d;
      d.message =
          fmt::format("expected result {} to be a defined value, got %{}", i, results_[i].value);
      out.push_back(std::move(d));
    }
  }
  return out;
}

} // namespace tilesat
