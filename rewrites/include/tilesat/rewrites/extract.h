// Extraction for the tensor term language: choosing one e-node per class, then a Graph.
//
// The cost model of cost/ brings its own extractor later; until then `OpCount` is the simple
// one: fewest ops (arguments are free), ties broken by the number of elements computed, so
// among equally short programs the one doing less work wins. Any `egraph::CostFunction` plugs
// in through `select_cheapest`, and any chooser through the `Selection` of term_language.h.
//
//   Selection pick = select_cheapest(teg, OpCount());
//   Graph g = to_graph(teg, pick);
//   // or simply: Graph g = extract_fewest_ops(teg);
#pragma once

#include "tilesat/egraph/extract.h"
#include "tilesat/rewrites/term_language.h"

namespace tilesat::rewrites {

/// One per op (arguments cost nothing), plus a tie-breaker below one op in total: 1e-13 per
/// element of the op's result, twice that for a permute or transpose (which move their
/// elements; a reshape keeps them in place) and for fused_eltwise (a generic body where a
/// named op is one kernel). Remaining ties go to the op whose name sorts first.
class OpCount final : public egraph::CostFunction {
public:
  double cost(const egraph::EGraph& eg, const egraph::ENode& node,
              std::span<const double> child_costs) const override;
};

/// The selection minimizing `cost` per class (egraph::Extractor); `teg` must be rebuilt and
/// outlive the selection.
Selection select_cheapest(const TensorEGraph& teg, const egraph::CostFunction& cost);

/// to_graph(teg, select_cheapest(teg, OpCount())).
Graph extract_fewest_ops(const TensorEGraph& teg);

} // namespace tilesat::rewrites
