// Extraction as data, shared by the dynamic program, exact extraction and the lower bounds.
//
// The dynamic program (extract.cpp) records, for every e-node and placement it can compute, the
// operand configuration it evaluates: which placement each operand is read in and what the op
// costs there. An assignment of one configuration per class is a plan in the extraction
// objective: the ops' costs plus each `to_layout` conversion (class, from, to) once however
// many readers need it, plus the results' way back to DRAM; shared values are paid once (a DAG
// cost). Exact extraction (extract_exact.cpp) searches the assignments; `path_lower_bound`
// bounds them from below.
//
//   ExtractionProblem problem = ...;                  // from the dynamic program
//   std::optional<double> cost = objective(problem, assignment);   // nullopt: incomplete or cyclic
//   double lb = std::max(path_lower_bound(problem), mandatory_lower_bound(problem));
#pragma once

#include "tilesat/cost/plan.h"
#include "tilesat/rewrites/term_language.h"

#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

namespace tilesat::cost {

/// One way to compute a class: e-node `node` producing placement `out` of its class, reading
/// operand i in placement `reads[i]` of the operand's class (indices into
/// ProblemClass::placements). `cost` is the op's share of the objective in microseconds
/// (one-time work weighted as the dynamic program weighs it). There is one per (e-node,
/// output placement) the op fits in: the operand placements the dynamic program reads at its
/// fixed point (the cheapest for a tree, an L1 operand read from DRAM when the op does not
/// fit beside it), so the encoding stays linear in the e-graph's size.
///   NodeConfig{n, 2, {0, 1}, 12.5}   // n into placement 2, reading placements 0 and 1
struct NodeConfig {
  egraph::NodeId node = egraph::kNoId;
  uint32_t out = 0;
  std::vector<uint32_t> reads;
  double cost = 0;
};

/// A class's candidate placements, its recorded configurations, and the cost of converting it
/// between placements: from each placement it is computed in to each it is read in.
struct ProblemClass {
  struct Conversion {
    uint32_t from = 0, to = 0;
    double us = 0;
  };
  std::vector<Placement> placements;
  std::vector<NodeConfig> configs;
  std::vector<Conversion> convert;
  /// The index of tile DRAM interleaved, where a result not in DRAM is converted to.
  uint32_t dram_tile = 0;

  /// 0 from a placement to itself; infinity for a pair no configuration needs.
  double convert_us(uint32_t from, uint32_t to) const {
    if (from == to) return 0;
    for (const Conversion& c : convert)
      if (c.from == from && c.to == to) return c.us;
    return std::numeric_limits<double>::infinity();
  }
};

/// Every class (by canonical id) with its configurations, and the results.
struct ExtractionProblem {
  const rewrites::TensorEGraph* teg = nullptr;
  std::unordered_map<egraph::Id, ProblemClass> classes;
  /// Canonical result classes, in order (a class may repeat).
  std::vector<egraph::Id> results;
  /// Every class, each after the classes its e-nodes read (cycles broken somewhere).
  std::vector<egraph::Id> order;

  /// The canonical children of configuration `cfg`'s e-node.
  std::vector<egraph::Id> children(const NodeConfig& cfg) const;
};

/// One configuration per class (index into ProblemClass::configs); classes left out are not
/// computed.
using Assignment = std::unordered_map<egraph::Id, uint32_t>;

/// The objective of `a`: the configurations the results reach, each once, plus every distinct
/// conversion their reads and the results' way to DRAM need. Nullopt when a reached class has
/// no configuration, a conversion's cost is unknown, or the choice is cyclic.
std::optional<double> objective(const ExtractionProblem& problem, const Assignment& a);

/// A lower bound on the objective of every acyclic assignment: per class, the cheapest
/// configuration's cost plus the largest bound among its operands (the most expensive chain
/// of ops any plan runs one after another), the largest over the results.
double path_lower_bound(const ExtractionProblem& problem);

/// A lower bound on the objective of every acyclic assignment: the cheapest configuration of
/// each class every plan computes (a class, and what every one of its e-nodes needs through
/// some operand), each once. 0 for e-graphs over 8192 classes (the sets are bit sets).
double mandatory_lower_bound(const ExtractionProblem& problem);

/// The e-node choice of `a`, as rewrites::to_graph takes it. Throws InternalError when `a`
/// names a configuration `problem` does not hold.
rewrites::Selection selection_of(const ExtractionProblem& problem, const Assignment& a);

} // namespace tilesat::cost
