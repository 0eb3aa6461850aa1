// Pattern: a term with variables, written as an s-expression, compiled for e-matching.
//
// Syntax (also in docs/egraph.md):
//   ?x                      a class variable: matches any e-class
//   3  -1/2  2.5  true "s"  a literal leaf: matches exactly the node const[value=<literal>]
//   x                       a nullary operator named x (any payload)
//   (op p1 ... pn)          an e-node with operator op and n children; payload unconstrained
//   (op[k=v, k2=?d] ...)    attribute constraints: key k must equal literal v, key k2 is bound
//                           to attribute variable ?d (equal wherever ?d recurs); keys not
//                           mentioned are unconstrained. `[k]` means `[k=true]`. Values:
//                           integers, rationals, doubles, true/false, "strings", bare words
//                           (strings), [1, 0] (integer lists), ?vars.
//   ; comment               to the end of the line
// On a rule's right side, `(op[...] ...)` builds a node whose payload is exactly the listed
// attributes (attribute variables take their bound values).
//
//   auto p = tilesat::egraph::Pattern::parse("(transpose[dim0=?d0, dim1=?d1] ?x)");
//   tilesat::egraph::Matches m;
//   p.search(eg, m);                  // eg must be rebuilt
//   auto x = p.var("?x"), d0 = p.var("?d0");
#pragma once

#include "tilesat/egraph/attr.h"
#include "tilesat/egraph/explain.h"
#include "tilesat/egraph/id.h"
#include "tilesat/egraph/machine.h"
#include "tilesat/egraph/searcher.h"
#include "tilesat/egraph/subst.h"
#include "tilesat/egraph/symbol.h"

#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tilesat::egraph {

class EGraph;

struct PatternAttr {
  Symbol key;
  bool is_var = false;
  Var var;         // when is_var
  AttrValue value; // otherwise
};

struct PatternNode {
  enum class Kind : std::uint8_t { kVar, kOp, kLiteral };
  Kind kind = Kind::kOp;
  Var var;                             // kVar
  Symbol op;                           // kOp
  std::vector<PatternAttr> attrs;      // kOp
  AttrValue literal;                   // kLiteral
  std::vector<std::uint32_t> children; // kOp: indices of earlier nodes
};

class Pattern final : public Searcher {
public:
  /// Parses a pattern; throws ParseError ("line:col: expected X, got Y").
  static Pattern parse(std::string_view text);
  /// Builds a pattern from already-parsed parts (used by the reader; nodes children-first).
  Pattern(std::vector<PatternNode> nodes, std::vector<std::string> class_vars,
          std::vector<std::string> attr_vars);

  const std::vector<PatternNode>& nodes() const { return nodes_; }
  std::uint32_t root() const { return static_cast<std::uint32_t>(nodes_.size() - 1); }

  /// Variable names with their '?': class variables, then attribute variables.
  const std::vector<std::string>& var_names() const override { return var_names_; }
  std::uint32_t num_class_vars() const { return num_class_vars_; }
  std::uint32_t num_attr_vars() const {
    return static_cast<std::uint32_t>(var_names_.size()) - num_class_vars_;
  }
  /// The variable named `name` ("?x"); throws std::out_of_range if absent.
  Var var(std::string_view name) const;
  std::optional<Var> find_var(std::string_view name) const;
  bool is_attr_var(Var v) const { return v.index >= num_class_vars_; }

  /// Appends matches (up to `limit`) to `out` after resetting it. Requires a rebuilt e-graph.
  using Searcher::search;
  void search(const EGraph& eg, Matches& out, std::size_t limit,
              const Deadline& deadline) const override;
  void search(const EGraph& eg, Matches& out) const {
    search(eg, out, std::numeric_limits<std::size_t>::max());
  }
  /// Matches rooted at class `cls` only.
  void search_class(const EGraph& eg, Id cls, Matches& out) const;

  /// Adds the pattern's term with variables taken from `subst` (whose variables are numbered
  /// by `var_map`: this pattern's var i is subst's var_map[i]); returns the root id as
  /// `EGraph::add_uncanonical` does. Payloads without variables are interned once per e-graph
  /// and cached, so one Pattern must not instantiate from two threads at once.
  Id instantiate(EGraph& eg, const Subst& subst, std::span<const Var> var_map) const;
  /// Adds the pattern's term into class `cls`, which a rewrite proved it equal to; true when
  /// the e-graph changed. The result of `eg.merge(cls, instantiate(...), why)`, but a new
  /// root e-node joins `cls` directly (`EGraph::add_into`).
  bool instantiate_into(EGraph& eg, Id cls, const Subst& subst, std::span<const Var> var_map,
                        Justification why) const;

  /// The class of the pattern's term when every e-node of it is already in the e-graph, else
  /// kNoId. Adds no e-node (payloads are interned as by instantiate()).
  Id find_instance(EGraph& eg, const Subst& subst, std::span<const Var> var_map) const;

  std::string to_string() const override;
  const Pattern* pattern() const override { return this; }

private:
  std::vector<PatternNode> nodes_;
  std::vector<std::string> var_names_;
  std::uint32_t num_class_vars_ = 0;
  /// One node of the pattern to add, flattened for instantiate(): its children are the slots
  /// build_children_[first, first + arity), where slot k < build_vars_.size() is a variable's
  /// id and slot build_vars_.size() + j is the id step j added. The root is the last step.
  struct BuildStep {
    Symbol op;          // `const` for a literal
    bool attrs_vary;    // attribute variables: the payload is interned per match
    std::uint32_t node; // the pattern node (its payload)
    std::uint32_t first;
    std::uint32_t arity;
  };

  /// How build() gets the e-nodes below the root: added, or looked up (a missing one ends
  /// the build with kNoId).
  enum class Inner { kAdd, kLookup };
  template <Inner kInner, class RootVar, class RootOp>
  auto build(EGraph& eg, const Subst& subst, std::span<const Var> var_map, RootVar&& root_var,
             RootOp&& root_op) const;
  void fill_attr_cache(EGraph& eg) const;
  AttrId intern_varying_attrs(EGraph& eg, std::size_t node, const Subst& subst,
                              std::span<const Var> var_map) const;

  detail::Program program_;
  std::vector<std::uint32_t> build_vars_; // per variable slot: the variable's index
  std::vector<BuildStep> build_;
  std::vector<std::uint32_t> build_children_;
  mutable std::vector<AttrId> attr_cache_;   // per node: its constant payload's id
  mutable std::uint64_t attr_cache_uid_ = 0; // the e-graph attr_cache_ belongs to
};

} // namespace tilesat::egraph
