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
///
/// A class's data is 0 (not a constant) or k, the index + 1 of its value in a table of the
/// constants met: four bytes per class, and a node without constant children is analysed
/// without touching a Rational.
class ConstantFold final : public AnalysisOf<std::uint32_t> {
public:
  /// The constant of class `cls` (canonical), or nullopt.
  std::optional<Rational> value(Id cls) const {
    const std::uint32_t k = (*this)[cls];
    if (k == 0) return std::nullopt;
    return values_[k - 1];
  }

  std::uint32_t make(const EGraph& eg, const ENode& node) const override;
  DidMerge merge(std::uint32_t& a, std::uint32_t b) const override;
  void modify(EGraph& eg, Id cls) override;

private:
  /// The data of a class whose value is `v` (0 for nullopt).
  std::uint32_t data_of(std::optional<Rational> v) const {
    if (!v) return 0;
    values_.push_back(*v);
    return static_cast<std::uint32_t>(values_.size());
  }

  mutable std::vector<Rational> values_; // data k > 0 is values_[k - 1]
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
