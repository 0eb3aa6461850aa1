// extract_compare: the dynamic program against exact extraction on the model fixtures
// (tests/models/*.onnx) and every model of the zoo present (scripts/make-zoo.py; parameters,
// the inputs whose names contain a dot, as weights).
//
// For each model, saturated with the default rule sets on wormhole_b0, one extraction with
// the exact time limit reports both extractors: their plans' predicted time (plan_graph;
// exact's is its best assignment's, the DP's own when Z3 found none better), their selections'
// extraction objective (extract_problem.h: op costs plus distinct conversions, DAG cost; for
// the DP also its tree-cost selection's, before the sharing-aware refinement), the
// best lower bound on that objective and where it comes from, the returned plan's gap, the
// solver's status, the seconds of the refinement (planning its selection included), of the
// solver (encoding and solving) and of the model (import to plan). Then the check: where exact
// extraction finished (status optimal), the dynamic program's objective is within 1% of its
// optimum.
//
//   extract_compare --zoo /work/zoo --time-limit 10
//   extract_compare --only bert_layer --time-limit 1
//   extract_compare --zoo /work/zoo --only resnet50_b128,vgg16_b16 --require
#include "tilesat/cost/device.h"
#include "tilesat/cost/extract.h"
#include "tilesat/onnx/import.h"
#include "tilesat/rewrites/rule_sets.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>

using namespace tilesat;

namespace {

struct Row {
  std::string name;
  size_t classes = 0;
  cost::ExtractionReport r;
  double seconds = 0;
  std::string error;
};

Row compare(const std::string& name, const std::string& path, bool params_as_weights,
            std::span<const egraph::Rewrite> rules, const cost::CostModel& model, double limit) {
  Row row;
  row.name = name;
  auto start = std::chrono::steady_clock::now();
  try {
    onnx::ImportedModel m = onnx::import_file(path);
    if (params_as_weights)
      for (NodeId a : m.graph.arguments())
        if (m.graph.node(a).name.find('.') != std::string::npos)
          m.graph.mutable_node(a).role = ArgRole::Weight;
    cost::ExtractOptions options;
    options.exact_time_limit_s = limit;
    cost::DevicePlanResult res = cost::optimize_for_device(m.graph, rules, {}, model, options);
    row.classes = res.report.egraph_classes;
    row.r = res.extraction;
  } catch (const std::exception& e) {
    row.error = e.what();
  }
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return row;
}

std::string us(double x) {
  return std::isfinite(x) ? fmt::format("{:.2f}", x) : "-";
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app("exact extraction against the dynamic program, per model");
  std::string models = TILESAT_MODELS_DIR, zoo;
  std::vector<std::string> only;
  double limit = 10;
  bool require = false;
  app.add_option("--models-dir", models, "the model fixtures")->capture_default_str();
  app.add_option("--zoo", zoo, "the model zoo (scripts/make-zoo.py); empty: fixtures only");
  app.add_option("--time-limit", limit, "seconds of exact extraction per model")
      ->capture_default_str();
  app.add_option("--only", only, "models by name (NAME[,NAME...])")->delimiter(',');
  app.add_flag("--require", require,
               "exit 1 when the DP is not within 1% of exact extraction where it finished, or "
               "when exact extraction finished on no model");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::tuple<std::string, std::string, bool>> runs;
  for (const char* name : {"bert_layer", "gpt2_block", "resnet18", "mobilenet_v2"})
    runs.emplace_back(name, fmt::format("{}/{}.onnx", models, name), false);
  if (!zoo.empty()) {
    std::vector<std::filesystem::path> found;
    if (std::filesystem::is_directory(zoo))
      for (const auto& e : std::filesystem::directory_iterator(zoo))
        if (e.path().extension() == ".onnx") found.push_back(e.path());
    std::sort(found.begin(), found.end());
    if (found.empty()) fmt::print("extract_compare: no zoo models in '{}': skipped\n", zoo);
    for (const auto& p : found) runs.emplace_back(p.stem().string(), p.string(), true);
  }
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(rewrites::default_rule_set_names());
  cost::CostModel model(cost::load_device("wormhole_b0"));

  fmt::print("exact time limit {} s, wormhole_b0; objective and bound in us (extract_problem.h)\n",
             limit);
  fmt::print("{:<26} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9} {:>6} {:>8} {:>7} {:>6} "
             "{:>6}\n",
             "model", "class", "dp_plan", "exact_plan", "tree_obj", "dp_obj", "exact_obj", "bound",
             "source", "gap", "status", "share_s", "z3_s", "all_s");
  if (!only.empty())
    std::erase_if(runs, [&](const auto& run) {
      return std::find(only.begin(), only.end(), std::get<0>(run)) == only.end();
    });
  const bool any = std::any_of(runs.begin(), runs.end(), [](const auto& run) {
    return std::filesystem::exists(std::get<1>(run));
  });
  if (!any) {
    fmt::print("extract_compare: none of the models asked for is present: skipped\n");
    return 77;
  }
  int finished = 0, within = 0, failed = 0;
  std::vector<std::string> outside;
  for (const auto& [name, path, weights] : runs) {
    if (!std::filesystem::exists(path)) {
      fmt::print("{:<26} missing ({}): skipped\n", name, path);
      continue;
    }
    Row row = compare(name, path, weights, rules, model, limit);
    if (!row.error.empty()) {
      ++failed;
      fmt::print("{:<26} error: {}\n", name, row.error);
      continue;
    }
    const cost::ExtractionReport& r = row.r;
    fmt::print("{:<26} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9} {:>6.3f} {:>8} "
               "{:>7.2f} {:>6.1f} {:>6.1f}\n",
               name, row.classes, us(r.dp_planned_us), us(r.exact_planned_us), us(r.tree_objective),
               us(r.dp_objective), us(r.exact_objective), us(r.lower_bound), r.bound, r.gap,
               r.status, r.shared_seconds, r.exact_seconds, row.seconds);
    std::fflush(stdout);
    if (r.status == "optimal") {
      ++finished;
      if (r.dp_objective <= 1.01 * r.exact_objective)
        ++within;
      else
        outside.push_back(fmt::format("{} (dp {:.2f} vs exact {:.2f} us, +{:.1f}%)", name,
                                      r.dp_objective, r.exact_objective,
                                      100 * (r.dp_objective / r.exact_objective - 1)));
    }
  }
  fmt::print("check: exact finished on {} models; the DP is within 1% of it on {}{}\n", finished,
             within, outside.empty() ? "" : fmt::format(", not on {}", fmt::join(outside, ", ")));
  if (failed) fmt::print("FAILED: {} models did not plan\n", failed);
  const bool unmet = require && (!outside.empty() || finished == 0);
  if (unmet)
    fmt::print("FAILED: the DP is not within 1% of exact extraction{}\n",
               finished == 0 ? " (exact finished on no model)" : "");
  return failed || unmet ? 1 : 0;
}
