// opt_plan.cpp: `tilesat opt INPUT --device NAME --emit plan|ttnn|program --report FILE.json`.
#include "opt_plan.h"

#include "tilesat/cost/device.h"
#include "tilesat/cost/extract.h"
#include "tilesat/cost/mesh_plan.h"
#include "tilesat/cost/plan_io.h"
#include "tilesat/cost/ttnn_emit.h"
#include "tilesat/graph/printer.h"
#include "tilesat/lowering/dump.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/runtime/program.h"

#include <chrono>
#include <filesystem>
#include <fmt/format.h>

namespace tilesat::cli {

int run_opt_plan(const Options& o, const SelectedRules& rules, SourceFile& file,
                 std::map<std::string, Tensor, std::less<>>& weights, PhaseTimes* times) {
  // -o FILE writes a program: it implies --emit program (an explicit other form is an error).
  std::string emit = !o.program_file.empty() && o.emit == "ttir" ? "program" : o.emit;
  if (!o.program_file.empty() && o.program_file == o.report_file)
    throw Error(fmt::format("-o {} and --report {}: the program and the report would overwrite "
                            "each other",
                            o.program_file, o.report_file));
  cost::CostOptions copts = cost_options(o, rules);
  cost::Device device = device_for_input(o, file);
  std::vector<cost::DevicePlanResult> results;
  for (Module& m : file.modules) {
    // A TTNN module's arguments are already device tensors.
    copts.arguments_on_device = m.device_tensors;
    cost::CostModel model(device, copts);
    for (Graph& g : m.functions) {
      results.push_back(plan_for_device(o, g, rules, model, times));
      if (o.stats) fmt::print(stderr, "// @{}\n{}", g.name(), results.back().report.to_table());
    }
  }
  if (!o.program_file.empty() && emit != "program")
    throw Error(fmt::format("-o {}: a program is written for --emit program, not --emit {}",
                            o.program_file, emit));
  if (!o.program_file.empty() && results.size() != 1)
    throw Error(fmt::format("-o {}: a program holds one function (this file has {})",
                            o.program_file, results.size()));
  const auto emit_start = std::chrono::steady_clock::now();
  std::vector<cost::Plan> plans;
  for (const cost::DevicePlanResult& r : results) plans.push_back(r.plan);
  std::string out;
  if (emit == "ttnn") {
    out = cost::emit_ttnn(file, plans);
  } else if (emit == "plan") {
    for (const cost::Plan& plan : plans) out += cost::plan_to_text(plan);
  } else if (emit == "program") {
    for (const cost::Plan& plan : plans) {
      // The model's own weights travel with the program.
      lowering::LowerOptions lopts;
      lopts.inline_values_limit = o.inline_weights_limit;
      // With one program they move rather than copy: a large model's weights are held once.
      for (NodeId a : plan.graph.arguments()) {
        const Node& n = plan.graph.node(a);
        if (plans.size() == 1) {
          if (auto w = weights.extract(n.name)) lopts.input_values.insert(std::move(w));
        } else if (auto w = weights.find(n.name); w != weights.end()) {
          lopts.input_values.emplace(*w);
        }
      }
      if (!o.program_file.empty())
        lopts.weights_file = std::filesystem::path(o.program_file).filename().string() + ".weights";
      lowering::LoweredProgram lp =
          lowering::lower_program(plan, lowering::DeviceSummary::of(device), lopts);
      if (o.program_file.empty()) {
        out += lowering::dump_program(*fb::GetProgram(lp.program.data()));
        continue;
      }
      // What is written must read back: the runtime's own check runs before the file is made.
      try {
        (void)runtime::Program::parse(lp.program, o.program_file);
      } catch (const Error& e) {
        throw Error(fmt::format("-o {}: not written: the runtime would reject the program of "
                                "@{}: {}",
                                o.program_file, plan.graph.name(), e.diagnostic().message));
      }
      lowering::write_program(o.program_file, lp);
      const fb::Program& p = *fb::GetProgram(lp.program.data());
      out += fmt::format("wrote {}: @{} for {}, {} ops, {} inputs ({} with stored values{}), "
                         "{:.2f} us predicted per inference{}\n",
                         o.program_file, plan.graph.name(), device.name,
                         p.ops() != nullptr ? p.ops()->size() : 0,
                         p.inputs() != nullptr ? p.inputs()->size() : 0, lopts.input_values.size(),
                         lp.weights_file.empty()
                             ? ""
                             : fmt::format(", {} bytes in {}", lp.weights.size(), lp.weights_file),
                         plan.predicted_total_us,
                         plan.predicted_one_time_us > 0
                             ? fmt::format(" + {:.2f} us once at load", plan.predicted_one_time_us)
                             : "");
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
  if (times)
    times->add(
        "emit",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - emit_start).count());
  return 0;
}

} // namespace tilesat::cli
