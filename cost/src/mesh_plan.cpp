// mesh_plan.cpp: saturate, extract, partition over the mesh, emit the per-chip graph, plan it.
#include "tilesat/cost/mesh_plan.h"

#include "tilesat/cost/legality.h"
#include "tilesat/cost/mesh_emit.h"
#include "tilesat/cost/nchw_convs.h"
#include "tilesat/cost/planner.h"
#include "tilesat/rewrites/repeat_interleave.h"

namespace tilesat::cost {

Plan plan_on_mesh(const Graph& logical, const CostModel& model, const MeshChoice& mesh,
                  MeshPartition* partition) {
  MeshPartition p = partition_for_mesh(logical, model, mesh);
  MeshGraph mg = per_chip_graph(logical, p);
  // The collectives run over the axes of the mesh view (a T3000's ring as one 1x8 axis).
  CostModel chip(mesh_view_device(model.device()), model.options());
  Plan plan = plan_graph(mg.graph, chip);
  plan.mesh_shape = p.mesh_shape;
  for (const PlannedValue& v : plan.values)
    plan.distributions.push_back(v.node < mg.distribution.size() ? mg.distribution[v.node] : "");
  require_legal(plan, chip);
  if (partition != nullptr) *partition = std::move(p);
  return plan;
}

DevicePlanResult optimize_for_mesh(const Graph& g, std::span<const egraph::Rewrite> rules,
                                   const egraph::RunnerConfig& runner, const CostModel& model,
                                   const ExtractOptions& options, const MeshChoice& mesh) {
  if (mesh_groups(model.device()).empty())
    return optimize_for_device(g, rules, runner, model, options);
  require_fits_dram(g, model.device());
  rewrites::TensorEGraph teg = rewrites::to_egraph(nchw_convs(rewrites::fold_repeat_interleave(g)));
  DevicePlanResult out;
  out.report = egraph::Runner(runner).run(teg.egraph, rules);
  // With a time limit, exact extraction (shared values paid once) picks the graph the mesh
  // runs; else the dynamic program.
  std::string method = "dp";
  Graph logical;
  if (options.exact_time_limit_s > 0) {
    Plan whole = extract_plan(teg, model, options, &out.extraction);
    method = whole.extraction_method;
    logical = std::move(whole.graph);
  } else {
    logical = rewrites::to_graph(teg, select_by_cost(teg, model).select);
  }
  out.plan = plan_on_mesh(logical, model, mesh);
  out.plan.extraction_method = method;
  out.plan.extraction_cost = out.plan.predicted_total_us;
  out.plan.optimality_gap = 1; // no lower bound is proven on a mesh plan's cost
  out.plan.graph.set_name(g.name());
  return out;
}

} // namespace tilesat::cost
