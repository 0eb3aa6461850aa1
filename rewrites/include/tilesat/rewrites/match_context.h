// MatchContext and ApplyContext: what a guard or a computed right side sees of one match.
//
// A rule file names guards and appliers with arguments, `last-two-dims(?b, ?i, ?j)` or
// `@compose-permutations(?x, ?q, ?p)`. Each argument is a tensor (a class variable of the
// left side) or an attribute value (an attribute variable or a literal). The contexts hand
// them to the C++ code by position, with the facts of the tensor analysis, and let an applier
// add e-nodes that are type-checked first: an ill-typed right side declines instead of
// corrupting the e-graph.
//
//   egraph::Verdict rank2(const MatchContext& m) {
//     return m.tensor(0).type.shape.rank() == 2 ? egraph::Verdict::accept()
//                                               : egraph::Verdict::decline("rank is not 2");
//   }
#pragma once

#include "tilesat/egraph/egraph.h"
#include "tilesat/egraph/pattern.h"
#include "tilesat/egraph/rewrite.h"
#include "tilesat/egraph/subst.h"
#include "tilesat/graph/attribute.h"
#include "tilesat/graph/op.h"
#include "tilesat/rewrites/tensor_analysis.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tilesat::rewrites {

/// The kind of a guard's or applier's parameter.
enum class ParamKind : uint8_t {
  Tensor, // a class variable ?x
  Attr,   // an attribute variable ?d or a literal (3, 0.5, true, [1, 0], bf16)
};

/// One argument as written in a rule file.
struct RuleArg {
  ParamKind kind = ParamKind::Tensor;
  std::string var;           // "?x"; empty for a literal
  egraph::AttrValue literal; // when var is empty
};

class MatchContext {
public:
  MatchContext(const egraph::EGraph& eg, const TensorAnalysis& facts, egraph::Id root,
               const egraph::Subst& subst, std::span<const RuleArg> args,
               std::span<const egraph::Var> vars, const egraph::Pattern* lhs);

  const egraph::EGraph& egraph() const { return eg_; }
  const TensorAnalysis& analysis() const { return facts_; }
  /// The class the left side matched.
  egraph::Id root_class() const { return root_; }
  const TensorFacts& root() const { return facts_[root_]; }

  size_t num_args() const { return args_.size(); }
  /// The class of tensor argument `i`.
  egraph::Id cls(size_t i) const;
  const TensorFacts& tensor(size_t i) const { return facts_[cls(i)]; }
  /// The value of attribute argument `i`.
  const egraph::AttrValue& attr(size_t i) const;
  /// Attribute argument `i` as an integer list / integer / number, or nullopt.
  std::optional<std::vector<int64_t>> int_list(size_t i) const;
  std::optional<int64_t> integer(size_t i) const;
  std::optional<double> number(size_t i) const;

  /// The classes matched by the left side's inner op nodes (neither the root nor a variable),
  /// for guards about intermediate values; empty when there are none.
  std::vector<egraph::Id> inner_classes() const;
  /// The classes bound to the left side's class variables (its leaves).
  std::vector<egraph::Id> leaf_classes() const;
  /// The e-node of the root class that the left side matched (kNoId if none is found).
  egraph::NodeId root_node() const;

private:
  bool match(uint32_t pattern_node, egraph::Id cls, std::vector<egraph::Id>& classes,
             egraph::NodeId* root_node) const;

  const egraph::EGraph& eg_;
  const TensorAnalysis& facts_;
  egraph::Id root_;
  const egraph::Subst& subst_;
  std::span<const RuleArg> args_;
  std::vector<std::optional<egraph::Var>> arg_vars_;
  const egraph::Pattern* lhs_;
};

class ApplyContext : public MatchContext {
public:
  ApplyContext(egraph::EGraph& eg, const TensorAnalysis& facts, egraph::Id root,
               const egraph::Subst& subst, std::span<const RuleArg> args,
               std::span<const egraph::Var> vars, const egraph::Pattern* lhs)
      : MatchContext(eg, facts, root, subst, args, vars, lhs), mut_(eg) {}

  egraph::EGraph& mutable_egraph() { return mut_; }
  /// The type `kind(children)[attrs]` would have (attrs as written, defaults filled in), or
  /// nullopt when the op would be ill-typed.
  std::optional<TensorType> type_of(OpKind kind, std::span<const egraph::Id> children,
                                    const Attrs& attrs) const;
  /// Adds `kind(children)[attrs]` when it is well-typed; kNoId otherwise.
  egraph::Id add(OpKind kind, std::span<const egraph::Id> children, const Attrs& attrs);
  /// `id` when its class has the root's type (so it may be unioned with it), else kNoId.
  egraph::Id if_fits_root(egraph::Id id) const;
  /// For multi-pattern rules, which rewrite several roots: unions class `cls` (a root other
  /// than the match's) with `id` when both have the same type, justified by the rule; true
  /// when the e-graph changed.
  bool unite(egraph::Id cls, egraph::Id id);
  /// The rule being applied (the justification of unite()).
  void set_rule(egraph::Symbol rule) { rule_ = rule; }

private:
  egraph::EGraph& mut_;
  egraph::Symbol rule_;
};

} // namespace tilesat::rewrites
