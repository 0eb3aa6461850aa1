// RecExpr: a concrete term (no variables) as a flat list of nodes, children before parents.
//
// Terms go into the e-graph (`EGraph::add_term`), come out of it (extraction, explanations)
// and are written as s-expressions: `(* (+ a b) 2)`, `(transpose[dim0=1, dim1=0] x)`.
// Literal atoms (`2`, `-1/2`, `2.5`, `true`, `"s"`) are `const` nodes with payload
// `[value=...]`; other atoms (`a`) are nullary operators.
//
//   auto t = tilesat::egraph::RecExpr::parse("(* (+ a b) 2)");
//   assert(t.to_string() == "(* (+ a b) 2)" && t.size() == 5);
#pragma once

#include "tilesat/egraph/attr.h"
#include "tilesat/egraph/symbol.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilesat::egraph {

struct TermNode {
  Symbol op;
  Attrs attrs;
  std::vector<std::uint32_t> children; // indices of earlier nodes
  friend bool operator==(const TermNode&, const TermNode&) = default;
};

class RecExpr {
public:
  /// Parses one term; throws ParseError (also for lists nested deeper than 256).
  static RecExpr parse(std::string_view text);

  /// Appends a node whose children are earlier indices; returns its index.
  std::uint32_t add(TermNode node);
  std::uint32_t add(Symbol op, std::vector<std::uint32_t> children = {}, Attrs attrs = {});
  std::uint32_t add_literal(AttrValue v);

  const std::vector<TermNode>& nodes() const { return nodes_; }
  const TermNode& operator[](std::uint32_t i) const { return nodes_[i]; }
  std::size_t size() const { return nodes_.size(); }
  bool empty() const { return nodes_.empty(); }
  /// The root is the last node.
  std::uint32_t root() const { return static_cast<std::uint32_t>(nodes_.size() - 1); }

  /// The s-expression of the whole term / of the subterm at `index`.
  std::string to_string() const;
  std::string to_string(std::uint32_t index) const;
  /// Structural equality of the trees (sharing and node order do not matter).
  bool same_term(const RecExpr& other) const;
  bool same_subterm(std::uint32_t i, const RecExpr& other, std::uint32_t j) const;

private:
  std::vector<TermNode> nodes_;
};

/// The text of one node's head: `+`, `x`, `3`, `transpose[dim0=1, dim1=0]`.
std::string node_head(Symbol op, const Attrs& attrs);

} // namespace tilesat::egraph
