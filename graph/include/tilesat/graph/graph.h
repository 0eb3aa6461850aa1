// A tensor program: a DAG of ops over named arguments (inputs and weights) with named results.
//
// Every value is the single result of one node; arguments are nodes of kind
// `OpKind::Argument`. The DAG is stored as a Boost.Graph adjacency list (an edge runs from a
// producer to each user), so graph algorithms (topological order, cycle detection, DOT) come
// from Boost; each node also keeps its operands in order.
//
//   Graph g("main");
//   NodeId x = g.add_argument("x", {DType::F32, Shape{32, 128}});
//   NodeId r = g.add_op(OpKind::Relu, {x});
//   g.add_result(r);
//   g.verify();   // empty: no problems
#pragma once

#include "tilesat/graph/attribute.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/op.h"
#include "tilesat/graph/tensor.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tilesat {

using NodeId = uint32_t;

/// What an argument is for: data fed at run time, or a parameter of the model.
enum class ArgRole : uint8_t { Input, Weight };

struct Node {
  OpKind kind = OpKind::Argument;
  std::vector<NodeId> operands;
  Attrs attrs;                   // as written; defaults are not stored
  TensorType type;               // the result type
  std::string name;              // arguments: the name ("arg0", "x"); ops: optional SSA name hint
  ArgRole role = ArgRole::Input; // arguments only
  SourceLoc loc;
};

/// A result of the graph: a value and the name it is reported under.
struct GraphResult {
  NodeId value;
  std::string name;
};

class Graph {
public:
  explicit Graph(std::string name = "main");
  Graph(const Graph&);
  Graph& operator=(const Graph&);
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;
  ~Graph();

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  NodeId add_argument(std::string name, TensorType type, ArgRole role = ArgRole::Input,
                      SourceLoc loc = {});
  /// Adds an op and infers its result type; throws tilesat::Error naming the op (and `loc`)
  /// when operands or attributes are invalid.
  NodeId add_op(OpKind kind, std::vector<NodeId> operands, Attrs attrs = {}, SourceLoc loc = {});
  /// Adds an op whose result type is declared (as in text); `verify()` checks it later.
  NodeId add_op_typed(OpKind kind, std::vector<NodeId> operands, Attrs attrs, TensorType type,
                      SourceLoc loc = {});
  void add_result(NodeId value, std::string name = "");
  /// Redirects operand `index` of `user` (may create a cycle; `verify()` reports it).
  void set_operand(NodeId user, size_t index, NodeId value);

  size_t num_nodes() const { return nodes_.size(); }
  /// A node by id. The reference stays valid while the graph grows: importers and rules may
  /// hold a node's type while they add ops.
  const Node& node(NodeId id) const { return nodes_[id]; }
  Node& mutable_node(NodeId id) { return nodes_[id]; }
  std::span<const NodeId> arguments() const { return args_; }
  std::span<const GraphResult> results() const { return results_; }
  /// Nodes that use `id` as an operand (each once, in id order).
  std::vector<NodeId> users(NodeId id) const;
  /// Number of uses of `id`, counting repeated operands and graph results.
  size_t use_count(NodeId id) const;
  /// Number of non-argument nodes reachable from the results.
  size_t num_ops() const;

  /// Nodes reachable from the results, producers before users; throws tilesat::Error on a
  /// cycle naming a node on it.
  std::vector<NodeId> topological_order() const;
  /// Every problem: cycles, dangling operands, results out of range, wrong operand counts,
  /// bad attributes, declared types that differ from the inferred ones. Each diagnostic
  /// names the op and value and carries the op's location.
  std::vector<Diagnostic> verify() const;
  /// Throws tilesat::Error with the first problem of verify(), if any.
  void verify_or_throw() const;

  /// The underlying Boost.Graph (vertex i = NodeId i, edge producer -> user).
  struct BoostGraph;
  const BoostGraph& boost_graph() const { return *bg_; }

private:
  NodeId push(Node n);
  std::string name_;
  std::deque<Node> nodes_; // a deque: adding a node never moves the others
  std::vector<NodeId> args_;
  std::vector<GraphResult> results_;
  // Uses (producer, user) whose producer id did not exist yet; their edges are added when it
  // does.
  std::vector<std::pair<NodeId, NodeId>> pending_edges_;
  std::unique_ptr<BoostGraph> bg_;
};

/// "%arg0" for arguments, "%<id>" otherwise (what diagnostics and the printer call a value).
std::string value_name(const Graph& g, NodeId id);

/// The start of a graph pass that rebuilds `g`: a graph named like it holding copies of its
/// arguments, and `map` from g's ids to the copy's (filled for the arguments).
///
///   GraphCopy c = copy_arguments(g);
///   for (NodeId id : g.topological_order()) { ... c.map[id] = copy_op(c.graph, g.node(id), ...); }
struct GraphCopy {
  Graph graph;
  std::vector<NodeId> map;
};
GraphCopy copy_arguments(const Graph& g);

/// Adds op `n` (of another graph) to `out` reading `operands` (ids in `out`), with its
/// attributes, type, location and name.
NodeId copy_op(Graph& out, const Node& n, std::vector<NodeId> operands);

} // namespace tilesat
