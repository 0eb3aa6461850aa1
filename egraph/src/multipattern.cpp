// Multi-patterns: a nested-loop join of pattern matches on shared variables.
#include "tilesat/egraph/multipattern.h"

#include "sexpr.h"
#include "tilesat/egraph/egraph.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

namespace tilesat::egraph {

MultiPattern MultiPattern::parse(std::string_view text) {
  detail::SExprReader reader(text);
  std::vector<std::pair<std::string, Pattern>> parts;
  do {
    reader.at_end();
    int line = reader.line(), col = reader.col();
    detail::SExpr var = reader.read();
    if (var.kind != detail::SExpr::Kind::kVar)
      throw ParseError(line, col, "a variable such as ?a", "'" + var.name + "'");
    if (!reader.try_consume("=")) reader.fail("'='");
    parts.emplace_back(var.name, detail::pattern_from_sexpr(reader.read()));
    reader.try_consume(",");
  } while (!reader.at_end());
  return MultiPattern(std::move(parts));
}

MultiPattern::MultiPattern(std::vector<std::pair<std::string, Pattern>> parts) {
  if (parts.empty()) throw RuleError("a multi-pattern needs at least one part");
  // Class variables (roots among them) first, then attribute variables, each in order of
  // first appearance.
  std::vector<std::string> class_names, attr_names;
  auto note = [](std::vector<std::string>& into, const std::string& name) {
    if (std::find(into.begin(), into.end(), name) == into.end()) into.push_back(name);
  };
  for (const auto& [root, pattern] : parts) {
    note(class_names, root);
    const auto& names = pattern.var_names();
    for (std::uint32_t i = 0; i < names.size(); ++i)
      note(pattern.is_attr_var(Var{i}) ? attr_names : class_names, names[i]);
  }
  for (const std::string& a : attr_names) {
    if (std::find(class_names.begin(), class_names.end(), a) != class_names.end())
      throw RuleError(fmt::format("multi-pattern variable {} is both a class variable and an "
                                  "attribute variable",
                                  a));
  }
  num_class_vars_ = static_cast<std::uint32_t>(class_names.size());
  names_ = std::move(class_names);
  names_.insert(names_.end(), attr_names.begin(), attr_names.end());
  std::vector<bool> bound(names_.size(), false); // by an earlier part
  for (auto& [root, pattern] : parts) {
    Var r = *find_var(root);
    Part part{r, std::move(pattern), {}, bound[r.index]};
    bound[r.index] = true;
    for (const auto& v : part.pattern.var_names()) part.vars.push_back(*find_var(v));
    for (Var v : part.vars) bound[v.index] = true;
    parts_.push_back(std::move(part));
  }
}

std::optional<Var> MultiPattern::find_var(std::string_view name) const {
  auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) return std::nullopt;
  return Var{static_cast<std::uint32_t>(it - names_.begin())};
}

class MultiPattern::Join {
public:
  Join(const MultiPattern& mp, const EGraph& eg, Matches& out, std::size_t limit,
       const Deadline& deadline)
      : mp_(mp), eg_(eg), out_(out), limit_(limit), deadline_(deadline), binding_(mp.names_.size()),
        all_(mp.parts_.size()) {
    for (std::size_t k = 0; k < mp.parts_.size(); ++k)
      if (!mp.parts_[k].root_bound_before)
        mp.parts_[k].pattern.search(eg, all_[k], std::numeric_limits<std::size_t>::max(), deadline);
  }

  bool run(std::size_t k) {
    if (k == mp_.parts_.size()) {
      emit();
      return out_.size() < limit_;
    }
    const Part& part = mp_.parts_[k];
    Matches local;
    const Matches* ms = &all_[k];
    if (part.root_bound_before) {
      part.pattern.search_class(eg_, binding_[part.root.index].cls, local);
      ms = &local;
    }
    std::vector<std::uint32_t> newly;
    for (std::size_t i = 0; i < ms->size(); ++i) {
      newly.clear();
      bool ok = bind_class(part.root.index, ms->root(i), newly);
      Subst s = ms->subst(i, eg_);
      for (std::uint32_t v = 0; ok && v < part.vars.size(); ++v) {
        ok = part.pattern.is_attr_var(Var{v})
                 ? bind_attr(part.vars[v].index, s.attr_ref(Var{v}), newly)
                 : bind_class(part.vars[v].index, s[Var{v}], newly);
      }
      if (ok && !run(k + 1)) return false;
      for (std::uint32_t v : newly) binding_[v] = Slot{};
      if (deadline_.passed_at(++steps_)) return false;
    }
    return true;
  }

private:
  // A variable's binding: a class, or an attribute (payload id and entry index).
  struct Slot {
    bool bound = false;
    Id cls = kNoId;
    std::pair<AttrId, std::uint32_t> attr{};
  };

  void emit() {
    Id* rec = out_.append();
    rec[0] = binding_[mp_.parts_[0].root.index].cls;
    for (std::uint32_t v = 0; v < mp_.num_class_vars_; ++v) rec[1 + v] = binding_[v].cls;
    Id* attrs = rec + 1 + mp_.num_class_vars_;
    for (std::uint32_t v = mp_.num_class_vars_; v < binding_.size(); ++v) {
      *attrs++ = binding_[v].attr.first;
      *attrs++ = binding_[v].attr.second;
    }
  }

  bool bind_class(std::uint32_t var, Id id, std::vector<std::uint32_t>& newly) {
    id = eg_.find(id);
    Slot& s = binding_[var];
    if (s.bound) return s.cls == id;
    s = Slot{true, id, {}};
    newly.push_back(var);
    return true;
  }

  bool bind_attr(std::uint32_t var, std::pair<AttrId, std::uint32_t> ref,
                 std::vector<std::uint32_t>& newly) {
    Slot& s = binding_[var];
    if (s.bound) return s.attr == ref || value(s.attr) == value(ref);
    s = Slot{true, kNoId, ref};
    newly.push_back(var);
    return true;
  }

  const AttrValue& value(std::pair<AttrId, std::uint32_t> ref) const {
    return eg_.attrs(ref.first).entries()[ref.second].value;
  }

  const MultiPattern& mp_;
  const EGraph& eg_;
  Matches& out_;
  std::size_t limit_;
  const Deadline& deadline_;
  std::size_t steps_ = 0;
  std::vector<Slot> binding_;
  std::vector<Matches> all_;
};

void MultiPattern::search(const EGraph& eg, Matches& out, std::size_t limit,
                          const Deadline& deadline) const {
  out.reset(num_class_vars_, num_attr_vars());
  if (limit == 0) return;
  Join(*this, eg, out, limit, deadline).run(0);
}

std::string MultiPattern::to_string() const {
  std::string out;
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    if (k != 0) out += ", ";
    out += fmt::format("{} = {}", names_[parts_[k].root.index], parts_[k].pattern.to_string());
  }
  return out;
}

} // namespace tilesat::egraph
