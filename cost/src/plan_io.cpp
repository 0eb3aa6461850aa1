// plan_io.cpp: printing a plan and writing its JSON report.
#include "tilesat/cost/plan_io.h"

#include "tilesat/cost/device.h"
#include "tilesat/cost/placement.h"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tilesat::cost {
namespace {

// Each value's name: the op that defined it, or its graph node (arguments).
std::vector<std::string> value_names(const Plan& plan) {
  std::vector<std::string> names(plan.values.size());
  for (uint32_t v = 0; v < plan.values.size(); ++v)
    names[v] = value_name(plan.graph, plan.values[v].node);
  for (const PlannedOp& o : plan.ops) names[o.result] = o.name;
  return names;
}

std::string operands_str(const std::vector<std::string>& names, const PlannedOp& op) {
  std::vector<std::string_view> out;
  for (uint32_t v : op.operands) out.push_back(names[v]);
  return fmt::format("{}", fmt::join(out, ", "));
}

bool on_mesh(const Plan& plan) {
  return plan.mesh_shape[0] * plan.mesh_shape[1] > 1;
}

bool is_collective(const PlannedOp& op) {
  return op.kind == "all_gather" || op.kind == "reduce_scatter" || op.kind == "all_reduce";
}

// Per inference: the collectives' predicted time.
double collectives_us(const Plan& plan) {
  double us = 0;
  for (const PlannedOp& op : plan.ops)
    if (is_collective(op) && !op.one_time) us += op.predicted_us;
  return us;
}

nlohmann::json report_of(const Plan& plan, const egraph::Report* report) {
  using nlohmann::json;
  json j;
  j["function"] = plan.graph.name();
  j["device"] = plan.device;
  j["trace"] = plan.traced;
  if (on_mesh(plan)) {
    j["mesh_shape"] = {plan.mesh_shape[0], plan.mesh_shape[1]};
    j["collectives_us"] = collectives_us(plan);
  }
  json ops = json::array();
  const std::vector<std::string> names = value_names(plan);
  for (const PlannedOp& op : plan.ops) {
    const Placement& p = plan.values[op.result].placement;
    json o;
    o["name"] = op.name;
    o["kind"] = op.kind;
    o["operands"] = operands_str(names, op);
    o["layout"] = std::string(layout_name(p.layout));
    o["memory"] = std::string(buffer_name(p.buffer));
    o["memory_layout"] = std::string(memory_layout_name(p.memory));
    if (p.memory != MemoryLayout::Interleaved) {
      o["shard_grid"] = {p.grid.rows, p.grid.cols};
      o["shard_shape"] = {p.shard_shape[0], p.shard_shape[1]};
    }
    if (!plan.distribution(op.result).empty()) o["distribution"] = plan.distribution(op.result);
    o["grid"] = {op.grid.rows, op.grid.cols};
    o["cores"] = op.cores;
    o["fidelity"] = std::string(fidelity_name(op.fidelity));
    if (op.blocking) {
      const MatmulBlocking& b = *op.blocking;
      o["blocking"] = {{"per_core_m", b.per_core_m},         {"per_core_n", b.per_core_n},
                       {"in0_block_w", b.in0_block_w},       {"out_subblock_h", b.out_subblock_h},
                       {"out_subblock_w", b.out_subblock_w}, {"out_block_h", b.out_block_h},
                       {"out_block_w", b.out_block_w}};
    }
    o["predicted_us"] = op.predicted_us;
    o["one_time"] = op.one_time;
    o["l1_bytes_per_core"] = op.l1_bytes_per_core;
    o["circular_buffers"] = op.circular_buffers;
    o["bound"] = op.cost.dominant;
    o["cost"] = {{"compute_us", op.cost.compute_us},   {"dram_us", op.cost.dram_us},
                 {"noc_us", op.cost.noc_us},           {"l1_us", op.cost.l1_us},
                 {"dispatch_us", op.cost.dispatch_us}, {"detail", op.cost.detail}};
    ops.push_back(o);
  }
  j["ops"] = ops;
  j["predicted_total_us"] = plan.predicted_total_us;
  j["predicted_one_time_us"] = plan.predicted_one_time_us;
  j["peak_l1_bytes_per_core"] = plan.peak_l1_bytes_per_core;
  if (report != nullptr) {
    j["egraph"] = {{"nodes", report->egraph_nodes},
                   {"classes", report->egraph_classes},
                   {"iterations", report->iterations.size()},
                   {"stop_reason", report->stop.to_string()}};
  }
  j["extraction"] = {{"method", plan.extraction_method},
                     {"cost", plan.extraction_cost},
                     {"gap", plan.optimality_gap}};
  return j;
}

} // namespace

