// egraph_match_repeats: how many of each iteration's matches on the math workload were already
// found in an earlier iteration, the most that matching only new matches (semi-naive
// e-matching) could skip. The workload runs as the runner runs it (every rule searched, then
// every rule applied, then one rebuild), with each match kept; a match counts as a repeat when
// its rule, root class and substitution, made canonical, equal an earlier one's.
//
//   egraph_match_repeats --iterations 7
//
// One line per iteration: `iteration=I matches=M repeats=R applied=A enodes=N`.
#include "../../tests/egraph/math_language.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <limits>
#include <set>
#include <span>
#include <vector>

using namespace tilesat::egraph;

namespace {

/// A match record (root, class variables, attribute words) with its root and class variables
/// made canonical.
std::vector<Id> canonical(const EGraph& eg, std::span<const Id> record,
                          std::size_t num_class_vars) {
  std::vector<Id> out(record.begin(), record.end());
  for (std::size_t k = 0; k <= num_class_vars; ++k) out[k] = eg.find(out[k]);
  return out;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Counts the math workload's matches that repeat an earlier iteration's."};
  std::size_t iterations = 7;
  app.add_option("--iterations", iterations, "Iterations to run")
      ->check(CLI::Range(std::size_t{1}, std::size_t{9}))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const std::vector<Rewrite> rules = math::rules();
  EGraph eg;
  eg.add_analysis<math::ConstantFold>();
  for (const auto& t : math::workload_terms()) eg.add_term(RecExpr::parse(t));
  eg.rebuild();

  std::vector<std::vector<std::vector<Id>>> seen(rules.size()); // per rule: earlier matches
  for (std::size_t it = 0; it < iterations; ++it) {
    std::vector<Matches> found(rules.size());
    std::size_t matches = 0, repeats = 0;
    for (std::size_t r = 0; r < rules.size(); ++r) {
      rules[r].search(eg, found[r], std::numeric_limits<std::size_t>::max());
      const Matches& m = found[r];
      std::set<std::vector<Id>> earlier;
      for (const std::vector<Id>& e : seen[r]) earlier.insert(canonical(eg, e, m.num_class_vars()));
      for (std::size_t i = 0; i < m.size(); ++i) {
        std::vector<Id> c =
            canonical(eg, m.words().subspan(i * m.stride(), m.stride()), m.num_class_vars());
        ++matches;
        repeats += earlier.count(c);
        seen[r].push_back(std::move(c));
      }
    }
    std::size_t applied = 0;
    for (std::size_t r = 0; r < rules.size(); ++r) applied += rules[r].apply(eg, found[r]).applied;
    eg.rebuild();
    fmt::print("iteration={} matches={} repeats={} applied={} enodes={}\n", it, matches, repeats,
               applied, eg.num_nodes());
  }
  return 0;
}
