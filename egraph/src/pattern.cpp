// Patterns: reading them from text, searching, instantiating and printing.
#include "tilesat/egraph/pattern.h"

#include "sexpr.h"
#include "tilesat/egraph/egraph.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>
#include <stdexcept>

namespace tilesat::egraph {
namespace {

using detail::SExpr;

struct VarInfo {
  std::string name;
  bool is_attr;
};

class PatternBuilder {
public:
  void collect(const SExpr& e) {
    if (e.kind == SExpr::Kind::kVar) {
      note(e.name, false, e.line, e.col);
      return;
    }
    for (const auto& a : e.attrs)
      if (a.is_var) note(a.var, true, a.line, a.col);
    for (const auto& c : e.children) collect(c);
  }

  std::uint32_t build(const SExpr& e, std::vector<PatternNode>& out) {
    PatternNode n;
    switch (e.kind) {
    case SExpr::Kind::kVar:
      n.kind = PatternNode::Kind::kVar;
      n.var = var_of(e.name);
      break;
    case SExpr::Kind::kLiteral:
      n.kind = PatternNode::Kind::kLiteral;
      n.literal = e.literal;
      break;
    case SExpr::Kind::kOp: {
      n.kind = PatternNode::Kind::kOp;
      n.op = Symbol::intern(e.name);
      for (const auto& c : e.children) n.children.push_back(build(c, out));
      for (const auto& a : e.attrs) {
        PatternAttr pa;
        pa.key = Symbol::intern(a.key);
        pa.is_var = a.is_var;
        if (a.is_var)
          pa.var = var_of(a.var);
        else
          pa.value = a.value;
        n.attrs.push_back(std::move(pa));
      }
      break;
    }
    }
    out.push_back(std::move(n));
    return static_cast<std::uint32_t>(out.size() - 1);
  }

  std::vector<std::string> class_vars, attr_vars;

private:
  void note(const std::string& name, bool is_attr, int line, int col) {
    for (const auto& v : seen_) {
      if (v.name != name) continue;
      if (v.is_attr == is_attr) return;
      throw ParseError(line, col, is_attr ? "an attribute variable" : "a class variable",
                       fmt::format("'{}', already used as {}", name,
                                   v.is_attr ? "an attribute variable" : "a class variable"));
    }
    seen_.push_back(VarInfo{name, is_attr});
    (is_attr ? attr_vars : class_vars).push_back(name);
  }
  Var var_of(const std::string& name) const {
    for (std::size_t i = 0; i < class_vars.size(); ++i)
      if (class_vars[i] == name) return Var{static_cast<std::uint32_t>(i)};
    for (std::size_t i = 0; i < attr_vars.size(); ++i)
      if (attr_vars[i] == name) return Var{static_cast<std::uint32_t>(class_vars.size() + i)};
    throw std::logic_error("pattern variable not collected: " + name);
  }
  std::vector<VarInfo> seen_;
};

} // namespace

Pattern detail::pattern_from_sexpr(const SExpr& e) {
  PatternBuilder b;
  b.collect(e);
  std::vector<PatternNode> nodes;
  b.build(e, nodes);
  return Pattern(std::move(nodes), std::move(b.class_vars), std::move(b.attr_vars));
}

Pattern Pattern::parse(std::string_view text) {
  detail::SExprReader reader(text);
  SExpr e = reader.read();
  reader.expect_end();
  return detail::pattern_from_sexpr(e);
}

Pattern::Pattern(std::vector<PatternNode> nodes, std::vector<std::string> class_vars,
                 std::vector<std::string> attr_vars)
    : nodes_(std::move(nodes)), var_names_(std::move(class_vars)),
      num_class_vars_(static_cast<std::uint32_t>(var_names_.size())) {
  if (nodes_.empty()) throw std::invalid_argument("a pattern needs at least one node");
  var_names_.insert(var_names_.end(), attr_vars.begin(), attr_vars.end());
  program_ = detail::compile(*this);
  // Variables first (their ids come from the substitution), then the nodes to add, children
  // numbered by their place in that order.
  std::vector<std::uint32_t> slot(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].kind == PatternNode::Kind::kVar) {
      slot[i] = static_cast<std::uint32_t>(build_vars_.size());
      build_vars_.push_back(nodes_[i].var.index);
    }
  const auto num_vars = static_cast<std::uint32_t>(build_vars_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const PatternNode& n = nodes_[i];
    if (n.kind == PatternNode::Kind::kVar) continue;
    slot[i] = num_vars + static_cast<std::uint32_t>(build_.size());
    BuildStep s{
        n.kind == PatternNode::Kind::kLiteral ? Symbol::constant() : n.op,
        std::any_of(n.attrs.begin(), n.attrs.end(), [](const PatternAttr& a) { return a.is_var; }),
        static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(build_children_.size()),
        static_cast<std::uint32_t>(n.children.size())};
    for (std::uint32_t c : n.children) build_children_.push_back(slot[c]);
    build_.push_back(s);
  }
}

