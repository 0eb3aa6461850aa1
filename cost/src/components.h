// components.h: private to cost/: a graph's strongly connected components, in an order where
// every component comes after the components it reads.
//
// The extraction DP prices each e-class after the classes its e-nodes read. Where classes
// read each other (a reshape merged back into the class it reshapes), no order of classes
// does that; an order of components does, and a component's classes are settled together
// before any class that reads them.
//
//   // 0 and 1 read each other; 2 reads 0.
//   std::vector<uint32_t> c = components_operands_first({{1}, {0}, {0}});
//   // c[0] == c[1], c[2] > c[0]
#pragma once

#include <cstdint>
#include <vector>

namespace tilesat::cost {

/// The component of each node of the graph whose node i has edges to `reads[i]` (the nodes
/// it reads): nodes share a component when each reaches the other, and an edge i -> j between
/// components has c[j] < c[i]. Components are numbered 0, 1, ... without gaps.
std::vector<uint32_t> components_operands_first(const std::vector<std::vector<uint32_t>>& reads);

} // namespace tilesat::cost
