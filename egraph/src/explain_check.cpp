// Re-checking explanations: each step must be one rule application at one position.
#include "tilesat/egraph/explain.h"
#include "tilesat/egraph/rewrite.h"

#include <fmt/format.h>
#include <optional>

namespace tilesat::egraph {
namespace {

/// Syntactic matching of a pattern against a concrete term, and comparison of an instantiated
/// pattern with a term.
class StepChecker {
public:
  StepChecker(const Pattern& from, const Pattern& to, const RecExpr& before, const RecExpr& after)
      : from_(from), to_(to), before_(before), after_(after) {}

  bool check() { return step_at(before_.root(), after_.root()); }

private:
  struct Binding {
    bool bound = false;
    std::uint32_t term = 0; // class var: index into before_
    AttrValue value;        // attr var
  };

  bool step_at(std::uint32_t b, std::uint32_t a) {
    bind_.assign(from_.var_names().size(), Binding{});
    free_.assign(to_.var_names().size(), Binding{});
    if (match(from_.root(), b) && equal(to_.root(), a)) return true;
    const TermNode& bn = before_[b];
    const TermNode& an = after_[a];
    if (bn.op != an.op || !(bn.attrs == an.attrs) || bn.children.size() != an.children.size())
      return false;
    for (std::size_t k = 0; k < bn.children.size(); ++k) {
      bool others_same = true;
      for (std::size_t j = 0; j < bn.children.size() && others_same; ++j)
        if (j != k) others_same = before_.same_subterm(bn.children[j], after_, an.children[j]);
      if (others_same && step_at(bn.children[k], an.children[k])) return true;
    }
    return false;
  }

  static const AttrValue* literal_of(const TermNode& n) {
    if (n.op != Symbol::constant() || !n.children.empty()) return nullptr;
    return n.attrs.literal_value();
  }

  bool match(std::uint32_t p, std::uint32_t t) {
    const PatternNode& pn = from_.nodes()[p];
    const TermNode& tn = before_[t];
    switch (pn.kind) {
    case PatternNode::Kind::kVar: {
      Binding& bnd = bind_[pn.var.index];
      if (!bnd.bound) {
        bnd.bound = true;
        bnd.term = t;
        return true;
      }
      return before_.same_subterm(bnd.term, before_, t);
    }
    case PatternNode::Kind::kLiteral: {
      const AttrValue* v = literal_of(tn);
      return v != nullptr && *v == pn.literal;
    }
    case PatternNode::Kind::kOp:
      break;
    }
    if (tn.op != pn.op || tn.children.size() != pn.children.size()) return false;
    for (const PatternAttr& pa : pn.attrs) {
      const AttrValue* v = tn.attrs.find(pa.key);
      if (v == nullptr) return false;
      if (!pa.is_var) {
        if (!(*v == pa.value)) return false;
        continue;
      }
      Binding& bnd = bind_[pa.var.index];
      if (bnd.bound && !(bnd.value == *v)) return false;
      bnd.bound = true;
      bnd.value = *v;
    }
    for (std::size_t k = 0; k < pn.children.size(); ++k)
      if (!match(pn.children[k], tn.children[k])) return false;
    return true;
  }

  bool equal(std::uint32_t p, std::uint32_t t) {
    const PatternNode& pn = to_.nodes()[p];
    const TermNode& tn = after_[t];
    switch (pn.kind) {
    case PatternNode::Kind::kVar: {
      auto v = from_.find_var(to_.var_names()[pn.var.index]);
      if (v && bind_[v->index].bound) return before_.same_subterm(bind_[v->index].term, after_, t);
      // A variable only the target side has (a rule used backward): any subterm, consistently.
      Binding& f = free_[pn.var.index];
      if (!f.bound) {
        f.bound = true;
        f.term = t;
        return true;
      }
      return after_.same_subterm(f.term, after_, t);
    }
    case PatternNode::Kind::kLiteral: {
      const AttrValue* v = literal_of(tn);
      return v != nullptr && *v == pn.literal;
    }
    case PatternNode::Kind::kOp:
      break;
    }
    if (tn.op != pn.op || tn.children.size() != pn.children.size()) return false;
    std::vector<Attr> entries;
    for (const PatternAttr& pa : pn.attrs) {
      if (!pa.is_var) {
        entries.push_back(Attr{pa.key, pa.value});
        continue;
      }
      auto v = from_.find_var(to_.var_names()[pa.var.index]);
      if (v && bind_[v->index].bound) {
        entries.push_back(Attr{pa.key, bind_[v->index].value});
        continue;
      }
      const AttrValue* actual = tn.attrs.find(pa.key);
      if (actual == nullptr) return false;
      Binding& f = free_[pa.var.index];
      if (f.bound && !(f.value == *actual)) return false;
      f.bound = true;
      f.value = *actual;
      entries.push_back(Attr{pa.key, *actual});
    }
    if (!(Attrs(std::move(entries)) == tn.attrs)) return false;
    for (std::size_t k = 0; k < pn.children.size(); ++k)
      if (!equal(pn.children[k], tn.children[k])) return false;
    return true;
  }

  const Pattern& from_;
  const Pattern& to_;
  const RecExpr& before_;
  const RecExpr& after_;
  std::vector<Binding> bind_;
  std::vector<Binding> free_;
};

} // namespace

std::optional<std::string> check_explanation(const Explanation& expl,
                                             std::span<const Rewrite> rules) {
  const RecExpr* before = &expl.start;
  for (std::size_t i = 0; i < expl.steps.size(); ++i) {
    const ExplanationStep& s = expl.steps[i];
    if (s.kind != Justification::Kind::kRule)
      return fmt::format("step {}: '{}' is a reason, not a rule; it cannot be checked", i + 1,
                         s.rule.str());
    const Rewrite* rule = nullptr;
    for (const Rewrite& r : rules)
      if (r.symbol() == s.rule) rule = &r;
    if (rule == nullptr) return fmt::format("step {}: no rule named '{}'", i + 1, s.rule.str());
    if (rule->lhs() == nullptr || rule->rhs() == nullptr)
      return fmt::format("step {}: rule '{}' has a C++ side; it cannot be checked", i + 1,
                         s.rule.str());
    bool fwd = s.direction == Direction::kForward;
    StepChecker checker(fwd ? *rule->lhs() : *rule->rhs(), fwd ? *rule->rhs() : *rule->lhs(),
                        *before, s.term);
    if (!checker.check())
      return fmt::format("step {}: {} is not one application of '{}' ({}) to {}", i + 1,
                         s.term.to_string(), s.rule.str(), fwd ? "forward" : "backward",
                         before->to_string());
    before = &s.term;
  }
  return std::nullopt;
}

} // namespace tilesat::egraph
