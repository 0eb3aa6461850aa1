// UnionFind: disjoint sets over dense 32-bit ids (below 2^31), with path halving; a root
// carries a 31-bit payload.
//
// The e-graph's notion of "which class is this id in now". Unions are by the caller's choice
// of root (the e-graph keeps the class with more parents as root), so `union_roots` takes two
// roots and makes the first the representative.
//
//   tilesat::egraph::UnionFind uf;
//   auto a = uf.make_set(), b = uf.make_set();
//   uf.union_roots(a, b);
//   assert(uf.find(b) == a);
#pragma once

#include "tilesat/egraph/id.h"
#include "tilesat/egraph/pod_vec.h"

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace tilesat::egraph {

class UnionFind {
public:
  /// A new singleton set carrying `payload` (< 2^31); ids are handed out 0, 1, 2, ...
  Id make_set(std::uint32_t payload = 0) {
    if (parents_.size() >= kRoot) [[unlikely]]
      throw std::length_error("union-find: more than 2^31 ids");
    auto id = static_cast<Id>(parents_.size());
    parents_.push_back(kRoot | payload);
    return id;
  }
  std::size_t size() const { return parents_.size(); }
  void reserve(std::size_t n) { parents_.reserve(n); }

  /// The representative of `id`, without modifying the structure.
  Id find(Id id) const {
    while (!(parents_[id] & kRoot)) id = parents_[id];
    return id;
  }
  /// The representative of `id`, halving the path on the way.
  Id find_mut(Id id) {
    if (parents_[id] & kRoot) [[likely]] // most ids looked up are roots
      return id;
    return find_halving(id);
  }
  bool is_root(Id id) const { return (parents_[id] & kRoot) != 0; }
  /// The payload of root `root`: the e-graph keeps its class record's slot there, so finding
  /// a class and its record read one entry.
  std::uint32_t payload(Id root) const { return parents_[root] & ~kRoot; }
  void set_payload(Id root, std::uint32_t payload) { parents_[root] = kRoot | payload; }
  /// Hints that `id`'s entry will be read soon.
  void prefetch(Id id) const { __builtin_prefetch(parents_.data() + id); }

  /// Makes `root` the representative of `other`'s set (dropping its payload); both must be
  /// roots.
  void union_roots(Id root, Id other) { parents_[other] = root; }

  std::size_t memory_bytes() const { return parents_.memory_bytes(); }

private:
  /// find_mut() of an id that is not a root: every other entry on the path is made to point
  /// at its grandparent.
  Id find_halving(Id id) {
    while (true) {
      const Id parent = parents_[id];
      const Id grand = parents_[parent];
      if (grand & kRoot) return parent;
      parents_[id] = grand;
      id = grand;
      if (parents_[id] & kRoot) return id;
    }
  }

  /// A root's entry: this bit and its payload; any other entry is the parent's id.
  static constexpr Id kRoot = Id{1} << 31;
  PodVec<Id> parents_;
};

} // namespace tilesat::egraph
