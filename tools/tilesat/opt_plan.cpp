// opt_plan.cpp: `tilesat opt INPUT --device NAME --emit plan|ttnn|program --report FILE.json`.
#include "opt_plan.h"

#include "tilesat/cost/device.h"
#include "tilesat/cost/extract.h"
#include "tilesat/cost/plan_io.h"
#include "tilesat/cost/ttnn_emit.h"
#include "tilesat/graph/printer.h"
#include "tilesat/lowering/dump.h"
#include "tilesat/lowering/lower.h"

#include <fmt/format.h>

namespace tilesat::cli {

int run_opt_plan(const Options& o, const SelectedRules& rules, const egraph::RunnerConfig& runner,
                 SourceFile& file) {
  cost::CostOptions copts;
  copts.fidelity = cost::parse_fidelity(o.math_fidelity);
  copts.layouts = rules.layouts;
  cost::Device device = cost::load_device(o.device.empty() ? "wormhole_b0" : o.device);
  cost::ExtractOptions eopts;
  if (o.extract_time_limit) {
    if (!(*o.extract_time_limit >= 0))
      throw Error(fmt::format("--extract-time-limit: expected seconds >= 0, got {}",
                              *o.extract_time_limit));
    eopts.exact_time_limit_s = *o.extract_time_limit;
  }
  std::vector<cost::DevicePlanResult> results;
  for (Module& m : file.modules) {
    // A TTNN module's arguments are already device tensors.
    copts.arguments_on_device = m.device_tensors;
    cost::CostModel model(device, copts);
    for (Graph& g : m.functions) {
      results.push_back(cost::optimize_for_device(g, rules.rewrites, runner, model, eopts));
      if (o.stats) fmt::print(stderr, "// @{}\n{}", g.name(), results.back().report.to_table());
    }
  }
  if (!o.program_file.empty() && (o.emit != "program" || results.size() != 1)) {
    throw Error(fmt::format("-o {}: a program is written for --emit program of a file with one "
                            "function (this one has {})",
                            o.program_file, results.size()));
  }
  std::vector<cost::Plan> plans;
  for (const cost::DevicePlanResult& r : results) plans.push_back(r.plan);
  std::string out;
  if (o.emit == "ttnn") {
    out = cost::emit_ttnn(file, plans);
  } else if (o.emit == "plan") {
    for (const cost::Plan& plan : plans) out += cost::plan_to_text(plan);
  } else if (o.emit == "program") {
    for (const cost::Plan& plan : plans) {
      std::vector<uint8_t> bytes = lowering::lower_plan(plan, lowering::DeviceSummary::of(device));
      out += lowering::dump_program(*fb::GetProgram(bytes.data()));
      if (!o.program_file.empty()) lowering::write_program(o.program_file, bytes);
    }
  } else {
    size_t i = 0;
    for (Module& m : file.modules)
      for (Graph& g : m.functions) g = plans[i++].graph;
    out = print_text(file);
  }
  write_text("-", out);
  if (!o.report_file.empty()) {
    std::vector<cost::PlanReportEntry> entries;
    for (const cost::DevicePlanResult& r : results) entries.push_back({&r.plan, &r.report});
    write_text(o.report_file, cost::plan_reports_json(entries));
  }
  return 0;
}

} // namespace tilesat::cli
