// verify_rules.cpp: `tilesat verify-rules [FILE]...` prints, per rule, proved / REFUTED / not
// checkable; the exit status is 1 when any rule is refuted.
#include "cli.h"
#include "tilesat/rewrites/rule_sets.h"
#include "tilesat/rewrites/soundness.h"

#include <fmt/format.h>

namespace tilesat::cli {

int run_verify_rules(const Options& o) {
  std::vector<rewrites::RuleFile> files;
  if (o.rule_paths.empty()) {
    files = rewrites::load_rule_set_files(rewrites::rule_set_names());
  } else {
    for (const std::string& p : o.rule_paths) files.push_back(rewrites::load_rule_file(p));
  }
  size_t proved = 0, refuted = 0, unchecked = 0;
  for (const rewrites::RuleFile& f : files) {
    fmt::print("// {}\n", f.path);
    for (const rewrites::RuleCheck& c : rewrites::check_rule_file(f)) {
      fmt::print("{}:{}: {}\n", c.origin.file, c.origin.line, c.to_string());
      proved += c.status == rewrites::Soundness::Proved ? 1 : 0;
      refuted += c.status == rewrites::Soundness::Refuted ? 1 : 0;
      unchecked += c.status == rewrites::Soundness::NotCheckable ? 1 : 0;
    }
    // Layout and reads lines choose placements, not equal programs: nothing to prove.
    if (!f.layouts.empty() || !f.reads.empty())
      fmt::print("// {} layout line{} and {} reads line{}: placements, not rewrites\n",
                 f.layouts.size(), f.layouts.size() == 1 ? "" : "s", f.reads.size(),
                 f.reads.size() == 1 ? "" : "s");
    // Mesh lines choose how ops split over chips (the cost model's DP; the runtime's check
    // compares with one chip).
    if (!f.meshes.empty())
      fmt::print("// {} mesh line{}: distributions over a mesh, not rewrites\n", f.meshes.size(),
                 f.meshes.size() == 1 ? "" : "s");
  }
  fmt::print("{} proved, {} refuted, {} not checkable\n", proved, refuted, unchecked);
  return refuted > 0 ? 1 : 0;
}

} // namespace tilesat::cli
