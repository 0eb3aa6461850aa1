// Readable and JSON forms of a Plan.
//
// The text form lists the device ops in execution order, one line each: index, the value it
// defines, its kind, operands, the result's placement, cores, predicted microseconds, L1 bytes
// per core and the dominant bound, then each op's cost detail, then the totals. The JSON
// report carries the same plan plus the saturation summary.
//
//   fmt::print("{}", plan_to_text(plan));
//   write_text("report.json", plan_report_json(plan, &runner_report));
#pragma once

#include "tilesat/cost/plan.h"
#include "tilesat/egraph/runner.h"

#include <string>
#include <vector>

namespace tilesat::cost {

std::string plan_to_text(const Plan& plan);

/// One function's plan and its saturation report (nullptr: no "egraph" numbers).
struct PlanReportEntry {
  const Plan* plan = nullptr;
  const egraph::Report* report = nullptr;
};

/// The JSON report of one plan: device, ops (name, kind, layout, memory, memory_layout,
/// grid, cores, fidelity, predicted_us, l1_bytes_per_core, bound, detail),
/// predicted_total_us, peak_l1_bytes_per_core, egraph (nodes, classes, iterations,
/// stop_reason) and extraction (method, cost, gap).
std::string plan_report_json(const Plan& plan, const egraph::Report* report);
/// Several functions: {"functions": [{"function": name, ...report...}, ...]}; with one entry,
/// the single report with a "function" field.
std::string plan_reports_json(const std::vector<PlanReportEntry>& entries);

} // namespace tilesat::cost
