// EGraph: hash-consed e-nodes grouped into e-classes, with union-find, deferred rebuilding,
// analyses and (optionally) explanations.
//
// The e-graph is generic over the term language: an e-node is an operator `Symbol`, an
// interned attribute payload and child e-class ids. Adding a node that already exists returns
// its class (hash-consing). `merge` unions two classes but defers restoring congruence (if
// a ≡ b then f(a) ≡ f(b)) to `rebuild()`, which repairs all parents of merged classes in one
// batch, as egg does. Searching requires a rebuilt e-graph; the runner rebuilds after every
// batch of rewrites.
//
//   EGraph eg;
//   Id x = eg.add(Symbol::intern("x")), y = eg.add(Symbol::intern("y"));
//   Id fx = eg.add(Symbol::intern("f"), {x}), fy = eg.add(Symbol::intern("f"), {y});
//   eg.merge(x, y);
//   eg.rebuild();   // now eg.find(fx) == eg.find(fy)
#pragma once

#include "tilesat/egraph/analysis.h"
#include "tilesat/egraph/attr.h"
#include "tilesat/egraph/eclass.h"
#include "tilesat/egraph/enode.h"
#include "tilesat/egraph/explain.h"
#include "tilesat/egraph/hashcons.h"
#include "tilesat/egraph/id.h"
#include "tilesat/egraph/id_vec.h"
#include "tilesat/egraph/pod_vec.h"
#include "tilesat/egraph/symbol.h"
#include "tilesat/egraph/term.h"
#include "tilesat/egraph/unionfind.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace tilesat::egraph {
namespace detail {

/// The node and parent lists of one e-class. Records exist for live classes only: a class's
/// slot is the payload of its root in the union-find, and a merged-away class's slot is
/// reused.
struct ClassRecord {
  ClassRecord() = default;
  /// The record of a new class: its founding node, no parents yet.
  explicit ClassRecord(Id node) : nodes(IdVec::of(node)) {}

  IdVec nodes;
  IdVec parents;
};

} // namespace detail

template <>
struct detail::is_relocatable<detail::ClassRecord> : std::true_type {};

class EGraph {
public:
  EGraph();
  ~EGraph();
  EGraph(const EGraph&) = delete;
  EGraph& operator=(const EGraph&) = delete;
  EGraph(EGraph&&) noexcept;
  EGraph& operator=(EGraph&&) noexcept;

  // ---------------------------------------------------------------- configuration

  /// Records justifications so `explain_equivalence` works. Off by default (then free of
  /// cost). Must be called before the first node is added.
  void enable_explanations();
  bool explanations_enabled() const { return proofs_ != nullptr; }

  /// Attaches an analysis (before the first node is added) and returns it.
  template <class A, class... Args>
  A& add_analysis(Args&&... args) {
    static_assert(std::is_base_of_v<Analysis, A>);
    auto a = std::make_unique<A>(std::forward<Args>(args)...);
    A& ref = *a;
    attach_analysis(std::move(a));
    return ref;
  }
  /// The first attached analysis of type `A`, or nullptr.
  template <class A>
  A* find_analysis() const {
    for (const auto& a : analyses_)
      if (auto* p = dynamic_cast<A*>(a.get())) return p;
    return nullptr;
  }

  /// A process-unique number for this e-graph (keys caches of interned payloads).
  std::uint64_t uid() const { return uid_; }

  // ---------------------------------------------------------------- building

