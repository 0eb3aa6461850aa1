// TensorAnalysis: what the optimizer knows about each e-class (one logical tensor value).
//
// Guards and appliers read it: the value's type (dtype and shape, which never conflict on a
// merge: a conflict means an unsound rule and is an InternalError), its constant value when
// every element is the same known number (a splat: `full`, a splat `constant`, and data
// movement of one), how many users it had in the source graph, and whether it is a function
// argument.
//
//   auto& facts = *teg.egraph.find_analysis<TensorAnalysis>();
//   const TensorFacts& f = facts[teg.egraph.find(id)];
//   f.type.shape.rank();   f.splat;   f.users;   f.is_argument;
#pragma once

#include "tilesat/egraph/analysis.h"
#include "tilesat/egraph/egraph.h"
#include "tilesat/graph/attribute.h"
#include "tilesat/graph/tensor.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace tilesat::rewrites {

struct TensorFacts {
  TensorType type;
  /// Every element equals this value (known at compile time).
  std::optional<double> splat;
  /// Uses in the source graph (operands and results); a value created by a rewrite counts 1,
  /// the one user it was made for.
  uint32_t users = 0;
  /// For a value with several source users that all lead into later values (its
  /// post-dominators; x of `x * 0.5 * (1 + erf(x / sqrt 2))` leads into both multiplies):
  /// their classes, nearest first, and the classes of the ops on the way, each with the index
  /// of the first exit it lies before (what a fusion at that exit replaces). Empty when a use
  /// reaches a result first.
  std::vector<egraph::Id> exits;
  std::vector<std::pair<egraph::Id, uint32_t>> region;
  bool is_argument = false;
};

class TensorAnalysis final : public egraph::AnalysisOf<TensorFacts> {
public:
  /// `argument_types[i]` is the type of the argument with payload `[index=i]`.
  explicit TensorAnalysis(std::vector<TensorType> argument_types);

  TensorFacts make(const egraph::EGraph& eg, const egraph::ENode& node) const override;
  egraph::DidMerge merge(TensorFacts& a, TensorFacts b) const override;

  /// Records that class `cls` has `users` uses in the source graph (called while loading).
  void set_source_users(egraph::Id cls, uint32_t users);
  /// Records where the source uses of class `cls` come together (called while loading).
  void set_source_exits(egraph::Id cls, std::vector<egraph::Id> exits,
                        std::vector<std::pair<egraph::Id, uint32_t>> region);
  /// The graph attributes (defaults filled in) of a payload, cached per payload id.
  const Attrs& attrs_of(const egraph::EGraph& eg, const egraph::ENode& node) const;

private:
  std::vector<TensorType> argument_types_;
  mutable std::vector<std::optional<Attrs>> attr_cache_; // by AttrId
};

/// The source users of the value class `cls` holds, looking through data movement: a
/// reshape, permute or transpose of a value with several users stands for that value (a
/// rewrite's new class counts one user, so the flattened form of a residual add that feeds
/// both the next conv and the next add would count one). Looks `depth` moves up.
///   shared_users(eg, facts, flat_add);   // 2: its reshape's permute is the source add
uint32_t shared_users(const egraph::EGraph& eg, const TensorAnalysis& facts, egraph::Id cls,
                      int depth = 3);

/// The result type of `node` from its children's facts; throws tilesat::Error when its
/// operands or attributes are invalid (an ill-typed e-node).
TensorType infer_node_type(const egraph::EGraph& eg, const TensorAnalysis& facts,
                           const egraph::ENode& node);

} // namespace tilesat::rewrites
