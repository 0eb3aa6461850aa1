// E-class analyses: a fact per e-class kept up to date as the e-graph grows and merges.
//
// An analysis computes data for a new e-node (`make`), joins the data of two merged classes
// (`merge`, which says which side changed so only affected parents are re-analysed) and may
// react to a class's data (`modify`: add e-nodes, union classes, prune nodes; constant folding
// adds the constant's leaf and keeps only leaves). `AnalysisOf<T>` stores a `T` per class and
// is what users derive from; the e-graph drives it through the type-erased `Analysis` base.
//
//   struct Depth : tilesat::egraph::AnalysisOf<int> {
//     int make(const EGraph& eg, const ENode& n) const override { return n.is_leaf() ? 0 : 1; }
//     DidMerge merge(int& a, int b) const override { return merge_max(a, b); }
//   };
//   auto& depth = eg.add_analysis<Depth>();  // then depth[eg.find(id)]
#pragma once

#include "tilesat/egraph/enode.h"
#include "tilesat/egraph/id.h"
#include "tilesat/egraph/pod_vec.h"

#include <algorithm>
#include <deque>
#include <type_traits>
#include <utility>
#include <vector>

namespace tilesat::egraph {

class EGraph;

/// Which side of a merge changed: `into_changed` when the merged data differs from the
/// surviving class's old data, `from_changed` when it differs from the absorbed class's data.
struct DidMerge {
  bool into_changed = false;
  bool from_changed = false;
  bool any() const { return into_changed || from_changed; }
};

/// The type-erased interface the e-graph calls. Derive from `AnalysisOf<T>` instead.
class Analysis {
public:
  virtual ~Analysis() = default;
  /// A class `id` was created holding e-node `id`.
  virtual void on_add(const EGraph& eg, Id id) = 0;
  /// Class `from` is being merged into class `into` (both roots).
  virtual DidMerge on_merge(Id into, Id from) = 0;
  /// A new e-node `id` joined the existing class `into` (a root) without founding a class of
  /// its own (`EGraph::add_into`); says whether `into`'s data changed (`into_changed`).
  virtual DidMerge on_join(const EGraph& eg, Id into, Id id) = 0;
  /// Re-analyse e-node `node` of class `cls`; true when the class's data changed.
  virtual bool on_remake(const EGraph& eg, Id cls, NodeId node) = 0;
  /// Called after a class was created or merged; may add e-nodes and union classes.
  virtual void modify(EGraph& eg, Id cls);
};

/// An analysis storing one `T` per e-class.
template <class T>
class AnalysisOf : public Analysis {
public:
  using Data = T;

  /// The data of class `cls`; `cls` must be canonical (`EGraph::find`).
  const T& operator[](Id cls) const { return data_[cls]; }

  /// Joins `b` into `a`; report which side changed.
  virtual DidMerge merge(T& a, T b) const = 0;
  /// The data of a fresh e-node; children's data is `(*this)[eg.find(child)]`.
  virtual T make(const EGraph& eg, const ENode& node) const = 0;

  /// Helpers for common lattices.
  static DidMerge merge_max(T& a, const T& b) {
    if (b < a) return {false, true};
    if (a < b) {
      a = b;
      return {true, false};
    }
    return {};
  }
  static DidMerge merge_min(T& a, const T& b) {
    if (a < b) return {false, true};
    if (b < a) {
      a = b;
      return {true, false};
    }
    return {};
  }

  void on_add(const EGraph& eg, Id id) final;
  DidMerge on_merge(Id into, Id from) final {
    DidMerge d = merge(data_[into], std::move(data_[from]));
    data_[from] = T{};
    return d;
  }
  DidMerge on_join(const EGraph& eg, Id into, Id id) final;
  bool on_remake(const EGraph& eg, Id cls, NodeId node) final;

protected:
  T& data_mut(Id cls) { return data_[cls]; }

private:
  /// Extends the table to id `id` (ids are handed out in order: usually one more entry).
  void cover(Id id) {
    if (data_.size() == id) [[likely]]
      data_.emplace_back();
    else if (data_.size() < id)
      data_.resize(id + 1);
  }

  // Both grow without copying the whole table (and holding two copies) as the e-graph grows:
  // a PodVec by realloc for plain data, a deque in blocks otherwise.
  std::conditional_t<detail::is_relocatable<T>::value, PodVec<T>, std::deque<T>> data_;
};

} // namespace tilesat::egraph
