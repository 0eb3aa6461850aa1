// tensor_rule.h: private to rewrites/: the egraph Conditions and Appliers a rule file's lines
// become: a named guard, a named computed right side, and a right-side pattern that is
// type-checked before anything is added.
#pragma once

#include "tilesat/egraph/rewrite.h"
#include "tilesat/rewrites/builtins.h"

#include <memory>
#include <string>
#include <vector>

namespace tilesat::rewrites::detail {

/// A guard from builtins.h applied to a rule's arguments (`lhs` null for a multi-pattern).
class TensorGuard final : public egraph::Condition {
public:
  TensorGuard(const GuardDef& def, std::vector<RuleArg> args,
              std::shared_ptr<const egraph::Pattern> lhs);
  std::string name() const override { return std::string(def_.name); }
  std::vector<std::string> var_names() const override;
  egraph::Verdict check(const egraph::EGraph& eg, egraph::Id root, const egraph::Subst& subst,
                        std::span<const egraph::Var> vars) const override;

private:
  const GuardDef& def_;
  std::vector<RuleArg> args_;
  std::shared_ptr<const egraph::Pattern> lhs_;
};

/// A computed right side from builtins.h applied to a rule's arguments. `lhs` is null for a
/// multi-pattern left side; `rule` justifies the unions the applier makes itself.
class ComputedRhs final : public egraph::Applier {
public:
  ComputedRhs(const ApplierDef& def, std::vector<RuleArg> args,
              std::shared_ptr<const egraph::Pattern> lhs, egraph::Symbol rule);
  std::vector<std::string> var_names() const override;
  egraph::Id apply_one(egraph::EGraph& eg, egraph::Id root, const egraph::Subst& subst,
                       std::span<const egraph::Var> vars) const override;

private:
  const ApplierDef& def_;
  std::vector<RuleArg> args_;
  std::shared_ptr<const egraph::Pattern> lhs_;
  egraph::Symbol rule_;
};

/// A right-side pattern. Attributes it does not write get their defaults; its root inherits
/// the opaque attributes (e.g. `ttcore.weight_dtype`) of the matched left-side root node.
/// Every node is type-checked first, and the result must have the matched value's type;
/// otherwise the rule declines for that match.
class PatternRhs final : public egraph::Applier {
public:
  PatternRhs(std::shared_ptr<const egraph::Pattern> rhs,
             std::shared_ptr<const egraph::Pattern> lhs);
  std::vector<std::string> var_names() const override { return names_; }
  egraph::Id apply_one(egraph::EGraph& eg, egraph::Id root, const egraph::Subst& subst,
                       std::span<const egraph::Var> vars) const override;
  const egraph::Pattern& pattern() const { return *rhs_; }

private:
  std::shared_ptr<const egraph::Pattern> rhs_;
  std::shared_ptr<const egraph::Pattern> lhs_;
  std::vector<std::string> names_; // the rhs's variables, in the rhs's order
};

} // namespace tilesat::rewrites::detail
