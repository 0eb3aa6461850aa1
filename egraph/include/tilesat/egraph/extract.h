// Extraction: the cheapest term of an e-class under a cost function.
//
// `CostFunction` has one job: the cost of an e-node given its children's best costs.
// `AstSize` and `AstDepth` are the trivial built-ins (and examples). `Extractor` computes
// every class's best node by fixed-point iteration and builds the term. The tensor cost model
// lives elsewhere and plugs in here, or brings its own extractor.
//
//   Extractor ex(eg, AstSize());
//   RecExpr best = ex.extract(root);
//   double cost = ex.best_cost(root);
#pragma once

#include "tilesat/egraph/enode.h"
#include "tilesat/egraph/id.h"
#include "tilesat/egraph/term.h"

#include <span>
#include <vector>

namespace tilesat::egraph {

class EGraph;

class CostFunction {
public:
  virtual ~CostFunction() = default;
  /// The cost of `node`; `child_costs[i]` is the best cost of its i-th child's class.
  virtual double cost(const EGraph& eg, const ENode& node,
                      std::span<const double> child_costs) const = 0;
};

/// Number of nodes of the term.
class AstSize final : public CostFunction {
public:
  double cost(const EGraph&, const ENode&, std::span<const double> child_costs) const override;
};

/// Depth of the term.
class AstDepth final : public CostFunction {
public:
  double cost(const EGraph&, const ENode&, std::span<const double> child_costs) const override;
};

class Extractor {
public:
  /// Computes best costs for every class; `eg` must be rebuilt and outlive the extractor.
  /// Between nodes of equal cost and different ops, the op whose name sorts first is chosen.
  Extractor(const EGraph& eg, const CostFunction& cost);

  /// Best cost of the class of `id` (infinity when it has no finite term).
  double best_cost(Id id) const;
  /// The e-node achieving best_cost (kNoId when none).
  NodeId best_node(Id id) const;
  /// The best term of the class of `id`; throws std::invalid_argument when there is none.
  RecExpr extract(Id id) const;

private:
  const EGraph& eg_;
  std::vector<double> cost_;
  std::vector<NodeId> best_;
};

} // namespace tilesat::egraph
