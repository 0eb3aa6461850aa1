// The math test language: constant folding, guards and rules.
#include "math_language.h"

namespace tilesat::egraph::math {
namespace {

struct Ops {
  Symbol add = Symbol::intern("+");
  Symbol sub = Symbol::intern("-");
  Symbol mul = Symbol::intern("*");
  Symbol div = Symbol::intern("/");
};

const Ops& ops() {
  static const Ops o;
  return o;
}

/// The constant of a class, when the e-graph folds constants and the class is one.
std::optional<Rational> constant_of(const EGraph& eg, Id cls) {
  const ConstantFold* fold = eg.find_analysis<ConstantFold>();
  if (fold == nullptr) return std::nullopt;
  return fold->value(eg.find(cls));
}

bool has_symbol(const EGraph& eg, Id cls) {
  for (NodeId n : eg.eclass(cls).nodes) {
    ENode node = eg.node(n);
    if (node.is_leaf() && node.op != Symbol::constant()) return true;
  }
  return false;
}

} // namespace

std::uint32_t ConstantFold::make(const EGraph& eg, const ENode& node) const {
  if (node.op == Symbol::constant()) {
    const AttrValue* v = eg.attrs(node.attrs).literal_value();
    if (v != nullptr && v->is_rational()) return data_of(v->as_rational());
    return 0;
  }
  if (node.children.size() != 2) return 0;
  const std::uint32_t ka = (*this)[eg.find(node.children[0])];
  if (ka == 0) return 0;
  const std::uint32_t kb = (*this)[eg.find(node.children[1])];
  if (kb == 0) return 0;
  const Rational a = values_[ka - 1], b = values_[kb - 1];
  const Ops& o = ops();
  if (node.op == o.add) return data_of(checked_add(a, b));
  if (node.op == o.sub) return data_of(checked_sub(a, b));
  if (node.op == o.mul) return data_of(checked_mul(a, b));
  if (node.op == o.div) return data_of(checked_div(a, b)); // nullopt for a zero divisor
  return 0;
}

DidMerge ConstantFold::merge(std::uint32_t& a, std::uint32_t b) const {
  if (a != 0 && b != 0) return {}; // equal constants (exact arithmetic): nothing changes
  if (a == 0 && b != 0) {
    a = b;
    return {true, false};
  }
  if (a != 0 && b == 0) return {false, true};
  return {};
}

void ConstantFold::modify(EGraph& eg, Id cls) {
  const std::optional<Rational> value_of_class = value(cls);
  if (!value_of_class) return;
  const Rational c = *value_of_class;
  // Usually the class already holds its literal and nothing else: then there is nothing to do.
  bool has_literal = false, only_leaves = true;
  for (NodeId n : eg.eclass(cls).nodes) {
    ENode node = eg.node(n);
    only_leaves &= node.is_leaf();
    if (node.op != Symbol::constant()) continue;
    const AttrValue* v = eg.attrs(node.attrs).literal_value();
    has_literal |= v != nullptr && v->is_rational() && v->as_rational() == c;
  }
  if (!has_literal) {
    Id leaf = eg.add_literal(AttrValue(c));
    eg.merge(cls, leaf, Justification::reason("constant-fold"));
  }
  if (!only_leaves || !has_literal)
    eg.retain_nodes(cls, [](const ENode& n) { return n.is_leaf(); });
}

std::shared_ptr<Condition> not_zero(std::string var) {
  return guard("not-zero", {std::move(var)},
               [](const EGraph& eg, const Subst& s, std::span<const Var> v) -> Verdict {
                 auto c = constant_of(eg, s[v[0]]);
                 if (c && c->num == 0) return Verdict::decline("is the constant 0");
                 return Verdict::accept();
               });
}

std::shared_ptr<Condition> is_const(std::string var) {
  return guard("is-const", {std::move(var)},
               [](const EGraph& eg, const Subst& s, std::span<const Var> v) -> Verdict {
                 if (constant_of(eg, s[v[0]])) return Verdict::accept();
                 return Verdict::decline("not a constant");
               });
}

std::shared_ptr<Condition> is_sym(std::string var) {
  return guard("is-sym", {std::move(var)},
               [](const EGraph& eg, const Subst& s, std::span<const Var> v) -> Verdict {
                 if (has_symbol(eg, eg.find(s[v[0]]))) return Verdict::accept();
                 return Verdict::decline("not a symbol");
               });
}

std::shared_ptr<Condition> is_const_or_distinct_var(std::string var, std::string other) {
  return guard("is-const-or-distinct-var", {std::move(var), std::move(other)},
               [](const EGraph& eg, const Subst& s, std::span<const Var> v) -> Verdict {
                 Id a = eg.find(s[v[0]]), b = eg.find(s[v[1]]);
                 if (a == b) return Verdict::decline("same class as the variable");
                 if (constant_of(eg, a) || has_symbol(eg, a)) return Verdict::accept();
                 return Verdict::decline("neither a constant nor a symbol");
               });
}

std::vector<Rewrite> rules() {
  std::vector<Rewrite> r;
  auto rw = [&](const char* name, const char* lhs, const char* rhs, Rewrite::Conditions c = {}) {
    r.push_back(rewrite(name, lhs, rhs, std::move(c)));
  };
  // clang-format off
  rw("comm-add",      "(+ ?a ?b)",              "(+ ?b ?a)");
  rw("comm-mul",      "(* ?a ?b)",              "(* ?b ?a)");
  rw("assoc-add",     "(+ ?a (+ ?b ?c))",       "(+ (+ ?a ?b) ?c)");
  rw("assoc-mul",     "(* ?a (* ?b ?c))",       "(* (* ?a ?b) ?c)");
  rw("sub-canon",     "(- ?a ?b)",              "(+ ?a (* -1 ?b))");
  rw("div-canon",     "(/ ?a ?b)",              "(* ?a (pow ?b -1))", {not_zero("?b")});
  rw("zero-add",      "(+ ?a 0)",               "?a");
  rw("zero-mul",      "(* ?a 0)",               "0");
  rw("one-mul",       "(* ?a 1)",               "?a");
  rw("add-zero",      "?a",                     "(+ ?a 0)");
  rw("mul-one",       "?a",                     "(* ?a 1)");
  rw("cancel-sub",    "(- ?a ?a)",              "0");
  rw("cancel-div",    "(/ ?a ?a)",              "1", {not_zero("?a")});
  rw("distribute",    "(* ?a (+ ?b ?c))",       "(+ (* ?a ?b) (* ?a ?c))");
  rw("factor",        "(+ (* ?a ?b) (* ?a ?c))", "(* ?a (+ ?b ?c))");
  rw("pow-mul",       "(* (pow ?a ?b) (pow ?a ?c))", "(pow ?a (+ ?b ?c))");
  rw("pow0",          "(pow ?x 0)",             "1", {not_zero("?x")});
  rw("pow1",          "(pow ?x 1)",             "?x");
  rw("pow2",          "(pow ?x 2)",             "(* ?x ?x)");
  rw("pow-recip",     "(pow ?x -1)",            "(/ 1 ?x)", {not_zero("?x")});
  rw("recip-mul-div", "(* ?x (/ 1 ?x))",        "1", {not_zero("?x")});
  rw("d-variable",    "(d ?x ?x)",              "1", {is_sym("?x")});
  rw("d-constant",    "(d ?x ?c)",              "0", {is_sym("?x"), is_const_or_distinct_var("?c", "?x")});
  rw("d-add",         "(d ?x (+ ?a ?b))",       "(+ (d ?x ?a) (d ?x ?b))");
  rw("d-mul",         "(d ?x (* ?a ?b))",       "(+ (* ?a (d ?x ?b)) (* ?b (d ?x ?a)))");
  rw("d-sin",         "(d ?x (sin ?x))",        "(cos ?x)");
  rw("d-cos",         "(d ?x (cos ?x))",        "(* -1 (sin ?x))");
  rw("d-ln",          "(d ?x (ln ?x))",         "(/ 1 ?x)", {not_zero("?x")});
  rw("d-power",       "(d ?x (pow ?f ?g))",
     "(* (pow ?f ?g) (+ (* (d ?x ?f) (/ ?g ?f)) (* (d ?x ?g) (ln ?f))))",
     {not_zero("?f"), not_zero("?g")});
  rw("i-one",         "(i 1 ?x)",               "?x");
  rw("i-power-const", "(i (pow ?x ?c) ?x)",     "(/ (pow ?x (+ ?c 1)) (+ ?c 1))", {is_const("?c")});
  rw("i-cos",         "(i (cos ?x) ?x)",        "(sin ?x)");
  rw("i-sin",         "(i (sin ?x) ?x)",        "(* -1 (cos ?x))");
  rw("i-sum",         "(i (+ ?f ?g) ?x)",       "(+ (i ?f ?x) (i ?g ?x))");
  rw("i-dif",         "(i (- ?f ?g) ?x)",       "(- (i ?f ?x) (i ?g ?x))");
  rw("i-parts",       "(i (* ?a ?b) ?x)",
     "(- (* ?a (i ?b ?x)) (i (* (d ?x ?a) (i ?b ?x)) ?x))");
  // clang-format on
  return r;
}

std::vector<std::string> workload_terms() {
  return {
      "(i (ln x) x)",
      "(i (+ x (cos x)) x)",
      "(i (* (cos x) x) x)",
      "(d x (+ 1 (* 2 x)))",
      "(d x (- (pow x 3) (* 7 (pow x 2))))",
      "(+ (* y (+ x y)) (- (+ x 2) (+ x x)))",
      "(/ 1 (- (/ (+ 1 (sqrt five)) 2) (/ (- 1 (sqrt five)) 2)))",
  };
}

std::vector<Goal> workload_goals() {
  return {
      {"(d x (+ 1 (* 2 x)))", "2"},
      {"(i (* (cos x) x) x)", "(+ (* x (sin x)) (cos x))"},
      {"(i (ln x) x)", "(- (* x (ln x)) x)"},
      // (i x x) is solved once the class of x holds (pow x 1), which pow-mul derives from
      // (* (pow x -1) (pow x 2)); then i-power-const applies.
      {"(i (+ x (cos x)) x)", "(+ (/ (pow x 2) 2) (sin x))"},
  };
}

} // namespace tilesat::egraph::math
