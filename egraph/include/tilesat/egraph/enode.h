// ENode: a read-only view of one e-node: operator, attribute payload id, child class ids.
//
// E-nodes live in the e-graph's arena (16 bytes each, holding up to two children; wider nodes
// keep their children in a flat id array), so they are handed out as views. Children are canonical
// class ids once the e-graph has been rebuilt.
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

/// Arena record of an e-node. Nearly all e-nodes have at most two children: those are kept
/// in the record itself, so comparing or repairing a node reads one cache line, not two.
/// Wider nodes keep theirs in the e-graph's child arena, at [kids[0], kids[0] + kids[1]).
struct NodeRecord {
  /// Children kept in the record.
  static constexpr std::uint32_t kInlineKids = 2;
  /// Payload ids must stay below this: the top bits of `meta` hold the shape and a flag.
  static constexpr std::uint32_t kMaxAttrs = std::uint32_t{1} << 29;
  static constexpr std::uint32_t kWide = 3; // shape of a node whose children are in the arena
  static constexpr std::uint32_t kDeadBit = std::uint32_t{1} << 31;

  /// The `meta` word of a live node: payload, then shape (the arity, or kWide) from bit 29.
  static constexpr std::uint32_t meta_of(AttrId attrs, std::uint32_t shape) {
    return attrs | shape << 29;
  }

  Symbol op;
  std::uint32_t meta;   // meta_of(payload, shape), plus kDeadBit once dead
  Id kids[kInlineKids]; // the children, or (kWide) the arena position and the arity

  AttrId attrs() const { return meta & (kMaxAttrs - 1); }
  std::uint32_t shape() const { return (meta >> 29) & 3; }
  bool wide() const { return shape() == kWide; }
  std::uint32_t arity() const { return wide() ? kids[1] : shape(); }
  /// Removed from the hash-cons (found congruent to another node).
  bool dead() const { return (meta & kDeadBit) != 0; }
  void set_dead() { meta |= kDeadBit; }
};
static_assert(sizeof(NodeRecord) == 16);

} // namespace detail
} // namespace tilesat::egraph