  /// Adds the e-node `op[attrs](children...)`, or finds it; returns its canonical class.
  Id add(Symbol op, std::span<const Id> children, AttrId attrs = kNoAttrs) {
    return find(add_uncanonical(op, children, attrs));
  }
  Id add(Symbol op, std::initializer_list<Id> children = {}, AttrId attrs = kNoAttrs) {
    return add(op, std::span<const Id>(children.begin(), children.size()), attrs);
  }
  /// As add(), but returns the id of this exact term: with explanations on, a term written
  /// with different (equal) children gets its own id, so proofs can name it. Without
  /// explanations this is add() without the final find().
  Id add_uncanonical(Symbol op, std::span<const Id> children, AttrId attrs = kNoAttrs);
  /// Adds the e-node `op[attrs](children...)` to the class of `cls`, which a rewrite proved it
  /// equal to; true when the e-graph changed. The result is that of
  /// `merge(cls, add(op, children, attrs), why)`, but a new e-node joins `cls` directly
  /// instead of founding a class that is merged at once (no class of its own to analyse,
  /// modify and merge). With explanations on, it is exactly that merge of an add.
  bool add_into(Id cls, Symbol op, std::span<const Id> children, AttrId attrs = kNoAttrs,
                Justification why = Justification::merge());
  /// Adds the literal leaf `const[value=v]`.
  Id add_literal(const AttrValue& v);
  /// Adds every node of `term`; returns the class of its root.
  Id add_term(const RecExpr& term);

  /// Interns a payload into this e-graph's attribute table.
  AttrId intern_attrs(const Attrs& attrs) { return attr_table_.intern(attrs); }
  const Attrs& attrs(AttrId id) const { return attr_table_.get(id); }
  const AttrTable& attr_table() const { return attr_table_; }

  /// The class of an existing e-node / term, without adding anything.
  std::optional<Id> lookup(Symbol op, std::span<const Id> children, AttrId attrs = kNoAttrs) const;
  std::optional<Id> lookup_term(const RecExpr& term) const;

  /// Unions the classes of `a` and `b`; true if they were different. Congruence is restored
  /// by the next `rebuild()`. In a rule union `a` is the left side's instance.
  bool merge(Id a, Id b, Justification why = Justification::merge());

  /// Restores congruence closure and the hash-cons invariant after a batch of adds and
  /// merges; returns the number of unions it performed.
  std::size_t rebuild();
  /// True when no add or merge happened since the last rebuild.
  bool is_clean() const { return clean_; }
  /// The part of rebuild() that restores congruence closure and the hash-cons: repairs the
  /// e-nodes whose children merged (which may merge more classes) and re-runs the analyses;
  /// returns the number of unions. The class lists and the operator index are left to the
  /// next rebuild(), so the e-graph stays unclean (no search). Between batches of rewrites,
  /// nodes added afterwards get canonical children and hash-cons with their equals.
  std::size_t restore_congruence();
  /// True when merges since the last rebuild left e-nodes whose children are no longer
  /// canonical (congruence to restore); adds alone do not.
  bool needs_repair() const { return !pending_.empty(); }

  /// Keeps in class `cls` only the nodes for which `keep(ENode)` holds (analyses use it to
  /// prune, e.g. a class known to be a constant keeps its leaves). The removed nodes stay in
  /// the hash-cons, so adding them again finds this class.
  template <class Keep>
  void retain_nodes(Id cls, Keep&& keep) {
    IdVec& list = record(find(cls)).nodes;
    std::uint32_t w = 0;
    for (std::uint32_t r = 0; r < list.size(); ++r)
      if (keep(node(list[r]))) list[w++] = list[r];
    list.truncate(w);
    list.shrink_if_sparse();
    mark_dirty(find(cls));
  }

  // ---------------------------------------------------------------- inspection

  Id find(Id id) const { return uf_.find(id); }
  /// find() with path compression.
  Id find_mut(Id id) { return uf_.find_mut(id); }

  /// Distinct e-nodes in the hash-cons (the "e-nodes" of reports and limits).
  std::size_t num_nodes() const { return memo_.size(); }
  std::size_t num_classes() const { return uf_.size() - merged_ids_; }
  /// Ids handed out so far (an upper bound for id-indexed tables).
  std::size_t num_ids() const { return uf_.size(); }

