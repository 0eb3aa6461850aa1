// extract_exact.cpp: Z3 Optimize over e-node choices with acyclicity, under a time limit.
#include "tilesat/cost/extract_exact.h"

#include "tilesat/cost/placement.h"
#include "tilesat/cost/planner.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/rewrites/payload.h"

#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <z3++.h>

namespace tilesat::cost {
namespace {

// The cheapest legal placement's time of an e-node in nanoseconds (operands in DRAM tiles),
// or -1 when the node has no device variant that fits.
int64_t node_cost_ns(const rewrites::TensorEGraph& teg, const CostModel& model, egraph::Id cls,
                     const egraph::ENode& node) {
  std::optional<OpKind> kind = rewrites::op_of(node.op);
  if (!kind) return -1;
  if (*kind == OpKind::Argument || *kind == OpKind::Constant) return 0;
  std::vector<TensorUse> uses;
  for (egraph::Id ch : node.children)
    uses.push_back(TensorUse{teg.facts_of(ch).type, dram_tile_placement()});
  const TensorType& type = teg.facts_of(cls).type;
  const Attrs& attrs = teg.facts->attrs_of(teg.egraph, node);
  double best = std::numeric_limits<double>::infinity();
  for (const Placement& p : candidate_placements(type, model.device(), *kind, model.layouts())) {
    try {
      OpEstimate e = model.op(*kind, attrs, uses, TensorUse{type, p});
      if (e.l1_bytes_per_core > model.device().usable_l1_bytes()) continue;
      if (e.circular_buffers > model.device().max_circular_buffers) continue;
      best = std::min(best, e.us);
    } catch (const Error&) {
      return -1;
    }
  }
  if (std::isinf(best)) return -1;
  return static_cast<int64_t>(std::llround(best * 1000));
}

enum class Walk { kDescend, kSkip, kStop };

// Visits, once each, the classes the results reach through `select`'s choices, calling
// `visit(choice)` (kNoId when the class has none) to go below it, skip it or stop the walk;
// false when it stopped.
template <class Visit>
bool walk_selection(const rewrites::TensorEGraph& teg, const rewrites::Selection& select,
                    Visit visit) {
  const egraph::EGraph& eg = teg.egraph;
  std::unordered_set<egraph::Id> seen;
  std::vector<egraph::Id> stack;
  for (egraph::Id r : teg.results) stack.push_back(eg.find(r));
  while (!stack.empty()) {
    egraph::Id c = stack.back();
    stack.pop_back();
    if (!seen.insert(c).second) continue;
    egraph::NodeId n = select(c);
    Walk w = visit(n);
    if (w == Walk::kStop) return false;
    if (w == Walk::kSkip) continue;
    for (egraph::Id ch : eg.node(n).children) stack.push_back(eg.find(ch));
  }
  return true;
}

} // namespace

std::optional<Plan> extract_exact(const rewrites::TensorEGraph& teg, const CostModel& model,
                                  const rewrites::Selection& seed_selection, Plan& seed,
                                  double time_limit_s) {
  const egraph::EGraph& eg = teg.egraph;
  z3::context ctx;
  z3::optimize opt(ctx);
  z3::params params(ctx);
  params.set("timeout", static_cast<unsigned>(std::max(1.0, time_limit_s * 1000)));
  opt.set(params);
  std::unordered_map<egraph::Id, z3::expr> chosen_class, level;
  std::unordered_map<egraph::NodeId, int64_t> cost;
  std::unordered_map<egraph::NodeId, z3::expr> chosen_node;
  for (egraph::Id c : eg.classes()) {
    chosen_class.emplace(c, ctx.bool_const(fmt::format("class{}", c).c_str()));
    level.emplace(c, ctx.int_const(fmt::format("level{}", c).c_str()));
  }
  z3::expr total = ctx.int_val(0);
  for (egraph::Id c : eg.classes()) {
    z3::expr_vector options(ctx);
    for (egraph::NodeId n : eg.eclass(c).nodes) {
      egraph::ENode node = eg.node(n);
      int64_t ns = node_cost_ns(teg, model, c, node);
      if (ns < 0) continue;
      z3::expr x = ctx.bool_const(fmt::format("node{}", n).c_str());
      chosen_node.emplace(n, x);
      cost[n] = ns;
      options.push_back(x);
      for (egraph::Id ch : node.children) {
        egraph::Id cc = eg.find(ch);
        opt.add(z3::implies(x, chosen_class.at(cc) && level.at(c) > level.at(cc)));
      }
      total = total + z3::ite(x, ctx.int_val(ns), ctx.int_val(0));
    }
    opt.add(z3::implies(chosen_class.at(c),
                        options.empty() ? ctx.bool_val(false) : z3::mk_or(options)));
  }
  for (egraph::Id r : teg.results) opt.add(chosen_class.at(eg.find(r)));
  // Seed: the DP's choice, counted once per class, bounds the objective from above.
  int64_t seed_ns = 0;
  walk_selection(teg, seed_selection, [&](egraph::NodeId n) {
    if (n == egraph::kNoId || !cost.count(n)) return Walk::kSkip;
    seed_ns += cost[n];
    return Walk::kDescend;
  });
  opt.add(total <= ctx.int_val(seed_ns));
  z3::optimize::handle h = opt.minimize(total);
  z3::check_result res = opt.check();
  double lower_ns = 0;
  try {
    z3::expr lo = opt.lower(h);
    if (lo.is_numeral()) lower_ns = static_cast<double>(lo.get_numeral_int64());
  } catch (const z3::exception&) {
  }
  if (res == z3::unsat) return std::nullopt; // only when the seed's bound is itself wrong
  z3::model m(ctx);
  try {
    m = opt.get_model();
  } catch (const z3::exception&) {
    return std::nullopt;
  }
  double found_ns = static_cast<double>(m.eval(total, true).get_numeral_int64());
  double gap = res == z3::sat ? 0 : (found_ns > 0 ? (found_ns - lower_ns) / found_ns : 0);
  // The seed's gap against Z3's bound, in the same (DAG) cost.
  seed.optimality_gap =
      seed_ns > 0
          ? std::max(0.0, (static_cast<double>(seed_ns) - (res == z3::sat ? found_ns : lower_ns)) /
                              static_cast<double>(seed_ns))
          : 0;
  auto pick = std::make_shared<std::unordered_map<egraph::Id, egraph::NodeId>>();
  for (egraph::Id c : eg.classes()) {
    for (egraph::NodeId n : eg.eclass(c).nodes) {
      auto it = chosen_node.find(n);
      if (it != chosen_node.end() && m.eval(it->second, true).is_true()) {
        (*pick)[c] = n;
        break;
      }
    }
  }
  const egraph::EGraph* egp = &eg;
  rewrites::Selection select = [pick, egp](egraph::Id c) {
    auto it = pick->find(egp->find(c));
    return it == pick->end() ? egraph::kNoId : it->second;
  };
  // A model Z3 returns on a timeout need not be complete: every class the results reach must
  // have a chosen e-node, else the dynamic program's plan stands.
  if (!walk_selection(teg, select, [](egraph::NodeId n) {
        return n == egraph::kNoId ? Walk::kStop : Walk::kDescend;
      }))
    return std::nullopt;
  Plan plan;
  try {
    plan = plan_graph(rewrites::to_graph(teg, select), model);
  } catch (const InternalError&) {
    return std::nullopt; // a cyclic choice (levels the solver left unchecked at its timeout)
  }
  if (plan.predicted_total_us >= seed.predicted_total_us - 1e-9) return std::nullopt;
  plan.extraction_method = "z3";
  plan.extraction_cost = plan.predicted_total_us;
  plan.optimality_gap = gap;
  return plan;
}

} // namespace tilesat::cost
