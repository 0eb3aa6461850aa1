// Rewrite rules: a searcher (left side), an applier (right side), and guards.
//
// `lhs => rhs` rules are two patterns; a rule whose right side must be computed uses a C++
// `Applier`; a `Condition` (guard) sees each match and the e-graph's analyses and may decline
// with a reason. Building a rule checks that the right side and the guards only use
// variables the left side binds (RuleError names the rule and the variable). `lhs <=> rhs`
// gives two rules, `name` and `name-rev`.
//
//   std::vector<Rewrite> rules;
//   rules.push_back(Rewrite::parse("comm-add", "(+ ?a ?b) => (+ ?b ?a)").front());
//   rules.push_back(Rewrite("div-canon", Pattern::parse("(/ ?a ?b)"),
//                           Pattern::parse("(* ?a (pow ?b -1))"), {not_zero("?b")}));
//   auto both = Rewrite::parse("assoc-add", "(+ ?a (+ ?b ?c)) <=> (+ (+ ?a ?b) ?c)");
#pragma once

#include "tilesat/egraph/error.h"
#include "tilesat/egraph/id.h"
#include "tilesat/egraph/pattern.h"
#include "tilesat/egraph/searcher.h"
#include "tilesat/egraph/subst.h"
#include "tilesat/egraph/symbol.h"

#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tilesat::egraph {

class EGraph;

/// A guard's answer. A declining guard may say why (a string with static storage duration).
class Verdict {
public:
  static Verdict accept() { return Verdict(true, {}); }
  static Verdict decline(std::string_view reason = {}) { return Verdict(false, reason); }
  Verdict(bool accepted) : accepted_(accepted) {}
  bool accepted() const { return accepted_; }
  std::string_view reason() const { return reason_; }
  explicit operator bool() const { return accepted_; }

private:
  Verdict(bool accepted, std::string_view reason) : accepted_(accepted), reason_(reason) {}
  bool accepted_;
  std::string_view reason_;
};

/// A guard: decides per match whether the rule may fire. Stateless, so one guard object can
/// serve several rules: each rule resolves `var_names()` against its own left side and passes
/// the resolved variables to `check` in the same order.
class Condition {
public:
  virtual ~Condition() = default;
  /// A short name for reports and errors ("not-zero").
  virtual std::string name() const = 0;
  /// The variables the guard reads ("?b").
  virtual std::vector<std::string> var_names() const = 0;
  virtual Verdict check(const EGraph& eg, Id root, const Subst& subst,
                        std::span<const Var> vars) const = 0;
};

/// A guard from a lambda `Verdict f(const EGraph&, const Subst&, std::span<const Var> vars)`
/// (or returning bool), where `vars` are `var_names` resolved in order.
template <class F>
std::shared_ptr<Condition> guard(std::string name, std::vector<std::string> var_names, F f);

/// The right side of a rule written in C++ (stateless, like Condition).
class Applier {
public:
  virtual ~Applier() = default;
  /// The variables the applier reads ("?x").
  virtual std::vector<std::string> var_names() const = 0;
  /// Builds the result for one match; returns the id to union with `root`, or kNoId to leave
  /// the e-graph unchanged (an applier may also add nodes and union classes itself).
  virtual Id apply_one(EGraph& eg, Id root, const Subst& subst,
                       std::span<const Var> vars) const = 0;
};

/// An applier from a lambda `Id f(EGraph&, Id root, const Subst&, std::span<const Var> vars)`.
template <class F>
std::shared_ptr<Applier> applier(std::vector<std::string> var_names, F f);

/// Outcome of applying one rule's matches.
struct ApplyResult {
  std::size_t applied = 0;  // unions that changed the e-graph
  std::size_t declined = 0; // matches a guard turned down
};

/// Called for every declined match (rule, guard, reason) when set in the runner.
using DeclineHook = std::function<void(const class Rewrite&, const Condition&, std::string_view)>;

class Rewrite {
public:
  using Conditions = std::vector<std::shared_ptr<Condition>>;

  /// `lhs => rhs` with optional guards; throws RuleError on unbound variables.
  Rewrite(std::string name, Pattern lhs, Pattern rhs, Conditions conditions = {});
  /// A rule whose right side is computed in C++.
  Rewrite(std::string name, Pattern lhs, std::shared_ptr<Applier> rhs, Conditions conditions = {});
  /// Any searcher with a C++ applier.
  Rewrite(std::string name, std::shared_ptr<const Searcher> lhs, std::shared_ptr<Applier> rhs,
          Conditions conditions = {});