std::optional<Var> Pattern::find_var(std::string_view name) const {
  for (std::size_t i = 0; i < var_names_.size(); ++i)
    if (var_names_[i] == name) return Var{static_cast<std::uint32_t>(i)};
  return std::nullopt;
}

Var Pattern::var(std::string_view name) const {
  if (auto v = find_var(name)) return *v;
  throw std::out_of_range(fmt::format("pattern {} has no variable {}", to_string(), name));
}

void Pattern::search(const EGraph& eg, Matches& out, std::size_t limit,
                     const Deadline& deadline) const {
  out.reset(num_class_vars_, num_attr_vars());
  program_.search(eg, limit, out, deadline);
}

void Pattern::search_class(const EGraph& eg, Id cls, Matches& out) const {
  out.reset(num_class_vars_, num_attr_vars());
  program_.search_class(eg, cls, std::numeric_limits<std::size_t>::max(), out);
}

void Pattern::fill_attr_cache(EGraph& eg) const {
  attr_cache_.assign(nodes_.size(), kNoAttrs);
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const PatternNode& n = nodes_[i];
    if (n.kind == PatternNode::Kind::kLiteral)
      attr_cache_[i] = eg.intern_attrs(Attrs::literal(n.literal));
    bool constant =
        std::none_of(n.attrs.begin(), n.attrs.end(), [](const PatternAttr& a) { return a.is_var; });
    if (n.kind == PatternNode::Kind::kOp && !n.attrs.empty() && constant) {
      std::vector<Attr> entries;
      for (const PatternAttr& a : n.attrs) entries.push_back(Attr{a.key, a.value});
      attr_cache_[i] = eg.intern_attrs(Attrs(std::move(entries)));
    }
  }
  attr_cache_uid_ = eg.uid();
}

AttrId Pattern::intern_varying_attrs(EGraph& eg, std::size_t node, const Subst& subst,
                                     std::span<const Var> var_map) const {
  const PatternNode& n = nodes_[node];
  std::vector<Attr> entries;
  entries.reserve(n.attrs.size());
  for (const PatternAttr& a : n.attrs)
    entries.push_back(Attr{a.key, a.is_var ? subst.attr(var_map[a.var.index]) : a.value});
  return eg.intern_attrs(Attrs(std::move(entries)));
}

