// The arithmetic test language of the e-graph engine (the classic "math" workload): operators
// + - * / pow d i (binary), ln sqrt sin cos (unary), rational constants and symbols; constant
// folding in exact rational arithmetic; 36 rules of algebra, differentiation and integration.
//
// Shared by tests/egraph and bench/egraph. It proves the engine is generic: nothing here is
// known to the engine itself.
//
//   EGraph eg;
//   eg.add_analysis<math::ConstantFold>();
//   Id root = eg.add_term(RecExpr::parse("(d x (+ 1 (* 2 x)))"));
//   Runner(RunnerConfig().with_scheduler(SimpleScheduler())).run(eg, math::rules());
#pragma once

#include "tilesat/egraph/all.h"

#include <optional>
#include <string>
#include <vector>

namespace tilesat::egraph::math {

/// Constant folding: the value of a class when it is a known rational constant. A constant
/// class gets the literal leaf and keeps only its leaves (as egg's math example does).
class ConstantFold final : public AnalysisOf<std::optional<Rational>> {
public:
  std::optional<Rational> make(const EGraph& eg, const ENode& node) const override;
  DidMerge merge(std::optional<Rational>& a, std::optional<Rational> b) const override;
  void modify(EGraph& eg, Id cls) override;
};

/// Guards of the math rules.
std::shared_ptr<Condition> not_zero(std::string var);
std::shared_ptr<Condition> is_const(std::string var);
std::shared_ptr<Condition> is_sym(std::string var);
/// `var` is a constant or a symbol other than `other`.
std::shared_ptr<Condition> is_const_or_distinct_var(std::string var, std::string other);

/// The 36 math rules (comm-add ... i-parts).
std::vector<Rewrite> rules();

/// The seven start terms of the math workload.
std::vector<std::string> workload_terms();

/// Goals the workload proves: start term and an equal term.
struct Goal {
  std::string start;
  std::string goal;
};
std::vector<Goal> workload_goals();

} // namespace tilesat::egraph::math
