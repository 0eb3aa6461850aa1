// UnionFind: disjoint sets over dense 32-bit ids, with path halving.
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
#include <vector>

namespace tilesat::egraph {

class UnionFind {
public:
  /// A new singleton set; ids are handed out 0, 1, 2, ...
  Id make_set() {
    auto id = static_cast<Id>(parents_.size());
    parents_.push_back(id);
    return id;
  }
  std::size_t size() const { return parents_.size(); }
  void reserve(std::size_t n) { parents_.reserve(n); }

  /// The representative of `id`, without modifying the structure.
  Id find(Id id) const {
    while (parents_[id] != id) id = parents_[id];
    return id;
  }
  /// The representative of `id`, halving the path on the way.
  Id find_mut(Id id) {
    while (parents_[id] != id) {
      Id grand = parents_[parents_[id]];
      parents_[id] = grand;
      id = grand;
    }
    return id;
  }
  bool is_root(Id id) const { return parents_[id] == id; }
  /// Hints that `id`'s entry will be read soon.
  void prefetch(Id id) const { __builtin_prefetch(parents_.data() + id); }

  /// Makes `root` the representative of `other`'s set; both must be roots.
  void union_roots(Id root, Id other) { parents_[other] = root; }

  std::size_t memory_bytes() const { return parents_.memory_bytes(); }

private:
  PodVec<Id> parents_;
};

} // namespace tilesat::egraph
