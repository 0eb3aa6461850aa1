// EClassRef: a read-only view of one e-class: its id, its e-nodes and its parent e-nodes.
//
// Extractors and analyses walk classes, their nodes and their parents; views over the
// e-graph's flat lists make that free of copies. After `EGraph::rebuild()` a class's nodes are
// sorted by operator and its parent list holds each parent e-node once.
//
//   for (tilesat::egraph::Id c : eg.classes())
//     for (tilesat::egraph::NodeId n : eg.eclass(c).nodes) visit(eg.node(n));
#pragma once

#include "tilesat/egraph/id.h"

#include <span>

namespace tilesat::egraph {

struct EClassRef {
  Id id = kNoId;
  /// The e-nodes of the class (ids into the e-graph's node arena).
  std::span<const NodeId> nodes;
  /// E-nodes that have this class as a child; `EGraph::find(parent)` is the parent's class.
  std::span<const NodeId> parents;

  std::size_t size() const { return nodes.size(); }
};

} // namespace tilesat::egraph
