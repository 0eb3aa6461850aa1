// optimize.cpp: load -> saturate -> extract, with an optional explanation.
#include "tilesat/rewrites/optimize.h"

#include "tilesat/rewrites/extract.h"
#include "tilesat/rewrites/repeat_interleave.h"
#include "tilesat/rewrites/term_language.h"

#include <fmt/format.h>
#include <map>
#include <tuple>

namespace tilesat::rewrites {

OptimizeResult optimize(const Graph& source, std::span<const egraph::Rewrite> rules,
                        const OptimizeOptions& options) {
  const Graph g = fold_repeat_interleave(source);
  TensorEGraph teg = to_egraph(g, ToEGraphOptions{.explanations = options.explain});
  egraph::RunnerConfig config = options.runner;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> declined;
  if (options.explain) {
    config.with_decline_hook(
        [&declined](const egraph::Rewrite& r, const egraph::Condition& c, std::string_view why) {
          ++declined[{r.name(), c.name(), std::string(why)}];
        });
  }
  OptimizeResult out;
  out.report = egraph::Runner(config).run(teg.egraph, rules);
  Selection pick = select_cheapest(teg, OpCount());
  out.graph = to_graph(teg, pick);
  // Result types keep the source's encoding (e.g. #ttnn_layout) when the value type is equal.
  for (size_t i = 0; i < g.results().size(); ++i) {
    const TensorType& src = g.node(g.results()[i].value).type;
    Node& n = out.graph.mutable_node(out.graph.results()[i].value);
    if (n.kind != OpKind::Argument && n.type.same_value_type(src)) n.type.encoding = src.encoding;
  }
  if (!options.explain) return out;
  std::string text;
  for (size_t i = 0; i < g.results().size(); ++i) {
    text += fmt::format("result {}:\n", i);
    try {
      egraph::RecExpr from = source_term(teg, g.results()[i].value);
      egraph::RecExpr to = selected_term(teg, pick, teg.results[i]);
      teg.egraph.add_term(to);
      teg.egraph.rebuild();
      text += teg.egraph.explain_equivalence(from, to).to_string();
    } catch (const std::exception& e) {
      text += fmt::format("  (no explanation: {})\n", e.what());
    }
    if (!text.empty() && text.back() != '\n') text += '\n';
  }
  if (!declined.empty()) text += "declined matches (rule, guard: reason, count):\n";
  for (const auto& [key, count] : declined) {
    const auto& [rule, guard, why] = key;
    text += fmt::format("  {}, {}: {} ({})\n", rule, guard, why.empty() ? "declined" : why, count);
  }
  out.explanation = std::move(text);
  return out;
}

} // namespace tilesat::rewrites
