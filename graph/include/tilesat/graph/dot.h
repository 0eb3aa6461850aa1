// Graphviz DOT export of a graph, to look at a model (`dot -Tsvg g.dot > g.svg`).
//
// Each node is labelled with its value name, op, attributes as written and result type;
// arguments are boxes and results are drawn with a double border. Edges run from a producer
// to each of its users. The text comes from Boost's write_graphviz.
//
//   std::string dot = to_dot(g);
//   // digraph G { 0[label="%x\narg\ntensor<32x128xf32>" shape=box]; ... 0->1 ; }
#pragma once

#include "tilesat/graph/graph.h"

#include <string>

namespace tilesat {

std::string to_dot(const Graph& g);

} // namespace tilesat
