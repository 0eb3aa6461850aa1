// MultiPattern: several patterns matched together and joined on their shared variables.
//
// For rules whose left side is not one term, e.g. "a class holding (f ?x) and another holding
// (g ?x)": `?a = (f ?x), ?b = (g ?x)`. Each part binds its root class to the named variable; a
// part whose root variable an earlier part bound is searched in that class only. Class
// variables join on equal classes, attribute variables on equal values: `?p = (f[k=?t] ?x),
// ?q = (g[k=?t] ?x)` matches only when both payloads hold the same `k`. Like a Pattern's,
// the variables are numbered class variables first (the roots among them), then attribute
// variables; a match's root is the first part's root. Use it with a C++ applier, which may
// union each root with its own result.
//
//   auto mp = std::make_shared<MultiPattern>(
//       MultiPattern::parse("?a = (f[k=?t] ?x), ?b = (g[k=?t] ?x)"));
//   Rewrite r("fg", mp, applier({"?a", "?b"}, unite_a_b));
#pragma once

#include "tilesat/egraph/pattern.h"
#include "tilesat/egraph/searcher.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilesat::egraph {

class MultiPattern final : public Searcher {
public:
  /// One part, `?root = pattern`, with its variables numbered in the multi-pattern.
  struct Part {
    Var root;               // a class variable of the multi-pattern
    Pattern pattern;        // the part's own pattern
    std::vector<Var> vars;  // pattern variable i is multi-pattern variable vars[i]
    bool root_bound_before; // an earlier part binds `root` (searched in that class only)
  };

  /// Reads `?v1 = pattern1, ?v2 = pattern2, ...`; throws ParseError.
  static MultiPattern parse(std::string_view text);
  /// Throws RuleError when there is no part or a variable is a class variable in one place
  /// and an attribute variable in another.
  explicit MultiPattern(std::vector<std::pair<std::string, Pattern>> parts);

  using Searcher::search;
  void search(const EGraph& eg, Matches& out, std::size_t limit,
              const Deadline& deadline) const override;
  const std::vector<std::string>& var_names() const override { return names_; }
  std::string to_string() const override;

  const std::vector<Part>& parts() const { return parts_; }
  std::uint32_t num_class_vars() const { return num_class_vars_; }
  std::uint32_t num_attr_vars() const {
    return static_cast<std::uint32_t>(names_.size()) - num_class_vars_;
  }
  std::optional<Var> find_var(std::string_view name) const;
  bool is_attr_var(Var v) const { return v.index >= num_class_vars_; }

private:
  class Join;

  std::vector<Part> parts_;
  std::vector<std::string> names_;
  std::uint32_t num_class_vars_ = 0;
};

} // namespace tilesat::egraph
