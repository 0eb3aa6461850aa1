// Explanations: why two terms are equal, as a chain of rewrite steps with every intermediate
// term (a "flat" explanation, as in egg).
//
// With explanations enabled (`EGraph::enable_explanations()`, before the first add) every
// union records its justification (a rule and its direction, a named reason such as
// "constant-fold", or congruence) in a proof forest, and every distinct term added keeps its
// own id. `EGraph::explain_equivalence(a, b)` walks the forest and expands congruence into
// steps on subterms. With explanations off none of this bookkeeping exists.
//
//   eg.enable_explanations();
//   Id a = eg.add_term(RecExpr::parse("(+ x y)"));   ... run rules, rebuild ...
//   Explanation e = eg.explain_equivalence(RecExpr::parse("(+ x y)"), RecExpr::parse("(+ y x)"));
//   fmt::print("{}", e.to_string());   // (+ x y) / => comm-add (+ y x)
#pragma once

#include "tilesat/egraph/hashcons.h"
#include "tilesat/egraph/id.h"
#include "tilesat/egraph/symbol.h"
#include "tilesat/egraph/term.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tilesat::egraph {

class Rewrite;
class AttrTable;

/// Why two e-classes were unioned.
struct Justification {
  enum class Kind : std::uint8_t { kRule, kReason, kCongruence };
  Kind kind = Kind::kReason;
  Symbol name;

  /// The rewrite rule `name` fired (the first id is its left side's instance).
  static Justification rule(Symbol name) { return {Kind::kRule, name}; }
  /// A named external reason ("constant-fold", "user"); not checkable against rules.
  static Justification reason(std::string_view name) {
    return {Kind::kReason, Symbol::intern(name)};
  }
  static Justification congruence() {
    static const Symbol name = Symbol::intern("congruence");
    return {Kind::kCongruence, name};
  }
  /// The default reason of `EGraph::merge` ("merge"), interned once.
  static Justification merge() {
    static const Symbol name = Symbol::intern("merge");
    return {Kind::kReason, name};
  }
};

enum class Direction : std::uint8_t { kForward, kBackward };

/// One step: `rule` rewrote the previous term into `term` (backward: from right to left).
struct ExplanationStep {
  Symbol rule;
  Justification::Kind kind = Justification::Kind::kRule;
  Direction direction = Direction::kForward;
  RecExpr term;
};

struct Explanation {
  RecExpr start;
  std::vector<ExplanationStep> steps;

  /// One term per line; each step line is "=> rule term" (forward) or "<= rule term".
  std::string to_string() const;
  /// The last term (the start when there are no steps).
  const RecExpr& goal() const { return steps.empty() ? start : steps.back().term; }
};

/// Checks that each step is one application of the named rule from `rules` at some position
/// of the previous term (forward: lhs to rhs; backward: rhs to lhs). Returns a message about
/// the first step that is not, or nullopt when all are. Steps justified by a reason, or by a
/// rule whose right side is C++ code, are reported as uncheckable.
std::optional<std::string> check_explanation(const Explanation& expl,
                                             std::span<const Rewrite> rules);

namespace detail {

/// The proof forest and original terms behind explanations (one entry per e-graph id).
class ProofForest {
public:
  /// A new id with its e-node as written (children as given, not canonicalized).
  void add_original(Id id, Symbol op, AttrId attrs, std::span<const Id> children);
  /// The id of a previously added original node, or kNoId.
  Id find_original(Symbol op, AttrId attrs, std::span<const Id> children) const;
  /// Records the union of `a` and `b` (rule direction: a is the left side).
  void add_edge(Id a, Id b, Justification why);

  /// The flat explanation from id `a` to id `b` (same class).
  Explanation explain(Id a, Id b, const AttrTable& attrs) const;

  std::size_t memory_bytes() const;

private:
  struct Original {
    Symbol op;
    AttrId attrs;
    std::uint32_t begin;
    std::uint32_t arity;
  };
  struct Edge {
    Id parent;
    Justification why;
    bool forward; // traversing id -> parent applies the rule left to right
  };
  std::uint32_t hash_original(Symbol op, AttrId attrs, std::span<const Id> children) const;
  std::span<const Id> children_of(Id id) const {
    return {children_.data() + originals_[id].begin, originals_[id].arity};
  }
  void reroot(Id id);

  friend class ExplainBuilder;
  std::vector<Original> originals_;
  std::vector<Id> children_;
  std::vector<Edge> edges_;
  IdHashTable memo_;
};

} // namespace detail
} // namespace tilesat::egraph
