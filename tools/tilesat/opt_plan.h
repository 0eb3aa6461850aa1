// opt_plan.h: the planning half of `tilesat opt` (--device, --emit plan, --report).
#pragma once

#include "cli.h"
#include "tilesat/egraph/rewrite.h"
#include "tilesat/egraph/runner.h"
#include "tilesat/graph/module.h"

#include <span>

namespace tilesat::cli {

/// Plans every function of `file` on the device of `o.device` (default wormhole_b0) and prints
/// the plans (--emit plan) or the chosen programs as TTIR; writes --report FILE.json.
int run_opt_plan(const Options& o, std::span<const egraph::Rewrite> rules,
                 const egraph::RunnerConfig& runner, SourceFile& file);

} // namespace tilesat::cli
