// The prove() helper behind EGRAPH_TEST_FN.
#include "test_support.h"

#include <cstdlib>

namespace tilesat::egraph::testing {

ProveResult prove(const std::vector<Rewrite>& rules, const std::string& start,
                  const std::vector<std::string>& goals, RunnerConfig config) {
  if (const char* n = std::getenv("TILESAT_EGRAPH_NODE_LIMIT"))
    config.with_node_limit(std::strtoull(n, nullptr, 10));
  if (const char* t = std::getenv("TILESAT_EGRAPH_TIME_LIMIT"))
    config.with_time_limit(std::chrono::duration<double>(std::strtod(t, nullptr)));
  EGraph eg;
  eg.add_analysis<math::ConstantFold>();
  Id root = eg.add_term(RecExpr::parse(start));
  // The goals are added too, so a goal whose subterms fold to constants can still be named.
  std::vector<Id> goal_ids;
  for (const auto& g : goals) goal_ids.push_back(eg.add_term(RecExpr::parse(g)));
  auto all_proved = [&](const EGraph& g) {
    for (Id id : goal_ids)
      if (g.find(id) != g.find(root)) return false;
    return true;
  };
  config.with_invariant_checks().with_hook(
      [&](const EGraph& g, const Iteration&) -> std::optional<std::string> {
        if (all_proved(g)) return std::string("goals reached");
        return std::nullopt;
      });
  ProveResult out;
  out.report = Runner(config).run(eg, rules);
  out.proved = all_proved(eg);
  if (!out.proved) {
    std::string expected;
    for (const auto& g : goals) expected += g + " ";
    ADD_FAILURE() << "Input:    " << start
                  << "\nOutput:   " << Extractor(eg, AstSize()).extract(root).to_string()
                  << "\nExpected: " << expected << "\nStop:     " << out.report.stop.to_string();
  }
  return out;
}

} // namespace tilesat::egraph::testing