  /// Reads "lhs => rhs" (one rule) or "lhs <=> rhs" (rules `name` and `name-rev`); the guards
  /// apply to every rule produced. Throws ParseError or RuleError.
  static std::vector<Rewrite> parse(std::string_view name, std::string_view text,
                                    const Conditions& conditions = {});

  const std::string& name() const { return name_; }
  Symbol symbol() const { return symbol_; }
  const Searcher& searcher() const { return *searcher_; }
  /// The right-side pattern, or nullptr for a C++ applier.
  const Pattern* rhs() const { return rhs_.get(); }
  const Conditions& conditions() const { return conditions_; }
  /// The left side as a pattern, or nullptr for other searchers.
  const Pattern* lhs() const { return searcher_->pattern(); }

  /// Finds up to `limit` matches, fewer once `deadline` passed.
  void search(const EGraph& eg, Matches& out, std::size_t limit,
              const Deadline& deadline = {}) const {
    searcher_->search(eg, out, limit, deadline);
  }
  /// Applies the matches (guards first) and unions each result with its match's class;
  /// stops early once the e-graph holds more than `node_limit` e-nodes or `deadline` passed.
  ApplyResult apply(EGraph& eg, const Matches& matches, const DeclineHook* on_decline = nullptr,
                    std::size_t node_limit = std::numeric_limits<std::size_t>::max(),
                    const Deadline& deadline = {}) const;

  /// The union pass of an iteration, run before `apply`: applies (guards aside) the matches
  /// whose right side is already in the e-graph, which only merges classes, and removes them
  /// from `matches`; those left would add e-nodes. Rules with guards or a C++ applier, and all
  /// rules while explanations are on, keep every match for `apply`.
  ApplyResult apply_unions(EGraph& eg, Matches& matches, const Deadline& deadline = {}) const;

  std::string to_string() const;

private:
  std::vector<Var> resolve(const std::vector<std::string>& names, std::string_view user) const;
  void resolve_all();

  std::string name_;
  Symbol symbol_;
  std::shared_ptr<const Searcher> searcher_;
  std::shared_ptr<const Pattern> rhs_;
  std::vector<Var> rhs_vars_; // rhs variable i is lhs variable rhs_vars_[i]
  std::vector<Var> lhs_vars_; // identity map over the left side's variables
  std::shared_ptr<Applier> applier_;
  std::vector<Var> applier_vars_;
  Conditions conditions_;
  std::vector<std::vector<Var>> condition_vars_;
};

/// Shorthand for a one-direction pattern rule: rewrite("comm-add", "(+ ?a ?b)", "(+ ?b ?a)").
Rewrite rewrite(std::string_view name, std::string_view lhs, std::string_view rhs,
                Rewrite::Conditions conditions = {});

// ------------------------------------------------------------------ lambda adapters

namespace detail {

template <class F>
class LambdaCondition final : public Condition {
public:
  LambdaCondition(std::string name, std::vector<std::string> names, F f)
      : name_(std::move(name)), names_(std::move(names)), f_(std::move(f)) {}
  std::string name() const override { return name_; }
  std::vector<std::string> var_names() const override { return names_; }
  Verdict check(const EGraph& eg, Id, const Subst& subst,
                std::span<const Var> vars) const override {
    return Verdict(f_(eg, subst, vars));
  }

private:
  std::string name_;
  std::vector<std::string> names_;
  F f_;
};

template <class F>
class LambdaApplier final : public Applier {
public:
  LambdaApplier(std::vector<std::string> names, F f) : names_(std::move(names)), f_(std::move(f)) {}
  std::vector<std::string> var_names() const override { return names_; }
  Id apply_one(EGraph& eg, Id root, const Subst& subst, std::span<const Var> vars) const override {
    return f_(eg, root, subst, vars);
  }

private:
  std::vector<std::string> names_;
  F f_;
};

} // namespace detail

template <class F>
std::shared_ptr<Condition> guard(std::string name, std::vector<std::string> var_names, F f) {
  return std::make_shared<detail::LambdaCondition<F>>(std::move(name), std::move(var_names),
                                                      std::move(f));
}

template <class F>
std::shared_ptr<Applier> applier(std::vector<std::string> var_names, F f) {
  return std::make_shared<detail::LambdaApplier<F>>(std::move(var_names), std::move(f));
}

} // namespace tilesat::egraph
