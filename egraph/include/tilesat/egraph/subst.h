// Var, Subst and Matches: what a pattern search returns.
//
// A pattern's variables are numbered: class variables (`?x` in a child position) first, then
// attribute variables (`?d` in `[dim0=?d]`). A match is a flat record (root class, one id per
// class variable, an (AttrId, entry) pair per attribute variable) in a `Matches` buffer, so a
// search does no per-match allocation; `Subst` is a view of one record.
//
//   Matches m;  lhs.search(eg, m);
//   Var x = lhs.var("?x");
//   for (std::size_t i = 0; i < m.size(); ++i) use(m.root(i), m.subst(i, eg)[x]);
#pragma once

#include "tilesat/egraph/attr.h"
#include "tilesat/egraph/id.h"
#include "tilesat/egraph/pod_vec.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace tilesat::egraph {

class EGraph;

/// A pattern variable: an index into its pattern's variable list.
struct Var {
  std::uint32_t index = 0;
  friend bool operator==(Var, Var) = default;
};

/// The bindings of one match.
class Subst {
public:
  Subst(const Id* words, std::uint32_t num_class_vars, const EGraph* eg)
      : words_(words), num_class_vars_(num_class_vars), eg_(eg) {}

  /// The class bound to class variable `v`.
  Id operator[](Var v) const { return words_[v.index]; }
  /// The value bound to attribute variable `v`.
  const AttrValue& attr(Var v) const;
  /// The raw binding of attribute variable `v`: payload id and entry index.
  std::pair<AttrId, std::uint32_t> attr_ref(Var v) const {
    const Id* w = words_ + num_class_vars_ + 2 * (v.index - num_class_vars_);
    return {w[0], w[1]};
  }
  bool is_class_var(Var v) const { return v.index < num_class_vars_; }
  const EGraph& egraph() const { return *eg_; }

private:
  const Id* words_;
  std::uint32_t num_class_vars_;
  const EGraph* eg_;
};

/// Matches of one searcher, flat: record i is words[i*stride, (i+1)*stride), root first.
class Matches {
public:
  void reset(std::uint32_t num_class_vars, std::uint32_t num_attr_vars) {
    words_.clear();
    num_class_vars_ = num_class_vars;
    stride_ = 1 + num_class_vars + 2 * num_attr_vars;
  }
  std::size_t size() const { return stride_ == 0 ? 0 : words_.size() / stride_; }
  bool empty() const { return words_.empty(); }
  Id root(std::size_t i) const { return words_[i * stride_]; }
  Subst subst(std::size_t i, const EGraph& eg) const {
    return Subst(words_.data() + i * stride_ + 1, num_class_vars_, &eg);
  }
  std::uint32_t stride() const { return stride_; }
  std::uint32_t num_class_vars() const { return num_class_vars_; }
  /// Appends one record (`stride()` words, unwritten) and returns it for filling.
  Id* append() { return words_.extend(stride_); }
  void truncate(std::size_t n) { words_.resize(n * stride_); }
  /// Keeps, in order, the records i for which `keep(i)` holds (called once per record, in
  /// order, before any record moves).
  template <class Keep>
  void retain(Keep&& keep) {
    const std::size_t n = size();
    std::size_t w = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!keep(i)) continue;
      if (w != i) std::copy_n(words_.data() + i * stride_, stride_, words_.data() + w * stride_);
      ++w;
    }
    truncate(w);
  }
  std::span<const Id> words() const { return {words_.data(), words_.size()}; }

private:
  PodVec<Id> words_; // grown with realloc: large match sets do not hold two copies

  std::uint32_t num_class_vars_ = 0;
  std::uint32_t stride_ = 1;
};

} // namespace tilesat::egraph
