// projection.h: private to cost/: the extraction DP's choices, made per (class, placement),
// projected to one e-node per class.
//
// The DP prices every placement of a class on its own, so two placements of one class may be
// computed by different e-nodes reading different classes. A selection holds one e-node per
// class; the projection walks depth first from the results and lets the first demand of a
// class fix its e-node. Where that e-node would read a class still open on the walk's path (a
// class reshaped back into itself is its reshape's operand's operand), the walk takes another
// placement's choice, else another e-node of the class, else starts again by depth.
//
//   // Class a holds f(b) (placement 0) and g(leaf) (placement 1); b holds h(a@1) only.
//   Projection p = project_choices(eg, table, {{a, 0}});
//   // a -> f(b) would make b read a, which is open: b has no other way, so the walk starts
//   // again by depth and a takes g(leaf). p.by_depth == true.
#pragma once

#include "tilesat/egraph/egraph.h"

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tilesat::cost {

/// One way the DP computes a placement of a class: an e-node and the placement each of its
/// operands is read in (an index into that operand class's placements).
struct Choice {
  egraph::NodeId node = egraph::kNoId;
  std::vector<uint32_t> child_placement;
};

/// What the projection reads of a finished DP. Classes are canonical.
class ChoiceTable {
public:
  virtual ~ChoiceTable() = default;
  /// How many placements class `c` has.
  virtual uint32_t placements(egraph::Id c) const = 0;
  /// The DP's cost of placement `k` of `c`: infinite when it found no way to compute it.
  virtual double cost(egraph::Id c, uint32_t k) const = 0;
  /// The DP's choice for placement `k` of `c` (its node is kNoId when there is none).
  virtual const Choice& choice(egraph::Id c, uint32_t k) const = 0;
  /// The cheapest placement of `c`, nullopt when every placement's cost is infinite.
  virtual std::optional<uint32_t> cheapest(egraph::Id c) const = 0;
  /// Whether e-node `n` may compute its class outside the DP's choices (an op with a kernel,
  /// not an argument).
  virtual bool computes(egraph::NodeId n) const = 0;
};

/// The projection: for every class reached from the demands, its e-node and the placement
/// whose choice it is (for an e-node taken outside the DP's choices, the placement demanded).
struct Projection {
  std::unordered_map<egraph::Id, std::pair<egraph::NodeId, uint32_t>> chosen;
  /// Classes that took another placement's choice or another e-node than demanded.
  uint32_t detours = 0;
  /// Whether the walk started again with every class taking its placement shallowest in the
  /// DP's choices (then no detour is taken: those choices cannot read an open class).
  bool by_depth = false;
};

/// Projects the DP's choices to one e-node per class, walking depth first from `demands`
/// (each result's class and placement; the last first, and of an e-node's operands the last
/// first). Throws InternalError when the DP's choices themselves are cyclic, which a DP that
/// chooses only on strict improvement does not make.
Projection project_choices(const egraph::EGraph& eg, const ChoiceTable& dp,
                           std::span<const std::pair<egraph::Id, uint32_t>> demands);

} // namespace tilesat::cost
