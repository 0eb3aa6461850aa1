// The tensor term language: a Graph as an e-graph, and an extracted choice back as a Graph.
//
// Every graph value becomes an e-class; every op an e-node whose operator is the op's registry
// name ("matmul") and whose payload holds its attributes in canonical form (payload.h).
// Arguments are leaves `arg[index=i]`, constants carry their values. The `TensorAnalysis`
// keeps each class's type and the facts guards need. Going back, a `Selection` names one
// e-node per needed class (an extractor's choice); `to_graph` rebuilds a Graph from it with
// inferred types, keeping the source's argument names and order and its result order.
//
//   TensorEGraph teg = to_egraph(graph);
//   Runner().run(teg.egraph, rules);
//   Graph best = to_graph(teg, select_fewest_ops(teg));   // extract.h
#pragma once

#include "tilesat/egraph/egraph.h"
#include "tilesat/graph/graph.h"
#include "tilesat/rewrites/tensor_analysis.h"

#include <functional>
#include <vector>

namespace tilesat::rewrites {

struct TensorEGraph {
  egraph::EGraph egraph;
  /// Owned by `egraph`.
  TensorAnalysis* facts = nullptr;
  /// The graph this e-graph was made from (names, arguments, results).
  Graph source;
  /// The class of each source node (kNoId for nodes unreachable from the results).
  std::vector<egraph::Id> class_of_node;
  /// The class of each source result, in order.
  std::vector<egraph::Id> results;

  const TensorFacts& facts_of(egraph::Id id) const { return (*facts)[egraph.find(id)]; }
};

/// Options of to_egraph.
struct ToEGraphOptions {
  /// Record justifications so equalities can be explained (EGraph::enable_explanations).
  bool explanations = false;
};

/// The attribute holding an argument leaf's position: `arg[index=2]` is the third argument.
///   eg.attrs(node.attrs).find(argument_index_attr())->as_int();  // 2
egraph::Symbol argument_index_attr();

/// Loads `g` (which must verify) into a fresh tensor e-graph.
TensorEGraph to_egraph(const Graph& g, ToEGraphOptions options = {});

/// An extractor's choice: the e-node to use for a class (kNoId when it has none).
using Selection = std::function<egraph::NodeId(egraph::Id cls)>;

/// The graph computing teg's results with the selected e-nodes; throws InternalError when the
/// selection is cyclic or misses a class.
Graph to_graph(const TensorEGraph& teg, const Selection& select);

/// The s-expression of the source term of a source node (for explanations).
egraph::RecExpr source_term(const TensorEGraph& teg, NodeId node);
/// The s-expression of the selected term of a class.
egraph::RecExpr selected_term(const TensorEGraph& teg, const Selection& select, egraph::Id cls);

} // namespace tilesat::rewrites
