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
  auto index_of = [&](const std::string& name) {
    auto it = std::find(names_.begin(), names_.end(), name);
    if (it != names_.end()) return static_cast<std::uint32_t>(it - names_.begin());
    names_.push_back(name);
    return static_cast<std::uint32_t>(names_.size() - 1);
  };
  for (auto& [root, pattern] : parts) {
    if (pattern.num_attr_vars() != 0)
      throw RuleError(fmt::format("multi-pattern part {} = {} uses attribute variables", root,
                                  pattern.to_string()));
    bool bound = std::find(names_.begin(), names_.end(), root) != names_.end();
    Part part{index_of(root), pattern, {}, bound};
    for (const auto& v : pattern.var_names()) part.vars.push_back(index_of(v));
    parts_.push_back(std::move(part));
  }
  if (parts_.empty()) throw RuleError("a multi-pattern needs at least one part");
}

class MultiPattern::Join {
public:
  Join(const MultiPattern& mp, const EGraph& eg, Matches& out, std::size_t limit,
       const Deadline& deadline)
      : mp_(mp), eg_(eg), out_(out), limit_(limit), deadline_(deadline),
        binding_(mp.names_.size(), kNoId), all_(mp.parts_.size()) {
    for (std::size_t k = 0; k < mp.parts_.size(); ++k)
      if (!mp.parts_[k].root_bound_before)
        mp.parts_[k].pattern.search(eg, all_[k], std::numeric_limits<std::size_t>::max(), deadline);
  }

  bool run(std::size_t k) {
    if (k == mp_.parts_.size()) {
      Id* rec = out_.append();
      rec[0] = binding_[mp_.parts_[0].root_var];
      std::copy(binding_.begin(), binding_.end(), rec + 1);
      return out_.size() < limit_;
    }
    const Part& part = mp_.parts_[k];
    Matches local;
    const Matches* ms = &all_[k];
    if (part.root_bound_before) {
      part.pattern.search_class(eg_, binding_[part.root_var], local);
      ms = &local;
    }
    std::vector<std::uint32_t> newly;
    for (std::size_t i = 0; i < ms->size(); ++i) {
      newly.clear();
      bool ok = bind(part.root_var, ms->root(i), newly);
      Subst s = ms->subst(i, eg_);
      for (std::size_t v = 0; ok && v < part.vars.size(); ++v)
        ok = bind(part.vars[v], s[Var{static_cast<std::uint32_t>(v)}], newly);
      if (ok && !run(k + 1)) return false;
      for (std::uint32_t v : newly) binding_[v] = kNoId;
      if (deadline_.passed_at(++steps_)) return false;
    }
    return true;
  }

private:
  bool bind(std::uint32_t var, Id id, std::vector<std::uint32_t>& newly) {
    id = eg_.find(id);
    if (binding_[var] == kNoId) {
      binding_[var] = id;
      newly.push_back(var);
      return true;
    }
    return binding_[var] == id;
  }

  const MultiPattern& mp_;
  const EGraph& eg_;
  Matches& out_;
  std::size_t limit_;
  const Deadline& deadline_;
  std::size_t steps_ = 0;
  std::vector<Id> binding_;
  std::vector<Matches> all_;
};

void MultiPattern::search(const EGraph& eg, Matches& out, std::size_t limit,
                          const Deadline& deadline) const {
  out.reset(static_cast<std::uint32_t>(names_.size()), 0);
  if (limit == 0) return;
  Join(*this, eg, out, limit, deadline).run(0);
}

std::string MultiPattern::to_string() const {
  std::string out;
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    if (k != 0) out += ", ";
    out += fmt::format("{} = {}", names_[parts_[k].root_var], parts_[k].pattern.to_string());
  }
  return out;
}

} // namespace tilesat::egraph
