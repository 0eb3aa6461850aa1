// Graphviz export of an e-graph: one cluster per e-class, one box per e-node, an edge from
// each e-node to the cluster of each child class.
//
// For looking at small e-graphs while writing rules (`dot -Tsvg eg.dot -o eg.svg`).
//
//   std::ofstream("eg.dot") << tilesat::egraph::to_dot(eg);
#pragma once

#include <string>

namespace tilesat::egraph {

class EGraph;

/// The e-graph in DOT syntax; `eg` should be rebuilt.
std::string to_dot(const EGraph& eg);

} // namespace tilesat::egraph
