// graph.cpp: building and traversing the DAG (nodes, operand edges, topological order).
#include "tilesat/graph/graph.h"

#include "boost_graph.h"
#include "ops/op_impl.h"

#include <algorithm>
#include <fmt/format.h>

namespace tilesat {

Graph::Graph(std::string name) : name_(std::move(name)), bg_(std::make_unique<BoostGraph>()) {}

Graph::Graph(const Graph& o)
    : name_(o.name_), nodes_(o.nodes_), args_(o.args_), results_(o.results_),
      pending_edges_(o.pending_edges_),
      bg_(o.bg_ ? std::make_unique<BoostGraph>(*o.bg_) : std::make_unique<BoostGraph>()) {}

Graph& Graph::operator=(const Graph& o) {
  if (this != &o) {
    Graph copy(o);
    *this = std::move(copy);
  }
  return *this;
}

Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;
Graph::~Graph() = default;

NodeId Graph::push(Node n) {
  if (!bg_) bg_ = std::make_unique<BoostGraph>(); // a moved-from graph is reusable
  auto id = static_cast<NodeId>(nodes_.size());
  boost::add_vertex(bg_->g);
  for (NodeId op : n.operands) {
    if (op <= id) {
      boost::add_edge(op, id, bg_->g);
    } else {
      pending_edges_.emplace_back(op, id);
    }
  }
  // Earlier nodes that named this id before it existed.
  auto ready = [id](const auto& e) { return e.first == id; };
  for (const auto& [producer, user] : pending_edges_) {
    if (producer == id) boost::add_edge(producer, user, bg_->g);
  }
  std::erase_if(pending_edges_, ready);
  nodes_.push_back(std::move(n));
  return id;
}

NodeId Graph::add_argument(std::string name, TensorType type, ArgRole role, SourceLoc loc) {
  Node n;
  n.kind = OpKind::Argument;
  n.type = std::move(type);
  n.name = std::move(name);
  n.role = role;
  n.loc = std::move(loc);
  NodeId id = push(std::move(n));
  args_.push_back(id);
  return id;
}

NodeId Graph::add_op(OpKind kind, std::vector<NodeId> operands, Attrs attrs, SourceLoc loc) {
  const OpInfo& info = op_info(kind);
  TensorType type;
  try {
    if (kind == OpKind::Argument) ops::fail("expected an op, got an argument (use add_argument)");
    ops::check_operand_count(info, operands.size());
    std::vector<const TensorType*> types;
    for (size_t i = 0; i < operands.size(); ++i) {
      if (operands[i] >= nodes_.size()) {
        ops::fail(
            fmt::format("expected operand {} to be a defined value, got %{}", i, operands[i]));
      }
      types.push_back(&nodes_[operands[i]].type);
    }
    Attrs full = ops::with_defaults(info, attrs);
    type = info.infer(InferArgs{types, full});
  } catch (const Error& e) {
    throw Error(loc,
                fmt::format("'ttir.{}' %{}: {}", info.name, nodes_.size(), e.diagnostic().message));
  }
  return add_op_typed(kind, std::move(operands), std::move(attrs), std::move(type), std::move(loc));
}

NodeId Graph::add_op_typed(OpKind kind, std::vector<NodeId> operands, Attrs attrs, TensorType type,
                           SourceLoc loc) {
  Node n;
  n.kind = kind;
  n.operands = std::move(operands);
  n.attrs = std::move(attrs);
  n.type = std::move(type);
  n.loc = std::move(loc);
  return push(std::move(n));
}

void Graph::add_result(NodeId value, std::string name) {
  results_.push_back(GraphResult{value, std::move(name)});
}

void Graph::set_operand(NodeId user, size_t index, NodeId value) {
  if (user >= nodes_.size() || index >= nodes_[user].operands.size()) {
    throw InternalError(fmt::format("set_operand: no operand {} of %{}", index, user));
  }
  std::vector<NodeId>& ops = nodes_[user].operands;
  NodeId old = ops[index];
  ops[index] = value;
  if (old < nodes_.size()) {
    // Boost removes every parallel edge old -> user; put back the uses that remain.
    boost::remove_edge(old, user, bg_->g);
    for (NodeId op : ops) {
      if (op == old) boost::add_edge(old, user, bg_->g);
    }
  } else {
    auto it = std::find(pending_edges_.begin(), pending_edges_.end(), std::pair{old, user});
    if (it != pending_edges_.end()) pending_edges_.erase(it);
  }
  if (value < nodes_.size()) {
    boost::add_edge(value, user, bg_->g);
  } else {
    pending_edges_.emplace_back(value, user);
  }
}

std::vector<NodeId> Graph::users(NodeId id) const {
  std::vector<NodeId> out;
  if (id >= nodes_.size()) return out;
  for (auto e : boost::make_iterator_range(boost::out_edges(id, bg_->g))) {
    out.push_back(static_cast<NodeId>(boost::target(e, bg_->g)));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

size_t Graph::use_count(NodeId id) const {
  // One edge per operand that names `id` (parallel edges for repeated operands), plus uses by
  // nodes not added yet and by results: the node's degree, not a scan of the graph.
  size_t n = 0;
  if (bg_ && id < nodes_.size()) n = boost::out_degree(id, bg_->g);
  for (const auto& [producer, user] : pending_edges_) n += producer == id ? 1 : 0;
  for (const GraphResult& r : results_) n += r.value == id ? 1 : 0;
  return n;
}

size_t Graph::num_ops() const {
  std::vector<bool> seen(nodes_.size(), false);
  std::vector<NodeId> stack;
  for (const GraphResult& r : results_) {
    if (r.value < nodes_.size()) stack.push_back(r.value);
  }
  size_t n = 0;
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (seen[id]) continue;
    seen[id] = true;
    if (nodes_[id].kind != OpKind::Argument) ++n;
    for (NodeId op : nodes_[id].operands) {
      if (op < nodes_.size() && !seen[op]) stack.push_back(op);
    }
  }
  return n;
}

namespace {

struct CycleAt {
  NodeId node;
};

// Depth-first over operand edges: a node finishes after all its operands.
struct OrderVisitor : boost::default_dfs_visitor {
  std::vector<NodeId>* order;
  template <class E, class G>
  void back_edge(E e, const G& g) const {
    throw CycleAt{static_cast<NodeId>(boost::target(e, g))};
  }
  template <class V, class G>
  void finish_vertex(V v, const G&) const {
    order->push_back(static_cast<NodeId>(v));
  }
};

} // namespace

std::vector<NodeId> Graph::topological_order() const {
  for (size_t i = 0; i < results_.size(); ++i) {
    if (results_[i].value >= nodes_.size()) {
      throw Error(
          fmt::format("expected result {} to be a defined value, got %{}", i, results_[i].value));
    }
  }
  std::vector<NodeId> order;
  boost::reverse_graph<BoostGraph::Adjacency> operand_edges(bg_->g);
  std::vector<boost::default_color_type> colors(nodes_.size(), boost::white_color);
  auto color =
      boost::make_iterator_property_map(colors.begin(), boost::get(boost::vertex_index, bg_->g));
  OrderVisitor vis;
  vis.order = &order;
  try {
    for (const GraphResult& r : results_) {
      if (colors[r.value] == boost::white_color) {
        boost::depth_first_visit(operand_edges, r.value, vis, color);
      }
    }
  } catch (const CycleAt& c) {
    const Node& n = nodes_[c.node];
    throw Error(n.loc,
                fmt::format("'ttir.{}' {}: expected an acyclic graph, got a cycle through {}",
                            op_name(n.kind), value_name(*this, c.node), value_name(*this, c.node)));
  }
  for (NodeId id : order) {
    for (size_t i = 0; i < nodes_[id].operands.size(); ++i) {
      NodeId op = nodes_[id].operands[i];
      if (op >= nodes_.size()) {
        throw Error(nodes_[id].loc,
                    fmt::format("'ttir.{}' {}: expected operand {} to be a defined value, got %{}",
                                op_name(nodes_[id].kind), value_name(*this, id), i, op));
      }
    }
  }
  return order;
}

void Graph::verify_or_throw() const {
  std::vector<Diagnostic> problems = verify();
  if (!problems.empty()) throw Error(problems.front());
}

std::string value_name(const Graph& g, NodeId id) {
  if (id >= g.num_nodes()) return fmt::format("%{}", id);
  const Node& n = g.node(id);
  if (!n.name.empty()) return "%" + n.name;
  if (n.kind != OpKind::Argument) return fmt::format("%{}", id);
  auto args = g.arguments();
  auto pos = std::find(args.begin(), args.end(), id) - args.begin();
  return fmt::format("%arg{}", pos);
}

GraphCopy copy_arguments(const Graph& g) {
  GraphCopy c{Graph(g.name()), std::vector<NodeId>(g.num_nodes(), 0)};
  for (NodeId a : g.arguments()) {
    const Node& n = g.node(a);
    c.map[a] = c.graph.add_argument(n.name, n.type, n.role, n.loc);
  }
  return c;
}

NodeId copy_op(Graph& out, const Node& n, std::vector<NodeId> operands) {
  NodeId id = out.add_op_typed(n.kind, std::move(operands), n.attrs, n.type, n.loc);
  out.mutable_node(id).name = n.name;
  return id;
}

} // namespace tilesat
