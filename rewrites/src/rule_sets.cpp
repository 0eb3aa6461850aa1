// rule_sets.cpp: finding the rules directory and loading rule sets by name.
#include "tilesat/rewrites/rule_sets.h"

#include "tilesat/graph/data_files.h"
#include "tilesat/graph/diagnostic.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

namespace tilesat::rewrites {
namespace fs = std::filesystem;

std::string rules_dir() {
  return find_data_dir("rules", {TILESAT_SOURCE_RULES_DIR, TILESAT_INSTALL_RULES_DIR});
}

std::vector<std::string> rule_set_names() {
  return data_file_names(rules_dir(), ".rules");
}

std::vector<std::string> default_rule_set_names() {
  std::vector<std::string> out;
  for (const std::string& name : rule_set_names()) {
    std::ifstream in(fs::path(rules_dir()) / (name + ".rules"));
    std::string first;
    std::getline(in, first);
    if (!first.starts_with("# opt-in")) out.push_back(name);
  }
  return out;
}

std::string rule_set_path(const std::string& name) {
  fs::path p = fs::path(rules_dir()) / (name + ".rules");
  if (name.find('/') == std::string::npos && fs::is_regular_file(p)) return p.string();
  throw Error(fmt::format("unknown rule set '{}' (rule sets: {})", name,
                          fmt::join(rule_set_names(), ", ")));
}

std::vector<RuleFile> load_rule_set_files(std::span<const std::string> names) {
  std::vector<RuleFile> out;
  for (const std::string& n : names) out.push_back(load_rule_file(rule_set_path(n)));
  return out;
}

std::vector<egraph::Rewrite> load_rule_sets(std::span<const std::string> names) {
  std::vector<egraph::Rewrite> out;
  for (RuleFile& f : load_rule_set_files(names)) {
    for (egraph::Rewrite& r : f.rewrites) out.push_back(std::move(r));
  }
  return out;
}

std::vector<egraph::Rewrite> load_rule_sets(std::initializer_list<std::string> names) {
  std::vector<std::string> v(names);
  return load_rule_sets(std::span<const std::string>(v));
}

} // namespace tilesat::rewrites
