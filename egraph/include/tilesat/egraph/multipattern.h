// MultiPattern: several patterns matched together and joined on their shared variables.
//
// For rules whose left side is not one term, e.g. "a class holding (f ?x) and another holding
// (g ?x)": `?a = (f ?x), ?b = (g ?x)`. Each part binds its root class to the named variable; a
// part whose root variable an earlier part bound is searched in that class only. Attribute
// variables are not supported in multi-patterns. Use it with a C++ applier.
//
//   auto mp = std::make_shared<MultiPattern>(MultiPattern::parse("?a = (f ?x), ?b = (g ?x)"));
//   Rewrite r("fg", mp, applier({"?a", "?b"}, unite_a_b));
#pragma once

#include "tilesat/egraph/pattern.h"
#include "tilesat/egraph/searcher.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilesat::egraph {

class MultiPattern final : public Searcher {
public:
  /// Reads `?v1 = pattern1, ?v2 = pattern2, ...`; throws ParseError.
  static MultiPattern parse(std::string_view text);
  /// Throws RuleError when a part uses attribute variables.
  explicit MultiPattern(std::vector<std::pair<std::string, Pattern>> parts);

  using Searcher::search;
  void search(const EGraph& eg, Matches& out, std::size_t limit,
              const Deadline& deadline) const override;
  const std::vector<std::string>& var_names() const override { return names_; }
  std::string to_string() const override;

private:
  struct Part {
    std::uint32_t root_var;
    Pattern pattern;
    std::vector<std::uint32_t> vars; // pattern var i -> merged var
    bool root_bound_before;          // an earlier part binds root_var
  };
  class Join;

  std::vector<Part> parts_;
  std::vector<std::string> names_;
};

} // namespace tilesat::egraph