  /// The canonical class ids; valid after rebuild().
  std::span<const Id> classes() const { return class_ids_; }
  EClassRef eclass(Id id) const {
    Id c = find(id);
    const ClassRecord& r = record(c);
    return EClassRef{c, r.nodes.span(), r.parents.span()};
  }
  ENode node(NodeId n) const {
    const detail::NodeRecord& r = nodes_[n];
    if (!r.wide()) [[likely]]
      return ENode{r.op, r.attrs(), {r.kids, r.shape()}};
    return ENode{r.op, r.attrs(), {children_.data() + r.kids[0], r.kids[1]}};
  }
  /// Classes holding at least one node with operator `op`; valid after rebuild().
  std::span<const Id> classes_with_op(Symbol op) const {
    if (op.id() >= op_index_.size()) return {};
    return op_index_[op.id()];
  }
  /// The nodes of class `cls` (canonical, rebuilt) with operator `op`: sorted lists make this
  /// a binary search.
  std::span<const NodeId> nodes_with_op(Id cls, Symbol op) const {
    const IdVec& list = record(cls).nodes;
    const NodeId* b = list.begin();
    const NodeId* e = list.end();
    if (list.size() <= 8) {
      while (b != e && nodes_[*b].op < op) ++b;
      const NodeId* f = b;
      while (f != e && nodes_[*f].op == op) ++f;
      return {b, static_cast<std::size_t>(f - b)};
    }
    auto lo = std::partition_point(b, e, [&](NodeId n) { return nodes_[n].op < op; });
    auto hi = std::partition_point(lo, e, [&](NodeId n) { return nodes_[n].op == op; });
    return {lo, static_cast<std::size_t>(hi - lo)};
  }

  /// Throws std::logic_error describing the first violated invariant: the e-graph must be
  /// rebuilt, every hash-cons node canonical and unique (congruence), class lists consistent
  /// with the union-find, parents and the operator index complete.
  void check_invariants() const;

  /// Bytes held by the e-graph's tables (an estimate of live heap use).
  std::size_t memory_bytes() const;

  // ---------------------------------------------------------------- explanations

  /// The rewrite steps from `a` to `b`; both must have been added, and be equal. Requires
  /// explanations enabled.
  Explanation explain_equivalence(const RecExpr& a, const RecExpr& b) const;
  /// The id of an added term as written (explanations on), or its class.
  std::optional<Id> find_term_id(const RecExpr& term) const;

private:
  using ClassRecord = detail::ClassRecord;

  /// The record of root `cls`.
  ClassRecord& record(Id cls) { return classes_[uf_.payload(cls)]; }
  const ClassRecord& record(Id cls) const { return classes_[uf_.payload(cls)]; }
  /// A new class founded by node `id` (its record from the free slots, or a new one).
  Id make_class(NodeId id);

  /// The children of a node record: in the record, or (wide nodes) in the arena.
  const Id* kids_of(const detail::NodeRecord& r) const {
    return r.wide() ? children_.data() + r.kids[0] : r.kids;
  }
  Id* kids_of(detail::NodeRecord& r) { return r.wide() ? children_.data() + r.kids[0] : r.kids; }
  /// Appends the record of a node with canonical or original children `kids`; returns where
  /// its children are stored.
  Id* push_node(Symbol op, AttrId attrs, std::span<const Id> kids, bool dead);

