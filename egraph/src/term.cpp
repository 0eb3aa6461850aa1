// RecExpr: parsing, printing and structural comparison of concrete terms.
#include "tilesat/egraph/term.h"

#include "sexpr.h"

namespace tilesat::egraph {
namespace {

std::uint32_t build(RecExpr& out, const detail::SExpr& e) {
  using Kind = detail::SExpr::Kind;
  if (e.kind == Kind::kVar) throw ParseError(e.line, e.col, "a term", "variable '" + e.name + "'");
  if (e.kind == Kind::kLiteral) return out.add_literal(e.literal);
  std::vector<std::uint32_t> kids;
  kids.reserve(e.children.size());
  for (const auto& c : e.children) kids.push_back(build(out, c));
  std::vector<Attr> attrs;
  for (const auto& a : e.attrs) {
    if (a.is_var) throw ParseError(a.line, a.col, "an attribute value", "variable '" + a.var + "'");
    attrs.push_back(Attr{Symbol::intern(a.key), a.value});
  }
  return out.add(Symbol::intern(e.name), std::move(kids), Attrs(std::move(attrs)));
}

void print(const RecExpr& t, std::uint32_t i, std::string& out) {
  const TermNode& n = t[i];
  if (n.children.empty()) {
    out += node_head(n.op, n.attrs);
    return;
  }
  out += '(';
  out += node_head(n.op, n.attrs);
  for (std::uint32_t c : n.children) {
    out += ' ';
    print(t, c, out);
  }
  out += ')';
}

} // namespace

std::string node_head(Symbol op, const Attrs& attrs) {
  if (op == Symbol::constant())
    if (const AttrValue* v = attrs.literal_value()) return v->to_string();
  std::string s(op.str());
  s += attrs.to_string();
  return s;
}

RecExpr RecExpr::parse(std::string_view text) {
  detail::SExprReader reader(text);
  detail::SExpr e = reader.read();
  reader.expect_end();
  RecExpr out;
  build(out, e);
  return out;
}

std::uint32_t RecExpr::add(TermNode node) {
  nodes_.push_back(std::move(node));
  return root();
}

std::uint32_t RecExpr::add(Symbol op, std::vector<std::uint32_t> children, Attrs attrs) {
  return add(TermNode{op, std::move(attrs), std::move(children)});
}

std::uint32_t RecExpr::add_literal(AttrValue v) {
  return add(Symbol::constant(), {}, Attrs::literal(std::move(v)));
}

std::string RecExpr::to_string() const {
  return nodes_.empty() ? "" : to_string(root());
}

std::string RecExpr::to_string(std::uint32_t index) const {
  std::string out;
  print(*this, index, out);
  return out;
}

bool RecExpr::same_subterm(std::uint32_t i, const RecExpr& other, std::uint32_t j) const {
  const TermNode& a = nodes_[i];
  const TermNode& b = other.nodes_[j];
  if (a.op != b.op || a.children.size() != b.children.size() || !(a.attrs == b.attrs)) return false;
  for (std::size_t k = 0; k < a.children.size(); ++k)
    if (!same_subterm(a.children[k], other, b.children[k])) return false;
  return true;
}

bool RecExpr::same_term(const RecExpr& other) const {
  if (empty() || other.empty()) return empty() && other.empty();
  return same_subterm(root(), other, other.root());
}

} // namespace tilesat::egraph
