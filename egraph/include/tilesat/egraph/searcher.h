// Searcher: the left side of a rule, anything that finds matches in a rebuilt e-graph.
//
// `Pattern` is the built-in searcher; `MultiPattern` joins several patterns on shared
// variables. A rule's guards and right side refer to the searcher's variables by name.
//
//   const Searcher& s = rule.searcher();
//   Matches m;
//   s.search(eg, m, 1000);   // at most 1000 matches
//   s.search(eg, m, 1000, Deadline::after(std::chrono::seconds(1)));  // and within a second
#pragma once

#include "tilesat/egraph/deadline.h"
#include "tilesat/egraph/subst.h"

#include <cstddef>
#include <string>
#include <vector>

namespace tilesat::egraph {

class EGraph;
class Pattern;

class Searcher {
public:
  virtual ~Searcher() = default;
  /// Resets `out` and appends up to `limit` matches, fewer when `deadline` passes first.
  /// Requires a rebuilt e-graph.
  virtual void search(const EGraph& eg, Matches& out, std::size_t limit,
                      const Deadline& deadline) const = 0;
  void search(const EGraph& eg, Matches& out, std::size_t limit) const {
    search(eg, out, limit, Deadline{});
  }
  /// Variable names: class variables first, then attribute variables.
  virtual const std::vector<std::string>& var_names() const = 0;
  virtual std::string to_string() const = 0;
  /// The searcher's single pattern, if it is one (explanations instantiate it).
  virtual const Pattern* pattern() const { return nullptr; }
};

} // namespace tilesat::egraph
