// EGraph: adding e-nodes, merging classes, deferred rebuilding and the invariant check.
#include "tilesat/egraph/egraph.h"

#include "tilesat/egraph/hash.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

namespace tilesat::egraph {
namespace {

std::uint64_t next_uid() {
  static std::atomic<std::uint64_t> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

/// Small inline buffer for canonical children; heap only for very wide nodes.
class ChildBuffer {
public:
  explicit ChildBuffer(std::size_t n) : n_(n) {
    if (n > kInline) [[unlikely]]
      heap_.resize(n);
  }
  Id* data() { return n_ > kInline ? heap_.data() : inline_; }
  std::span<const Id> span() { return {data(), n_}; }

private:
  static constexpr std::size_t kInline = 8;
  std::size_t n_;
  Id inline_[kInline];
  std::vector<Id> heap_;
};

} // namespace

void Analysis::modify(EGraph&, Id) {}

EGraph::EGraph() : uid_(next_uid()) {}
EGraph::~EGraph() = default;
EGraph::EGraph(EGraph&&) noexcept = default;
EGraph& EGraph::operator=(EGraph&&) noexcept = default;

void EGraph::enable_explanations() {
  if (uf_.size() != 0)
    throw std::logic_error("enable_explanations() must be called before adding e-nodes");
  if (!proofs_) proofs_ = std::make_unique<detail::ProofForest>();
}

void EGraph::attach_analysis(std::unique_ptr<Analysis> a) {
  if (uf_.size() != 0) throw std::logic_error("analyses must be attached before adding e-nodes");
  analyses_.push_back(std::move(a));
}

// ------------------------------------------------------------------ hash-cons

// Both are hot (every add and every repaired node): inlined into their callers.
[[gnu::always_inline]] inline std::uint32_t EGraph::hash_node(Symbol op, AttrId attrs,
                                                              std::span<const Id> children) {
  // Multiply-rotate per word, one avalanche at the end.
  constexpr std::uint64_t k = 0x9e3779b97f4a7c15ull;
  std::uint64_t h = (static_cast<std::uint64_t>(op.id()) << 32 | attrs) * k;
  auto step = [&](Id c) { h = (((h << 23) | (h >> 41)) ^ c) * k; };
  // Nearly all nodes have at most two children: those steps are unrolled.
  switch (children.size()) {
  case 0:
    break;
  case 1:
    step(children[0]);
    break;
  case 2:
    step(children[0]);
    step(children[1]);
    break;
  default:
    for (Id c : children) step(c);
  }
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  return static_cast<std::uint32_t>(h >> 32);
}

[[gnu::always_inline]] inline bool EGraph::node_equals(NodeId n, Symbol op, AttrId attrs,
                                                       std::span<const Id> children) const {
  // Nodes in the hash-cons are live: payload and shape are compared as one word.
  const detail::NodeRecord& r = nodes_[n];
  const Id* mine;
  if (children.size() <= detail::NodeRecord::kInlineKids) [[likely]] {
    const auto shape = static_cast<std::uint32_t>(children.size());
    if (r.op != op || r.meta != detail::NodeRecord::meta_of(attrs, shape)) return false;
    mine = r.kids;
  } else {
    if (r.op != op || r.meta != detail::NodeRecord::meta_of(attrs, detail::NodeRecord::kWide) ||
        r.kids[1] != children.size())
      return false;
    mine = children_.data() + r.kids[0];
  }
  for (std::size_t i = 0; i < children.size(); ++i)
    if (mine[i] != children[i]) return false;
  return true;
}

Id EGraph::lookup_canonical(Symbol op, AttrId attrs, std::span<const Id> canon,
                            std::uint32_t h) const {
  return memo_.find(h, [&](Id cand) { return node_equals(cand, op, attrs, canon); });
}

std::optional<Id> EGraph::lookup(Symbol op, std::span<const Id> children, AttrId attrs) const {
  ChildBuffer buf(children.size());
  for (std::size_t i = 0; i < children.size(); ++i) buf.data()[i] = find(children[i]);
  Id m = lookup_canonical(op, attrs, buf.span(), hash_node(op, attrs, buf.span()));
  if (m == kNoId) return std::nullopt;
  return find(m);
}

std::optional<Id> EGraph::lookup_term(const RecExpr& term) const {
  std::vector<Id> ids(term.size());
  std::vector<Id> kids;
  for (std::uint32_t i = 0; i < term.size(); ++i) {
    const TermNode& n = term[i];
    auto attrs = attr_table_.find(n.attrs);
    if (!attrs) return std::nullopt;
    kids.clear();
    for (std::uint32_t c : n.children) kids.push_back(ids[c]);
    auto id = lookup(n.op, kids, *attrs);
    if (!id) return std::nullopt;
    ids[i] = *id;
  }
  if (ids.empty()) return std::nullopt;
  return ids.back();
}

// ------------------------------------------------------------------ adding

// Inlined into add_new_node (every new e-node): the record is built in registers and stored
// whole.
[[gnu::always_inline]] inline Id* EGraph::push_node(Symbol op, AttrId attrs,
                                                    std::span<const Id> kids, bool dead) {
  if (attrs >= detail::NodeRecord::kMaxAttrs) [[unlikely]]
    throw std::length_error("e-graph: too many distinct attribute payloads");
  auto arity = static_cast<std::uint32_t>(kids.size());
  const std::uint32_t dead_bit = dead ? detail::NodeRecord::kDeadBit : 0;
  detail::NodeRecord r;
  r.op = op;
  if (arity <= detail::NodeRecord::kInlineKids) [[likely]] {
    r.meta = detail::NodeRecord::meta_of(attrs, arity) | dead_bit;
    r.kids[0] = arity >= 1 ? kids[0] : 0;
    r.kids[1] = arity == 2 ? kids[1] : 0;
    nodes_.push_back(r);
    return nodes_.back().kids;
  }
  r.meta = detail::NodeRecord::meta_of(attrs, detail::NodeRecord::kWide) | dead_bit;
  r.kids[0] = static_cast<std::uint32_t>(children_.size());
  r.kids[1] = arity;
  nodes_.push_back(r);
  Id* to = children_.extend(arity);
  for (std::uint32_t i = 0; i < arity; ++i) to[i] = kids[i];
  return to;
}

[[gnu::always_inline]] inline void EGraph::link_new_node(Id id, Symbol op, AttrId attrs,
                                                         std::span<const Id> canon, std::uint32_t h,
                                                         std::size_t slot) {
  auto arity = static_cast<std::uint32_t>(canon.size());
  push_node(op, attrs, canon, false);
  // The node is a parent of each distinct child class once.
  if (arity <= 2) {
    if (arity >= 1) record(canon[0]).parents.push_back(id);
    if (arity == 2 && canon[1] != canon[0]) record(canon[1]).parents.push_back(id);
  } else {
    for (std::uint32_t i = 0; i < arity; ++i) {
      Id c = canon[i];
      bool seen = false;
      for (std::uint32_t j = 0; j < i && !seen; ++j) seen = canon[j] == c;
      if (!seen) record(c).parents.push_back(id);
    }
  }
  memo_.insert_at(slot, h, id);
}

// Inlined into add_new_node (every new class).
[[gnu::always_inline]] inline Id EGraph::make_class(NodeId id) {
  std::uint32_t slot;
  if (!free_records_.empty()) {
    slot = free_records_.back();
    free_records_.pop_back();
    classes_[slot].nodes = IdVec::of(id);
  } else {
    slot = static_cast<std::uint32_t>(classes_.size());
    classes_.emplace_back(id);
  }
  return uf_.make_set(slot);
}

// Out of line: most adds during saturation find their node, and without this path inlined
// the lookup in add_uncanonical keeps its values in registers.
[[gnu::noinline]] Id EGraph::add_new_node(Symbol op, AttrId attrs, std::span<const Id> canon,
                                          std::uint32_t h, std::size_t slot) {
  Id id = make_class(static_cast<Id>(uf_.size()));
  link_new_node(id, op, attrs, canon, h, slot);
  // A new class needs no clean-up: its node list is [id], and id is new to the children's
  // parent lists, so they stay free of repeats. Only the class list and operator index
  // (rebuilt from scratch) are stale.
  if (clean_) clean_ = false;
  if (!analyses_.empty()) analyze_new_class(id);
  return id;
}

void EGraph::analyze_new_class(Id id) {
  for (auto& a : analyses_) a->on_add(*this, id);
  // As run_modify(id); the class stays a root until a modify hook merges it.
  for (std::size_t i = 0; i < analyses_.size(); ++i) analyses_[i]->modify(*this, find(id));
}

// Inlined into its callers: the lookup and, on a miss, the insertion of a node whose children
// are canonical.
[[gnu::always_inline]] inline EGraph::Probe EGraph::find_canonical(Symbol op, AttrId attrs,
                                                                   std::span<const Id> kids) {
  Probe p;
  p.h = hash_node(op, attrs, kids);
  p.found = memo_.find_slot(
      p.h,
      [&](Id cand) __attribute__((always_inline)) { return node_equals(cand, op, attrs, kids); },
      p.slot);
  return p;
}

[[gnu::always_inline]] inline Id EGraph::add_canonical(Symbol op, AttrId attrs,
                                                       std::span<const Id> kids) {
  const Probe p = find_canonical(op, attrs, kids);
  if (p.found != kNoId) return p.found;
  return add_new_node(op, attrs, kids, p.h, p.slot);
}

Id EGraph::add_uncanonical(Symbol op, std::span<const Id> children, AttrId attrs) {
  if (proofs_ || children.size() > kStackKids) [[unlikely]]
    return add_slow(op, children, attrs);
  Id canon[kStackKids];
  for (std::size_t i = 0; i < children.size(); ++i) canon[i] = uf_.find_mut(children[i]);
  return add_canonical(op, attrs, std::span<const Id>(canon, children.size()));
}

Id EGraph::add_slow(Symbol op, std::span<const Id> children, AttrId attrs) {
  if (proofs_) return add_explained(op, children, attrs);
  std::vector<Id> canon(children.size());
  for (std::size_t i = 0; i < children.size(); ++i) canon[i] = uf_.find_mut(children[i]);
  return add_canonical(op, attrs, canon);
}

Id EGraph::add_explained(Symbol op, std::span<const Id> children, AttrId attrs) {
  Id u = proofs_->find_original(op, attrs, children);
  if (u != kNoId) return u;
  ChildBuffer buf(children.size());
  Id* canon = buf.data();
  for (std::size_t i = 0; i < children.size(); ++i) canon[i] = uf_.find_mut(children[i]);
  std::span<const Id> kids = buf.span();
  const auto [m, h, slot] = find_canonical(op, attrs, kids);
  if (m == kNoId) {
    // Recorded before the analyses run: their modify hooks may add and union nodes.
    Id id = static_cast<Id>(uf_.size());
    proofs_->add_original(id, op, attrs, children);
    return add_new_node(op, attrs, kids, h, slot);
  }
  // This spelling of an existing node gets its own id, congruent to the node.
  u = uf_.make_set();
  push_node(op, attrs, children, true);
  proofs_->add_original(u, op, attrs, children);
  uf_.union_roots(uf_.find_mut(m), u);
  ++merged_ids_;
  proofs_->add_edge(u, m, Justification::congruence());
  return u;
}

bool EGraph::add_into(Id cls, Symbol op, std::span<const Id> children, AttrId attrs,
                      Justification why) {
  if (proofs_ || children.size() > kStackKids) [[unlikely]]
    return merge(cls, add_uncanonical(op, children, attrs), why);
  Id canon[kStackKids];
  for (std::size_t i = 0; i < children.size(); ++i) canon[i] = uf_.find_mut(children[i]);
  std::span<const Id> kids(canon, children.size());
  const auto [m, h, slot] = find_canonical(op, attrs, kids);
  Id c = uf_.find_mut(cls);
  if (m != kNoId) {
    Id r = uf_.find_mut(m);
    return r != c && merge_roots(c, r);
  }
  // The new node joins class c: an id of its own (ids index nodes), but no class.
  Id id = uf_.make_set();
  link_new_node(id, op, attrs, kids, h, slot);
  uf_.union_roots(c, id);
  ++merged_ids_;
  record(c).nodes.push_back(id);
  mark_dirty(c);
  for (auto& an : analyses_) {
    if (an->on_join(*this, c, id).into_changed) queue_remake(record(c).parents);
  }
  if (!analyses_.empty()) run_modify(c);
  return true;
}

Id EGraph::add_literal(const AttrValue& v) {
  return add(Symbol::constant(), {}, attr_table_.intern(Attrs::literal(v)));
}

Id EGraph::add_term(const RecExpr& term) {
  std::vector<Id> ids(term.size());
  std::vector<Id> kids;
  for (std::uint32_t i = 0; i < term.size(); ++i) {
    const TermNode& n = term[i];
    kids.clear();
    for (std::uint32_t c : n.children) kids.push_back(ids[c]);
    ids[i] = add_uncanonical(n.op, kids, attr_table_.intern(n.attrs));
  }
  if (ids.empty()) throw std::invalid_argument("add_term: empty term");
  return find(ids.back());
}

void EGraph::run_modify(Id cls) {
  for (std::size_t i = 0; i < analyses_.size(); ++i) analyses_[i]->modify(*this, find(cls));
}

// ------------------------------------------------------------------ merging

bool EGraph::merge(Id a, Id b, Justification why) {
  Id ra = uf_.find_mut(a), rb = uf_.find_mut(b);
  if (ra == rb) return false;
  if (proofs_) proofs_->add_edge(a, b, why);
  return merge_roots(ra, rb);
}

bool EGraph::merge_roots(Id a, Id b) {
  // The class with more parents stays root: fewer parents to repair.
  if (record(a).parents.size() < record(b).parents.size()) std::swap(a, b);
  const std::uint32_t slot_b = uf_.payload(b);
  uf_.union_roots(a, b);
  ++merged_ids_;
  const IdVec& bp = classes_[slot_b].parents;
  pending_.insert(pending_.end(), bp.begin(), bp.end());
  for (auto& an : analyses_) {
    DidMerge d = an->on_merge(a, b);
    if (d.into_changed) queue_remake(record(a).parents);
    if (d.from_changed) queue_remake(bp);
  }
  ClassRecord& ca = record(a);
  ClassRecord& cb = classes_[slot_b];
  ca.nodes.absorb(cb.nodes);
  ca.parents.absorb(cb.parents);
  free_records_.push_back(slot_b); // both lists were moved out and freed
  mark_dirty(a);
  if (!analyses_.empty()) run_modify(a);
  return true;
}

// ------------------------------------------------------------------ rebuilding

bool EGraph::repair(NodeId n) {
  detail::NodeRecord& r = nodes_[n];
  if (r.dead()) return false;
  const Symbol op = r.op;
  const AttrId attrs = r.attrs();
  const std::uint32_t arity = r.arity();
  Id* ch = kids_of(r);
  bool stale = false;
  for (std::uint32_t i = 0; i < arity; ++i) stale |= !uf_.is_root(ch[i]);
  if (!stale) return false;
  std::span<const Id> kids(ch, arity);
  memo_.erase(hash_node(op, attrs, kids), n);
  for (std::uint32_t i = 0; i < arity; ++i) ch[i] = uf_.find_mut(ch[i]);
  std::uint32_t h = hash_node(op, attrs, kids);
  Id m = lookup_canonical(op, attrs, kids, h);
  if (m == kNoId) {
    memo_.insert(h, n);
    return false;
  }
  // n is now a duplicate of m: drop it and union their classes (congruence).
  r.set_dead();
  // Also in the parent stamps: rebuild_classes() then drops dead parents without reading
  // their records.
  if (parent_stamp_.size() <= n) parent_stamp_.resize(nodes_.size(), 0);
  parent_stamp_[n] = kDeadStamp;
  mark_dirty(uf_.find_mut(n));
  for (std::uint32_t i = 0; i < arity; ++i) mark_dirty(ch[i]);
  return merge(m, n, Justification::congruence());
}

void EGraph::prefetch_repair(NodeId n) const {
  const detail::NodeRecord& r = nodes_[n];
  const Id* ch = kids_of(r);
  const std::uint32_t arity = r.arity();
  for (std::uint32_t i = 0; i < arity; ++i) uf_.prefetch(ch[i]);
  memo_.prefetch(hash_node(r.op, r.attrs(), std::span<const Id>(ch, arity)));
}

void EGraph::prefetch_canonical(NodeId n) const {
  // The repaired node is looked up under the hash of its canonical children: that slot is
  // another miss, once its children's union-find entries (prefetched earlier) are in.
  const detail::NodeRecord& r = nodes_[n];
  if (r.dead() || r.wide()) return;
  const std::uint32_t arity = r.arity();
  Id canon[detail::NodeRecord::kInlineKids];
  for (std::uint32_t i = 0; i < arity; ++i) canon[i] = uf_.find(r.kids[i]);
  memo_.prefetch(hash_node(r.op, r.attrs(), std::span<const Id>(canon, arity)));
}

std::size_t EGraph::rebuild() {
  std::size_t unions = restore_congruence();
  rebuild_classes();
  clean_ = true;
  return unions;
}

std::size_t EGraph::restore_congruence() {
  std::size_t unions = 0;
  while (!pending_.empty() || !analysis_pending_.empty()) {
    while (!pending_.empty()) {
      // Each round repairs the nodes pending at its start, last first; repairs queue more.
      // Nearly every repair misses the cache on the node, its children and their union-find
      // entries, and the hash-cons: those lines are prefetched some repairs ahead.
      repairing_.swap(pending_);
      const NodeId* batch = repairing_.data();
      for (std::size_t i = repairing_.size(); i-- > 0;) {
        if (i >= kRecordAhead) __builtin_prefetch(&nodes_[batch[i - kRecordAhead]]);
        if (i >= kChildrenAhead) {
          const detail::NodeRecord& ahead = nodes_[batch[i - kChildrenAhead]];
          if (ahead.wide()) __builtin_prefetch(children_.data() + ahead.kids[0]);
        }
        if (i >= kProbeAhead) prefetch_repair(batch[i - kProbeAhead]);
        if (i >= kCanonAhead) prefetch_canonical(batch[i - kCanonAhead]);
        unions += repair(batch[i]) ? 1 : 0;
      }
      repairing_.clear();
    }
    while (!analysis_pending_.empty()) {
      NodeId n = analysis_pending_.back();
      analysis_pending_.pop_back();
      if (nodes_[n].dead()) continue;
      for (std::size_t i = 0; i < analyses_.size(); ++i) {
        Id cls = uf_.find_mut(n);
        if (!analyses_[i]->on_remake(*this, cls, n)) continue;
        queue_remake(record(cls).parents);
        run_modify(cls);
      }
    }
  }
  return unions;
}

void EGraph::rebuild_classes() {
  // Dirty ids to their (distinct) roots; the flags mark roots already taken.
  for (Id d : dirty_) dirty_flag_[d] = 0;
  std::size_t w = 0;
  std::vector<std::uint32_t>& slots = dirty_slots_; // the roots' record slots
  slots.clear();
  for (Id d : dirty_) {
    Id r = uf_.find_mut(d);
    if (dirty_flag_[r]) continue;
    dirty_flag_[r] = 1;
    dirty_[w++] = r;
    slots.push_back(uf_.payload(r));
  }
  dirty_.resize(w);
  if (parent_stamp_.size() < nodes_.size()) parent_stamp_.resize(nodes_.size(), 0);
  // Nearly every dirty class misses the cache on its record, its lists and its nodes' records
  // and parents' stamps: those are prefetched a few classes ahead.
  auto prefetch_lists = [&](const ClassRecord& a) {
    __builtin_prefetch(a.nodes.data());
    __builtin_prefetch(a.parents.data());
  };
  auto prefetch_members = [&](const ClassRecord& a) {
    const std::uint32_t nn = std::min<std::uint32_t>(a.nodes.size(), 4);
    for (std::uint32_t j = 0; j < nn; ++j) __builtin_prefetch(&nodes_[a.nodes[j]]);
    const std::uint32_t np = std::min<std::uint32_t>(a.parents.size(), 4);
    for (std::uint32_t j = 0; j < np; ++j) __builtin_prefetch(&parent_stamp_[a.parents[j]]);
  };
  for (std::size_t i = 0; i < w; ++i) {
    if (i + kClassAhead < w) __builtin_prefetch(&classes_[slots[i + kClassAhead]]);
    if (i + kListsAhead < w) prefetch_lists(classes_[slots[i + kListsAhead]]);
    if (i + kMembersAhead < w) prefetch_members(classes_[slots[i + kMembersAhead]]);
    ClassRecord& cr = classes_[slots[i]];
    std::uint32_t k = 0;
    for (NodeId n : cr.nodes)
      if (!nodes_[n].dead()) cr.nodes[k++] = n;
    cr.nodes.truncate(k);
    std::sort(cr.nodes.begin(), cr.nodes.end(), [&](NodeId x, NodeId y) {
      Symbol ox = nodes_[x].op, oy = nodes_[y].op;
      return ox != oy ? ox < oy : x < y;
    });
    // Drop dead parents and repeats (a parent of both merged classes is listed twice): a
    // stamp per node instead of sorting, as hub classes (constants, symbols) have thousands.
    if (++stamp_ == kDeadStamp) { // wrapped around: forget all stamps but the dead marks
      for (std::uint32_t& st : parent_stamp_)
        if (st != kDeadStamp) st = 0;
      stamp_ = 1;
    }
    const std::uint32_t stamp = stamp_;
    k = 0;
    for (NodeId n : cr.parents) {
      const std::uint32_t seen = parent_stamp_[n];
      if (seen == stamp || seen == kDeadStamp) continue;
      parent_stamp_[n] = stamp;
      cr.parents[k++] = n;
    }
    cr.parents.truncate(k);
    cr.parents.shrink_if_sparse();
  }
  update_class_index();
  for (Id c : dirty_) dirty_flag_[c] = 0;
  dirty_.clear();
}

// The class list and the operator index change only where classes merged or lost nodes (the
// dirty roots, still flagged) and where classes were created since the last rebuild: the
// lists are filtered and those classes merged in, instead of walking every class's nodes.
void EGraph::update_class_index() {
  const auto first_new = static_cast<Id>(indexed_ids_);
  std::size_t w = 0;
  for (Id c : class_ids_)
    if (uf_.is_root(c)) class_ids_[w++] = c;
  class_ids_.resize(w);
  for (Id id = first_new; id < uf_.size(); ++id)
    if (uf_.is_root(id)) class_ids_.push_back(id); // larger than every old id: stays sorted

  // The classes to (re-)index, ascending: dirty old roots, then the new roots.
  changed_.clear();
  for (Id c : dirty_)
    if (c < first_new) changed_.push_back(c);
  std::sort(changed_.begin(), changed_.end());
  for (Id id = first_new; id < uf_.size(); ++id)
    if (uf_.is_root(id)) changed_.push_back(id);

  for (auto& list : op_index_) {
    w = 0;
    for (Id c : list)
      if (uf_.is_root(c) && (c >= dirty_flag_.size() || !dirty_flag_[c])) list[w++] = c;
    list.resize(w);
  }
  std::vector<std::size_t>& sorted_end = index_sorted_end_;
  sorted_end.resize(op_index_.size());
  for (std::size_t op = 0; op < op_index_.size(); ++op) sorted_end[op] = op_index_[op].size();
  for (Id c : changed_) {
    Symbol last;
    bool first = true;
    for (NodeId n : record(c).nodes) {
      Symbol op = nodes_[n].op;
      if (!first && op == last) continue;
      first = false;
      last = op;
      if (op.id() >= op_index_.size()) {
        op_index_.resize(op.id() + 1);
        sorted_end.resize(op.id() + 1, 0);
      }
      op_index_[op.id()].push_back(c);
    }
  }
  // Each list is now its filtered old part and an ascending tail: merge the two.
  for (std::size_t op = 0; op < op_index_.size(); ++op) {
    auto& list = op_index_[op];
    if (sorted_end[op] != 0 && sorted_end[op] != list.size())
      std::inplace_merge(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(sorted_end[op]),
                         list.end());
  }
  indexed_ids_ = uf_.size();
}

// ------------------------------------------------------------------ checking

void EGraph::check_invariants() const {
  auto fail = [](std::string msg) { throw std::logic_error("e-graph invariant: " + msg); };
  if (!clean_ || !pending_.empty() || !analysis_pending_.empty())
    fail("the e-graph was modified and not rebuilt");

  // Every (class, parent) pair of the parent lists, sorted, for the membership checks.
  std::vector<std::pair<Id, NodeId>> parent_pairs;
  std::vector<bool> slot_used(classes_.size(), false);
  for (std::uint32_t slot : free_records_) {
    if (slot >= classes_.size() || slot_used[slot]) fail(fmt::format("bad free record {}", slot));
    slot_used[slot] = true;
    if (!classes_[slot].nodes.empty() || !classes_[slot].parents.empty())
      fail(fmt::format("free record {} is not empty", slot));
  }
  for (Id id = 0; id < uf_.size(); ++id) {
    if (!uf_.is_root(id)) continue;
    const std::uint32_t slot = uf_.payload(id);
    if (slot >= classes_.size() || slot_used[slot])
      fail(fmt::format("class {} has a bad or shared record {}", id, slot));
    slot_used[slot] = true;
    const IdVec& ps = record(id).parents;
    for (NodeId p : ps) parent_pairs.emplace_back(id, p);
    std::vector<NodeId> sorted(ps.begin(), ps.end());
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      fail(fmt::format("class {} lists a parent twice", id));
  }
  if (std::find(slot_used.begin(), slot_used.end(), false) != slot_used.end())
    fail("a class record is neither live nor free");
  std::sort(parent_pairs.begin(), parent_pairs.end());

  std::size_t live = 0;
  memo_.for_each([&](std::uint32_t h, Id n) {
    ++live;
    const detail::NodeRecord& r = nodes_[n];
    if (r.dead()) fail(fmt::format("dead node {} is in the hash-cons", n));
    std::span<const Id> kids(kids_of(r), r.arity());
    for (Id c : kids)
      if (!uf_.is_root(c)) fail(fmt::format("node {} has non-canonical child {}", n, c));
    if (hash_node(r.op, r.attrs(), kids) != h) fail(fmt::format("node {} has a stale hash", n));
    if (lookup_canonical(r.op, r.attrs(), kids, h) != n)
      fail(fmt::format("node {} ({}) is not unique in the hash-cons (congruence broken)", n,
                       r.op.str()));
    for (Id c : kids)
      if (!std::binary_search(parent_pairs.begin(), parent_pairs.end(), std::pair{c, n}))
        fail(fmt::format("node {} is missing from the parents of class {}", n, c));
  });
  if (live != memo_.size()) fail("hash-cons size is wrong");

  std::vector<bool> listed(nodes_.size(), false);
  std::size_t roots = 0;
  for (Id id = 0; id < uf_.size(); ++id) {
    if (!uf_.is_root(id)) continue;
    ++roots;
    const IdVec& ns = record(id).nodes;
    for (std::uint32_t i = 0; i < ns.size(); ++i) {
      NodeId n = ns[i];
      const detail::NodeRecord& r = nodes_[n];
      if (r.dead()) fail(fmt::format("class {} lists dead node {}", id, n));
      if (uf_.find(n) != id) fail(fmt::format("node {} in class {} belongs to {}", n, id, find(n)));
      if (listed[n]) fail(fmt::format("node {} is listed twice", n));
      listed[n] = true;
      if (i > 0 && nodes_[ns[i - 1]].op > r.op)
        fail(fmt::format("class {} nodes are not sorted by operator", id));
      auto with_op = classes_with_op(r.op);
      if (!std::binary_search(with_op.begin(), with_op.end(), id))
        fail(fmt::format("class {} is missing from the index of '{}'", id, r.op.str()));
    }
  }
  if (roots != num_classes()) fail("class count is wrong");
  if (class_ids_.size() != roots) fail("class list is stale");
  for (std::size_t op = 0; op < op_index_.size(); ++op)
    for (Id c : op_index_[op]) {
      if (!uf_.is_root(c)) fail(fmt::format("operator index holds non-canonical class {}", c));
      if (nodes_with_op(c, Symbol::from_id(static_cast<std::uint32_t>(op))).empty())
        fail(fmt::format("operator index lists class {} without such a node", c));
    }
}

std::size_t EGraph::memory_bytes() const {
  std::size_t bytes = nodes_.memory_bytes() + children_.memory_bytes() + memo_.memory_bytes() +
                      uf_.memory_bytes() + classes_.memory_bytes() + parent_stamp_.memory_bytes() +
                      class_ids_.capacity() * sizeof(Id) +
                      free_records_.capacity() * sizeof(std::uint32_t);
  for (const ClassRecord& c : classes_) bytes += c.nodes.heap_bytes() + c.parents.heap_bytes();
  for (const auto& l : op_index_) bytes += l.capacity() * sizeof(Id);
  if (proofs_) bytes += proofs_->memory_bytes();
  return bytes;
}

// ------------------------------------------------------------------ explanations

std::optional<Id> EGraph::find_term_id(const RecExpr& term) const {
  if (!proofs_) return lookup_term(term);
  std::vector<Id> ids(term.size());
  std::vector<Id> kids;
  for (std::uint32_t i = 0; i < term.size(); ++i) {
    const TermNode& n = term[i];
    auto attrs = attr_table_.find(n.attrs);
    if (!attrs) return std::nullopt;
    kids.clear();
    for (std::uint32_t c : n.children) kids.push_back(ids[c]);
    Id id = proofs_->find_original(n.op, *attrs, kids);
    if (id == kNoId) return std::nullopt;
    ids[i] = id;
  }
  if (ids.empty()) return std::nullopt;
  return ids.back();
}

Explanation EGraph::explain_equivalence(const RecExpr& a, const RecExpr& b) const {
  if (!proofs_) throw std::logic_error("explain_equivalence: explanations are not enabled");
  auto ia = find_term_id(a);
  if (!ia)
    throw std::invalid_argument("explain_equivalence: term was never added: " + a.to_string());
  auto ib = find_term_id(b);
  if (!ib)
    throw std::invalid_argument("explain_equivalence: term was never added: " + b.to_string());
  if (find(*ia) != find(*ib))
    throw std::invalid_argument(
        fmt::format("explain_equivalence: {} and {} are not equal", a.to_string(), b.to_string()));
  return proofs_->explain(*ia, *ib, attr_table_);
}

} // namespace tilesat::egraph