  void attach_analysis(std::unique_ptr<Analysis> a);
  static std::uint32_t hash_node(Symbol op, AttrId attrs, std::span<const Id> children);
  bool node_equals(NodeId n, Symbol op, AttrId attrs, std::span<const Id> children) const;
  Id lookup_canonical(Symbol op, AttrId attrs, std::span<const Id> canon, std::uint32_t h) const;
  /// The lookup of every add: the node found (or kNoId), its hash, and on a miss the
  /// hash-cons slot where it goes.
  struct Probe {
    Id found = kNoId;
    std::uint32_t h = 0;
    std::size_t slot = 0;
  };
  Probe find_canonical(Symbol op, AttrId attrs, std::span<const Id> kids);
  /// Adds canonicalize up to this many children on the stack (wider ones take add_slow).
  static constexpr std::size_t kStackKids = 8;
  Id add_canonical(Symbol op, AttrId attrs, std::span<const Id> kids);
  Id add_slow(Symbol op, std::span<const Id> children, AttrId attrs);
  Id add_explained(Symbol op, std::span<const Id> children, AttrId attrs);
  Id add_new_node(Symbol op, AttrId attrs, std::span<const Id> canon, std::uint32_t h,
                  std::size_t slot);
  /// The part of add_new_node shared with add_into: the record, the parent lists of the
  /// children and the hash-cons entry of a new node `id`.
  void link_new_node(Id id, Symbol op, AttrId attrs, std::span<const Id> canon, std::uint32_t h,
                     std::size_t slot);
  void analyze_new_class(Id id);
  bool merge_roots(Id a, Id b);
  bool repair(NodeId n);
  void prefetch_repair(NodeId n) const;
  // How many repairs ahead rebuild() prefetches a pending node's record, its children (wide
  // nodes only: the others are in the record), its union-find entries and hash-cons slot, and
  // the slot of its canonical form.
  static constexpr std::size_t kRecordAhead = 12, kChildrenAhead = 8, kProbeAhead = 4,
                               kCanonAhead = 2;
  void prefetch_canonical(NodeId n) const;
  // How many dirty classes ahead rebuild_classes() prefetches a class's record, its node and
  // parent lists, and its first nodes' records and parents' stamps.
  static constexpr std::size_t kClassAhead = 12, kListsAhead = 8, kMembersAhead = 4;
  void rebuild_classes();
  void update_class_index();
  void run_modify(Id cls);
  /// Queues `parents` for the analyses to re-make (their class's data changed).
  void queue_remake(const IdVec& parents) {
    analysis_pending_.insert(analysis_pending_.end(), parents.begin(), parents.end());
  }
  void mark_dirty(Id cls) {
    clean_ = false;
    if (dirty_flag_.size() <= cls)
      dirty_flag_.resize(std::max<std::size_t>(cls + 1, uf_.size()), 0);
    if (dirty_flag_[cls]) return;
    dirty_flag_[cls] = 1;
    dirty_.push_back(cls);
  }

  UnionFind uf_;
  PodVec<detail::NodeRecord> nodes_;
  PodVec<Id> children_; // the children of wide nodes (more than NodeRecord::kInlineKids)
  detail::IdHashTable memo_;
  PodVec<ClassRecord> classes_;             // per live class (slot: its root's union-find payload)
  std::vector<std::uint32_t> free_records_; // slots of merged-away classes, for reuse
  AttrTable attr_table_;
  std::vector<std::unique_ptr<Analysis>> analyses_;
  std::unique_ptr<detail::ProofForest> proofs_;

  std::vector<NodeId> pending_;
  std::vector<NodeId> repairing_; // scratch of rebuild(): the round of pending_ being repaired
  std::vector<NodeId> analysis_pending_;
  std::vector<Id> dirty_;
  std::vector<std::uint32_t> dirty_slots_; // scratch of rebuild_classes()
  std::vector<std::uint8_t> dirty_flag_;   // id is in dirty_
  PodVec<std::uint32_t> parent_stamp_;     // per node: the last parent list it was seen in,
                                           // or kDeadStamp for a dead node
  static constexpr std::uint32_t kDeadStamp = ~std::uint32_t{0};
  std::uint32_t stamp_ = 0;

  std::vector<Id> class_ids_;
  std::vector<std::vector<Id>> op_index_;
  std::size_t indexed_ids_ = 0; // ids below this are in class_ids_ / op_index_ if roots
  std::vector<Id> changed_;     // scratch of update_class_index()
  std::vector<std::size_t> index_sorted_end_; // scratch of update_class_index()
  std::size_t merged_ids_ = 0;                // ids that are no longer roots
  std::uint64_t uid_;
  bool clean_ = true;
};

// ------------------------------------------------------------------ AnalysisOf<T> members

template <class T>
void AnalysisOf<T>::on_add(const EGraph& eg, Id id) {
  T made = make(eg, eg.node(id));
  cover(id);
  data_[id] = std::move(made);
}

template <class T>
DidMerge AnalysisOf<T>::on_join(const EGraph& eg, Id into, Id id) {
  T made = make(eg, eg.node(id));
  cover(id); // the node's own entry keeps the table indexed by id; it is not a class's data
  return merge(data_[into], std::move(made));
}

template <class T>
bool AnalysisOf<T>::on_remake(const EGraph& eg, Id cls, NodeId node) {
  return merge(data_[cls], make(eg, eg.node(node))).into_changed;
}

} // namespace tilesat::egraph