// instantiate(), instantiate_into() and find_instance(): adds (or looks up) the nodes below
// the root and hands the root to `root_var(id)` (a variable) or `root_op(op, kids, attrs)`.
template <Pattern::Inner kInner, class RootVar, class RootOp>
[[gnu::always_inline]] inline auto Pattern::build(EGraph& eg, const Subst& subst,
                                                  std::span<const Var> var_map, RootVar&& root_var,
                                                  RootOp&& root_op) const {
  if (attr_cache_uid_ != eg.uid()) [[unlikely]]
    fill_attr_cache(eg);
  const std::size_t num_vars = build_vars_.size(), num_steps = build_.size();
  constexpr std::size_t kInline = 32, kInlineKids = 16;
  Id inline_ids[kInline];
  Id inline_kids[kInlineKids];
  std::unique_ptr<Id[]> heap_ids, heap_kids; // only for very large patterns or wide nodes
  Id* ids = inline_ids;
  if (num_vars + num_steps > kInline) [[unlikely]] {
    heap_ids = std::make_unique<Id[]>(num_vars + num_steps);
    ids = heap_ids.get();
  }
  // A pattern that is one variable adds nothing (the constructor checks there is a node).
  if (num_steps == 0) return root_var(subst[var_map[build_vars_[0]]]);
  for (std::size_t v = 0; v < num_vars; ++v) ids[v] = subst[var_map[build_vars_[v]]];
  const BuildStep* steps = build_.data();
  const AttrId* cache = attr_cache_.data();
  const std::uint32_t* child_slots = build_children_.data();
  for (std::size_t i = 0;; ++i) {
    const BuildStep& s = steps[i];
    AttrId attrs = s.attrs_vary ? intern_varying_attrs(eg, s.node, subst, var_map) : cache[s.node];
    const std::uint32_t* from = child_slots + s.first;
    Id* kids = inline_kids;
    switch (s.arity) {
    case 0:
      break;
    case 1:
      kids[0] = ids[from[0]];
      break;
    case 2:
      kids[0] = ids[from[0]];
      kids[1] = ids[from[1]];
      break;
    default:
      if (s.arity > kInlineKids) [[unlikely]] {
        heap_kids = std::make_unique<Id[]>(s.arity);
        kids = heap_kids.get();
      }
      for (std::uint32_t k = 0; k < s.arity; ++k) kids[k] = ids[from[k]];
    }
    std::span<const Id> kid_span(kids, s.arity);
    if (i + 1 == num_steps) return root_op(s.op, kid_span, attrs);
    if constexpr (kInner == Inner::kAdd) {
      ids[num_vars + i] = eg.add_uncanonical(s.op, kid_span, attrs);
    } else {
      std::optional<Id> found = eg.lookup(s.op, kid_span, attrs);
      if (!found) return kNoId;
      ids[num_vars + i] = *found;
    }
  }
}

Id Pattern::instantiate(EGraph& eg, const Subst& subst, std::span<const Var> var_map) const {
  return build<Inner::kAdd>(
      eg, subst, var_map, [](Id v) { return v; },
      [&](Symbol op, std::span<const Id> kids, AttrId attrs) {
        return eg.add_uncanonical(op, kids, attrs);
      });
}

bool Pattern::instantiate_into(EGraph& eg, Id cls, const Subst& subst, std::span<const Var> var_map,
                               Justification why) const {
  return build<Inner::kAdd>(
      eg, subst, var_map, [&](Id v) { return eg.merge(cls, v, why); },
      [&](Symbol op, std::span<const Id> kids, AttrId attrs) {
        return eg.add_into(cls, op, kids, attrs, why);
      });
}

Id Pattern::find_instance(EGraph& eg, const Subst& subst, std::span<const Var> var_map) const {
  return build<Inner::kLookup>(
      eg, subst, var_map, [&](Id v) { return eg.find(v); },
      [&](Symbol op, std::span<const Id> kids, AttrId attrs) {
        return eg.lookup(op, kids, attrs).value_or(kNoId);
      });
}

namespace {

void print(const Pattern& p, std::uint32_t i, std::string& out) {
  const PatternNode& n = p.nodes()[i];
  switch (n.kind) {
  case PatternNode::Kind::kVar:
    out += p.var_names()[n.var.index];
    return;
  case PatternNode::Kind::kLiteral:
    out += n.literal.to_string();
    return;
  case PatternNode::Kind::kOp:
    break;
  }
  std::string head(n.op.str());
  if (!n.attrs.empty()) {
    head += '[';
    for (std::size_t k = 0; k < n.attrs.size(); ++k) {
      if (k != 0) head += ", ";
      head += n.attrs[k].key.str();
      head += '=';
      head +=
          n.attrs[k].is_var ? p.var_names()[n.attrs[k].var.index] : n.attrs[k].value.to_string();
    }
    head += ']';
  }
  if (n.children.empty()) {
    out += head;
    return;
  }
  out += '(';
  out += head;
  for (std::uint32_t c : n.children) {
    out += ' ';
    print(p, c, out);
  }
  out += ')';
}

} // namespace

std::string Pattern::to_string() const {
  std::string out;
  print(*this, root(), out);
  return out;
}

} // namespace tilesat::egraph