std::string plan_to_text(const Plan& plan) {
  std::string out = fmt::format(
      "// plan @{} for {}: {} device ops, extracted by {} (cost {:.2f} us, gap {:.3f})\n",
      plan.graph.name(), plan.device, plan.ops.size(), plan.extraction_method, plan.extraction_cost,
      plan.optimality_gap);
  if (on_mesh(plan)) {
    size_t collectives = std::count_if(plan.ops.begin(), plan.ops.end(), is_collective);
    out += fmt::format("// mesh {}x{}: every chip runs this program on its shards (SPMD); {} "
                       "collective{}, {:.2f} us per inference\n",
                       plan.mesh_shape[0], plan.mesh_shape[1], collectives,
                       collectives == 1 ? "" : "s", collectives_us(plan));
  }
  const std::vector<std::string> names = value_names(plan);
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const PlannedOp& op = plan.ops[i];
    std::string blocking;
    if (op.blocking) {
      const MatmulBlocking& b = *op.blocking;
      blocking = fmt::format(" block {}x{} k{} sub {}x{}", b.per_core_m, b.per_core_n,
                             b.in0_block_w, b.out_subblock_h, b.out_subblock_w);
      if (b.out_block_h != b.per_core_m || b.out_block_w != b.per_core_n)
        blocking += fmt::format(" streamed {}x{}", b.out_block_h, b.out_block_w);
    }
    // A fused activation (linear, conv2d) is part of the op: name it.
    std::string activation;
    if (!op.is_to_layout()) {
      std::string act = plan.graph.node(op.node).attrs.get_or<std::string>("activation", "");
      if (!act.empty()) activation = fmt::format(" | activation {}", act);
    }
    const std::string& dist = plan.distribution(op.result);
    out += fmt::format("{:3} {} = {}({}) -> {}{} | {} cores ({}x{}){} | {:.2f} us | L1 {} B/core | "
                       "{} CBs | {}{}{}\n",
                       i, op.name, op.kind, operands_str(names, op),
                       placement_str(plan.values[op.result].placement),
                       dist.empty() ? "" : fmt::format(" {}", dist), op.cores, op.grid.rows,
                       op.grid.cols, blocking, op.predicted_us, op.l1_bytes_per_core,
                       op.circular_buffers, is_view(op.cost) ? "view" : op.cost.dominant + "-bound",
                       activation, op.one_time ? " | one-time" : "");
    out += fmt::format("      // {}\n", op.cost.detail);
  }
  std::vector<std::string> results;
  for (uint32_t v : plan.results) {
    results.push_back(names[v]);
  }
  out += fmt::format("results: {}\n", fmt::join(results, ", "));
  out += fmt::format("total: {:.2f} us predicted, peak L1 {} bytes per core{}\n",
                     plan.predicted_total_us, plan.peak_l1_bytes_per_core,
                     plan.traced ? "" : " (no trace: each op dispatched from the host)");
  // Const-eval ops run once when the program loads; the total above is per inference.
  if (plan.predicted_one_time_us > 0 ||
      std::any_of(plan.ops.begin(), plan.ops.end(), [](const PlannedOp& o) { return o.one_time; }))
    out += fmt::format("one-time: {:.2f} us at load ({} const-eval ops), not in the total\n",
                       plan.predicted_one_time_us,
                       std::count_if(plan.ops.begin(), plan.ops.end(),
                                     [](const PlannedOp& o) { return o.one_time; }));
  return out;
}

std::string plan_report_json(const Plan& plan, const egraph::Report* report) {
  return report_of(plan, report).dump(2) + "\n";
}

std::string plan_reports_json(const std::vector<PlanReportEntry>& entries) {
  if (entries.size() == 1) return plan_report_json(*entries[0].plan, entries[0].report);
  nlohmann::json j;
  j["functions"] = nlohmann::json::array();
  for (const PlanReportEntry& e : entries) j["functions"].push_back(report_of(*e.plan, e.report));
  return j.dump(2) + "\n";
}

} // namespace tilesat::cost
