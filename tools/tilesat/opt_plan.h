// opt_plan.h: the planning half of `tilesat opt` (--device, --emit plan, --report).
#pragma once

#include "cli.h"
#include "tilesat/egraph/runner.h"
#include "tilesat/graph/module.h"
#include "timing.h"

namespace tilesat::cli {

/// Plans every function of `file` on the device of `o.device` (default wormhole_b0) and prints
/// the plans (--emit plan) or the chosen programs as TTIR; writes --report FILE.json. A
/// program stores `weights` (an ONNX model's initializers), which may be moved from. Each
/// phase's wall time is added to `times`.
int run_opt_plan(const Options& o, const SelectedRules& rules, SourceFile& file,
                 std::map<std::string, Tensor, std::less<>>& weights, PhaseTimes* times);

} // namespace tilesat::cli
