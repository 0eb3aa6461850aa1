// extract.cpp: the op-count cost and the cheapest-selection extractor.
#include "tilesat/rewrites/extract.h"

#include "tilesat/rewrites/payload.h"

#include <memory>

namespace tilesat::rewrites {

double OpCount::cost(const egraph::EGraph& eg, const egraph::ENode& node,
                     std::span<const double> child_costs) const {
  double sum = 0;
  for (double c : child_costs) sum += c;
  std::optional<OpKind> kind = op_of(node.op);
  if (kind == OpKind::Argument) return sum;
  double elements = 1;
  if (const auto* facts = eg.find_analysis<TensorAnalysis>()) {
    elements = static_cast<double>(infer_node_type(eg, *facts, node).shape.numel());
  }
  // Ops that move their elements (a reshape keeps them in place) or run a generic body (a
  // named op is one kernel) count them twice.
  const bool twice =
      kind == OpKind::Permute || kind == OpKind::Transpose || kind == OpKind::FusedEltwise;
  return sum + 1.0 + 1e-13 * (twice ? 2.0 : 1.0) * std::min(elements, 1e9);
}

Selection select_cheapest(const TensorEGraph& teg, const egraph::CostFunction& cost) {
  auto ex = std::make_shared<egraph::Extractor>(teg.egraph, cost);
  return [ex](egraph::Id cls) { return ex->best_node(cls); };
}

Graph extract_fewest_ops(const TensorEGraph& teg) {
  return to_graph(teg, select_cheapest(teg, OpCount()));
}

} // namespace tilesat::rewrites
