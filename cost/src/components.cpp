// components.cpp: strongly connected components (components.h) with Boost.Graph's
// strong_components (Tarjan's algorithm, no recursion).
#include "components.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

namespace tilesat::cost {

std::vector<uint32_t> components_operands_first(const std::vector<std::vector<uint32_t>>& reads) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Graph g(reads.size());
  for (uint32_t i = 0; i < reads.size(); ++i)
    for (uint32_t j : reads[i]) boost::add_edge(i, j, g);
  std::vector<uint32_t> component(reads.size());
  // Tarjan's algorithm completes a component after every component it reaches, and Boost
  // numbers them in that order: what a node reads is numbered lower.
  boost::strong_components(
      g, boost::make_iterator_property_map(component.begin(), boost::get(boost::vertex_index, g)));
  return component;
}

} // namespace tilesat::cost
