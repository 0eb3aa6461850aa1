// ENode: a read-only view of one e-node: operator, attribute payload id, child class ids.
//
// E-nodes live in the e-graph's arena (16 bytes each plus their children in a flat id array),
// so they are handed out as views. Children are canonical class ids once the e-graph has been
// rebuilt.
//
//   tilesat::egraph::ENode n = eg.node(node_id);
//   if (n.op == plus && n.arity() == 2) use(eg.find(n.children[0]));
#pragma once

#include "tilesat/egraph/attr.h"
#include "tilesat/egraph/id.h"
#include "tilesat/egraph/symbol.h"

#include <cstdint>
#include <span>

namespace tilesat::egraph {

struct ENode {
  Symbol op;
  AttrId attrs = kNoAttrs;
  std::span<const Id> children;

  std::size_t arity() const { return children.size(); }
  bool is_leaf() const { return children.empty(); }
};

namespace detail {

/// Arena record of an e-node: children are child_arena[begin, begin + arity).
struct NodeRecord {
  Symbol op;
  AttrId attrs;
  std::uint32_t begin;
  std::uint32_t arity : 31;
  std::uint32_t dead : 1; // removed from the hash-cons (found congruent to another node)
};
static_assert(sizeof(NodeRecord) == 16);

} // namespace detail
} // namespace tilesat::egraph
