// opt.cpp: `tilesat opt INPUT` saturates every function with rewrite rules, extracts the
// program with the fewest ops and prints the file as canonical TTIR.
#include "cli.h"
#include "opt_plan.h"
#include "tilesat/graph/parser.h"
#include "tilesat/graph/printer.h"
#include "tilesat/rewrites/optimize.h"
#include "tilesat/rewrites/rule_sets.h"

#include <chrono>
#include <fmt/format.h>

namespace tilesat::cli {

std::vector<egraph::Rewrite> selected_rules(const Options& o) {
  std::vector<std::string> sets =
      o.rule_sets.empty() && o.rule_files.empty() ? rewrites::rule_set_names() : o.rule_sets;
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(sets);
  for (const std::string& path : o.rule_files) {
    for (egraph::Rewrite& r : rewrites::load_rule_file(path).rewrites)
      rules.push_back(std::move(r));
  }
  return rules;
}

RandomInit random_init(const Options& o, RandomInit fallback) {
  if (o.random_init.empty()) return fallback;
  return o.random_init == "fan-in" ? RandomInit::FanIn : RandomInit::Uniform;
}

egraph::RunnerConfig runner_config(const Options& o) {
  egraph::RunnerConfig runner;
  if (o.iter_limit) runner.with_iter_limit(*o.iter_limit);
  if (o.node_limit) runner.with_node_limit(*o.node_limit);
  if (o.time_limit) runner.with_time_limit(std::chrono::duration<double>(*o.time_limit));
  return runner;
}

int run_opt(const Options& o) {
  std::vector<egraph::Rewrite> rules = selected_rules(o);
  rewrites::OptimizeOptions options;
  options.runner = runner_config(o);
  options.explain = o.explain;
  SourceFile file = load_input(o.input);
  if (!o.device.empty() || o.emit == "plan" || o.emit == "program" || !o.report_file.empty())
    return run_opt_plan(o, rules, options.runner, file);
  for (Module& m : file.modules) {
    for (Graph& g : m.functions) {
      rewrites::OptimizeResult r = rewrites::optimize(g, rules, options);
      if (o.stats) fmt::print(stderr, "// @{}\n{}", g.name(), r.report.to_table());
      if (o.explain) fmt::print(stderr, "// @{}\n{}", g.name(), r.explanation);
      g = std::move(r.graph);
    }
  }
  write_text("-", print_text(file));
  return 0;
}

} // namespace tilesat::cli
