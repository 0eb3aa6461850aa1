// Ids of the e-graph: e-class ids and e-node ids, both dense 32-bit integers.
//
// Every e-node added to an e-graph gets the next id, and that id is also the e-class it
// founded; `EGraph::find(id)` gives the class it belongs to now. Keeping both in one dense u32
// space lets the union-find, the node arena and the class table be flat arrays.
//
//   tilesat::egraph::Id a = eg.add(x);   // a names the class of x
//   tilesat::egraph::Id b = eg.add(y);
//   eg.merge(a, b);
//   assert(eg.find(a) == eg.find(b));
#pragma once

#include <cstdint>
#include <limits>

namespace tilesat::egraph {

/// An e-class id (the id of the e-node that founded the class, canonical after `find`).
using Id = std::uint32_t;
/// An e-node id: the index of a node in the e-graph's node arena.
using NodeId = std::uint32_t;

/// An id that names nothing (an unbound register, a missing lookup).
inline constexpr Id kNoId = std::numeric_limits<Id>::max();

} // namespace tilesat::egraph
