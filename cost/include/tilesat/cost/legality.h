// Legality of a plan, checked by Z3 with named constraints.
//
// Each constraint is asserted under its own name, for example
//   l1@%3#4        live L1 tensors + the op's footprint <= usable L1 per core (program point 4)
//   cbs@%3#4       circular buffers of the kernel <= the device limit
//   shard_fits@v7, shard_divides@v7, tile_aligned@v7   a sharded value's grid and shard shape
//   dst@%3#4, blocking_divides@%3#4                   a matmul's sub-block and blocks
// with the plan's numbers as constants; an illegal plan's unsat core names the violated ones,
// each with its numbers.
//
//   LegalityResult r = check_legality(plan, model);
//   if (!r.legal) for (const Violation& v : r.violations) fmt::print("{}: {}\n", v.name, v.detail);
//   require_legal(plan, model);    // throws tilesat::Error listing the violations
#pragma once

#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/plan.h"

#include <string>
#include <vector>

namespace tilesat::cost {

struct Violation {
  std::string name;
  std::string detail;
};

struct LegalityResult {
  bool legal = true;
  /// The unsat core: the named constraints that cannot hold together.
  std::vector<Violation> violations;
  /// How many named constraints were checked.
  size_t constraints = 0;
};

LegalityResult check_legality(const Plan& plan, const CostModel& model);
/// Throws tilesat::Error naming every violated constraint with its numbers.
void require_legal(const Plan& plan, const CostModel& model);

} // namespace tilesat::cost
