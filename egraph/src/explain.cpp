// The proof forest and flat explanations: paths between ids, expanded through congruence.
#include "tilesat/egraph/explain.h"

#include "tilesat/egraph/attr.h"
#include "tilesat/egraph/hash.h"

#include <cstring>
#include <fmt/format.h>
#include <stdexcept>
#include <unordered_map>

namespace tilesat::egraph {

std::string Explanation::to_string() const {
  std::string out = start.to_string();
  out += '\n';
  for (const ExplanationStep& s : steps) {
    out += s.direction == Direction::kForward ? "=> " : "<= ";
    out += s.rule.str();
    out += ' ';
    out += s.term.to_string();
    out += '\n';
  }
  return out;
}

namespace detail {

std::uint32_t ProofForest::hash_original(Symbol op, AttrId attrs,
                                         std::span<const Id> children) const {
  std::uint64_t h = hash_mix(op.id(), attrs);
  for (Id c : children) h = hash_mix(h, c);
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

void ProofForest::add_original(Id id, Symbol op, AttrId attrs, std::span<const Id> children) {
  if (id != originals_.size()) throw std::logic_error("proof forest ids out of order");
  originals_.push_back(Original{op, attrs, static_cast<std::uint32_t>(children_.size()),
                                static_cast<std::uint32_t>(children.size())});
  children_.insert(children_.end(), children.begin(), children.end());
  edges_.push_back(Edge{id, Justification::congruence(), true});
  memo_.insert(hash_original(op, attrs, children), id);
}

Id ProofForest::find_original(Symbol op, AttrId attrs, std::span<const Id> children) const {
  return memo_.find(hash_original(op, attrs, children), [&](Id cand) {
    const Original& o = originals_[cand];
    return o.op == op && o.attrs == attrs && o.arity == children.size() &&
           (children.empty() ||
            std::memcmp(children_.data() + o.begin, children.data(), children.size_bytes()) == 0);
  });
}

void ProofForest::reroot(Id id) {
  std::vector<Id> path{id};
  while (edges_[path.back()].parent != path.back()) path.push_back(edges_[path.back()].parent);
  for (std::size_t i = path.size() - 1; i > 0; --i) {
    Edge e = edges_[path[i - 1]];
    edges_[path[i]] = Edge{path[i - 1], e.why, !e.forward};
  }
  edges_[id] = Edge{id, Justification::congruence(), true};
}

void ProofForest::add_edge(Id a, Id b, Justification why) {
  reroot(a);
  edges_[a] = Edge{b, why, true};
}

std::size_t ProofForest::memory_bytes() const {
  return originals_.capacity() * sizeof(Original) + children_.capacity() * sizeof(Id) +
         edges_.capacity() * sizeof(Edge) + memo_.memory_bytes();
}

/// Builds one flat explanation: terms are hash-consed into a small bank so lifting a step
/// into its context shares the untouched subterms.
class ExplainBuilder {
public:
  ExplainBuilder(const ProofForest& pf, const AttrTable& attrs)
      : pf_(pf), attrs_(attrs), term_of_id_(pf.originals_.size(), kNoId) {}

  Explanation run(Id a, Id b) {
    Explanation out;
    out.start = to_rec(term_of(a));
    explain(a, b);
    for (auto& s : steps_)
      out.steps.push_back(ExplanationStep{s.rule, s.kind, s.direction, to_rec(s.term)});
    return out;
  }

private:
  struct BankNode {
    Symbol op;
    AttrId attrs;
    std::vector<std::uint32_t> kids;
  };
  struct Frame {
    Symbol op;
    AttrId attrs;
    std::vector<std::uint32_t> kids;
    std::size_t index;
  };
  struct Step {
    Symbol rule;
    Justification::Kind kind;
    Direction direction;
    std::uint32_t term;
  };

  std::uint32_t mk(Symbol op, AttrId attrs, const std::vector<std::uint32_t>& kids) {
    std::string key(sizeof(std::uint32_t) * (2 + kids.size()), '\0');
    std::uint32_t head[2] = {op.id(), attrs};
    std::memcpy(key.data(), head, sizeof head);
    if (!kids.empty()) std::memcpy(key.data() + sizeof head, kids.data(), kids.size() * 4);
    auto [it, fresh] = bank_index_.try_emplace(std::move(key), bank_.size());
    if (fresh) bank_.push_back(BankNode{op, attrs, kids});
    return it->second;
  }

  std::uint32_t term_of(Id id) {
    if (term_of_id_[id] != kNoId) return term_of_id_[id];
    const auto& o = pf_.originals_[id];
    std::vector<std::uint32_t> kids;
    for (Id c : pf_.children_of(id)) kids.push_back(term_of(c));
    return term_of_id_[id] = mk(o.op, o.attrs, kids);
  }

  std::uint32_t wrap(std::uint32_t t) {
    for (std::size_t k = ctx_.size(); k-- > 0;) {
      std::vector<std::uint32_t> kids = ctx_[k].kids;
      kids[ctx_[k].index] = t;
      t = mk(ctx_[k].op, ctx_[k].attrs, kids);
    }
    return t;
  }

  void explain(Id a, Id b) {
    if (a == b) return;
    std::vector<Id> up_a{a}, up_b{b};
    while (pf_.edges_[up_a.back()].parent != up_a.back())
      up_a.push_back(pf_.edges_[up_a.back()].parent);
    std::unordered_map<Id, std::size_t> pos_a;
    for (std::size_t i = 0; i < up_a.size(); ++i) pos_a.emplace(up_a[i], i);
    while (!pos_a.contains(up_b.back())) {
      Id p = pf_.edges_[up_b.back()].parent;
      if (p == up_b.back()) throw std::logic_error("explain: ids are not in one class");
      up_b.push_back(p);
    }
    std::size_t lca_a = pos_a.at(up_b.back());
    for (std::size_t i = 0; i < lca_a; ++i) {
      const auto& e = pf_.edges_[up_a[i]];
      edge(up_a[i], up_a[i + 1], e.why, e.forward);
    }
    for (std::size_t j = up_b.size() - 1; j-- > 0;) {
      const auto& e = pf_.edges_[up_b[j]];
      edge(up_b[j + 1], up_b[j], e.why, !e.forward);
    }
  }

  void edge(Id from, Id to, Justification why, bool forward) {
    if (why.kind != Justification::Kind::kCongruence) {
      steps_.push_back(Step{why.name, why.kind,
                            forward ? Direction::kForward : Direction::kBackward,
                            wrap(term_of(to))});
      return;
    }
    auto from_kids = pf_.children_of(from);
    auto to_kids = pf_.children_of(to);
    const auto& o = pf_.originals_[from];
    Frame f{o.op, o.attrs, {}, 0};
    for (Id c : from_kids) f.kids.push_back(term_of(c));
    ctx_.push_back(std::move(f));
    std::size_t k = ctx_.size() - 1;
    for (std::size_t i = 0; i < from_kids.size(); ++i) {
      ctx_[k].index = i;
      explain(from_kids[i], to_kids[i]);
      ctx_[k].kids[i] = term_of(to_kids[i]);
    }
    ctx_.pop_back();
  }

  RecExpr to_rec(std::uint32_t t) {
    RecExpr out;
    std::unordered_map<std::uint32_t, std::uint32_t> done;
    build(out, t, done);
    return out;
  }
  std::uint32_t build(RecExpr& out, std::uint32_t t,
                      std::unordered_map<std::uint32_t, std::uint32_t>& done) {
    if (auto it = done.find(t); it != done.end()) return it->second;
    const BankNode n = bank_[t];
    std::vector<std::uint32_t> kids;
    for (std::uint32_t k : n.kids) kids.push_back(build(out, k, done));
    std::uint32_t idx = out.add(n.op, std::move(kids), attrs_.get(n.attrs));
    done.emplace(t, idx);
    return idx;
  }

  const ProofForest& pf_;
  const AttrTable& attrs_;
  std::vector<std::uint32_t> term_of_id_;
  std::vector<BankNode> bank_;
  std::unordered_map<std::string, std::uint32_t> bank_index_;
  std::vector<Frame> ctx_;
  std::vector<Step> steps_;
};

Explanation ProofForest::explain(Id a, Id b, const AttrTable& attrs) const {
  return ExplainBuilder(*this, attrs).run(a, b);
}

} // namespace detail
} // namespace tilesat::egraph
