// opt.cpp: `tilesat opt INPUT` saturates every function with rewrite rules, extracts the
// program with the fewest ops and prints the file as canonical TTIR.
#include "cli.h"
#include "opt_plan.h"
#include "tilesat/cost/mesh_partition.h"
#include "tilesat/cost/mesh_plan.h"
#include "tilesat/cost/placement.h"
#include "tilesat/graph/parser.h"
#include "tilesat/graph/printer.h"
#include "tilesat/lowering/allocator.h"
#include "tilesat/lowering/device_summary.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/rewrites/optimize.h"
#include "tilesat/rewrites/rule_sets.h"
#include "timing.h"

#include <chrono>
#include <fmt/format.h>

namespace tilesat::cli {

namespace {

// The selected rule sets (all of them when none is named and no file is given), then the
// user's rule files.
std::vector<rewrites::RuleFile> selected_files(const Options& o) {
  std::vector<std::string> sets = o.rule_sets.empty() && o.rule_files.empty()
                                      ? rewrites::default_rule_set_names()
                                      : o.rule_sets;
  std::vector<rewrites::RuleFile> files = rewrites::load_rule_set_files(sets);
  for (const std::string& path : o.rule_files) files.push_back(rewrites::load_rule_file(path));
  return files;
}

} // namespace

SelectedRules selected_rules(const Options& o) {
  SelectedRules out;
  auto layouts = std::make_shared<cost::LayoutChoice>();
  auto mesh = std::make_shared<cost::MeshChoice>();
  for (rewrites::RuleFile& f : selected_files(o)) {
    for (rewrites::MeshRule& r : f.meshes) mesh->rules.push_back(std::move(r));
    for (egraph::Rewrite& r : f.rewrites) out.rewrites.push_back(std::move(r));
    for (rewrites::LayoutRule& r : f.layouts) layouts->rules.push_back(std::move(r));
    for (rewrites::OperandRule& r : f.reads) layouts->reads.push_back(std::move(r));
  }
  out.layouts = std::move(layouts);
  out.mesh = std::move(mesh);
  return out;
}

cost::CostOptions cost_options(const Options& o, const SelectedRules& rules) {
  cost::CostOptions copts;
  copts.fidelity = cost::parse_fidelity(o.math_fidelity);
  copts.layouts = rules.layouts;
  copts.const_eval = !o.no_const_eval;
  copts.trace = o.trace;
  return copts;
}

cost::Device device_for_input(const Options& o, const SourceFile& file) {
  std::optional<MeshShape> declared = declared_mesh(file);
  if (!o.device.empty() || !declared || (*declared)[0] * (*declared)[1] == 1) {
    cost::Device device = cost::load_device(o.device.empty() ? "wormhole_b0" : o.device);
    return declared ? cost::device_on_mesh(device, *declared) : device;
  }
  std::string tried;
  for (const std::string& name : cost::device_names()) {
    cost::Device d = cost::load_device(name);
    if (!d.mesh) continue;
    if (d.mesh->shape == *declared || cost::mesh_view(d) == *declared)
      return cost::device_on_mesh(d, *declared);
    tried += fmt::format("{}{} {}", tried.empty() ? "" : ", ", name, mesh_shape_str(d.mesh->shape));
  }
  throw Error(fmt::format("the input declares mesh {} (ttcore.meshes) and no shipped mesh device "
                          "has it ({}); give --device",
                          mesh_shape_str(*declared), tried));
}

bool is_per_chip_graph(const Graph& g) {
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    if (op_info(g.node(id).kind).has_trait(OpTrait::MultiChip)) return true;
  return false;
}

namespace {

cost::DevicePlanResult plan_once(const Options& o, const Graph& g, const SelectedRules& rules,
                                 const cost::CostModel& model) {
  if (is_per_chip_graph(g) || cost::mesh_groups(model.device()).empty())
    return cost::optimize_for_device(g, rules.rewrites, runner_config(o, g), model,
                                     extract_options(o));
  return cost::optimize_for_mesh(g, rules.rewrites, runner_config(o, g), model, extract_options(o),
                                 *rules.mesh);
}

// The share of usable L1 held back per attempt when a plan's buffers do not place, and the
// attempts made.
constexpr double kL1HoldBack = 0.02;
constexpr int kPlanAttempts = 5;

} // namespace

cost::DevicePlanResult plan_for_device(const Options& o, const Graph& g, const SelectedRules& rules,
                                       const cost::CostModel& model, PhaseTimes* times) {
  // The planner keeps each op's L1 within the device by per-core sums; the lowering's
  // allocator must also find addresses, which can fail when L1 is nearly full (buffers on
  // different core ranges fragment it). Such a plan is planned again with a little L1 held
  // back (2%, 4%, ... of the usable L1), so every plan printed also lowers. Other lowering
  // errors are left for the commands that lower to report.
  PhaseTimes unused;
  PhaseTimes& t = times ? *times : unused;
  auto plan = [&](const cost::CostModel& m) {
    cost::DevicePlanResult r = t.time("plan", [&] { return plan_once(o, g, rules, m); });
    const cost::ExtractionReport& x = r.extraction;
    t.add("saturate", r.report.total_seconds, 1);
    t.add("dynamic program", x.dp_seconds, 1);
    t.add("sharing refinement", x.shared_seconds, 1);
    t.add("exact extraction", x.exact_seconds, 1);
    t.add("planning selections", x.plan_seconds, 1);
    t.add("legality check", x.legality_seconds, 1);
    return r;
  };
  cost::DevicePlanResult planned = plan(model);
  const lowering::DeviceSummary summary = lowering::DeviceSummary::of(model.device());
  for (int attempt = 1;; ++attempt) {
    try {
      t.time("L1 address check", [&] { (void)lowering::lower_plan(planned.plan, summary); });
      return planned;
    } catch (const lowering::AllocationError&) {
      if (attempt == kPlanAttempts) throw;
    } catch (const Error&) {
      return planned;
    }
    cost::Device less = model.device();
    less.l1_reserved_bytes += static_cast<int64_t>(
        kL1HoldBack * attempt * static_cast<double>(model.device().usable_l1_bytes()));
    planned = plan(cost::CostModel(less, model.options()));
  }
}

cost::ExtractOptions extract_options(const Options& o) {
  cost::ExtractOptions eopts;
  if (o.extract_time_limit) {
    if (!(*o.extract_time_limit >= 0))
      throw Error(fmt::format("--extract-time-limit: expected seconds >= 0, got {}",
                              *o.extract_time_limit));
    eopts.exact_time_limit_s = *o.extract_time_limit;
  }
  return eopts;
}

RandomInit random_init(const Options& o, RandomInit fallback) {
  if (o.random_init.empty()) return fallback;
  return o.random_init == "fan-in" ? RandomInit::FanIn : RandomInit::Uniform;
}

egraph::RunnerConfig runner_config(const Options& o, const Graph& g) {
  egraph::RunnerConfig runner;
  if (o.iter_limit) runner.with_iter_limit(*o.iter_limit);
  // By default a large model keeps room to grow: its own nodes would use up a fixed limit.
  runner.with_node_limit(
      o.node_limit.value_or(std::max<size_t>(kDefaultNodeLimit, 4 * g.num_nodes())));
  if (o.time_limit) runner.with_time_limit(std::chrono::duration<double>(*o.time_limit));
  return runner;
}

int run_opt(const Options& o) {
  SelectedRules rules = selected_rules(o);
  rewrites::OptimizeOptions options;
  options.explain = o.explain;
  std::map<std::string, Tensor, std::less<>> weights; // an ONNX model's initializers
  PhaseTimes times;
  SourceFile file = times.time("load", [&] {
    SourceFile f = load_input(o, &weights);
    apply_compile_options(f, o);
    return f;
  });
  if (!o.device.empty() || o.emit != "ttir" || !o.report_file.empty() || !o.program_file.empty()) {
    int status = run_opt_plan(o, rules, file, weights, &times);
    if (o.timing) fmt::print(stderr, "{}", times.table());
    return status;
  }
  for (Module& m : file.modules) {
    for (Graph& g : m.functions) {
      options.runner = runner_config(o, g);
      rewrites::OptimizeResult r =
          times.time("optimize", [&] { return rewrites::optimize(g, rules.rewrites, options); });
      times.add("saturate", r.report.total_seconds, 1);
      if (o.stats) fmt::print(stderr, "// @{}\n{}", g.name(), r.report.to_table());
      if (o.explain) fmt::print(stderr, "// @{}\n{}", g.name(), r.explanation);
      g = std::move(r.graph);
    }
  }
  times.time("emit", [&] { write_text("-", print_text(file)); });
  if (o.timing) fmt::print(stderr, "{}", times.table());
  return 0;
}

} // namespace tilesat::cli
