// Rewrite rules: construction with variable checks, parsing "lhs => rhs", and application.
#include "tilesat/egraph/rewrite.h"

#include "sexpr.h"
#include "tilesat/egraph/egraph.h"

#include <fmt/format.h>

namespace tilesat::egraph {

Rewrite::Rewrite(std::string name, Pattern lhs, Pattern rhs, Conditions conditions)
    : name_(std::move(name)), symbol_(Symbol::intern(name_)),
      searcher_(std::make_shared<Pattern>(std::move(lhs))),
      rhs_(std::make_shared<Pattern>(std::move(rhs))), conditions_(std::move(conditions)) {
  const Pattern& l = *searcher_->pattern();
  for (std::size_t i = 0; i < rhs_->var_names().size(); ++i) {
    const std::string& v = rhs_->var_names()[i];
    auto lv = l.find_var(v);
    if (!lv)
      throw RuleError(fmt::format(
          "rule '{}': right side uses {}, which the left side does not bind", name_, v));
    bool rhs_attr = rhs_->is_attr_var(Var{static_cast<std::uint32_t>(i)});
    if (rhs_attr != l.is_attr_var(*lv))
      throw RuleError(fmt::format("rule '{}': {} is {} on the right side but {} on the left side",
                                  name_, v, rhs_attr ? "an attribute variable" : "a class variable",
                                  rhs_attr ? "a class variable" : "an attribute variable"));
    rhs_vars_.push_back(*lv);
  }
  resolve_all();
}

Rewrite::Rewrite(std::string name, Pattern lhs, std::shared_ptr<Applier> rhs, Conditions conditions)
    : Rewrite(std::move(name), std::make_shared<Pattern>(std::move(lhs)), std::move(rhs),
              std::move(conditions)) {}

Rewrite::Rewrite(std::string name, std::shared_ptr<const Searcher> lhs,
                 std::shared_ptr<Applier> rhs, Conditions conditions)
    : name_(std::move(name)), symbol_(Symbol::intern(name_)), searcher_(std::move(lhs)),
      applier_(std::move(rhs)), conditions_(std::move(conditions)) {
  if (!applier_) throw RuleError(fmt::format("rule '{}': no applier", name_));
  applier_vars_ = resolve(applier_->var_names(), "the applier");
  resolve_all();
}

std::vector<Var> Rewrite::resolve(const std::vector<std::string>& names,
                                  std::string_view user) const {
  const auto& lhs_names = searcher_->var_names();
  std::vector<Var> out;
  for (const auto& n : names) {
    auto it = std::find(lhs_names.begin(), lhs_names.end(), n);
    if (it == lhs_names.end())
      throw RuleError(
          fmt::format("rule '{}': {} uses {}, which the left side does not bind", name_, user, n));
    out.push_back(Var{static_cast<std::uint32_t>(it - lhs_names.begin())});
  }
  return out;
}

void Rewrite::resolve_all() {
  for (const auto& c : conditions_) {
    if (!c) throw RuleError(fmt::format("rule '{}': null guard", name_));
    condition_vars_.push_back(resolve(c->var_names(), "guard '" + c->name() + "'"));
  }
  for (std::size_t i = 0; i < searcher_->var_names().size(); ++i)
    lhs_vars_.push_back(Var{static_cast<std::uint32_t>(i)});
}

std::vector<Rewrite> Rewrite::parse(std::string_view name, std::string_view text,
                                    const Conditions& conditions) {
  detail::SExprReader reader(text);
  detail::SExpr lhs = reader.read();
  bool both = reader.try_consume("<=>");
  if (!both && !reader.try_consume("=>")) reader.fail("'=>' or '<=>'");
  detail::SExpr rhs = reader.read();
  reader.expect_end();
  std::vector<Rewrite> out;
  Pattern l = detail::pattern_from_sexpr(lhs);
  Pattern r = detail::pattern_from_sexpr(rhs);
  out.emplace_back(std::string(name), l, r, conditions);
  if (both) out.emplace_back(std::string(name) + "-rev", r, l, conditions);
  return out;
}

Rewrite rewrite(std::string_view name, std::string_view lhs, std::string_view rhs,
                Rewrite::Conditions conditions) {
  return Rewrite(std::string(name), Pattern::parse(lhs), Pattern::parse(rhs),
                 std::move(conditions));
}

ApplyResult Rewrite::apply(EGraph& eg, const Matches& matches, const DeclineHook* on_decline,
                           std::size_t node_limit, const Deadline& deadline) const {
  ApplyResult result;
  const Pattern* lhs_pattern = searcher_->pattern();
  const bool explain = eg.explanations_enabled();
  for (std::size_t i = 0, n = matches.size(); i < n && eg.num_nodes() <= node_limit; ++i) {
    // A computed right side may take far longer per match than a pattern's: the clock is read
    // on every one of its matches.
    if (applier_ ? deadline.passed() : deadline.passed_at(i + 1)) break;
    Id root = matches.root(i);
    Subst subst = matches.subst(i, eg);
    bool accepted = true;
    for (std::size_t c = 0; c < conditions_.size(); ++c) {
      Verdict v = conditions_[c]->check(eg, root, subst, condition_vars_[c]);
      if (v) continue;
      accepted = false;
      ++result.declined;
      if (on_decline != nullptr && *on_decline) (*on_decline)(*this, *conditions_[c], v.reason());
      break;
    }
    if (!accepted) continue;
    if (rhs_ && !explain) {
      // The right side's root joins the matched class directly.
      if (rhs_->instantiate_into(eg, root, subst, rhs_vars_, Justification::rule(symbol_)))
        ++result.applied;
      continue;
    }
    Id to = rhs_ ? rhs_->instantiate(eg, subst, rhs_vars_)
                 : applier_->apply_one(eg, root, subst, applier_vars_);
    if (to == kNoId) continue;
    Id from = root;
    if (explain && lhs_pattern != nullptr) from = lhs_pattern->instantiate(eg, subst, lhs_vars_);
    if (eg.merge(from, to, Justification::rule(symbol_))) ++result.applied;
  }
  return result;
}

ApplyResult Rewrite::apply_unions(EGraph& eg, Matches& matches, const Deadline& deadline) const {
  ApplyResult result;
  if (!rhs_ || !conditions_.empty() || eg.explanations_enabled()) return result;
  matches.retain([&](std::size_t i) {
    if (deadline.passed_at(i + 1)) return true; // left for `apply`, which stops at once
    Id to = rhs_->find_instance(eg, matches.subst(i, eg), rhs_vars_);
    if (to == kNoId) return true;
    if (eg.merge(matches.root(i), to, Justification::rule(symbol_))) ++result.applied;
    return false;
  });
  return result;
}

std::string Rewrite::to_string() const {
  std::string out = fmt::format("{}: {} => {}", name_, searcher_->to_string(),
                                rhs_ ? rhs_->to_string() : std::string("<C++ applier>"));
  for (const auto& c : conditions_) out += fmt::format(" if {}", c->name());
  return out;
}

} // namespace tilesat::egraph
