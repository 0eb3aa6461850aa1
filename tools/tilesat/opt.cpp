// opt.cpp: `tilesat opt INPUT` saturates every function with rewrite rules, extracts the
// program with the fewest ops and prints the file as canonical TTIR.
#include "cli.h"
#include "tilesat/graph/parser.h"
#include "tilesat/graph/printer.h"
#include "tilesat/rewrites/optimize.h"
#include "tilesat/rewrites/rule_sets.h"

#include <chrono>
#include <fmt/format.h>

namespace tilesat::cli {

int run_opt(const Options& o) {
  std::vector<std::string> sets =
      o.rule_sets.empty() && o.rule_files.empty() ? rewrites::rule_set_names() : o.rule_sets;
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(sets);
  for (const std::string& path : o.rule_files) {
    for (egraph::Rewrite& r : rewrites::load_rule_file(path).rewrites)
      rules.push_back(std::move(r));
  }
  rewrites::OptimizeOptions options;
  if (o.iter_limit) options.runner.with_iter_limit(*o.iter_limit);
  if (o.node_limit) options.runner.with_node_limit(*o.node_limit);
  if (o.time_limit) options.runner.with_time_limit(std::chrono::duration<double>(*o.time_limit));
  options.explain = o.explain;
  SourceFile file = parse_file(o.input);
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
