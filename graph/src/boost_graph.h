// boost_graph.h: private to graph/: the Boost.Graph adjacency list behind tilesat::Graph
// (vertex i is NodeId i; one edge producer -> user per operand use).
#pragma once

#include "tilesat/graph/graph.h"

// Boost 1.74's graph headers trip GCC 12's flow-sensitive warnings at -O2.
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/graph/reverse_graph.hpp>
#pragma GCC diagnostic pop

namespace tilesat {

struct Graph::BoostGraph {
  using Adjacency = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
  Adjacency g;
};

} // namespace tilesat
