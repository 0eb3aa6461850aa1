// Rule sets: the shipped rule files, selectable by name (`--rule-set transpose-folding`).
//
// Each rule set is one file `<name>.rules` in the rules directory, installed with the library
// under `<datadir>/tilesat/rules`. The directory is found at run time: `$TILESAT_DATA_DIR/rules`
// when that variable is set, else the source tree's `rewrites/rules` (for a build tree), else
// the installed one. A user's own file is loaded with load_rule_file (rule_file.h).
//
//   std::vector<std::string> names = rule_set_names();   // every shipped set, sorted
//   std::vector<egraph::Rewrite> rules = load_rule_sets({"transpose-folding", "canonical"});
//   std::vector<egraph::Rewrite> all = load_rule_sets(names);
#pragma once

#include "tilesat/egraph/rewrite.h"
#include "tilesat/rewrites/rule_file.h"

#include <span>
#include <string>
#include <vector>

namespace tilesat::rewrites {

/// The rules directory in use; throws tilesat::Error when none exists.
std::string rules_dir();
/// Names of the shipped rule sets (file stems in rules_dir()), sorted.
std::vector<std::string> rule_set_names();
/// The rule sets used when none is named: every shipped set but the opt-in ones (files whose
/// first line is `# opt-in`, such as `splitting`).
std::vector<std::string> default_rule_set_names();
/// The file of rule set `name`; throws tilesat::Error listing the known sets when unknown.
std::string rule_set_path(const std::string& name);
/// Loads the named rule sets, in order.
std::vector<RuleFile> load_rule_set_files(std::span<const std::string> names);
/// The rewrites of the named rule sets, concatenated in order.
std::vector<egraph::Rewrite> load_rule_sets(std::span<const std::string> names);
std::vector<egraph::Rewrite> load_rule_sets(std::initializer_list<std::string> names);

} // namespace tilesat::rewrites
